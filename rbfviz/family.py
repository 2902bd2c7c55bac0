"""Exact collapse across the α-entmax family: when does each α make every row one-hot?

α-entmax gives r_ij = [(α-1) z_ij - τ_i]₊^{1/(α-1)}, so a row is exactly one-hot iff its top two logits
differ by at least 1/(α-1). With z = -d/(2σ²) the logit gap of row i is g_i/(2σ²), g_i = d_i(2) - d_i(1),
so every row at the centres C is one-hot for

    σ <= σ*(α) = √((α-1)·g_min/2)        (α = 1.5: √g_min/2; α = 2, sparsemax: √(g_min/2)).

Below σ*(α) one EM step from the K-Means centroids returns them exactly. ``family_collapse`` measures
the first σ of a decreasing grid from which every row is one-hot (at that σ and every smaller one), for
several α in float32 and float64, and the share of exact zeros at every σ; ``collapse_sigma_curve`` is
the closed form over α.

Units: σ in the units of X, gaps in units of X squared.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch

from .jsonable import jsonable
from .maps import _stable_columns_, sq_distance_columns, temperature
from .measures import _min_sq_gap, _sigma_exact
from .validate import (
    ALPHA_MAX,
    ALPHA_MIN,
    DTYPES,
    check_alpha,
    check_centers,
    check_int,
    check_points,
    check_sigmas,
    entmax_kind,
)

# the α at which the app and ``rbfviz reproduce`` measure the collapse
FAMILY_ALPHAS = (1.1, 1.25, 1.5, 1.75, 2.0)


def collapse_sigma_curve(g_min: float, alphas) -> np.ndarray:
    """σ*(α) = √((α-1)·g_min/2) for each α (array (A,)); g_min >= 0 in data units squared."""
    g_min = float(g_min)
    if not (g_min >= 0):
        raise ValueError(f"g_min must be a number >= 0, got {g_min!r}.")
    return np.array([_sigma_exact(g_min, check_alpha(a)) for a in np.atleast_1d(alphas)], dtype=float)


def collapse_grid(g_min: float, scale: float, num: int = 100) -> np.ndarray:
    """A decreasing geometric σ grid (num,) from 8·σ*(2) down to σ*(1.05)/1.5: it brackets every σ*(α)
    of the family, and starts high enough for the share of exact zeros to rise visibly (a step of about
    4 % at num = 100). For g_min = 0 (a point equidistant from two centres: no σ makes it one-hot) it
    spans scale down to 1e-4·scale instead."""
    num = check_int(num, "num", 3)
    top, bottom = 8.0 * _sigma_exact(g_min, ALPHA_MAX), _sigma_exact(g_min, ALPHA_MIN) / 1.5
    if not (math.isfinite(top) and bottom > 0):
        top, bottom = scale, 1e-4 * scale
    return np.geomspace(top, bottom, num)


@dataclass(frozen=True, eq=False)
class FamilyCollapse:
    """Predicted against measured exact-collapse σ for several α, at fixed centres.

    g_min: the smallest gap at the centres (float64). alphas (A,); sigmas (S,) decreasing.
    predicted (A,): σ*(α). measured: {dtype: (A,)} the largest grid σ from which every row is exactly
    one-hot at every smaller grid σ (NaN if never). step (A,): the grid spacing just above each
    measured value (NaN if never), so ``within_step`` = |measured - predicted| <= step. zero_share:
    {dtype: (A, S)} the share of exact zeros among all n·k responsibilities. one_hot_share: {dtype:
    (A, S)} the share of rows that are exactly one-hot.
    """

    g_min: float
    alphas: np.ndarray
    sigmas: np.ndarray
    predicted: np.ndarray
    measured: dict
    step: dict
    within_step: dict
    zero_share: dict
    one_hot_share: dict

    def misses(self) -> list[dict]:
        """Every (dtype, α) whose measured σ is not within one grid step of σ*(α), with the numbers."""
        return [
            {
                "dtype": dtype,
                "alpha": float(alpha),
                "predicted": float(self.predicted[a]),
                "measured": float(self.measured[dtype][a]),
                "step": float(self.step[dtype][a]),
            }
            for dtype in self.measured
            for a, alpha in enumerate(self.alphas)
            if not self.within_step[dtype][a]
        ]

    def to_dict(self) -> dict:
        return jsonable(asdict(self))


def family_collapse(X, C, alphas=FAMILY_ALPHAS, sigmas=None, dtypes=DTYPES) -> FamilyCollapse:
    """Measure, for each α, the first σ from which α-entmax makes every row of X exactly one-hot at C.

    Parameters
    ----------
    X : (n, d) points; C : (k, d) centres, k >= 2 (usually the K-Means centroids C*). Both are cast to
        each dtype; g_min is taken in float64.
    alphas : α values in [1.05, 2].
    sigmas : decreasing σ grid (data units); None takes ``collapse_grid(g_min, data scale)``.
    dtypes : precisions by name ("float64", "float32").
    """
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    if C.shape[0] < 2:
        raise ValueError("family_collapse needs k >= 2 centres: with one centre every row is one-hot.")
    alphas = np.array([check_alpha(a) for a in np.atleast_1d(alphas)], dtype=float)
    g_min = _min_sq_gap(X, C)
    if sigmas is None:
        sigmas = collapse_grid(g_min, float(np.sqrt(((X - X.mean(axis=0)) ** 2).sum(axis=1).mean())) or 1.0)
    sigmas = check_sigmas(sigmas)
    if np.any(np.diff(sigmas) >= 0):
        raise ValueError("sigmas must be strictly decreasing.")
    predicted = collapse_sigma_curve(g_min, alphas)
    measured, step, within, zeros, one_hot = {}, {}, {}, {}, {}
    for dtype in dtypes:
        zeros[dtype], one_hot[dtype] = _shares(X.astype(dtype), C.astype(dtype), alphas, sigmas)
        first = np.array([_first_all_one_hot(sigmas, row) for row in one_hot[dtype]])
        measured[dtype] = np.array([sigmas[i] if i is not None else np.nan for i in first])
        step[dtype] = np.array(
            [sigmas[i - 1] - sigmas[i] if i is not None and i > 0 else np.nan for i in first]
        )
        within[dtype] = np.abs(measured[dtype] - predicted) <= step[dtype]  # False where NaN
    return FamilyCollapse(g_min, alphas, sigmas, predicted, measured, step, within, zeros, one_hot)


def _shares(X: np.ndarray, C: np.ndarray, alphas: np.ndarray, sigmas: np.ndarray):
    """(zero share (A, S), one-hot row share (A, S)) of α-entmax at C over the grid, in X's dtype. The
    shifted distances d - d_min are computed once; every σ level of one α goes through the map in one
    call, the levels side by side as columns, each column with its own T = 2σ² (the map works column by
    column, so this gives the same bits as one ``resp_columns`` call per σ)."""
    D = sq_distance_columns(X, C)  # (k, n)
    shifted = D - D.min(axis=0)
    k, n = D.shape
    T = np.repeat(np.array([temperature(s) for s in sigmas], dtype=X.dtype), n)[None, :]  # (1, S·n)
    zeros = np.empty((alphas.size, sigmas.size))
    one_hot = np.empty_like(zeros)
    for a, alpha in enumerate(alphas):
        with torch.no_grad():
            resp = _stable_columns_(np.tile(shifted, sigmas.size), T, entmax_kind(alpha))
        nonzero = np.count_nonzero(resp, axis=0).reshape(sigmas.size, n)
        zeros[a] = 1.0 - nonzero.sum(axis=1) / (k * n)
        one_hot[a] = (nonzero == 1).mean(axis=1)
    return zeros, one_hot


def _first_all_one_hot(sigmas: np.ndarray, one_hot_share: np.ndarray) -> int | None:
    """Index of the largest grid σ (sigmas decreasing) from which every row is one-hot at every smaller
    σ; None if the smallest σ already has a soft row."""
    found = None
    for i in range(sigmas.size - 1, -1, -1):
        if one_hot_share[i] < 1.0:
            break
        found = i
    return found


def exact_collapse_answer(X, C, alphas=(1.5, 2.0), dtype="float64") -> dict:
    """Which of two α becomes exactly K-Means at the larger σ, predicted and measured at centres C.

    Returns {"alphas", "predicted", "measured" (both (2,)), "larger": the α with the larger measured σ
    (None if neither collapses on the grid or they tie), "ratio_predicted": σ*(α₂)/σ*(α₁) =
    √((α₂-1)/(α₁-1)), "ratio_measured", "g_min"}.
    """
    result = family_collapse(X, C, alphas=alphas, dtypes=(dtype,))
    measured = result.measured[dtype]
    larger = None
    if np.all(np.isfinite(measured)) and measured[0] != measured[1]:
        larger = float(result.alphas[int(np.argmax(measured))])
    return {
        "alphas": result.alphas,
        "predicted": result.predicted,
        "measured": measured,
        "larger": larger,
        "ratio_predicted": float(result.predicted[1] / result.predicted[0]),
        "ratio_measured": float(measured[1] / measured[0]),
        "g_min": result.g_min,
        "within_step": result.within_step[dtype],
    }
