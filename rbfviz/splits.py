"""Every split of an annealing run: detected on the σ grid, and predicted from the cluster that splits.

Deterministic annealing (Rose 1998) predicts each split from the cluster y that splits: a stack of m
coincident centres at c_y, with group responsibilities r_iy = Σ_{j in the stack} r_ij, mass
N_y = Σ_i r_iy and the responsibility-weighted covariance

    C_{x|y} = Σ_i (r_iy / N_y) (x_i − c_y)(x_i − c_y)ᵀ.

Linearising one EM step about the stacked fixed point, a perturbation that moves the stack's members
apart (their displacements summing to zero) is multiplied by C_{x|y}/σ² for softmax (the map's
Jacobian on the stack is diag(p) − ppᵀ with p_j = r_iy/m), so the stack splits along the top
eigenvector of C_{x|y} once

    softmax (and naive): σ² = λ_max(C_{x|y}),    entmax-1.5: σ² = √m · λ_max(C_{x|y}).

The entmax-1.5 line is the first split's derivation carried over (its Jacobian is diag(s) − ssᵀ/Σs
with s_j = √p_j). It is exact where the stack's points have r_iy = 1; where they share their support
with another stack (0 < r_iy < 1), the same linearisation gives σ² = √m · λ_max(Σ_i (√r_iy / N_y)
(x_i − c_y)(x_i − c_y)ᵀ) instead, which is larger. Both are reported: ``sigma_predicted`` (the formula
above) and ``sigma_linearised`` (equal to it for softmax and for the first split).

For the first split (every centre at the data mean, r_iy = 1) C_{x|y} is the 1/N covariance of X,
and the prediction is ``measures.critical_sigma_predicted`` itself. "hard" has no temperature: its
predictions are inf.

* ``weighted_covariance(X, weights)``  – (c_y, C_{x|y}, N_y) for one column of group responsibilities.
* ``detect_splits(centers, sigmas, ...)`` – the measured splits of a trajectory of centres.
* ``split_sigma(lambda_max, kind, m)``   – the formula above.
* ``predict_splits(result, X)``          – one ``SplitRecord`` per measured split of an ``anneal``
  result: parent stack, m, predicted σ, measured σ (between two grid levels) and the relative error.

**Distinct centres.** Centres closer than ``threshold`` × the data scale (√trace Cov X; default
1e-2, ten times the annealing's symmetry-breaking noise) are one stack. A stack has split at the first
level where one of its members is further than that from the stack's mass-weighted centre
Σ_j N_j c_j / Σ_j N_j; for the stack of every centre that centre is the data mean, so the first split
is found exactly where ``measures.critical_sigma_measured`` finds it. The new stacks are the
single-linkage groups of the members at that distance.

**Where C_{x|y} is evaluated.** C_{x|y} depends on σ through the responsibilities, so the prediction
is the self-consistent σ: the solution of σ² = f·λ_max(C_{x|y}(σ)) (f = 1 or √m) on the *stacked*
branch, the fixed point at σ with every stack of the last level before the split held together. It
is found by the iteration σ ← (f·λ_max(C_{x|y}(σ)))^½ from the last level before the split, each
step solving EM at σ from that level's centres with the stacks snapped together (coincident centres
stay coincident under EM: an exact saddle). This is where the linearisation says the stacked state
stops being stable, and it does not depend on where the grid's levels fall. ``evaluate="last_level"``
instead uses C_{x|y} at the last level before the split (no extra EM; it differs by how much C_{x|y}
changes over one grid step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage

from .annealing import _fixed_point
from .jsonable import jsonable
from .measures import _critical_sigma_predicted, _resp_and_distances
from .validate import check_kind, check_points, entmax_alpha

__all__ = [
    "SPLIT_THRESHOLD",
    "MeasuredSplit",
    "SplitRecord",
    "weighted_covariance",
    "split_sigma",
    "detect_splits",
    "predict_splits",
]

# Centres closer than this × the data scale are one stack (10 × the annealing's noise of 1e-3).
SPLIT_THRESHOLD = 1e-2
EVALUATIONS = ("self-consistent", "last_level")
# The self-consistent solve stops when |F(σ) − σ| is below this × σ (a grid step is several %), or after
# _MAX_ROUNDS evaluations.
_SIGMA_RTOL = 1e-5
_MAX_ROUNDS = 30


@dataclass(frozen=True)
class MeasuredSplit:
    """A stack of centres that separated on the grid: between ``sigmas[level - 1]`` (still one stack)
    and ``sigmas[level]`` (first level where it is split)."""

    level: int
    parent: tuple[int, ...]  # centre indices of the stack that split
    children: tuple[tuple[int, ...], ...]  # the stacks it split into, at ``level``


@dataclass(frozen=True, eq=False)
class SplitRecord:
    """One split: measured on the grid and predicted from the parent stack's weighted covariance.

    σ values in data units. ``sigma_measured`` is the first grid σ at which the stack is split and
    ``sigma_above`` the grid σ just above it, where it was still one stack: the split happened in
    (sigma_measured, sigma_above]. ``relative_error`` = sigma_predicted / sigma_measured − 1 (the same
    ratio as the first split's "measured / predicted", inverted); ``within_step`` says whether the
    prediction lies in that grid interval. ``sigma_linearised`` / ``linearised_error``: the same for the
    √r-weighted entmax-1.5 linearisation (module docstring; equal to the prediction for softmax).
    lambda_max, mass N_y, center c_y (d,) and axis (d,) (the top eigenvector of C_{x|y}, the predicted
    direction of the split) are at ``sigma_evaluated``.
    """

    number: int  # 1 for the first split of the run, 2 for the next, ...
    level: int
    parent: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    m: int
    kind: str
    sigma_predicted: float
    sigma_linearised: float
    sigma_measured: float
    sigma_above: float
    relative_error: float
    linearised_error: float
    within_step: bool
    lambda_max: float
    mass: float
    center: np.ndarray
    axis: np.ndarray
    sigma_evaluated: float
    evaluation: str  # "first split" | "self-consistent" | "last_level"
    converged: bool  # the self-consistent iteration settled (always True for the others)

    def to_dict(self) -> dict:
        """JSON-ready dict of every field (NaN/inf become None)."""
        return jsonable({name: getattr(self, name) for name in self.__dataclass_fields__})


# --- the weighted covariance --------------------------------------------------------------------


def weighted_covariance(X, weights) -> tuple[np.ndarray, np.ndarray, float]:
    """(c_y (d,), C_{x|y} (d, d), N_y) of points X (n, d) with non-negative weights (n,), in float64.

    c_y = Σ w_i x_i / N_y, C_{x|y} = Σ_i (w_i / N_y)(x_i − c_y)(x_i − c_y)ᵀ, N_y = Σ w_i: with the
    group responsibilities r_iy as weights, the covariance whose top eigenvalue predicts the split
    of cluster y (data units squared).
    """
    X = check_points(X, "X", dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (X.shape[0],):
        raise ValueError(f"weights must have shape ({X.shape[0]},) to match X, got {weights.shape}.")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or not weights.sum() > 0:
        raise ValueError("weights must be finite, non-negative and not all zero.")
    return _weighted_covariance(X, weights)


def _weighted_covariance(X: np.ndarray, weights: np.ndarray):
    """``weighted_covariance`` on checked float64 X (n, d) and weights (n,) with a positive sum."""
    mass = float(weights.sum())
    center = weights @ X / mass
    centred = X - center
    cov = (centred * (weights / mass)[:, None]).T @ centred
    return center, (cov + cov.T) / 2.0, mass


def _top_eigen(cov: np.ndarray) -> tuple[float, np.ndarray]:
    values, vectors = np.linalg.eigh(cov)
    axis = vectors[:, -1]
    return float(values[-1]), axis * (1.0 if axis[np.argmax(np.abs(axis))] > 0 else -1.0)


def split_sigma(lambda_max, kind="softmax", m=1) -> float:
    """The critical σ of a stack of m coincident centres whose weighted covariance has top eigenvalue
    lambda_max (data units²): softmax and naive √λ_max, entmax15 (√m·λ_max)^½, hard inf."""
    kind = check_kind(kind)
    lam = float(lambda_max)
    if not (math.isfinite(lam) and lam >= 0):
        raise ValueError(f"lambda_max must be a finite number >= 0, got {lambda_max!r}.")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (the number of coincident centres) must be an integer >= 1, got {m!r}.")
    return _split_sigma(lam, kind, int(m))


def _split_sigma(lam: float, kind: str, m: int) -> float:
    if kind == "hard":
        return math.inf
    if kind == "entmax15":
        return math.sqrt(math.sqrt(m) * lam)
    alpha = entmax_alpha(kind)  # α-entmax: m^{α-1}·λ_max, as measures.critical_sigma_predicted
    if alpha is not None:
        return math.sqrt(m ** (alpha - 1.0) * lam)
    return math.sqrt(lam)


# --- detection ----------------------------------------------------------------------------------


def _stack_groups(points: np.ndarray, radius: float, split: bool = False) -> list[np.ndarray]:
    """Single-linkage groups (positions into ``points``) of points closer than ``radius``. With
    ``split`` (a stack known to have separated) two at least, by cutting the linkage tree at its top
    merge, should a chain of close points join everything."""
    if points.shape[0] < 2:
        return [np.arange(points.shape[0])]
    tree = linkage(points, method="single")
    labels = fcluster(tree, t=radius, criterion="distance")
    if split and labels.max() < 2:
        labels = fcluster(tree, t=2, criterion="maxclust")
    return [np.flatnonzero(labels == label) for label in np.unique(labels)]


def detect_splits(centers, sigmas, scale: float, masses=None, threshold: float = SPLIT_THRESHOLD):
    """The measured splits of a trajectory of centres (list of ``MeasuredSplit``, in σ order).

    centers (S, k, d) per level of the decreasing grid sigmas (S,); scale: the data scale the
    threshold is relative to; masses (S, k) N_j per level (None: equal weights) for the stacks'
    mass-weighted centres. Stacks start as the single-linkage groups of level 0 at threshold × scale;
    a stack splits at the first level where a member is further than that from the stack's centre.
    Detection stops at the first level with a non-finite centre.
    """
    centers = np.asarray(centers, dtype=np.float64)
    sigmas = np.asarray(sigmas, dtype=np.float64)
    if centers.ndim != 3 or sigmas.shape != (centers.shape[0],):
        raise ValueError(
            f"centers must be (S, k, d) and sigmas (S,), got {centers.shape} and {sigmas.shape}."
        )
    if masses is None:
        masses = np.ones(centers.shape[:2])
    masses = np.asarray(masses, dtype=np.float64)
    if masses.shape != centers.shape[:2]:
        raise ValueError(f"masses must have shape {centers.shape[:2]}, got {masses.shape}.")
    if not (math.isfinite(scale) and scale > 0 and math.isfinite(threshold) and threshold > 0):
        raise ValueError(
            f"scale and threshold must be positive finite numbers, got {scale!r}, {threshold!r}."
        )
    radius = threshold * scale
    if centers.shape[0] == 0 or not np.isfinite(centers[0]).all():
        return []
    stacks = [tuple(int(j) for j in group) for group in _stack_groups(centers[0], radius)]
    found = []
    for s in range(1, centers.shape[0]):
        if not np.isfinite(centers[s]).all():
            break
        next_stacks = []
        for stack in stacks:
            members = np.asarray(stack)
            weight = masses[s, members]
            if len(stack) < 2:
                next_stacks.append(stack)
                continue
            weight = weight if weight.sum() > 0 else np.ones(len(stack))
            middle = weight @ centers[s, members] / weight.sum()
            if np.linalg.norm(centers[s, members] - middle, axis=1).max() <= radius:
                next_stacks.append(stack)
                continue
            children = tuple(
                tuple(int(members[i]) for i in group)
                for group in _stack_groups(centers[s, members], radius, split=True)
            )
            found.append(MeasuredSplit(level=s, parent=stack, children=children))
            next_stacks.extend(children)
        stacks = next_stacks
    return found


# --- prediction ---------------------------------------------------------------------------------


def _stacks_at(split_levels: list[MeasuredSplit], level: int, k: int, first: list[tuple[int, ...]]):
    """The stacks in place at ``level`` (before the splits detected at it)."""
    stacks = list(first)
    for split in split_levels:
        if split.level >= level:
            break
        stacks.remove(split.parent)
        stacks.extend(split.children)
    return stacks


def _snapped(centers: np.ndarray, stacks) -> np.ndarray:
    """Centres with every stack's members moved to the stack's mean (exactly coincident)."""
    out = centers.copy()
    for stack in stacks:
        members = list(stack)
        out[members] = centers[members].mean(axis=0)
    return out


@dataclass(frozen=True)
class _Stack:
    """A stack's statistics at one σ: λ_max of C_{x|y}, of the √r-weighted matrix, axis, c_y, N_y."""

    lam: float
    lam_sqrt: float
    axis: np.ndarray
    center: np.ndarray
    mass: float


def _group_statistics(X: np.ndarray, X64: np.ndarray, centers: np.ndarray, stack, sigma: float, kind: str):
    """The stack's ``_Stack`` at centres (k, d) and σ, or None when it has no responsibility (or the
    map fails there)."""
    resp, _ = _resp_and_distances(X, np.ascontiguousarray(centers, dtype=X.dtype), sigma, kind)
    weights = np.asarray(resp, dtype=np.float64)[:, list(stack)].sum(axis=1)
    if not (np.all(np.isfinite(weights)) and weights.sum() > 0):
        return None
    center, cov, mass = _weighted_covariance(X64, weights)
    lam, axis = _top_eigen(cov)
    centred = X64 - center
    root = (centred * (np.sqrt(weights) / mass)[:, None]).T @ centred
    return _Stack(lam, float(np.linalg.eigvalsh((root + root.T) / 2.0)[-1]), axis, center, mass)


def _sigma_of(stats: _Stack, formula: str, m: int, linearised: bool) -> float:
    return _split_sigma(stats.lam_sqrt if linearised and formula == "entmax15" else stats.lam, formula, m)


def predict_splits(
    result,
    X,
    evaluate: str = "self-consistent",
    threshold: float = SPLIT_THRESHOLD,
    max_iter: int = 500,
    progress=None,
) -> list[SplitRecord]:
    """One ``SplitRecord`` per measured split of the annealing ``result`` (an ``AnnealResult``) on the
    points X (n, d) it ran on, in the order the splits happen.

    evaluate: where C_{x|y} is taken (see the module docstring): "self-consistent" (default) or
    "last_level". A split of the stack of every centre is predicted by
    ``measures.critical_sigma_predicted`` (m = k), so split 1 of a run from the data mean agrees
    with it exactly. threshold: the distinctness tolerance relative to the data scale.
    progress: optional callable(done, total), total the number of measured splits, called before each
    self-consistent EM solve (done: the splits predicted so far) and after each split.
    """
    X = check_points(X, "X")
    if evaluate not in EVALUATIONS:
        raise ValueError(f"evaluate must be one of {EVALUATIONS}, got {evaluate!r}.")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(done, total) or None.")
    centers = np.asarray(result.centers)
    if centers.ndim != 3 or centers.shape[2] != X.shape[1]:
        raise ValueError(f"result.centers must be (S, k, {X.shape[1]}) for this X, got {centers.shape}.")
    if X.dtype != centers.dtype:
        X = X.astype(centers.dtype)
    sigmas = np.asarray(result.sigmas, dtype=np.float64)
    kind = result.kind
    formula = "softmax" if kind == "naive" else kind
    k = centers.shape[1]
    measured = detect_splits(centers, sigmas, result.data_scale, result.masses, threshold)
    radius = threshold * result.data_scale
    first = (
        [tuple(int(j) for j in g) for g in _stack_groups(np.asarray(centers[0], np.float64), radius)]
        if measured
        else []
    )
    X64 = X.astype(np.float64)
    birth = {child: split.level for split in measured for child in split.children}
    records = []
    for number, split in enumerate(measured, start=1):
        tick = None if progress is None else (lambda done=number - 1: progress(done, len(measured)))
        if tick is not None:
            tick()
        above = split.level - 1
        m = len(split.parent)
        stacks = _stacks_at(measured, split.level, k, first)
        intact = _snapped(np.asarray(centers[above], np.float64), stacks)
        if m == k:  # every centre in one stack: r_iy = 1, C_{x|y} = Cov X at any σ
            center, cov, mass = _weighted_covariance(X64, np.ones(X.shape[0]))
            lam, axis = _top_eigen(cov)
            stats = _Stack(lam, lam, axis, center, mass)
            predicted = linearised = _critical_sigma_predicted(X, formula, m=k)
            how, settled, evaluated = "first split", True, math.nan
        else:
            stats = _group_statistics(X, X64, intact, split.parent, float(sigmas[above]), kind)
            if stats is None:
                continue
            how, settled, evaluated = evaluate, True, float(sigmas[above])
            predicted = _sigma_of(stats, formula, m, linearised=False)
            linearised = _sigma_of(stats, formula, m, linearised=True)
            if evaluate == "self-consistent" and kind != "hard":
                run = (X, X64, intact, stacks, split.parent, kind, formula, max_iter, tick)
                solved = _self_consistent(*run, predicted, stats, False)
                # only entmax-1.5 has a linearisation of its own; for the other maps it is the same solve
                solved_linearised = (
                    _self_consistent(*run, linearised, stats, True) if formula == "entmax15" else solved
                )
                # A solution at or above the σ where this stack was first seen is not on its branch
                # (above it the stack's centres were still merged with others, down to the trivial
                # all-at-the-mean state): keep the last-level value there, marked unsettled.
                born = float(sigmas[birth[split.parent]]) if split.parent in birth else math.inf
                if solved[0] < born:
                    predicted, stats, evaluated, settled = solved
                else:
                    how, settled = "last_level", False
                if solved_linearised[0] < born:
                    linearised, settled = solved_linearised[0], settled and solved_linearised[3]
                else:
                    settled = False
        sigma_measured = float(sigmas[split.level])
        records.append(
            SplitRecord(
                number=number,
                level=split.level,
                parent=split.parent,
                children=split.children,
                m=m,
                kind=kind,
                sigma_predicted=predicted,
                sigma_linearised=linearised,
                sigma_measured=sigma_measured,
                sigma_above=float(sigmas[above]),
                relative_error=predicted / sigma_measured - 1.0,
                linearised_error=linearised / sigma_measured - 1.0,
                within_step=bool(sigma_measured <= predicted <= float(sigmas[above])),
                lambda_max=stats.lam,
                mass=stats.mass,
                center=stats.center,
                axis=stats.axis,
                sigma_evaluated=evaluated,
                evaluation=how,
                converged=settled,
            )
        )
        if progress is not None:
            progress(number, len(measured))
    return records


def _self_consistent(X, X64, intact, stacks, parent, kind, formula, max_iter, tick, sigma, stats, linearised):
    """Solve σ = F(σ) = (f·λ(σ))^½ on the stacked branch, λ the top eigenvalue of C_{x|y} (or,
    ``linearised``, of the √r-weighted matrix) at that branch's fixed point at σ.

    Secant steps on F(σ) − σ (a plain F step when the secant is undefined or jumps more than a factor
    2), each EM warm-started from the previous branch. Returns (σ, the stack's ``_Stack`` at the σ last
    evaluated, that σ, settled). If EM or the map fails on the way (the naive map at small σ), the
    last good values are returned, unsettled. tick: None, or called before each EM solve.
    """
    evaluated, branch, previous = math.nan, intact, None
    for _ in range(_MAX_ROUNDS):
        if tick is not None:
            tick()
        start = np.ascontiguousarray(_snapped(branch, stacks), dtype=X.dtype)
        found_branch, _, _ = _fixed_point(X, start, sigma, kind, max_iter=max_iter)
        found_branch = np.asarray(found_branch, np.float64)
        if not np.isfinite(found_branch).all():
            return sigma, stats, evaluated, False
        found = _group_statistics(X, X64, _snapped(found_branch, stacks), parent, sigma, kind)
        if found is None:
            return sigma, stats, evaluated, False
        branch, stats, evaluated = found_branch, found, sigma
        image = _sigma_of(stats, formula, len(parent), linearised)
        gap = image - sigma
        if abs(gap) < _SIGMA_RTOL * sigma:
            return image, stats, evaluated, True
        step = image
        if previous is not None and gap != previous[1]:
            secant = sigma - gap * (sigma - previous[0]) / (gap - previous[1])
            if 0.5 * sigma < secant < 2.0 * sigma:
                step = secant
        previous, sigma = (sigma, gap), step
    return sigma, stats, evaluated, False
