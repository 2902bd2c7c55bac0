"""Deterministic annealing: follow the soft K-Means fixed point as σ falls.

At each σ of a decreasing grid, EM (responsibilities, then every centre to its soft centroid; the
η_j = 1/(2N_j) gradient step on L_σ is the same update) runs from the previous level's centres until
no centre moves by more than tol × the data scale. Above the first critical σ_c the only stable
fixed point puts every centre at the data mean; below it the centres split along the principal axis,
and so on down to K-Means.

Two practical points from the theory:

* Coincident centres sit on an exact saddle: EM keeps them together for ever. So at the start of each
  level, centres that coincide (closer than 1e-4 × the data scale) get independent Gaussian noise of
  ``noise`` × the data scale (default 1e-3). Above σ_c that noise dies away; below it, it grows into
  the split.
* Critical slowing: near σ_c a perturbation grows or shrinks only by a factor σ_c²/σ² per iteration,
  so levels near σ_c need hundreds of iterations, levels far from it a handful. Each level stops as
  soon as it has converged, so the iteration budget goes where it is needed; ``max_iter`` caps it
  and ``converged`` reports honestly which levels hit the cap. EM steps are grouped in SQUAREM
  cycles while centres are stacked, and are Anderson steps once every two centres are apart (see
  ``_em``); both jump along the slow directions and cut the step count several-fold, and neither
  lets the free energy rise. For softmax, ``anneal`` first tries Newton's method on the fixed-point
  equation T(c) = c at each level, with T's closed-form Jacobian (``_softmax_em_jacobian``, from one
  more product over the points per step): it converges quadratically where EM's rate is close to 1,
  and is used only where the fixed point ahead is stable (J's spectral radius below 1, so never onto a
  saddle EM would leave) and the free energy does not rise (``_newton_run``); on float64 runs of more
  than 65,536 points, where J is unstable (EM leaving a saddle, next to a split) the run jumps several EM
  steps of the linearised map at once instead, along EM's own path; where a jump raises the free energy
  (or J is unstable on a smaller run), the SQUAREM and Anderson steps take over and Newton is tried
  again later. The stopping test is EM's in
  every case. ``fixed_point`` also merges two centres that close in on each other just
  above their own critical σ, where EM needs thousands of steps and the jumps are refused, when the
  merged pair is a stable fixed point with a lower free energy (``_merged_fixed_point``).

The data scale is the root-mean-square distance of the points to their mean (√trace Cov).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .jsonable import jsonable
from .maps import (
    _DIRECT_DISTANCE_MAX_FEATURES,
    MIN_MASS,
    resp_columns,
    sq_distance_columns,
    temperature,
)
from .measures import (
    SOFTMAX_EXACT_LOGIT_GAP,
    _critical_sigma_predicted,
    _min_sq_gap,
    _sigma_exact,
    free_energy_from,
    mean_entropy,
)
from .steps import _SUM_CHUNK, _kmeans, centroids_from_sums, points_with_ones, weighted_sums
from .validate import (
    check_centers,
    check_int,
    check_k,
    check_kind,
    check_map_arguments,
    check_map_arguments_on_grid,
    check_points,
    check_sigma_for_dtype,
    check_sigmas,
    entmax_alpha,
)

# Centres closer than this (× data scale) count as coincident and get symmetry-breaking noise.
COINCIDENT = 1e-4
# The default symmetry-breaking noise, relative to the data scale.
NOISE = 1e-3
# While every two centres are further apart than this (× data scale), anneal's EM takes Anderson steps.
APART = 1e-1
# The convergence tolerance never goes below this many units of the working dtype's epsilon:
# float32 EM cannot settle more finely than its rounding.
_MIN_TOL_EPS = 16.0


@dataclass(frozen=True, eq=False)
class AnnealResult:
    """An annealing run: per σ level s (S levels, σ decreasing)."""

    sigmas: np.ndarray  # (S,) float64, decreasing
    centers: np.ndarray  # (S, k, d) soft fixed point reached at each σ (X's dtype)
    loss: np.ndarray  # (S,) L_σ = Σ_i Σ_j r_ij d_ij at that fixed point
    distortion: np.ndarray  # (S,) hard distortion J = Σ_i min_j d_ij at those centres
    masses: np.ndarray  # (S, k) N_j = Σ_i r_ij
    iterations: np.ndarray  # (S,) int, EM iterations used at that level
    converged: np.ndarray  # (S,) bool, the level's last centre move was <= tol × data_scale
    entropy: np.ndarray  # (S,) mean Shannon entropy of the finite responsibility rows (nats)
    nan_rows: np.ndarray  # (S,) int, rows of r that contain NaN (only "naive" can have them)
    init: np.ndarray  # (k, d) starting centres
    kind: str
    dtype: str  # "float32" | "float64"
    data_mean: np.ndarray  # (d,) mean of X
    data_scale: float  # √(mean_i ||x_i - mean||²); tolerance and noise are relative to it
    tol: float  # relative tolerance used (after the dtype floor)
    max_iter: int
    noise: float  # symmetry-breaking noise, relative to data_scale

    @property
    def final_centers(self) -> np.ndarray:
        """(k, d) centres at the smallest σ."""
        return self.centers[-1]

    def to_dict(self) -> dict:
        """JSON-ready dict of every field (NaN/inf become None)."""
        return jsonable({name: getattr(self, name) for name in self.__dataclass_fields__})


def data_scale(X: np.ndarray) -> float:
    """Root-mean-square distance of the points to their mean; 1.0 for a degenerate (one-point) set."""
    X64 = np.asarray(X, dtype=np.float64)
    scale = math.sqrt(((X64 - X64.mean(axis=0)) ** 2).sum(axis=1).mean())
    return scale if scale > 0 else 1.0


def default_sigmas(X, k, kind="softmax", num=60) -> np.ndarray:
    """A decreasing geometric σ grid (num values, float64) for annealing X with k centres.

    Top: 1.5 × the first critical σ (softmax √λ_max; entmax15 (√k·λ_max)^½), so the run starts with
    every centre at the mean. Bottom: half the exact-collapse scale of a quick K-Means (k-means++,
    seed 0) — √g_min/2 for entmax15, √(g_min/73.4) otherwise — so the last levels are hard K-Means;
    kept between 1e-3 and 0.05 × the top so a tiny or huge g_min cannot make the grid degenerate.
    """
    X = check_points(X, "X")
    k = check_k(k, X.shape[0])
    kind = check_kind(kind)
    num = check_int(num, "num", 2, 10_000)
    return _default_sigmas(X, k, kind, num)


def _default_sigmas(X: np.ndarray, k: int, kind: str, num: int = 60) -> np.ndarray:
    """``default_sigmas`` on checked arguments (X finite float32/float64, 1 <= k <= n, kind known)."""
    alpha = entmax_alpha(kind)  # None for the maps that are never exactly sparse
    top = 1.5 * _critical_sigma_predicted(X, "softmax" if alpha is None else kind, m=k)
    if not top > 0:  # all points identical: no structure to anneal, any positive grid will do
        top = 1.0
    g_min = _min_sq_gap(X, _kmeans(X.astype(np.float64), k=k, seed=0)[0]) if k > 1 else math.inf
    if alpha is not None:
        exact = _sigma_exact(g_min, alpha)
    else:
        exact = math.sqrt(g_min / (2.0 * SOFTMAX_EXACT_LOGIT_GAP))
    bottom = min(max(0.5 * exact, 1e-3 * top), 0.05 * top)
    return np.geomspace(top, bottom, num)


def _check_decreasing(sigmas: np.ndarray) -> None:
    if np.any(np.diff(sigmas) >= 0):
        raise ValueError("sigmas must be strictly decreasing (annealing cools from large to small σ).")


# Points are processed in blocks of this many rows, so an EM step's temporaries stay O(block × k)
# (about 5 MB per (k, block) float64 buffer at k = 10) however many points there are.
EM_BLOCK = 1 << 16


# numpy's float64 exp takes a slow scalar path for every argument below about -708 (6-50× slower per
# element than its vector path), and at small σ nearly every logit but each point's largest is far below
# it. float64 softmax logits of far centres are therefore raised to -_CLIP_LOGIT before the exp: their
# weights become ~1e-304 instead of 0 (or a subnormal), which adds nothing at the precision of a column
# sum that holds a 1, or of a centre's sums (a centre whose mass is made of such weights only stays put
# anyway, MIN_MASS), so the EM step's result is the same. float32's exp has no slow path: no clip there.
_CLIP_LOGIT = 700.0


def _free_energy_columns(d: np.ndarray, resp: np.ndarray, sigma: float, kind: str) -> float:
    """F_σ = Σ r·d - T·H(r) of one block from its (k, n) distances d and responsibilities (maps other
    than softmax), as ``measures.free_energy_from`` defines it; entmax15 and hard in numpy on this layout
    (torch's elementwise square root of a transposed view runs several times slower)."""
    if kind == "hard":  # the T → 0 limit: F = J, the nearest distances summed
        return float(d.min(axis=0).sum(dtype=np.float64))
    if kind == "entmax15":  # Tsallis: H = (4/3) Σ_i (1 - Σ_j r_ij^{3/2})
        loss = float((resp * d).sum(dtype=np.float64))
        powered = float((resp * np.sqrt(resp)).sum(dtype=np.float64))
        return loss - temperature(sigma) * (4.0 / 3.0) * (resp.shape[1] - powered)
    return free_energy_from(torch.from_numpy(d).T, torch.from_numpy(resp).T, sigma, kind)


# One batched EM step holds at most this many (level, centre, point) entries in each of its arrays (1 MB in
# float64): more levels than fit are stepped in groups, so a server's freed temporaries stay small.
LEVEL_ENTRIES = 1 << 17


def _em_step(points: np.ndarray, c: np.ndarray, sigma: float, kind: str, energy: bool = False):
    """One EM step from centres c (k, d): (new centres (k, d), F_σ(c) if ``energy`` else None).

    ``_em_steps`` with one level (points: ``points_with_ones(X)``, made once per run)."""
    centers, energies = _em_steps(points, c[None], (float(sigma),), kind, (bool(energy),))
    return centers[0], (energies[0] if energy else None)


def _em_steps(points: np.ndarray, C: np.ndarray, sigmas, kind: str, energy, jacobian=None, lazy=False):
    """One EM step at each of m σ levels: (new centres (m, k, d), F_σ at C as a list of m floats, NaN
    where ``energy`` does not ask for it); with ``jacobian`` (m bools, softmax only) also a third item, the
    list of m EM Jacobians (k·d, k·d) at C (``_softmax_em_jacobian``), None where not asked for.

    C: (m, k, d) centres, level i's at sigmas[i] (m floats); energy: m bools. Each level gets the public
    step's maths and functions (``soft_centroid_step``; the same bits when n <= EM_BLOCK, so that a fixed
    point reached with one-hot responsibilities is K-Means' centres to the bit) on numpy arrays, without its
    per-call tensor wrapping, accumulated block by block so that temporaries stay O(EM_BLOCK × k). The
    levels' (k, w) blocks are stacked as one (m, k, w) array, at most LEVEL_ENTRIES entries per stack: the
    softmax's passes, the centre sums and the update run once for the stack, each level's numbers the bits
    it gets alone (the same operations on its own rows). For softmax the free energy comes with the
    responsibilities: F_σ = -T Σ_i log Z_i; with ``lazy``, a softmax level stepped alone returns it as a
    ``_LazyEnergy`` (a number once ``float`` reads it), levels stepped together and other maps as floats.
    One float64 softmax level on more points than one chunk and one EM block takes its logits from a
    product instead of the distances (``_softmax_sums_chunked``): other rounding, within the bound its
    tests state.
    """
    m, k, _ = C.shape
    if m == 1 and kind == "softmax" and points.shape[1] <= EM_BLOCK:
        asked = jacobian is not None and bool(jacobian[0])
        center, total, J = _softmax_em_step(points, C[0], float(sigmas[0]), bool(energy[0]), asked)
        total = total if lazy or not energy[0] else float(total)
        return (center[None], [total]) if jacobian is None else (center[None], [total], [J])
    per_stack = max(1, LEVEL_ENTRIES // (k * min(points.shape[1], EM_BLOCK)))
    T = [temperature(sigma) for sigma in sigmas]
    total = [0.0 if asked else math.nan for asked in energy]
    # per level asking for it: the pair moments of its responsibilities, then its Jacobian
    moments = [None] * m
    centers = np.empty_like(C)
    for first in range(0, m, per_stack):
        last = min(m, first + per_stack)
        group = C[first:last]
        asked = [i for i in range(first, last) if energy[i]]
        sums, parts = None, []
        for start in range(0, points.shape[1], EM_BLOCK):
            block = points[:, start : start + EM_BLOCK]
            if kind == "softmax" and _fused(block, group):  # float64, one level on a wide block
                wants_moments = jacobian is not None and bool(jacobian[first])
                part, d_min, column_sums, moments_part = _softmax_sums_chunked(
                    block, group[0], T[first], wants_moments
                )
                if energy[first] and lazy:
                    parts.append((d_min, column_sums))
                elif energy[first]:
                    total[first] += float(np.add.reduce(d_min, dtype=np.float64)) - T[first] * _sum_of_logs(
                        column_sums
                    )
                sums = part[None] if sums is None else sums + part
                if wants_moments:
                    moments[first] = moments_part if moments[first] is None else moments[first] + moments_part
                continue
            if kind == "softmax":
                if _chunked(block, group):  # one level on a wide block: its chunks stay in cache
                    resp, d_min, column_sums = (
                        a[None] for a in _softmax_level_chunked(block, group[0], T[first])
                    )
                else:
                    D = _sq_distance_levels(block, group)
                    resp, d_min, column_sums = _softmax_levels_with_sums_(D, T[first:last], group)
                soft_points = column_sums  # each point's Σ_j exp(-(d_ij - d_min,i)/T): 1 when r_i is one-hot
                if asked and lazy and len(group) == 1:  # its parts, summed when read
                    parts.append((d_min[0], column_sums[0]))
                elif asked:  # -T Σ_i log Z_i
                    if len(asked) < len(group):
                        rows = [i - first for i in asked]
                        d_min, column_sums = d_min[rows], column_sums[rows]
                    nearest = d_min.sum(axis=1, dtype=np.float64)
                    for j, i in enumerate(asked):
                        total[i] += float(nearest[j]) - T[i] * _sum_of_logs(column_sums[j])
            else:
                D = _sq_distance_levels(block, group)
                resp = np.empty_like(D)
                for i in range(first, last):  # the other maps level by level, as ``resp_columns`` runs them
                    resp[i - first] = resp_columns(D[i - first], sigmas[i], kind, overwrite=not energy[i])
                    if energy[i]:
                        total[i] += _free_energy_columns(D[i - first], resp[i - first], sigmas[i], kind)
            part = _weighted_sums_levels(block, resp)
            sums = part if sums is None else sums + part
            for i in range(first, last) if jacobian is not None else ():
                if jacobian[i]:
                    part = _pair_moments(block, resp[i - first], soft_points[i - first])
                    moments[i] = part if moments[i] is None else moments[i] + part
        if parts:
            total[first] = _LazyEnergy(parts, T[first])
        centers[first:last] = centroids_from_sums(
            group.reshape(-1, group.shape[2]), sums.reshape(-1, sums.shape[2])
        ).reshape(group.shape)
        for i in range(first, last) if jacobian is not None else ():
            if jacobian[i]:
                mass = sums[i - first, :, -1]
                moments[i] = _softmax_em_jacobian(moments[i], C[i], centers[i], mass, sigmas[i])
    return (centers, total) if jacobian is None else (centers, total, moments)


class _LazyEnergy:
    """F_σ = Σ_i d_min,i - T Σ_i log s_i of one softmax EM step, summed block by block as ``_em_steps`` sums
    it, when ``float`` first asks for it: its logarithms are one more pass over the points
    (``_sum_of_logs``), and the accelerators compare about half the energies they ask for (SQUAREM needs
    the one at a cycle's start only if the cycle jumps). parts: the step's (d_min, column_sums) of
    each block of points, (w,) arrays each; T the temperature."""

    __slots__ = ("_parts", "_T", "_value")

    def __init__(self, parts: list, T: float):
        self._parts, self._T, self._value = parts, T, None

    def __float__(self) -> float:
        if self._value is None:
            total = 0.0
            for d_min, column_sums in self._parts:
                nearest = float(np.add.reduce(d_min, dtype=np.float64))
                total += nearest - self._T * _sum_of_logs(column_sums)
            self._value, self._parts = total, None
        return self._value


def _sum_of_logs(values: np.ndarray) -> float:
    """Σ_i log values_i (float64 sum) of one level's (w,) positive values. float64: torch's log, vectorised
    on every x86-64 processor (numpy's float64 log is scalar without AVX-512, about 5× slower), with the
    values of numpy's on a processor with AVX-512 (as ``_exp_clipped_``'s exp); float32: numpy's
    (vectorised, the same on both kinds of processor)."""
    if values.dtype == np.float64:
        logs = torch.from_numpy(values).log().numpy()
    else:
        logs = np.log(values)
    return float(np.add.reduce(logs, dtype=np.float64))


def _softmax_em_step(points: np.ndarray, c: np.ndarray, sigma: float, energy: bool, jacobian: bool):
    """``_em_steps`` of one softmax level whose points fit one block (n <= EM_BLOCK): (new centres (k, d),
    F_σ at c as a ``_LazyEnergy`` or NaN, the EM Jacobian at c or None). The operations of the stacked
    path on the level's own (k, n) arrays, so the same bits, without its bookkeeping for groups of levels
    and blocks of points, which at a few thousand points is a fifth of a step (``anneal`` steps one level
    at a time)."""
    T = temperature(sigma)
    D = _sq_distance_levels(points, c[None])[0]
    resp, d_min, column_sums = _softmax_level_with_sums_(D, T, c)
    total = _LazyEnergy([(d_min, column_sums)], T) if energy else math.nan
    sums = weighted_sums(points, resp)
    centers = centroids_from_sums(c, sums)
    if not jacobian:
        return centers, total, None
    moments = _pair_moments(points, resp, column_sums)
    return centers, total, _softmax_em_jacobian(moments, c, centers, sums[:, -1], sigma)


# A point whose softmax column sum Σ_j exp(-(d_ij - d_min,i)/T) is at most 1 + this has one-hot
# responsibilities to this precision, and adds nothing to the EM Jacobian (its weights r_ij (δ_jl - r_il)
# are below it): the Jacobian's moments skip such points.
_ONE_HOT = 1e-13


def _pair_moments(block: np.ndarray, resp: np.ndarray, column_sums: np.ndarray) -> np.ndarray:
    """G = Σ_i (r_i ⊗ p_i)(r_i ⊗ p_i)ᵀ, (k·(d + 1), k·(d + 1)) float64, over the w points of ``block``
    (``points_with_ones`` rows, so p_i = [x_i, 1]) with their (k, w) responsibilities resp: entry
    ((j, a), (l, b)) is Σ_i r_ij r_il p_ia p_ib, every pair moment of order 0, 1 and 2 the EM Jacobian
    needs, from one symmetric product.

    Points with one-hot responsibilities (column_sums (w,), the softmax's, at most 1 + _ONE_HOT) are left
    out: every Jacobian term they add, r_ij (δ_jl - r_il) times moments, is below _ONE_HOT, and G's other
    uses (A_j - B_jj) cancel their part exactly. At small σ that is nearly every point."""
    soft = column_sums > 1.0 + _ONE_HOT
    if soft.mean() < 0.75:
        block, resp = block[:, soft], resp[:, soft]
    k, w = resp.shape
    weighted = np.multiply(resp[:, None, :], block[None, :, :], dtype=np.float64).reshape(
        k * block.shape[0], w
    )
    return weighted @ weighted.T


def _softmax_em_jacobian(
    moments: np.ndarray, c: np.ndarray, image: np.ndarray, mass: np.ndarray, sigma: float
) -> np.ndarray:
    """The Jacobian (k·d, k·d) float64 of the softmax EM map T at centres c (k, d), T(c) = image, from the
    pair moments G of its responsibilities (``_pair_moments`` summed over the points) and the masses
    N_j = Σ_i r_ij (k,) of the EM step.

    T_j = Σ_i r_ij x_i / N_j with r_ij = softmax_j(-||x_i - c_j||²/(2σ²)), and ∂r_ij/∂c_l =
    r_ij (δ_jl - r_il)(x_i - c_l)ᵀ/σ², so

        ∂T_j/∂c_l = (1/(N_j σ²)) Σ_i r_ij (δ_jl - r_il)(x_i - T_j)(x_i - c_l)ᵀ = (δ_jl A_j - B_jl)/(N_j σ²),

    with B_jl = Σ_i r_ij r_il (x_i - T_j)(x_i - c_l)ᵀ and A_j = Σ_i r_ij (x_i - T_j)(x_i - c_j)ᵀ, both from
    G by expanding the products (A_j's moments are G's summed over l: the r_il sum to 1). Row (j, a),
    column (l, b) is ∂T_ja/∂c_lb. A centre without mass (N_j < MIN_MASS) stays put under EM, so its true
    rows are the identity's; here they are 0, so that Newton's equation (``_newton_run``) keeps it where it
    is and its eigenvalue 1 does not count as an unstable direction.
    """
    k, d = c.shape
    G = moments.reshape(k, d + 1, k, d + 1)
    S0 = G[:, d, :, d]  # (j, l): Σ r_ij r_il
    S1 = G[:, :d, :, d]  # (j, a, l): Σ r_ij r_il x_ia
    S2 = G[:, :d, :, :d]  # (j, a, l, b): Σ r_ij r_il x_ia x_ib
    T = image.astype(np.float64)
    c = c.astype(np.float64)
    B = (
        S2
        - S1[:, :, :, None] * c[None, None, :, :]
        - T[:, :, None, None] * S1.transpose(0, 2, 1)[:, None, :, :]
        + S0[:, None, :, None] * T[:, :, None, None] * c[None, None, :, :]
    )
    # Σ_i r_ij [1, x_i, x_i x_iᵀ] over the points in G (not N_j when G skipped the one-hot points)
    zeroth, first, second = S0.sum(axis=1), S1.sum(axis=2), S2.sum(axis=2)
    A = (
        second
        - first[:, :, None] * c[:, None, :]
        - T[:, :, None] * first[:, None, :]
        + zeroth[:, None, None] * T[:, :, None] * c[:, None, :]
    )
    J = -B
    J[np.arange(k), :, np.arange(k), :] += A
    mass = mass.astype(np.float64)
    alive = mass >= MIN_MASS
    J *= np.where(alive, 1.0 / (np.where(alive, mass, 1.0) * sigma * sigma), 0.0)[:, None, None, None]
    return J.reshape(k * d, k * d)


def _sq_distance_levels(block: np.ndarray, C: np.ndarray) -> np.ndarray:
    """(m, k, w) squared distances of the w points of ``block`` (``points_with_ones`` rows) to each level's
    centres C (m, k, d): ``maps.sq_distance_columns`` of every level (the same operations)."""
    m, k, d = C.shape
    if d > _DIRECT_DISTANCE_MAX_FEATURES:
        return np.stack([sq_distance_columns(block[:-1].T, c) for c in C])
    rows = C.reshape(m * k, d)  # the levels' centres one after another: 2-D passes, as for one level
    D = np.empty((m * k, block.shape[1]), dtype=np.result_type(rows, block))
    _sq_distances_into(block, rows, D, np.empty_like(D))
    return D.reshape(m, k, -1)


# One level's softmax over a block of more points than this is computed this many points at a time
# (``_softmax_level_chunked``): the (k, chunk) distances then stay in the core's cache across the
# passes of the distances and the softmax instead of going out to L3 and back for each pass.
_SOFTMAX_CHUNK = 1 << 14


def _chunked(block: np.ndarray, C: np.ndarray) -> bool:
    """Whether ``_em_steps`` computes the softmax of the levels C (m, k, d) on ``block``
    (``points_with_ones`` rows) in chunks of points: one level, distances feature by feature, and a block
    wider than a chunk whose softmax takes torch's passes."""
    m, k, d = C.shape
    width = block.shape[1]
    return (
        m == 1
        and d <= _DIRECT_DISTANCE_MAX_FEATURES
        and width > _SOFTMAX_CHUNK
        and k * width >= _TORCH_SOFTMAX_MIN_ENTRIES
    )


def _softmax_level_chunked(block: np.ndarray, c: np.ndarray, T: float):
    """``_sq_distance_levels`` then ``_softmax_level_with_sums_`` of one level with centres c (k, d) at
    temperature T on the w points of ``block`` (``points_with_ones`` rows, k·w at least
    _TORCH_SOFTMAX_MIN_ENTRIES), _SOFTMAX_CHUNK points at a time: (responsibilities (k, w), d_min (w,),
    column sums (w,)). The same bits as the whole block at once: every operation is column by column, each
    chunk takes the torch passes the whole block takes, and a chunk skips the far-logit clip only where
    it would change nothing (``_clip_is_idle``)."""
    k, w = c.shape[0], block.shape[1]
    resp = np.empty((k, w), dtype=np.result_type(c, block))
    d_min, column_sums = np.empty(w, dtype=resp.dtype), np.empty(w, dtype=resp.dtype)
    diff = np.empty((k, _SOFTMAX_CHUNK), dtype=resp.dtype)
    for start in range(0, w, _SOFTMAX_CHUNK):
        stop = min(w, start + _SOFTMAX_CHUNK)
        out = resp[:, start:stop]
        _sq_distances_into(block[:, start:stop], c, out, diff[:, : stop - start])
        _, d_min[start:stop], column_sums[start:stop] = _softmax_level_torch_(out, T, c)
    return resp, d_min, column_sums


def _fused(block: np.ndarray, C: np.ndarray) -> bool:
    """Whether ``_em_steps`` takes a softmax EM step of the levels C (m, k, d) on ``block``
    (``points_with_ones`` rows) in ``_softmax_sums_chunked``: one float64 level on a block wider than a
    chunk (``_chunked``)."""
    return C.dtype == np.float64 and block.dtype == np.float64 and _chunked(block, C)


def _softmax_sums_chunked(block: np.ndarray, c: np.ndarray, T: float, moments: bool):
    """One float64 softmax EM step's sums over the w points of ``block`` (``points_with_ones`` rows, p_i =
    [x_i, 1]) at centres c (k, d) and temperature T, _SOFTMAX_CHUNK points at a time, with nothing of size
    (k, w) kept: (``weighted_sums`` (k, d + 1), d_min (w,), column sums (w,), and with ``moments`` the
    ``_pair_moments`` (k·(d + 1), k·(d + 1)) of the responsibilities, else None); d_min and the column
    sums as ``_softmax_levels_with_sums_`` defines them (the parts of the free energy).

    The logits come from one product per chunk: -d_ij/T = z_ij - ||x_i||²/T with z_ij = (2 c_j·x_i -
    ||c_j||²)/T = (L p_i)_j, L = [2c/T | -||c||²/T] (k, d + 1); the point's own ||x_i||²/T cancels in its
    softmax, so r_ij = exp(z_ij - max_l z_il) / s_i and d_min,i = ||x_i||² - T max_l z_il. That replaces
    the distances' 2d + 1 passes over each (k, chunk) array by one, and the centre sums and moments are
    taken while the chunk's responsibilities are in cache. Rounding: z is a difference of terms up to
    2||c||·||x||/T, so each logit is within a few units of float64 rounding of that size, against
    rounding relative to the distance itself in ``_sq_distance_levels``: at this package's data scales and
    grids a relative change below 1e-12 of any weight, which moves an EM step's centres far less than the
    stopping tolerance (``tests/unit/test_anneal_fused.py`` bounds it against the distance form). float32
    keeps the distance form, where that rounding would be 1e-7 × the logits' size.
    """
    k, d = c.shape
    w = block.shape[1]
    L = np.empty((k, d + 1))
    np.multiply(c, 2.0 / T, out=L[:, :d])
    L[:, d] = np.einsum("kd,kd->k", c, c) * (-1.0 / T)
    d_min, column_sums = np.empty(w), np.empty(w)
    logits = np.empty((k, min(w, _SOFTMAX_CHUNK)))
    sums = np.zeros((k, d + 1))
    pairs = torch.zeros((k * (d + 1), k * (d + 1)), dtype=torch.float64) if moments else None
    for start in range(0, w, _SOFTMAX_CHUNK):
        stop = min(w, start + _SOFTMAX_CHUNK)
        points = block[:, start:stop]
        z = logits[:, : stop - start]
        np.matmul(L, points, out=z)
        t = torch.from_numpy(z)
        z_max = t.amax(dim=0)
        t -= z_max
        near = d_min[start:stop]
        np.square(points[0], out=near)
        for f in range(1, d):
            near += np.square(points[f])
        near -= T * z_max.numpy()
        if not _clip_is_idle(near, c, T):
            t.clamp_min_(-_CLIP_LOGIT)
        t.exp_()
        s = t.sum(dim=0)
        t *= s.reciprocal()
        column_sums[start:stop] = s.numpy()
        sums += z @ points.T
        if moments:
            pairs += _pair_moments_torch(points, t, s)
    return sums, d_min, column_sums, (pairs.numpy() if moments else None)


def _pair_moments_torch(points: np.ndarray, resp: torch.Tensor, column_sums: torch.Tensor) -> torch.Tensor:
    """``_pair_moments`` of the chunk ``points`` (d + 1, w) with its (k, w) responsibilities resp, as a
    torch tensor, from torch's product (less than half numpy's time at these shapes; forming only the
    distinct products, symmetric in the two centres and in the two coordinates, measured slower)."""
    block = torch.from_numpy(points)
    soft = column_sums > 1.0 + _ONE_HOT
    if float(soft.double().mean()) < 0.75:
        block, resp = block[:, soft], resp[:, soft]
    k, w = resp.shape
    weighted = (resp[:, None, :] * block[None, :, :]).reshape(k * block.shape[0], w)
    return weighted @ weighted.T


def _sq_distances_into(block: np.ndarray, rows: np.ndarray, out: np.ndarray, diff: np.ndarray) -> None:
    """The squared distances (r, w) of the w points of ``block`` (``points_with_ones`` rows) to the r
    centres ``rows`` (r, d), feature by feature, written to ``out`` (r, w); diff: an (r, w) scratch array."""
    np.subtract(rows[:, :1], block[0], out=out)
    np.square(out, out=out)
    for f in range(1, rows.shape[1]):
        np.subtract(rows[:, f : f + 1], block[f], out=diff)
        out += np.square(diff, out=diff)


def _weighted_sums_levels(block: np.ndarray, resp: np.ndarray) -> np.ndarray:
    """``steps.weighted_sums`` of each level's (k, w) responsibilities resp (m, k, w): (m, k, d + 1)."""
    if resp.shape[0] == 1:
        return weighted_sums(block, resp[0])[None]
    if block.shape[1] > _SUM_CHUNK:
        return np.stack([weighted_sums(block, weights) for weights in resp])
    return np.matmul(resp, block.T)


def _exp_clipped_(t: torch.Tensor) -> None:
    """exp in place of the softmax's clipped logits t (>= -_CLIP_LOGIT in float64): torch's for float64,
    numpy's for float32 (torch's float32 exp is slow for the far logits float32 does not clip, and not
    faster otherwise).

    torch's float64 exp is vectorised on every x86-64 processor, and its values are the same whether
    AVX-512 is used or not; numpy's is vectorised only with AVX-512, and without it (glibc's scalar exp)
    differs in the last bit of a few percent of values (``tests/unit/test_exp_on_every_processor.py``). So
    the EM's numbers on a processor do not depend on whether it has AVX-512, and small levels pay a few
    microseconds instead of numpy's scalar exp. float32's exp is numpy's on both kinds and needs no such
    care."""
    if t.dtype == torch.float64:
        t.exp_()
    else:
        np.exp(t.numpy(), out=t.numpy())


# Up to this many (centre, point) entries per level, the EM step's softmax runs numpy's passes (fewer
# microseconds per call on small arrays), above it torch's (see ``_softmax_levels_with_sums_``). It depends on
# the level's size only, not on how many levels are stacked, so a level gets the same bits alone or batched.
_TORCH_SOFTMAX_MIN_ENTRIES = 1 << 14


def _softmax_levels_with_sums_(D: np.ndarray, T: list, C: np.ndarray | None = None):
    """Softmax responsibilities (m, k, w) of the (m, k, w) squared distances D, level i at temperature
    T[i], computed in D's memory; also the (m, w) nearest distances d_min and column sums s of
    exp(-(d - d_min)/T), the two parts of each point's log partition sum
    log Z_i = log Σ_j exp(-d_ij/T) = -d_min,i/T + log s_i.

    Every column of exp(-(d - d_min)/T) holds a 1, so s_i lies in [1, k]: no overflow, no 0/0. Shifted
    distances beyond _CLIP_LOGIT·T are lowered to it (see there). For levels of more than
    _TORCH_SOFTMAX_MIN_ENTRIES entries the passes are torch's, on D's memory: its reductions down the short
    axis cost less than numpy's, and so does its float64 exp, vectorised on every x86-64 processor where
    numpy's is vectorised only with AVX-512 (``_exp_clipped_``: the values of numpy's with AVX-512).
    C (m, k, d), the levels' centres, lets one level skip a clip that would change nothing.
    """
    if len(T) == 1:  # one level: its (k, w) array's 2-D passes (3-D broadcasts cost more per call)
        _, d_min, column_sums = _softmax_level_with_sums_(D[0], T[0], None if C is None else C[0])
        return D, d_min[None], column_sums[None]
    if D.shape[1] * D.shape[2] < _TORCH_SOFTMAX_MIN_ENTRIES:
        return _softmax_levels_numpy_(D, T)
    t = torch.from_numpy(D)
    d_min = t.amin(dim=1)
    t -= d_min[:, None, :]
    if D.dtype == np.float64:
        limit = torch.tensor([_CLIP_LOGIT * temp for temp in T], dtype=torch.float64)
        t.clamp_max_(limit[:, None, None])
    scales = torch.tensor([-1.0 / temp for temp in T], dtype=torch.float64).to(t.dtype)
    t *= scales[:, None, None]  # each level's -1/T, rounded to D's dtype as a Python float is above
    _exp_clipped_(t)
    column_sums = t.sum(dim=1)
    t *= column_sums.reciprocal()[:, None, :]  # torch's 1.0 / t: the same bits, without its Python wrapper
    return D, d_min.numpy(), column_sums.numpy()


def _clip_is_idle(d_min: np.ndarray, c: np.ndarray | None, T: float) -> bool:
    """Whether no shifted distance d_ij - d_min,i of points whose nearest distances are d_min (w,), to
    the centres c (k, d), can exceed _CLIP_LOGIT·T, so that the far-logit clip would change nothing.

    By the triangle inequality ||x_i - c_j|| <= ||x_i - c_near|| + ||c_near - c_j||, so
    d_ij <= (√d_min,i + s)² <= (√max d_min + s)², with s the diagonal of the centres' bounding box. The
    computed distances (summed feature by feature, at most _DIRECT_DISTANCE_MAX_FEATURES) are within
    (d + 2) units of rounding of their values, and a shifted distance is never above its distance, so a
    margin of 1e-6 relative is ample. False for unknown centres, Gram distances, NaN or inf."""
    if c is None or c.shape[1] > _DIRECT_DISTANCE_MAX_FEATURES:
        return False
    squared_span = 0.0
    for values in c.T.tolist():  # k·d numbers: Python's max and min cost less than numpy's calls
        squared_span += (max(values) - min(values)) ** 2
    reach = math.sqrt(float(np.maximum.reduce(d_min))) + math.sqrt(squared_span)
    return reach * reach * (1.0 + 1e-6) < _CLIP_LOGIT * T


def _softmax_level_with_sums_(D: np.ndarray, T: float, c: np.ndarray | None = None):
    """``_softmax_levels_with_sums_`` of one level: D (k, w) squared distances at temperature T, made the
    responsibilities in place; returns (D, d_min (w,), column sums (w,)). With the centres c (k, d) the
    distances are from, the clip is skipped where it would change nothing (``_clip_is_idle``): one pass
    over the (k, w) array less at every σ where no logit is that far. Small levels take numpy's passes
    (``_softmax_level_numpy_``), which decide the clip from the shifted distances themselves."""
    if D.size < _TORCH_SOFTMAX_MIN_ENTRIES:
        return _softmax_level_numpy_(D, T)
    return _softmax_level_torch_(D, T, c)


def _softmax_level_torch_(D: np.ndarray, T: float, c: np.ndarray | None):
    """``_softmax_level_with_sums_`` in torch's passes, whatever D's size (D may be a view with strided
    rows)."""
    level = torch.from_numpy(D)
    d_min = level.amin(dim=0)
    level -= d_min
    if D.dtype == np.float64 and not _clip_is_idle(d_min.numpy(), c, T):
        level.clamp_max_(_CLIP_LOGIT * T)
    level *= -1.0 / T  # a Python float: in a float32 array's dtype
    _exp_clipped_(level)
    column_sums = level.sum(dim=0)
    level *= column_sums.reciprocal()  # torch's 1.0 / t: the same bits, without its Python wrapper
    return D, d_min.numpy(), column_sums.numpy()


def _softmax_level_numpy_(D: np.ndarray, T: float):
    """``_softmax_level_with_sums_`` of a small level (D (k, w), fewer than _TORCH_SOFTMAX_MIN_ENTRIES
    entries) in numpy's passes, the ufuncs' reductions called directly (the array methods' Python wrappers
    cost a step a few percent here), and the exp of ``_exp_clipped_``. The clip runs only where a shifted
    distance reaches it (``_reaches_clip``): elsewhere it would change nothing."""
    d_min = np.minimum.reduce(D, axis=0)
    D -= d_min
    if D.dtype == np.float64 and _reaches_clip(D, _CLIP_LOGIT * T):
        torch.from_numpy(D).clamp_max_(_CLIP_LOGIT * T)  # torch's: numpy's minimum is 3× slower
    D *= -1.0 / T
    _exp_clipped_(torch.from_numpy(D))
    column_sums = np.add.reduce(D, axis=0)
    D *= 1.0 / column_sums
    return D, d_min, column_sums


def _reaches_clip(shifted: np.ndarray, limit: float) -> bool:
    """Whether any of the shifted distances (an array) exceeds limit, so that the far-logit clip changes
    something. On a small level one max pass costs less than ``_clip_is_idle``'s bound. False where the
    largest is NaN: the clip leaves a NaN a NaN."""
    return bool(np.maximum.reduce(shifted, axis=None) > limit)


def _softmax_levels_numpy_(D: np.ndarray, T: list):
    """``_softmax_levels_with_sums_`` in numpy's passes and ``_exp_clipped_`` (small levels, several of
    them)."""
    d_min = D.min(axis=1)
    D -= d_min[:, None, :]
    if D.dtype == np.float64:
        limit = torch.tensor([_CLIP_LOGIT * temp for temp in T], dtype=torch.float64)
        torch.from_numpy(D).clamp_max_(limit[:, None, None])
    D *= np.array([-1.0 / temp for temp in T]).astype(D.dtype)[:, None, None]
    _exp_clipped_(torch.from_numpy(D))
    column_sums = D.sum(axis=1)
    D *= (1.0 / column_sums)[:, None, :]
    return D, d_min, column_sums


def _norm(a: np.ndarray) -> float:
    """numpy.linalg.norm(a) of a float array, as it computes it (the root of the flat array's dot product
    with itself, in a's dtype), without its Python checks: SQUAREM takes two per cycle."""
    flat = a.ravel()
    return float(np.sqrt(flat.dot(flat)))


def _min_centre_gap(c: np.ndarray) -> float:
    """Smallest distance between two of the centres c (k, d); inf for one centre; NaN if any is NaN."""
    if c.shape[0] < 2:
        return math.inf
    squared = ((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
    squared.flat[:: c.shape[0] + 1] = np.inf
    return float(np.sqrt(squared.min()))  # the root of the least: the least root (sqrt is monotone)


@torch.no_grad()
def _em(
    points: np.ndarray,
    c: np.ndarray,
    sigma: float,
    kind: str,
    tol_abs: float,
    max_iter: int,
    accelerate: bool = True,
    apart_abs: float | None = None,
    merge: bool = True,
    newton: bool = False,
):
    """``_em_levels`` at one σ from c (k, d): (c, EM steps used, converged)."""
    centers, used, converged = _em_levels(
        points, c[None], (float(sigma),), kind, tol_abs, max_iter, accelerate, apart_abs, merge, newton=newton
    )
    return centers[0], int(used[0]), bool(converged[0])


@torch.no_grad()
def _em_levels(
    points: np.ndarray,
    C: np.ndarray,
    sigmas,
    kind: str,
    tol_abs: float,
    max_iter: int,
    accelerate: bool = True,
    apart_abs: float | None = None,
    merge: bool = True,
    progress=None,
    newton: bool = False,
):
    """EM at m σ levels, each from its own centres C[i] (C (m, k, d), sigmas m floats), until one EM
    step moves no coordinate more than tol_abs (points: ``points_with_ones(X)``).

    Returns (centres (m, k, d), EM steps used (m,) int64, converged (m,) bool). The levels run together:
    each level's run (``_em_run``) asks for one EM step at a time, each round takes the EM steps every
    running level asked for as one ``_em_steps`` call, and a level leaves the rounds as soon as its run
    has stopped, so a slow level costs only its own steps. Level i is what this function gives for that
    level alone (m = 1), bit for bit: the same run, the same steps.

    Per level, with ``accelerate``, steps are taken in SQUAREM cycles (Varadhan & Roland 2008): from
    c0, two EM steps c1, c2 give r = c1 - c0 and v = c2 - 2c1 + c0;
    the extrapolation c0 - 2αr + α²v with α = -||r||/||v|| (at most -1; α = -1 is plain c2) jumps
    along the slow direction, and one EM step from there stabilises it. The jump is kept only if the
    free energy there is no higher than at c0 — EM itself never raises it — otherwise the cycle
    falls back to plain c2. Near-critical levels, where plain EM moves by a factor σ_c²/σ² per step,
    converge in several times fewer steps. Usually to the same fixed point as plain EM, but not always:
    a jump can cross into another fixed point's basin, so from one start the two can end at different
    fixed points (both with ``converged`` telling the truth). Stops early, unconverged, if the
    centres become NaN (the "naive" map past its underflow point).

    With ``accelerate`` and ``apart_abs``, whenever no two centres are within apart_abs of each other
    the steps are Anderson steps instead (``_anderson_run``), which converge in a few times fewer
    steps than SQUAREM once several slow directions mix. Stacked centres keep SQUAREM: its α never
    points towards the stack's saddle, so a split grows as it does under plain EM.

    With ``accelerate`` and ``newton`` (softmax, k·d <= NEWTON_MAX_UNKNOWNS), each run starts with Newton's
    method (``_newton_run``) and goes back to it after NEWTON_RETRY EM steps of the others, a wait that
    doubles each time Newton hands back. ``anneal`` uses it; ``fixed_points`` (the Explorer) does not.

    With ``accelerate`` and ``merge``, after MERGE_AFTER_REFUSALS SQUAREM jumps in a row were refused, the
    run tries the fixed point with the two centres that are closing in on each other merged
    (``_merged_fixed_point``); it is kept if that pair is stable there and the free energy is lower than
    where the run stood. One try per run may spend EM steps: after one that fails, the run goes on
    without merges, so failed tries cost at most one merged run (on the Explorer's default data a
    second try cost 104 more steps and left a level unconverged that converges without merges).

    progress: optional callable(done, total), called as levels stop.
    """
    m = C.shape[0]
    sigmas = [float(sigma) for sigma in sigmas]
    centers = np.empty_like(C)
    used, converged = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=bool)
    if m == 1:
        run = _em_run(
            points, C[0].copy(), sigmas[0], kind, tol_abs, max_iter, accelerate, apart_abs, merge, newton
        )
        centers[0], used[0], converged[0] = _em_level(points, run, sigmas[0], kind)
        if progress is not None:
            progress(1, 1)
        return centers, used, converged
    runs, asks = {}, {}
    for i in range(m):
        runs[i] = _em_run(
            points, C[i].copy(), sigmas[i], kind, tol_abs, max_iter, accelerate, apart_abs, merge, newton
        )
        asks[i] = next(runs[i])
    while asks:
        live = list(asks)
        wanted = [len(asks[i]) > 2 and asks[i][2] for i in live]  # Newton requests: the Jacobian too
        step = _em_steps(
            points,
            asks[live[0]][0][None] if len(live) == 1 else np.stack([asks[i][0] for i in live]),
            [sigmas[i] for i in live],
            kind,
            [asks[i][1] for i in live],
            wanted if any(wanted) else None,
            lazy=True,
        )
        out, energy = step[:2]
        for j, i in enumerate(live):
            reply = (out[j], energy[j] if asks[i][1] else None)
            try:
                asks[i] = runs[i].send(reply + (step[2][j],) if wanted[j] else reply)
            except StopIteration as stop:
                centers[i], used[i], converged[i] = stop.value
                del asks[i], runs[i]
                if progress is not None:
                    progress(m - len(asks), m)
    return centers, used, converged


def _em_level(points: np.ndarray, run, sigma: float, kind: str):
    """Drive one level's run (``_em_run``, a generator) to its end, each EM step it asks for one
    ``_em_steps`` call: ``_em_levels``' rounds for one level, without their bookkeeping for several.
    Returns the run's (c, EM steps used, converged)."""
    sigmas = (sigma,)
    ask = next(run)
    try:
        while True:
            if len(ask) > 2 and ask[2]:  # a Newton request: the Jacobian too
                images, energies, jacobians = _em_steps(
                    points, ask[0][None], sigmas, kind, (ask[1],), (True,), lazy=True
                )
                ask = run.send((images[0], energies[0] if ask[1] else None, jacobians[0]))
            else:
                images, energies = _em_steps(points, ask[0][None], sigmas, kind, (ask[1],), lazy=True)
                ask = run.send((images[0], energies[0] if ask[1] else None))
    except StopIteration as stop:
        return stop.value


def _em_run(
    points: np.ndarray,
    c: np.ndarray,
    sigma: float,
    kind: str,
    tol_abs: float,
    max_iter: int,
    accelerate: bool,
    apart_abs: float | None,
    merge: bool,
    newton: bool = False,
):
    """One level's run of ``_em_levels`` from c (k, d), as a generator: it yields (centres, whether F_σ
    is wanted) for each EM step, is sent back (EM image, F_σ or None), and returns (c, EM steps used,
    converged). A Newton request (``_newton_run``) yields a third item, True, and is sent back the EM
    Jacobian as a third item too."""
    used = 0
    refused = 0  # SQUAREM jumps refused in a row
    newton = newton and accelerate and kind == "softmax" and c.size <= NEWTON_MAX_UNKNOWNS
    newton_due, newton_wait = 0, NEWTON_RETRY  # the step count from which Newton is tried again; the wait
    while used < max_iter:
        if newton and used >= newton_due:
            escape = points.shape[1] >= ESCAPE_MIN_POINTS and points.dtype == np.float64
            c, steps, done = yield from _newton_run(c, tol_abs, max_iter - used, escape)
            used += steps
            if done is not None:
                return c, used, done
            newton_due, newton_wait = used + newton_wait, 2 * newton_wait
            continue
        if accelerate and apart_abs is not None and _min_centre_gap(c) > apart_abs:
            budget = max_iter - used if not newton else min(max_iter, newton_due) - used
            c, steps, done = yield from _anderson_run(c, tol_abs, budget, apart_abs)
            used += steps
            if done is not None:
                return c, used, done
            continue
        c1, f0 = yield c, accelerate
        used += 1
        shift = float(np.abs(c1 - c).max())
        if not math.isfinite(shift):
            return c1, used, False
        if shift <= tol_abs:
            return c1, used, True
        if not accelerate or used + 2 > max_iter:
            c = c1
            continue
        c2, _ = yield c1, False
        used += 1
        r = c1 - c
        v = c2 - c1 - r
        v_norm = _norm(v)
        alpha = -_norm(r) / v_norm if v_norm > 0 else -1.0
        if not (alpha < -1.0):  # also catches NaN: plain EM
            c = c2
            continue
        c3, f_jump = yield c - 2.0 * alpha * r + alpha * alpha * v, True
        used += 1
        accepted = float(f_jump) <= float(f0) and bool(np.isfinite(c3).all())
        start, c = c, (c3 if accepted else c2)
        refused = 0 if accepted else refused + 1
        if refused < MERGE_AFTER_REFUSALS or not merge:
            continue
        merged, steps = _merged_fixed_point(
            points, start, c, float(f0), sigma, kind, tol_abs, max_iter - used, apart_abs
        )
        used += steps
        if merged is not None:
            return merged, used, True
        merge = steps == 0  # one try that spends steps per run
    return c, max_iter, False


def _merged_fixed_point(
    points: np.ndarray,
    before: np.ndarray,
    c: np.ndarray,
    energy: float,
    sigma: float,
    kind: str,
    tol_abs: float,
    budget: int,
    apart_abs: float | None,
):
    """The fixed point reached from c (k, d) with two centres merged into their mass-weighted mean, if the
    merged pair is stable there and its free energy is at most ``energy`` (F_σ at or before c): (that
    fixed point or None, EM steps spent). Maps other than softmax and naive: (None, 0). The pair merged
    is the one that EM, from ``before`` (k, d) to c, brings closest to meeting: of the pairs whose gap
    shrank, the smallest gap over the speed it shrank at.

    Why: two coincident centres stay coincident under EM, and at a fixed point a small separation δ
    between them maps to C_{x|y} δ / σ² (theory notes §7, with y the pair's cluster and C_{x|y} =
    Σ_i (r_iy/N_y)(x_i - c_y)(x_i - c_y)ᵀ), so the merged pair is a stable fixed point iff
    λ_max(C_{x|y}) < σ². Just above the pair's own critical σ that ratio is close to 1 and plain EM closes
    the gap by that factor per step: thousands of steps, which SQUAREM's jumps do not shorten because the
    pair's drift is far from linear (every jump raises F and is refused). When the merged fixed point is
    stable and lies below the free energy the run had reached, it is the limit the run was closing in
    on (measured: the Explorer's level that hit 500 steps reaches it in 197, and plain EM reaches the same
    centres, to 5e-8, in 3,881 steps); it is reached in a few dozen steps once the pair is merged.
    """
    if kind not in ("softmax", "naive") or c.shape[0] < 2 or budget < 2 or not np.isfinite(c).all():
        return None, 0
    gaps = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(axis=2))
    gaps_before = np.sqrt(((before[:, None, :] - before[None, :, :]) ** 2).sum(axis=2))
    closing = gaps_before - gaps
    with np.errstate(divide="ignore", invalid="ignore"):
        time_to_meet = np.where(closing > 0, gaps / closing, np.inf)
    np.fill_diagonal(time_to_meet, np.inf)
    if not np.isfinite(time_to_meet).any():
        return None, 0
    pair = [int(i) for i in np.unravel_index(int(np.argmin(time_to_meet)), time_to_meet.shape)]
    features = points[:-1].T
    mass = resp_columns(sq_distance_columns(features, c), sigma, kind)[pair].sum(axis=1, dtype=np.float64)
    if not mass.sum() > 0:
        return None, 0
    merged = c.copy()
    merged[pair] = ((mass[0] * c[pair[0]] + mass[1] * c[pair[1]]) / mass.sum()).astype(c.dtype)
    if not _pair_spread(features, merged, pair, sigma, kind) < MERGE_SLACK * sigma * sigma:
        return None, 0  # far from stable even before EM settles the rest: not worth the steps
    # the pair stays exactly coincident: EM and SQUAREM treat its two rows with the same operations
    fixed, used, converged = _em(points, merged, sigma, kind, tol_abs, budget - 1, True, apart_abs, False)
    if not converged:
        return None, used
    _, merged_energy = _em_step(points, fixed, sigma, kind, energy=True)
    used += 1
    stable = merged_energy <= energy and _pair_spread(features, fixed, pair, sigma, kind) < sigma * sigma
    return (fixed if stable else None), used


def _pair_spread(features: np.ndarray, c: np.ndarray, pair: list, sigma: float, kind: str) -> float:
    """λ_max(C_{x|y}) of the cluster y of the coincident centres c[pair] (c (k, d)) on the points
    ``features`` (n, d): the largest variance, along any direction, of the points weighted by y's
    responsibilities r_iy (the sum of the pair's); NaN if y has no mass."""
    weights = resp_columns(sq_distance_columns(features, c), sigma, kind)[pair].sum(axis=0)
    total = float(weights.sum(dtype=np.float64))
    if not total > 0:
        return math.nan
    centred = features.astype(np.float64) - c[pair[0]].astype(np.float64)
    return float(np.linalg.eigvalsh((centred * (weights / total)[:, None]).T @ centred)[-1])


# Anderson acceleration remembers this many past steps at most (more than k·d brings nothing: the
# least-squares problem is then already square).
ANDERSON_MEMORY = 10
# An Anderson jump moves no coordinate further than this fraction of the smallest gap between centres.
ANDERSON_REACH = 0.05
# An extrapolated point whose free energy exceeds the last accepted point's by more than this (relative)
# is refused; the slack absorbs the rounding of F's sum.
_ENERGY_SLACK = 1e-12
# A merge is tried only if the merged pair's spread λ_max(C_{x|y}), before EM settles the other centres,
# is below this many σ²: measured at 1.03 σ² where the settled pair was stable (0.995 σ²), and at 1.05 to
# 10⁴ σ² where the merged fixed point was refused (its free energy was higher).
MERGE_SLACK = 1.1
# A merge is tried after this many SQUAREM jumps in a row were refused.
MERGE_AFTER_REFUSALS = 3


def _with_slack(energy) -> float:
    """A free energy (a float or a ``_LazyEnergy``) plus _ENERGY_SLACK of its size."""
    energy = float(energy)
    return energy + _ENERGY_SLACK * abs(energy)


def _anderson_run(c: np.ndarray, tol_abs: float, budget: int, apart_abs: float):
    """Anderson-accelerated EM (type II, Walker & Ni 2011) from c (k, d), at most ``budget`` EM steps.

    Each step maps the current point x to its EM image g = M(x) with residual f = g - x, then jumps to
    g - ΔG γ, where ΔG and ΔF hold the differences of the last few images and residuals and γ solves
    min ||f - ΔF γ||: the secant (GMRES-like) solution of x = M(x) on the span of recent steps. A jump
    is kept only while the free energy does not rise (EM never raises it); a point that raises it is
    refused and the run restarts, with no memory, from the last accepted point's EM image.

    A generator, as ``_em_run`` (its EM steps are asked for the same way). Returns (c, steps used,
    converged): converged is True or False when the run ended here (as ``_em`` returns it), None when
    centres came within apart_abs of each other or the budget ran out (c is then the last EM image, and
    the caller carries on).
    """
    k, d = c.shape
    memory = min(ANDERSON_MEMORY, k * d)
    images, residuals = [], []
    last_energy, last_image = None, None
    x, extrapolated = c, False
    for used in range(1, budget + 1):
        g, energy = yield x, True
        shift = float(np.abs(g - x).max())
        if not math.isfinite(shift):
            return g, used, False
        if shift <= tol_abs:
            return g, used, True
        images.append(g.ravel())
        residuals.append((g - x).ravel())
        del images[: -memory - 1], residuals[: -memory - 1]
        if extrapolated and not float(energy) <= _with_slack(last_energy):
            # the secant pair (x, g) still describes the map: keep it, but go on from the last good point
            x, extrapolated = last_image, False
            continue
        last_energy, last_image = energy, g
        gap = _min_centre_gap(g)
        if gap <= apart_abs:
            return g, used, None
        x, extrapolated = g, False
        if len(images) >= 2:
            d_residual = np.diff(np.array(residuals, dtype=np.float64), axis=0).T
            d_image = np.diff(np.array(images, dtype=np.float64), axis=0).T
            gamma = np.linalg.lstsq(d_residual, residuals[-1], rcond=None)[0]
            step = (d_image @ gamma).reshape(k, d)
            # a trust region: no centre jumps further than a fraction of the gap to its nearest neighbour
            # (an extrapolation across another centre's ground could land in another fixed point's basin)
            longest = float(np.abs(step).max())
            limit = ANDERSON_REACH * gap
            if longest > limit:
                step *= limit / longest
            jump = (g - step).astype(g.dtype)
            if np.isfinite(jump).all():
                x, extrapolated = jump, True
    return last_image if last_image is not None else c, budget, None


# A Newton jump is taken only towards a fixed point whose EM Jacobian has spectral radius below this: a
# stable one, which EM itself converges to (a saddle, e.g. a stack of centres about to split, is left to EM).
NEWTON_STABLE = 1.0
# After a Newton run hands back (a refused jump, or no stable fixed point near), the run takes this many EM
# steps with the other accelerators before it tries Newton again; the wait doubles each time (next to a
# split, EM can spend a hundred steps leaving a fixed point that has turned unstable).
NEWTON_RETRY = 8
# Newton is used only up to this many unknowns k·d: its Jacobian's moments cost (k·(d + 1))² per point,
# an EM step about k·d.
NEWTON_MAX_UNKNOWNS = 32


def _newton_run(c: np.ndarray, tol_abs: float, budget: int, escape: bool = False):
    """Newton's method on the fixed-point equation T(c) = c of the softmax EM map T, from c (k, d), at most
    ``budget`` EM steps.

    Each request asks for the EM image g = T(x), F_σ(x) and T's Jacobian J at x (``_softmax_em_jacobian``),
    all from one pass over the points, then jumps to x + (I - J)⁻¹(g - x). Near a critical σ, J has an
    eigenvalue close to 1 and EM crawls along its eigenvector (hundreds of steps); Newton converges
    quadratically. Safeguards: a Newton jump is taken only while J's spectral radius is below
    NEWTON_STABLE (the fixed point ahead is stable, so it is where EM goes too, not a saddle EM would
    leave). Where it is not (EM is leaving a fixed point that has turned unstable, at 0.004 × the data
    scale a step for a hundred steps next to a split), with ``escape`` the jump is instead many EM steps
    of the map linearised at x at once (``_escape_step``), which leaves along EM's own path. A point a
    jump lands on is kept only if there the free energy is no higher than at the point it left (EM never
    raises it), and, after a Newton jump, J is still stable. The stopping test is EM's: one EM step moves no
    coordinate more than tol_abs.

    escape: whether to take the escape steps and to ask the step Newton predicts to be the last without
    its Jacobian (NEWTON_SETTLED); ``_em_run`` asks for them on float64 runs of at least ESCAPE_MIN_POINTS
    points.
    Without, a run hands back where J is unstable.

    A generator, as ``_anderson_run``. Returns (c, steps used, converged): converged is True or False when
    the run ended here, None when it hands back to the other accelerators (c is then the EM image of the
    last kept point).
    """
    k, d = c.shape
    x, kept_image, kept_energy, escaping = c, None, None, False
    last_shift, settled = (
        None,
        False,
    )  # the last Newton step's shift; whether the next step should end the run
    for used in range(1, budget + 1):
        if settled:  # Newton's rate predicts that this EM step ends the run: its Jacobian would go unused
            g, energy = yield x, True, False
            shift = float(np.abs(g - x).max())
            if not math.isfinite(shift):
                return g, used, False
            if not float(energy) <= _with_slack(kept_energy):
                return kept_image, used, None
            if shift <= tol_abs:
                return g, used, True
            kept_image, kept_energy, x = g, energy, g  # an EM step, and Newton again from its image
            last_shift, settled = None, False
            continue
        g, energy, jacobian = yield x, True, True
        shift = float(np.abs(g - x).max())
        if not math.isfinite(shift):
            return g, used, False
        radius = float(np.abs(np.linalg.eigvals(jacobian)).max())
        if not math.isfinite(radius):
            return (kept_image if kept_image is not None else g), used, None
        if kept_image is not None and not (
            float(energy) <= _with_slack(kept_energy) and (radius < NEWTON_STABLE or escaping)
        ):
            return kept_image, used, None
        if shift <= tol_abs:
            return g, used, True
        kept_image, kept_energy = g, energy
        escaping = not radius < NEWTON_STABLE
        if escaping:
            jump = _escape_step(radius, jacobian, g - x) if escape else None
            if jump is None:
                return g, used, None
            last_shift = None
        else:
            try:
                jump = np.linalg.solve(np.eye(k * d) - jacobian, (g - x).ravel().astype(np.float64))
            except np.linalg.LinAlgError:
                return g, used, None
            # quadratic convergence: shift_next ≈ K shift², with K estimated from the last two shifts
            settled = (
                escape and last_shift is not None and shift**3 <= NEWTON_SETTLED * tol_abs * last_shift**2
            )
            last_shift = shift
        x = (x + jump.reshape(k, d)).astype(g.dtype)
        if not np.isfinite(x).all():
            return g, used, None
    return (kept_image if kept_image is not None else c), budget, None


# Escape steps and the Newton step without its Jacobian (below) are taken on float64 runs of at least this
# many points. There they were checked to keep every staircase, with every level's centres within 3e-8 ×
# the data scale of the runs without them (N = 70,000-100,000: blobs, moons, circles, spiral, sheared,
# unequal-variance and unequal-size blobs, k = 5-8). On a few thousand points they changed the staircases
# of the hardest "How many clusters" runs (k_max = 8 or 16 on sheared, spiral, unequal-size blobs,
# circles), mostly at levels the runs without them leave unconverged, but on sheared data at one converged
# level too; in float32 at N = 100,000, three staircases of eleven, each after a level the run without them
# leaves unconverged (towards the float64 run's): those runs keep the steps they had, bit for bit.
ESCAPE_MIN_POINTS = (1 << 16) + 1
# After a Newton jump, the next EM step is taken without the Jacobian when Newton's quadratic rate, estimated
# from the last two shifts (shift_next ≈ shift³/shift_before²), puts its shift below this fraction of the
# stopping tolerance: that step most likely ends the run, and its Jacobian's moments cost an EM step.
NEWTON_SETTLED = 0.25
# Where J's spectral radius is 1 or more (EM is leaving a fixed point that has turned unstable, e.g. a
# stack about to split), a Newton run jumps as many EM steps of the linearised map at once as grow the
# fastest-growing direction by at most this factor (``_escape_step``); at most NEWTON_ESCAPE_STEPS of them.
# Measured against plain EM at every level (tests/unit/test_anneal_reference.py): a growth of 2 per jump
# keeps every branch, 4 sent one data set's level to another fixed point.
NEWTON_ESCAPE = 2.0
NEWTON_ESCAPE_STEPS = 256


def _escape_step(radius: float, jacobian: np.ndarray, residual: np.ndarray):
    """The jump Σ_{t<m} J^t f (k·d,) float64: m EM steps of the map linearised at the current point x at
    once, from its EM Jacobian J (k·d, k·d) there, with spectral radius ``radius`` >= 1, and its EM step
    f = T(x) - x (k, d). Linearised, EM's next steps are f, Jf, J²f, …; each direction of J grows or
    shrinks by its eigenvalue per step, so m steps at once keep EM's own balance between the directions
    (which of two unstable directions wins decides a split's branch), where a Newton step would not. m
    grows the fastest direction by at most NEWTON_ESCAPE: m = ⌊log NEWTON_ESCAPE / log radius⌋, at least
    1, at most NEWTON_ESCAPE_STEPS. The sum of powers by binary doubling (a few (k·d)² products). None if
    it is not finite."""
    m = (
        max(1, math.floor(math.log(NEWTON_ESCAPE) / math.log(radius)))
        if radius > 1.0
        else NEWTON_ESCAPE_STEPS
    )
    m = min(NEWTON_ESCAPE_STEPS, m)
    n = jacobian.shape[0]
    total, power = np.zeros((n, n)), np.eye(n)  # Σ_{t<a} J^t and J^a for the a steps taken so far
    block_sum, block_power = np.eye(n), jacobian.astype(np.float64)  # the same for a block of 2^i steps
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below
        while m:
            if m & 1:
                total = total + power @ block_sum
                power = power @ block_power
            block_sum = block_sum + block_power @ block_sum
            block_power = block_power @ block_power
            m >>= 1
        jump = total @ residual.ravel().astype(np.float64)
    return jump if np.isfinite(jump).all() else None


def _tolerance(tol: float, dtype, scale: float) -> float:
    return max(float(tol), _MIN_TOL_EPS * float(np.finfo(dtype).eps)) * scale


def fixed_point(X, C, sigma, kind="softmax", tol=1e-10, max_iter=500, accelerate=True):
    """EM at one σ from C (k, d) to the soft fixed point. Returns (centers (k, d) in X's dtype,
    iterations, converged); tolerance as in ``anneal``.

    With ``accelerate`` (softmax and naive), two centres that close in on each other just above their
    own critical σ are merged when the merged pair is a stable fixed point with a lower free energy: the
    limit plain EM reaches only after thousands of steps (``_merged_fixed_point``)."""
    X, C, sigma, kind = check_map_arguments(X, C, sigma, kind)
    tol = _check_tol(tol)
    max_iter = check_int(max_iter, "max_iter", 1)
    return _fixed_point(X, C, sigma, kind, tol, max_iter, accelerate)


def _fixed_point(
    X: np.ndarray,
    C: np.ndarray,
    sigma: float,
    kind: str,
    tol: float = 1e-10,
    max_iter: int = 500,
    accelerate: bool = True,
):
    """``fixed_point`` on checked arguments (X, C finite in one float dtype, σ a float valid in it)."""
    return _em(
        points_with_ones(X),
        C.copy(),
        sigma,
        kind,
        _tolerance(tol, X.dtype, data_scale(X)),
        max_iter,
        bool(accelerate),
    )


def fixed_points(X, C, sigmas, kind="softmax", tol=1e-10, max_iter=500, accelerate=True, progress=None):
    """``fixed_point`` from the same start C (k, d) at every σ of ``sigmas`` (m,), all levels together.

    Returns (centers (m, k, d) in X's dtype, iterations (m,) int64, converged (m,) bool); level i is
    ``fixed_point(X, C, sigmas[i], kind, tol, max_iter, accelerate)``, bit for bit. Each round takes one EM
    step at every level still running, as one set of array operations, and a level drops out as soon as
    it has stopped (``_em_levels``). progress: optional callable(done, total), called as levels stop.
    """
    X, C, sigmas, kind = check_map_arguments_on_grid(X, C, sigmas, kind)
    tol = _check_tol(tol)
    max_iter = check_int(max_iter, "max_iter", 1)
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(done, total) or None.")
    return _fixed_points(X, C, sigmas, kind, tol, max_iter, accelerate, progress)


def _fixed_points(
    X: np.ndarray,
    C: np.ndarray,
    sigmas: np.ndarray,
    kind: str,
    tol: float = 1e-10,
    max_iter: int = 500,
    accelerate: bool = True,
    progress=None,
):
    """``fixed_points`` on checked arguments (X, C finite in one float dtype, every σ valid in it)."""
    return _em_levels(
        points_with_ones(X),
        np.repeat(C[None], len(sigmas), axis=0),
        sigmas,
        kind,
        _tolerance(tol, X.dtype, data_scale(X)),
        max_iter,
        bool(accelerate),
        progress=progress,
    )


def _check_tol(tol) -> float:
    if (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float, np.floating, np.integer))
        or not math.isfinite(tol)
        or tol <= 0
    ):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}.")
    return float(tol)


def _break_ties(
    centers: np.ndarray, rng: np.random.RandomState, amplitude: float, radius: float
) -> np.ndarray:
    """Add N(0, amplitude²) noise to every centre that has another centre within ``radius``."""
    if centers.shape[0] < 2 or not np.all(np.isfinite(centers)):
        return centers
    gaps = np.linalg.norm(centers[:, None, :] - centers[None, :, :], axis=2)
    np.fill_diagonal(gaps, np.inf)
    stacked = (gaps < radius).any(axis=1)
    if not stacked.any():
        return centers
    centers = centers.copy()
    centers[stacked] += rng.normal(scale=amplitude, size=(int(stacked.sum()), centers.shape[1])).astype(
        centers.dtype
    )
    return centers


def anneal(
    X,
    k,
    sigmas,
    kind="softmax",
    init=None,
    seed=0,
    tol=1e-10,
    max_iter=500,
    progress=None,
    noise=NOISE,
    accelerate=True,
) -> AnnealResult:
    """Anneal k centres on X (n, d) down the decreasing grid ``sigmas``.

    Parameters
    ----------
    X : (n, d) float32 or float64 (other real input becomes float64); the run works in X's dtype.
    k : number of centres, 1 <= k <= n.
    sigmas : strictly decreasing σ values (data units), e.g. ``default_sigmas(X, k, kind)``.
    kind : "softmax" | "entmax15" | "naive" | "hard".
    init : (k, d) starting centres; None puts all k at the data mean plus N(0, (noise·scale)²) noise
        drawn from ``seed``.
    seed : seeds the start noise and the symmetry-breaking noise: same arguments, same result.
    tol : a level has converged when no centre coordinate moved more than tol × data scale in one
        EM iteration (never below 16 × the dtype's epsilon).
    max_iter : cap on EM steps per level.
    progress : optional callable(done, total) called after each level.
    noise : symmetry-breaking noise, relative to the data scale (see the module docstring).
    accelerate : accelerated EM (default: Newton steps for softmax, SQUAREM and Anderson steps; several
        times fewer steps near critical σ, usually to the same fixed points as plain EM, see ``_em_levels``);
        False runs plain EM steps.
    """
    X = check_points(X, "X")
    k = check_k(k, X.shape[0])
    return _anneal(
        X, k, *_anneal_checks(X, k, sigmas, kind, init, seed, tol, max_iter, progress, noise), accelerate
    )


def _anneal_checks(X: np.ndarray, k: int, sigmas, kind, init, seed, tol, max_iter, progress, noise):
    """``anneal``'s checks of everything after X and k (already checked): (sigmas, kind, init, seed, tol,
    max_iter, progress, noise), cleaned, in ``_anneal``'s order."""
    sigmas = check_sigmas(sigmas)
    _check_decreasing(sigmas)
    kind = check_kind(kind)
    for sigma in sigmas:
        check_sigma_for_dtype(float(sigma), X.dtype)
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    tol = _check_tol(tol)
    max_iter = check_int(max_iter, "max_iter", 1)
    noise = float(noise)
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}.")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(done, total) or None.")
    if init is not None:
        init = check_centers(init, X, "init")
        if init.shape[0] != k:
            raise ValueError(f"init has {init.shape[0]} centres but k={k}; they must agree.")
    return sigmas, kind, init, seed, tol, max_iter, progress, noise


def _level_statistics(features: np.ndarray, c: np.ndarray, sigma: float, kind: str, points=None):
    """What ``AnnealResult`` keeps of one level, at centres c (k, d) on the points ``features`` (n, d):
    (L_σ = Σ r·d, J = Σ_i min_j d_ij, masses N_j (k,) float64, rows of r with a NaN, mean entropy).
    points: ``points_with_ones`` of the same points, if at hand (a float64 softmax level on more points
    than one EM block then takes ``_softmax_statistics_chunked``)."""
    if (
        kind == "softmax"
        and points is not None
        and points.shape[1] > EM_BLOCK
        and c.dtype == points.dtype == np.float64
        and c.shape[1] <= _DIRECT_DISTANCE_MAX_FEATURES
    ):
        return _softmax_statistics_chunked(points, c, sigma)
    d = sq_distance_columns(features, c)
    resp = resp_columns(d, sigma, kind)  # the exact map: a far centre's mass is 0, not the clip's 1e-300
    loss = float((resp * d).sum(dtype=np.float64))
    distortion = float(d.min(axis=0).sum(dtype=np.float64))
    nan_rows = int(np.isnan(resp).any(axis=0).sum())
    if kind == "softmax" and resp.dtype == np.float64:
        entropy = _softmax_mean_entropy(resp, loss, distortion, sigma)
    else:
        entropy = mean_entropy(resp.T)
    return loss, distortion, resp.sum(axis=1, dtype=np.float64), nan_rows, entropy


def _softmax_statistics_chunked(points: np.ndarray, c: np.ndarray, sigma: float):
    """``_level_statistics`` of a float64 softmax level at centres c (k, d) on the n points of ``points``
    (``points_with_ones`` rows), _SOFTMAX_CHUNK points at a time, each chunk's arrays in cache across its
    passes, in torch's (whose float64 exp and log are vectorised on every x86-64 processor, and give
    numpy's bits with AVX-512): the exact map (no clip: a far centre's weight is 0, as numpy's gives
    it), except that a weight below exp(-_CLIP_LOGIT) (1e-304) is taken as 0, the distances as
    ``_sq_distances_into`` forms them. Sums of chunks' sums: other rounding than the whole array's sums,
    a few units of it. The mean entropy as ``_softmax_mean_entropy`` forms it, with -log max_j r_ij =
    log s_i (s_i the column sum of exp(-(d_ij - d_min,i)/T))."""
    k, n = c.shape[0], points.shape[1]
    T = temperature(sigma)
    distances = np.empty((k, min(n, _SOFTMAX_CHUNK)))  # the last chunk's views are strided: no copies
    diff, weights = np.empty_like(distances), torch.from_numpy(np.empty_like(distances))
    loss, distortion, log_partition = 0.0, 0.0, 0.0
    masses, nan_rows = torch.zeros(k, dtype=torch.float64), 0
    for start in range(0, n, _SOFTMAX_CHUNK):
        stop = min(n, start + _SOFTMAX_CHUNK)
        d = distances[:, : stop - start]
        _sq_distances_into(points[:, start:stop], c, d, diff[:, : stop - start])
        t, e = torch.from_numpy(d), weights[:, : stop - start]
        d_min = t.amin(dim=0)
        torch.sub(t, d_min, out=e)
        e *= -1.0 / T
        far = e < -_CLIP_LOGIT
        e.clamp_min_(-_CLIP_LOGIT)  # torch's exp, as numpy's, is 10-100× slower per element near -708
        e.exp_()
        e.masked_fill_(far, 0.0)
        s = e.sum(dim=0)
        e *= s.reciprocal()
        loss += float(torch.dot(e.reshape(-1), t.reshape(-1)))
        distortion += float(d_min.sum())
        log_partition += float(s.log().sum())
        masses += e.sum(dim=1)
        nan_rows += int(s.isnan().sum())  # a NaN distance makes its column's d_min, weights and s NaN
    entropy = (log_partition + (loss - distortion) / T) / n
    return loss, distortion, masses.numpy(), nan_rows, entropy


def _softmax_mean_entropy(resp: np.ndarray, loss: float, distortion: float, sigma: float) -> float:
    """``measures.mean_entropy`` of softmax responsibilities resp (k, n), from L_σ = Σ r·d and J = Σ_i
    d_min,i, without a logarithm per entry: with z_ij = -(d_ij - d_min,i)/T and Z_i = Σ_j exp z_ij,
    H_i = -Σ_j r_ij log r_ij = log Z_i + Σ_j r_ij (d_ij - d_min,i)/T, and the nearest centre's
    r = exp(0)/Z_i is the column's largest. So Σ_i H_i = -Σ_i log max_j r_ij + (L_σ - J)/T.

    L_σ - J cancels as σ falls: in float64 the two agree to about 1e-12 nats absolute (5e-9 relative at an
    entropy of 6e-4 nats), in float32 only to 1e-4 relative, so float32 keeps the entry-wise sum."""
    log_partition = -_sum_of_logs(np.maximum.reduce(resp, axis=0))
    return (log_partition + (loss - distortion) / temperature(sigma)) / resp.shape[1]


def _anneal(
    X: np.ndarray,
    k: int,
    sigmas: np.ndarray,
    kind: str,
    init: np.ndarray | None,
    seed: int,
    tol: float,
    max_iter: int,
    progress,
    noise: float,
    accelerate: bool = True,
) -> AnnealResult:
    """``anneal`` on checked arguments (see ``_anneal_checks``)."""
    scale = data_scale(X)
    mean = X.astype(np.float64).mean(axis=0)
    rng = np.random.RandomState(seed)
    if init is None:
        init = (mean + noise * scale * rng.normal(size=(k, X.shape[1]))).astype(X.dtype)
    tol_abs = _tolerance(tol, X.dtype, scale)

    S, d = sigmas.size, X.shape[1]
    centers = np.empty((S, k, d), dtype=X.dtype)
    loss, distortion, entropy = np.empty(S), np.empty(S), np.empty(S)
    masses = np.empty((S, k))
    iterations = np.empty(S, dtype=np.int64)
    converged = np.empty(S, dtype=bool)
    nan_rows = np.empty(S, dtype=np.int64)

    points = points_with_ones(X)
    features = points[:-1].T  # X with contiguous features, for the per-level statistics
    c = init.copy()
    for s, sigma in enumerate(sigmas):
        sigma = float(sigma)
        c = _break_ties(c, rng, noise * scale, COINCIDENT * scale)
        # no merges: the stacks next to a split are re-split by the noise at the next level anyway, and on
        # N = 100,000 blobs (k = 5) a merged pair at 1.003 σ² (barely unstable) spent a level's budget
        c, iterations[s], converged[s] = _em(
            points,
            c,
            sigma,
            kind,
            tol_abs,
            max_iter,
            bool(accelerate),
            APART * scale,
            merge=False,
            newton=True,
        )
        centers[s] = c
        loss[s], distortion[s], masses[s], nan_rows[s], entropy[s] = _level_statistics(
            features, c, sigma, kind, points
        )
        if progress is not None:
            progress(s + 1, S)

    return AnnealResult(
        sigmas=sigmas,
        centers=centers,
        loss=loss,
        distortion=distortion,
        masses=masses,
        iterations=iterations,
        converged=converged,
        entropy=entropy,
        nan_rows=nan_rows,
        init=init,
        kind=kind,
        dtype=X.dtype.name,
        data_mean=mean,
        data_scale=scale,
        tol=tol_abs / scale,
        max_iter=max_iter,
        noise=noise,
    )
