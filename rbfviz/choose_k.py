"""How many clusters? Three answers: deterministic annealing's plateau, the elbow of J(k), the silhouette.

* **The annealing answer** (Rose, Gurewitz & Fox 1990; Rose 1998). Anneal a generous number of
  centres k_max from the data mean down a decreasing σ grid (``rbfviz.annealing.anneal``). At every σ
  count the *distinct* centres: centres closer than ``tol`` × the data scale are one centre (they are
  stacked copies that have not split yet). The count is a staircase in log σ; the answer is the count
  whose step is widest in log σ. Two steps never compete: count 1 lives for ever above σ_c, and count
  k_max for ever as σ → 0, so only counts 2 … k_max − 1 do. The window is therefore bounded above by
  the first split (σ_c) and below by the σ where all k_max centres are first apart (or the grid's
  bottom, if they never are).
* **The elbow of J(k)**: K-Means inertia for k = 1 … k_max (scikit-learn ``KMeans``), and the k
  farthest below the chord joining the curve's two ends, on axes scaled to [0, 1] (the "kneedle"
  rule of Satopää et al. 2011).
* **The silhouette**: scikit-learn's mean silhouette coefficient of the K-Means labels for
  k = 2 … k_max (on a seeded subsample when n is large); the answer is the k with the highest score.

Units: σ and tolerances in data units; J in squared data units (a sum over points, not a mean);
log σ widths in natural-log units (nepers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .annealing import _anneal, _anneal_checks, _check_decreasing, data_scale
from .i18n import Invalid
from .measures import _critical_sigma_predicted
from .splits import _stack_groups
from .steps import _kmeans
from .validate import check_int, check_kind, check_points, check_sigmas

# Centres closer than this (× data scale) count as one. Coincident centres end each annealing level
# within ~1e-3 × scale of each other at most (the symmetry-breaking noise, shrunk by EM above their own
# critical σ); a genuine split grows continuously from zero, so it is counted a level or two after it
# starts, once the halves are 1 % of the data scale apart.
DISTINCT_TOL = 1e-2
# Silhouettes of more points than this are computed on a seeded subsample of this size (O(n²) cost).
SILHOUETTE_SAMPLE = 2000
# The smallest k_max that leaves a count to choose: 1 and k_max never compete, so 2 must be inside.
K_MAX_MIN = 3


def _check_k_max(k_max, n: int) -> int:
    """k_max between 3 and n − 1 (the silhouette needs at least one cluster with two points)."""
    if n < K_MAX_MIN + 1:
        raise Invalid(
            "choosing k needs at least {least} points (k_max >= {low} and k_max < n), got n = {n}.",
            least=K_MAX_MIN + 1,
            low=K_MAX_MIN,
            n=n,
        )
    return check_int(k_max, "k_max", K_MAX_MIN, n - 1)


def _check_tol(tol, name: str = "tol") -> float:
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating, np.integer)):
        raise ValueError(f"{name} must be a positive finite number, got {tol!r}.")
    if not (math.isfinite(float(tol)) and tol > 0):
        raise ValueError(f"{name} must be a positive finite number, got {tol!r}.")
    return float(tol)


# --- distinct centres -------------------------------------------------------------------------------


def distinct_count(centers, tol: float) -> int:
    """The number of distinct centres among ``centers`` (k, d): groups of centres linked by chains of
    pairwise distances <= ``tol`` (data units) count as one (single linkage at height tol).

    NaN centres (a broken map) are each counted as one centre of their own.
    """
    centers = np.asarray(centers, dtype=np.float64)
    if centers.ndim != 2 or centers.shape[0] < 1:
        raise ValueError(f"centers must have shape (k, d) with k >= 1, got shape {centers.shape}.")
    return _distinct_count(centers, _check_tol(tol))


def _distinct_count(centers: np.ndarray, tol: float) -> int:
    # the same single-linkage stacks that rbfviz.splits detects splits with; scipy's linkage takes no
    # NaN, and a NaN centre is linked to nothing anyway
    finite = np.isfinite(centers).all(axis=1)
    stacks = len(_stack_groups(centers[finite], tol)) if finite.any() else 0
    return int((~finite).sum()) + stacks


def distinct_counts(centers, tol: float) -> np.ndarray:
    """``distinct_count`` at every level of ``centers`` (S, k, d): (S,) int."""
    centers = np.asarray(centers, dtype=np.float64)
    if centers.ndim != 3 or centers.shape[0] < 1 or centers.shape[1] < 1:
        raise ValueError(f"centers must have shape (S, k, d) with S, k >= 1, got shape {centers.shape}.")
    tol = _check_tol(tol)
    return np.array([_distinct_count(c, tol) for c in centers], dtype=np.int64)


# --- the widest plateau -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Plateau:
    """The widest step of a distinct-centre staircase.

    count: the number of distinct centres on it (None if no count between 2 and k_max − 1 occurs).
    first, last: indices of its first and last σ level (σ decreasing), -1 if count is None.
    sigma_high, sigma_low: where the step begins and ends in σ (data units): the geometric midpoints
        to the neighbouring levels, or the level itself at an end of the grid.
    width: log(sigma_high / sigma_low), natural log; 0 if count is None.
    truncated: the step runs into the bottom of the grid (k_max centres never all came apart), so its
        true width may be larger.
    """

    count: int | None
    first: int
    last: int
    sigma_high: float
    sigma_low: float
    width: float
    truncated: bool


def _edges(sigmas: np.ndarray) -> np.ndarray:
    """(S + 1,) log σ edges of each level's cell: geometric midpoints, and the end levels themselves."""
    log_s = np.log(sigmas)
    return np.concatenate([log_s[:1], (log_s[:-1] + log_s[1:]) / 2.0, log_s[-1:]])


def widest_plateau(sigmas, counts, k_max) -> Plateau:
    """The count whose unbroken run of σ levels is widest in log σ (deterministic annealing's answer).

    Parameters
    ----------
    sigmas : (S,) strictly decreasing σ levels (data units).
    counts : (S,) distinct-centre counts at those levels, each between 1 and k_max.
    k_max : the number of centres annealed (>= 3).

    Notes
    -----
    Only counts 2 … k_max − 1 compete: count 1 lasts for ever above σ_c and k_max for ever as σ → 0,
    so their runs measure the grid, not the data. A run's width is log(σ_high/σ_low) between the
    geometric midpoints to its neighbouring levels (a run at an end of the grid stops at its end
    level). Ties go to the smaller count: the coarser answer that needs fewer clusters.
    """
    sigmas = check_sigmas(sigmas)
    _check_decreasing(sigmas)
    k_max = check_int(k_max, "k_max", K_MAX_MIN)
    counts = np.asarray(counts)
    if counts.shape != sigmas.shape:
        raise ValueError(f"counts must have the shape of sigmas {sigmas.shape}, got {counts.shape}.")
    if not np.issubdtype(counts.dtype, np.integer):
        if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)):
            raise ValueError("counts must be whole numbers.")
    counts = counts.astype(np.int64)
    if np.any(counts < 1) or np.any(counts > k_max):
        raise ValueError(f"counts must lie between 1 and k_max = {k_max}.")
    return _widest_plateau(sigmas, counts, k_max)


def _widest_plateau(sigmas: np.ndarray, counts: np.ndarray, k_max: int) -> Plateau:
    edges = _edges(sigmas)
    best = None  # (width, count, first, last)
    start = 0
    for s in range(1, counts.size + 1):
        if s < counts.size and counts[s] == counts[start]:
            continue
        count = int(counts[start])
        if 2 <= count <= k_max - 1:
            width = float(edges[start] - edges[s])
            if best is None or width > best[0] or (width == best[0] and count < best[1]):
                best = (width, count, start, s - 1)
        start = s
    if best is None:
        return Plateau(None, -1, -1, math.nan, math.nan, 0.0, False)
    width, count, first, last = best
    return Plateau(
        count,
        first,
        last,
        float(math.exp(edges[first])),
        float(math.exp(edges[last + 1])),
        width,
        bool(last == counts.size - 1),
    )


def sigma_grid(X, k_max, kind="softmax", num=60) -> np.ndarray:
    """The decreasing σ grid (num values, float64, data units) the annealing answer walks down.

    Top: 1.5 × the predicted first split σ_c (softmax √λ_max; entmax15 (√k_max·λ_max)^½), so every
    centre starts at the mean. Bottom: half the smallest σ at which a cluster of a k_max-centre K-Means
    (k-means++, seed 0) would itself split, min_j √λ_max(Cov of cluster j), so that by the grid's end the
    k_max centres are normally all apart; kept between 1e-3 and 0.2 × the top. The levels are spent
    where the staircase has its steps, not deep in the hard regime.
    """
    X = check_points(X, "X")
    k_max = _check_k_max(k_max, X.shape[0])
    kind = check_kind(kind, ("softmax", "entmax15"))
    num = check_int(num, "num", 2, 10_000)
    return _sigma_grid(X, k_max, kind, num)


def _sigma_grid(X: np.ndarray, k_max: int, kind: str, num: int) -> np.ndarray:
    X64 = X.astype(np.float64)
    top = 1.5 * _critical_sigma_predicted(X64, kind, m=k_max)
    if not top > 0:  # all points identical: any positive grid will do
        top = 1.0
    _, labels = _kmeans(X64, k=k_max, seed=0)
    spreads = []
    for j in range(k_max):
        members = X64[labels == j]
        if members.shape[0] >= 2:
            spreads.append(
                math.sqrt(
                    max(
                        float(
                            np.linalg.eigvalsh(np.cov(members.T, bias=True).reshape(X.shape[1], X.shape[1]))[
                                -1
                            ]
                        ),
                        0.0,
                    )
                )
            )
    positive = [s for s in spreads if s > 0]
    bottom = 0.5 * min(positive) if positive else 1e-3 * top
    bottom = min(max(bottom, 1e-3 * top), 0.2 * top)
    return np.geomspace(top, bottom, num)


@dataclass(frozen=True)
class AnnealingAnswer:
    """Deterministic annealing's number of clusters.

    sigmas: (S,) σ levels, decreasing (data units). counts: (S,) distinct centres at each level.
    plateau: the widest step among counts 2 … k_max − 1 (``Plateau``; its count is the answer).
    k_max: centres annealed. tol: the distinct-centre tolerance in data units (``tol_relative`` ×
    ``data_scale``). sigma_split: the first σ with more than one distinct centre (the measured σ_c;
    None if the centres never split). sigma_all_apart: the first σ with all k_max centres distinct
    (None if that never happens on the grid). converged: (S,) whether EM converged at each level.
    """

    sigmas: np.ndarray
    counts: np.ndarray
    plateau: Plateau
    k_max: int
    kind: str
    tol: float
    tol_relative: float
    data_scale: float
    sigma_split: float | None
    sigma_all_apart: float | None
    converged: np.ndarray

    @property
    def k(self) -> int | None:
        """The answer: the count of the widest plateau (None if no count between 2 and k_max − 1)."""
        return self.plateau.count


def annealing_answer(
    X,
    k_max,
    sigmas=None,
    kind="softmax",
    seed=0,
    tol=DISTINCT_TOL,
    num=60,
    max_iter=2000,
    progress=None,
) -> AnnealingAnswer:
    """Anneal k_max centres on X (n, d) and answer with the distinct-centre count that lasts longest.

    Parameters
    ----------
    X : (n, d) float32 or float64; n >= 4.
    k_max : centres to anneal, 3 <= k_max <= n − 1; more than the answer you expect.
    sigmas : strictly decreasing σ grid (data units); None takes ``sigma_grid(X, k_max, kind, num)``.
    kind : "softmax" (deterministic annealing proper) or "entmax15".
    seed : seeds annealing's symmetry-breaking noise.
    tol : centres closer than tol × data scale count as one (default 1e-2).
    num : levels of the default grid.
    max_iter : EM iterations per level at most.
    progress : optional callable(done, total) after each level.
    """
    X = check_points(X, "X")
    k_max = _check_k_max(k_max, X.shape[0])
    kind = check_kind(kind, ("softmax", "entmax15"))
    tol = _check_tol(tol)
    num = check_int(num, "num", 2, 10_000)
    if sigmas is None:
        sigmas = _sigma_grid(X, k_max, kind, num)
    sigmas, kind, init, seed, _, max_iter, progress, noise = _anneal_checks(
        X, k_max, sigmas, kind, None, seed, 1e-10, max_iter, progress, 1e-3
    )
    path = _anneal(X, k_max, sigmas, kind, init, seed, 1e-10, max_iter, progress, noise)
    scale = data_scale(X)
    counts = np.array([_distinct_count(c, tol * scale) for c in path.centers.astype(np.float64)])
    split = np.flatnonzero(counts > 1)
    apart = np.flatnonzero(counts == k_max)
    return AnnealingAnswer(
        sigmas=sigmas,
        counts=counts,
        plateau=_widest_plateau(sigmas, counts, k_max),
        k_max=k_max,
        kind=kind,
        tol=tol * scale,
        tol_relative=tol,
        data_scale=scale,
        sigma_split=float(sigmas[split[0]]) if split.size else None,
        sigma_all_apart=float(sigmas[apart[0]]) if apart.size else None,
        converged=path.converged.copy(),
    )


# --- K-Means over k: J(k), its elbow, the silhouette ---------------------------------------------------


@dataclass(frozen=True)
class KMeansSweep:
    """K-Means for k = 1 … k_max: ks (K,) int; inertia (K,) J(k) = Σ_i min_j ||x_i − c_j||² (squared
    data units); labels (K, n) int, the K-Means labels at each k."""

    ks: np.ndarray
    inertia: np.ndarray
    labels: np.ndarray


def kmeans_sweep(X, k_max, seed=0, n_init=4, progress=None) -> KMeansSweep:
    """scikit-learn ``KMeans(n_clusters=k, n_init=n_init, random_state=seed)`` on X (n, d) for every
    k = 1 … k_max (3 <= k_max <= n − 1); its ``inertia_`` and ``labels_``. progress(done, total)
    after each k."""
    X = check_points(X, "X")
    k_max = _check_k_max(k_max, X.shape[0])
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    n_init = check_int(n_init, "n_init", 1, 1000)
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(done, total) or None.")
    from sklearn.cluster import KMeans

    ks = np.arange(1, k_max + 1)
    inertia = np.empty(k_max)
    labels = np.empty((k_max, X.shape[0]), dtype=np.int64)
    for i, k in enumerate(ks):
        model = KMeans(n_clusters=int(k), n_init=n_init, random_state=seed).fit(X)
        inertia[i] = float(model.inertia_)
        labels[i] = model.labels_
        if progress is not None:
            progress(i + 1, k_max)
    return KMeansSweep(ks, inertia, labels)


def _check_curve(ks, values, name: str):
    ks = np.asarray(ks)
    values = np.asarray(values, dtype=np.float64)
    if ks.ndim != 1 or ks.shape != values.shape:
        raise ValueError(f"ks and {name} must be 1-D of the same length, got {ks.shape} and {values.shape}.")
    if ks.size < 3:
        raise ValueError(f"an elbow needs at least 3 values of k, got {ks.size}.")
    if not np.issubdtype(ks.dtype, np.integer) or np.any(np.diff(ks) <= 0):
        raise ValueError("ks must be increasing integers.")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite.")
    return ks, values


def elbow_distances(ks, inertia) -> np.ndarray:
    """(K,) how far each point of J(k) lies below the chord joining its two ends, with k and J each
    scaled to [0, 1] (k_max → 1, J(1) → 1, J(k_max) → 0): 1 − k̃ − J̃. Zero at both ends; positive
    where the curve bends below the chord; zero everywhere for a flat curve. (The perpendicular
    distance is this over √2.)"""
    ks, inertia = _check_curve(ks, inertia, "inertia")
    span = inertia[0] - inertia[-1]
    if span < 0:
        raise ValueError("inertia must fall from its first to its last value (J(1) >= J(k_max)).")
    if span == 0:  # a flat curve (e.g. every point the same): nothing lies below its chord
        return np.zeros(ks.size)
    k_scaled = (ks - ks[0]) / (ks[-1] - ks[0])
    j_scaled = (inertia - inertia[-1]) / span
    return 1.0 - k_scaled - j_scaled


def elbow(ks, inertia) -> int | None:
    """The elbow of a falling curve J(k) by the kneedle rule: the k farthest below the chord between
    its ends (``elbow_distances``); ties go to the smaller k. None if no point lies below the chord
    (a straight or concave curve has no elbow)."""
    distance = elbow_distances(ks, inertia)
    best = int(np.argmax(distance))
    if not distance[best] > 1e-12:
        return None
    return int(np.asarray(ks)[best])


def silhouette_curve(X, ks, labels, sample_size=SILHOUETTE_SAMPLE, seed=0) -> np.ndarray:
    """Mean silhouette coefficient (scikit-learn ``silhouette_score``, Euclidean) of each labelling.

    X : (n, d). ks : (K,) the k of each row of labels. labels : (K, n) int.
    Rows with k = 1 (or fewer than two labels in use) have no silhouette: NaN. When n > sample_size,
    every score uses the same seeded subsample of sample_size points (``random_state=seed``).
    Returns (K,) float64 in [−1, 1].
    """
    X = check_points(X, "X")
    labels = np.asarray(labels)
    ks = np.asarray(ks)
    if labels.ndim != 2 or labels.shape[1] != X.shape[0] or ks.shape != (labels.shape[0],):
        raise ValueError(
            f"labels must have shape (len(ks), n) = ({ks.size}, {X.shape[0]}), got {labels.shape}."
        )
    sample_size = check_int(sample_size, "sample_size", 2)
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    from sklearn.metrics import pairwise_distances, silhouette_score
    from sklearn.utils import check_random_state

    # The distances between the (sub)sampled points are the same for every labelling: computed once
    # here, on the very points silhouette_score(sample_size=..., random_state=seed) would draw.
    if X.shape[0] > sample_size:
        sample = check_random_state(seed).permutation(X.shape[0])[:sample_size]
    else:
        sample = np.arange(X.shape[0])
    distances = None
    scores = np.full(ks.size, np.nan)
    for i, row in enumerate(labels):
        if np.unique(row).size < 2 or np.unique(row).size >= X.shape[0]:
            continue
        if distances is None:
            distances = pairwise_distances(X[sample])
        scores[i] = float(silhouette_score(distances, row[sample], metric="precomputed"))
    return scores


def best_silhouette(ks, scores) -> int | None:
    """The k with the highest silhouette (NaN ignored; ties to the smaller k); None if none is finite."""
    ks = np.asarray(ks)
    scores = np.asarray(scores, dtype=np.float64)
    if ks.shape != scores.shape or ks.ndim != 1:
        raise ValueError(f"ks and scores must be 1-D of the same length, got {ks.shape} and {scores.shape}.")
    finite = np.isfinite(scores)
    if not finite.any():
        return None
    return int(ks[finite][np.argmax(scores[finite])])
