"""Gradient descent on the RBF loss vs Lloyd's algorithm, step by step.

With r detached, ∇_{c_j} L_σ = -2 Σ_i r_ij (x_i - c_j) = -2 N_j (x̄_j - c_j), so one gradient step
with η_j = 1/(2N_j) lands exactly on the soft centroid x̄_j (the EM update). As σ → 0 the
responsibilities become hard and that step is Lloyd's. This module measures both statements:

* ``one_step(X, C0, sigma, kind)``      – the GD step, the EM step and the Lloyd step from C0.
* ``trajectories(X, C0, sigma, kind, steps)`` – T GD steps and T Lloyd steps from the same C0.
* ``gap_curve(X, C, sigmas, kind)``     – L_σ − J and its bound at fixed centres over a σ grid.

Every function computes in X's dtype; results are float64 numpy arrays for display.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rbfviz.maps import resp_torch
from rbfviz.measures import _gamma_gap
from rbfviz.steps import gradient_step_torch, soft_centroids_torch
from rbfviz.validate import (
    check_int,
    check_map_arguments,
    check_map_arguments_on_grid,
)


def _max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def _lloyd_torch(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return soft_centroids_torch(x, c, resp_torch(x, c, 1.0, "hard"))


@dataclass(frozen=True)
class OneStep:
    """One update of every centre from start (k, d), all float64.

    gd: c_j − η_j ∇L_σ with η_j = 1/(2N_j) (autograd, r detached); em: the soft centroids x̄_j;
    lloyd: the hard centroids. masses: N_j at the start. gd_vs_em = max|gd − em| (the identity:
    rounding only); gd_vs_lloyd = max|gd − lloyd| (→ 0 as σ → 0).
    """

    start: np.ndarray
    gd: np.ndarray
    em: np.ndarray
    lloyd: np.ndarray
    masses: np.ndarray
    gd_vs_em: float
    gd_vs_lloyd: float


def one_step(X, C0, sigma: float, kind: str = "softmax") -> OneStep:
    """The gradient step, the EM step and the Lloyd step from C0 (k, d) for points X (n, d) at σ."""
    X, C0, sigma, kind = check_map_arguments(X, C0, sigma, kind, centers_name="C0")
    x, c = torch.from_numpy(X), torch.from_numpy(C0)
    gd = gradient_step_torch(x, c, sigma, kind).numpy()
    with torch.no_grad():
        resp = resp_torch(x, c, sigma, kind)
        em = soft_centroids_torch(x, c, resp).numpy()
        masses = resp.sum(0).numpy()
        lloyd = _lloyd_torch(x, c).numpy()
    f64 = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
    return OneStep(
        start=f64(C0),
        gd=f64(gd),
        em=f64(em),
        lloyd=f64(lloyd),
        masses=f64(masses),
        gd_vs_em=_max_abs_diff(gd, em),
        gd_vs_lloyd=_max_abs_diff(gd, lloyd),
    )


@dataclass(frozen=True)
class Trajectories:
    """T steps of each algorithm from the same start; arrays float64.

    gd (T+1, k, d): gradient steps with η_j = 1/(2N_j) at σ; lloyd (T+1, k, d): Lloyd steps.
    difference (T+1,): max_j,f |gd_t − lloyd_t| (0 at t = 0). loss (T+1,): L_σ at gd_t;
    distortion (T+1,): J at lloyd_t.
    """

    sigma: float
    kind: str
    gd: np.ndarray
    lloyd: np.ndarray
    difference: np.ndarray
    loss: np.ndarray
    distortion: np.ndarray


def trajectories(X, C0, sigma: float, kind: str = "softmax", steps: int = 25) -> Trajectories:
    """Run ``steps`` gradient steps (η_j = 1/(2N_j)) and ``steps`` Lloyd steps from C0 (k, d)."""
    X, C0, sigma, kind = check_map_arguments(X, C0, sigma, kind, centers_name="C0")
    steps = check_int(steps, "steps", 1, 10_000)
    x = torch.from_numpy(X)
    gd, lloyd = [torch.from_numpy(C0)], [torch.from_numpy(C0)]
    for _ in range(steps):
        gd.append(gradient_step_torch(x, gd[-1], sigma, kind))
        with torch.no_grad():
            lloyd.append(_lloyd_torch(x, lloyd[-1]))
    gd_np = np.stack([c.numpy() for c in gd]).astype(np.float64)
    lloyd_np = np.stack([c.numpy() for c in lloyd]).astype(np.float64)
    difference = np.abs(gd_np - lloyd_np).reshape(steps + 1, -1).max(axis=1)
    loss, distortion = [], []
    for c_gd, c_lloyd in zip(gd, lloyd):
        if torch.isfinite(c_gd).all():
            loss.append(_gamma_gap(X, c_gd.numpy(), sigma, kind).loss)
        else:
            loss.append(np.nan)
        distortion.append(_gamma_gap(X, c_lloyd.numpy(), sigma, "hard").distortion)
    return Trajectories(
        sigma=sigma,
        kind=kind,
        gd=gd_np,
        lloyd=lloyd_np,
        difference=difference,
        loss=np.array(loss, dtype=np.float64),
        distortion=np.array(distortion, dtype=np.float64),
    )


@dataclass(frozen=True)
class GapCurve:
    """L_σ − J at fixed centres over a σ grid: sigmas (S,), loss, distortion, gap, bound (S,), within (S,)
    bool."""

    sigmas: np.ndarray
    loss: np.ndarray
    distortion: np.ndarray
    gap: np.ndarray
    bound: np.ndarray
    within: np.ndarray


def gap_curve(X, C, sigmas, kind: str = "softmax") -> GapCurve:
    """``rbfviz.measures.gamma_gap`` at every σ of the grid, for the same centres C (k, d)."""
    X, C, sigmas, kind = check_map_arguments_on_grid(X, C, sigmas, kind)
    rows = [_gamma_gap(X, C, float(s), kind) for s in sigmas]
    get = lambda name: np.array([getattr(r, name) for r in rows], dtype=np.float64)  # noqa: E731
    return GapCurve(
        sigmas=sigmas.astype(np.float64),
        loss=get("loss"),
        distortion=get("distortion"),
        gap=get("gap"),
        bound=get("bound"),
        within=np.array([r.within_bound for r in rows]),
    )
