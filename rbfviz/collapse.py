"""The collapse experiment in one call: anneal from the data mean, take K-Means'
fixed point C* from the end point, and measure how the soft fixed points approach it as σ falls
(what ``python -m rbfviz anneal`` prints and the app's Annealing view shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .annealing import NOISE, _anneal, _anneal_checks, _default_sigmas, _fixed_points
from .jsonable import jsonable
from .measures import (
    SlopeFit,
    _critical_sigma_predicted,
    _dtype_name,
    _gamma_gap,
    _gamma_gap_bound,
    _kmeans_reference,
    _min_sq_gap,
    _resp_and_distances,
    _sigma_exact,
    _sigma_softmax_exact,
    collapse_error,
    critical_sigma_measured,
    fit_loglog_slope,
    label_agreement,
    monotone_violations,
    sigma_exact_measured,
)
from .steps import _kmeans
from .validate import check_centers, check_k, check_kind, check_points, check_sigmas, entmax_alpha

# --- the collapse experiment -----------------------------------------------------


@dataclass(frozen=True, eq=False)
class CollapseStudy:
    """One collapse experiment: anneal, K-Means reference, E(σ) and its thresholds.

    Protocol:
    1. ``anneal`` X from the data mean down the σ grid (``path`` holds the full AnnealResult).
    2. K-Means reference: scikit-learn's Lloyd run to its fixed point from the annealed end point (or
       from ``kmeans_init`` if given; k-means++ if the end point is not finite, e.g. "naive").
       ``kmeans_centers`` C* are the means of that partition computed in the working dtype with
       rbfviz's own centroid code, so an exactly hard soft map gives E == 0 bit for bit instead of a
       summation-order difference.
    3. At every grid σ below the predicted first critical σ, EM from C* to the soft fixed point C_σ
       (``fixed_point_centers``); above it that fixed point is the data mean, so it is
       not computed (NaN).
    4. ``error`` E(σ) = ||C_σ[perm] - C*||_F after Hungarian matching; ``error_path`` the same for the
       annealed path's centres.
    5. ``slope``: log-log fit of E on σ* <= σ < σ_c with E above ``error_floor`` (rounding level).
    """

    kind: str
    dtype: str
    n: int
    k: int
    sigmas: np.ndarray  # (S,) decreasing
    path: object  # AnnealResult of step 1
    kmeans_centers: np.ndarray  # (k, d) C*
    kmeans_labels: np.ndarray  # (n,)
    kmeans_start: str  # "annealed end point" | "k-means++" | "given"
    fixed_point_centers: np.ndarray  # (S, k, d), NaN above σ_c
    fixed_point_iterations: np.ndarray  # (S,) EM iterations from C* (0 where not computed)
    fixed_point_converged: np.ndarray  # (S,) bool
    error: np.ndarray  # (S,) E(σ) from C* (NaN above σ_c or where the map failed)
    error_path: np.ndarray  # (S,) ||annealed centres - C*|| after matching
    error_floor: float  # E at or below this counts as rounding (slope fit only)
    slope: SlopeFit
    g_min: float  # min gap at C*
    sigma_exact_predicted: float  # σ*(α) = √((α-1)·g_min/2) for α-entmax; √g_min/2 (α = 1.5) otherwise
    sigma_softmax_exact: float  # √(g_min / 73.4)
    sigma_exact_measured: float | None  # from ``error``: E == 0 at this and every smaller grid σ
    sigma_critical_predicted: float
    sigma_critical_measured: float | None
    nan_rows: np.ndarray  # (S,) NaN rows of r(X, C*, σ): the map's own failure count
    loss_gap: np.ndarray  # (S,) L_σ - J at the fixed point C_σ
    loss_gap_bound: np.ndarray  # (S,) its uniform bound
    monotone_violations: int  # increases of ``error`` as σ falls (rtol 1e-6, atol error_floor)
    label_agreement: float  # argmax r at the smallest σ's fixed point vs K-Means labels

    def to_dict(self) -> dict:
        path = self.path
        return jsonable(
            {
                "kind": self.kind,
                "dtype": self.dtype,
                "n": self.n,
                "k": self.k,
                "sigmas": self.sigmas,
                "centers": path.centers,
                "kmeans_centers": self.kmeans_centers,
                "kmeans_start": self.kmeans_start,
                "fixed_point_centers": self.fixed_point_centers,
                "error": self.error,
                "error_path": self.error_path,
                "error_floor": self.error_floor,
                "slope": self.slope.to_dict(),
                "g_min": self.g_min,
                "sigma_exact_predicted": self.sigma_exact_predicted,
                "sigma_softmax_exact": self.sigma_softmax_exact,
                "sigma_exact_measured": self.sigma_exact_measured,
                "sigma_critical_predicted": self.sigma_critical_predicted,
                "sigma_critical_measured": self.sigma_critical_measured,
                "nan_rows": self.nan_rows,
                "nan_rows_path": path.nan_rows,
                "loss_gap": self.loss_gap,
                "loss_gap_bound": self.loss_gap_bound,
                "monotone_violations": self.monotone_violations,
                "label_agreement": self.label_agreement,
                "anneal_iterations": path.iterations,
                "anneal_converged": path.converged,
                "fixed_point_iterations": self.fixed_point_iterations,
                "fixed_point_converged": self.fixed_point_converged,
            }
        )


def collapse_study(
    X,
    k,
    kind="softmax",
    dtype="float64",
    sigmas=None,
    seed=0,
    init=None,
    kmeans_init=None,
    tol=1e-10,
    max_iter=500,
    progress=None,
) -> CollapseStudy:
    """Run the collapse experiment (see ``CollapseStudy`` for the protocol) on X (n, d).

    kind: the map; dtype: "float32" | "float64" (X is cast); sigmas: decreasing grid (default
    ``default_sigmas``); seed, init, tol, max_iter: passed to ``anneal``; kmeans_init: optional (k, d)
    start for the K-Means reference (e.g. to share one C* between kinds); progress(done, total).
    """
    dtype = _dtype_name(dtype)
    X = check_points(X, "X")
    if X.dtype != dtype:  # the cast can leave a float32's range: checked again in the working dtype
        X = check_points(X.astype(dtype), "X")
    k = check_k(k, X.shape[0])
    kind = check_kind(kind)
    if sigmas is None:
        sigmas = _default_sigmas(X, k, kind)
    sigmas = check_sigmas(sigmas)
    total = 2 * sigmas.size
    outer = None if progress is None else (lambda done, _: progress(done, total))
    # X and k are checked above: the run checks the rest of anneal's arguments here, once, then trusts them
    sigmas, kind, init, seed, tol, max_iter, outer, noise = _anneal_checks(
        X, k, sigmas, kind, init, seed, tol, max_iter, outer, NOISE
    )
    path = _anneal(X, k, sigmas, kind, init, seed, tol, max_iter, outer, noise)

    X64 = X.astype(np.float64)
    if kmeans_init is not None:
        start, how = check_centers(kmeans_init, X, "kmeans_init"), "given"
        if start.shape[0] != k:
            raise ValueError(f"kmeans_init has {start.shape[0]} centres but k={k}.")
    elif np.all(np.isfinite(path.centers[-1])):
        start, how = path.centers[-1], "annealed end point"
    else:
        start, how = _kmeans(X64, k=k, seed=seed)[0], "k-means++"
    C_star, labels = _kmeans_reference(X, np.asarray(start, np.float64), X64)

    sigma_c = _critical_sigma_predicted(X, "softmax" if kind == "naive" else kind, m=k)
    S = sigmas.size
    fixed = np.full((S, k, X.shape[1]), np.nan, dtype=X.dtype)
    iterations = np.zeros(S, dtype=np.int64)
    converged = np.zeros(S, dtype=bool)
    nan_rows = np.zeros(S, dtype=np.int64)
    loss_gap = np.full(S, np.nan)
    bounds = np.array([_gamma_gap_bound(X.shape[0], k, float(s), kind) for s in sigmas])
    below = np.flatnonzero(sigmas < sigma_c)
    if below.size:
        # every level's EM from C* at once, each level the bits of its own run (``annealing.fixed_points``):
        # one set of array operations per round instead of one per level and step
        fixed[below], iterations[below], converged[below] = _fixed_points(
            X,
            np.asarray(C_star, dtype=X.dtype),
            sigmas[below],
            kind,
            tol,
            max_iter,
            progress=None if progress is None else (lambda done, _: progress(S + done, total)),
        )
    for s, sigma in enumerate(sigmas):
        sigma = float(sigma)
        if kind == "naive":  # the one map whose rows can fail (NaN): the others' count stays 0
            resp_star, _ = _resp_and_distances(X, C_star, sigma, kind)
            nan_rows[s] = int(np.isnan(resp_star).any(axis=1).sum())
        if sigma < sigma_c and np.all(np.isfinite(fixed[s])):
            loss_gap[s] = _gamma_gap(X, fixed[s], sigma, kind).gap
    if progress is not None:
        progress(total, total)

    error = collapse_error(fixed, C_star)
    error_path = collapse_error(path.centers, C_star)
    scale = path.data_scale
    floor = 100.0 * float(np.finfo(X.dtype).eps) * scale * math.sqrt(k)
    g_min = _min_sq_gap(X, C_star)
    alpha = entmax_alpha(kind)  # σ* of this study's α-entmax; entmax15's for the maps that are never sparse
    sigma_star = _sigma_exact(g_min, 1.5 if alpha is None else alpha)
    slope = fit_loglog_slope(sigmas, error, sigma_min=sigma_star, sigma_max=sigma_c, min_error=floor)
    last = int(np.flatnonzero(np.isfinite(error))[-1]) if np.isfinite(error).any() else S - 1
    resp_last, _ = _resp_and_distances(
        X, fixed[last] if np.isfinite(error[last]) else C_star, float(sigmas[last]), kind
    )
    return CollapseStudy(
        kind=kind,
        dtype=dtype,
        n=X.shape[0],
        k=k,
        sigmas=sigmas,
        path=path,
        kmeans_centers=C_star,
        kmeans_labels=labels,
        kmeans_start=how,
        fixed_point_centers=fixed,
        fixed_point_iterations=iterations,
        fixed_point_converged=converged,
        error=error,
        error_path=error_path,
        error_floor=floor,
        slope=slope,
        g_min=g_min,
        sigma_exact_predicted=sigma_star,
        sigma_softmax_exact=_sigma_softmax_exact(g_min),
        sigma_exact_measured=sigma_exact_measured(sigmas, error),
        sigma_critical_predicted=sigma_c,
        sigma_critical_measured=critical_sigma_measured(path),
        nan_rows=nan_rows,
        loss_gap=loss_gap,
        loss_gap_bound=bounds,
        monotone_violations=monotone_violations(error, rtol=1e-6, atol=floor),
        label_agreement=label_agreement(resp_last, labels),
    )
