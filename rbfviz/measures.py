"""Measurements that check the σ → 0 story against the maths.

Every function here measures; none asserts. The app and the CLI print what these return, the tests
compare it with closed forms. The experiment that runs annealing and measures it is
``rbfviz.collapse``.

* Matching and errors: ``match_centers`` (Hungarian), ``collapse_error`` E = ||C_σ[perm] - C*||_F,
  ``fit_loglog_slope`` (log E against log σ, on a stated window), ``monotone_violations``.
* Thresholds: ``min_sq_gap`` g_min, ``sigma_exact_predicted`` √((α-1)·g_min/2) (α-entmax exactly
  hard; √g_min/2 for entmax15),
  ``sigma_softmax_exact`` √(g_min/73.4) (softmax bitwise hard in float64),
  ``sigma_exact_measured`` (from a measured E curve).
* Γ-convergence: ``gamma_gap`` L_σ - J with the uniform bound ``gamma_gap_bound``.
* Annealing: ``critical_sigma_predicted`` (first split), ``critical_sigma_measured``.
* Responsibilities: ``mean_entropy``, ``count_exact_zeros``, ``label_agreement``,
  ``stability_report`` (NaN rows, exact zeros, gradient norm per kind × dtype × σ).
* ``kmeans_reference``: K-Means' fixed point from a start, as partition means in X's dtype.

Units: σ and every distance are in the units of X; logits are z = -||x - c||² / (2σ²).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from scipy.special import xlogy

from .jsonable import jsonable
from .maps import resp_from_sq_distances, sq_distances, weighted_sq_distances_grad
from .steps import _kmeans, soft_centroids_torch
from .validate import (
    FLOAT_DTYPES,
    check_alpha,
    check_centers,
    check_int,
    check_kind,
    check_map_arguments,
    check_points,
    check_sigma,
    check_sigma_for_dtype,
    check_sigmas,
    entmax_alpha,
)

__all__ = [
    "SOFTMAX_EXACT_LOGIT_GAP",
    "match_centers",
    "collapse_error",
    "SlopeFit",
    "fit_loglog_slope",
    "monotone_violations",
    "min_sq_gap",
    "sigma_exact_predicted",
    "sigma_softmax_exact",
    "sigma_exact_measured",
    "GammaGap",
    "gamma_gap_bound",
    "gamma_gap",
    "free_energy_from",
    "free_energy",
    "covariance_lambda_max",
    "critical_sigma_predicted",
    "critical_sigma_measured",
    "mean_entropy",
    "count_exact_zeros",
    "label_agreement",
    "stability_report",
    "kmeans_reference",
    "underflow_logit",
    "naive_nan_sigmas",
    "predicted_fractions",
    "one_hot_rows",
]

# e^{-36.7} ≈ 2^{-53}: once every off-Voronoi logit gap g/(2σ²) exceeds this, 1 + e^{-gap} == 1 in
# float64 and a softmax row is bitwise one-hot where it matters.
SOFTMAX_EXACT_LOGIT_GAP = 36.7


def _dtype_name(dtype) -> str:
    name = np.dtype(dtype).name
    if np.dtype(name).type not in FLOAT_DTYPES:
        raise ValueError(f"dtype={dtype!r} is not supported; allowed: float32, float64.")
    return name


def _resp_and_distances(X: np.ndarray, C: np.ndarray, sigma: float, kind: str):
    with torch.no_grad():
        d = sq_distances(torch.from_numpy(X), torch.from_numpy(C))
        return resp_from_sq_distances(d, sigma, kind).numpy(), d.numpy()


# --- matching, errors, slopes --------------------------------------------------------------------


def match_centers(C, C_ref) -> np.ndarray:
    """Permutation ``perm`` (k,) such that C[perm] is the assignment of C's rows to C_ref's rows with the
    smallest total squared distance (Hungarian algorithm, scipy's linear_sum_assignment).

    C, C_ref: (k, d). If C contains NaN (a broken "naive" run) there is nothing to match and the
    identity is returned; the error computed from it is then NaN, as it should be.
    """
    C = np.asarray(C, dtype=np.float64)
    C_ref = np.asarray(C_ref, dtype=np.float64)
    if C.ndim != 2 or C.shape != C_ref.shape:
        raise ValueError(
            f"C and C_ref must both have shape (k, d) and agree, got {C.shape} and {C_ref.shape}."
        )
    if not np.all(np.isfinite(C)):
        return np.arange(C.shape[0])
    cost = ((C_ref[:, None, :] - C[None, :, :]) ** 2).sum(-1)  # k×k×d: k is small
    _, perm = linear_sum_assignment(cost)
    return perm


def collapse_error(centers, C_ref):
    """E = ||C_σ[perm] - C*||_F after Hungarian matching, in float64.

    centers: (S, k, d) (one set per σ level) → returns (S,); or (k, d) → returns a float.
    """
    centers = np.asarray(centers, dtype=np.float64)
    C_ref = np.asarray(C_ref, dtype=np.float64)
    if centers.ndim == 2:
        perm = match_centers(centers, C_ref)
        return float(np.linalg.norm(centers[perm] - C_ref))
    if centers.ndim != 3:
        raise ValueError(f"centers must have shape (S, k, d) or (k, d), got {centers.shape}.")
    return np.array([collapse_error(level, C_ref) for level in centers])


@dataclass(frozen=True)
class SlopeFit:
    """Least-squares fit log E = slope·log σ + intercept on the points actually used.

    sigma_min, sigma_max: the σ range of those points (NaN if none); n_points: how many.
    slope and intercept are NaN when fewer than 3 points qualify.
    """

    slope: float
    intercept: float
    sigma_min: float
    sigma_max: float
    n_points: int

    def to_dict(self) -> dict:
        return jsonable(asdict(self))


def fit_loglog_slope(sigmas, errors, sigma_min=None, sigma_max=None, min_error: float = 0.0) -> SlopeFit:
    """Fit the log-log slope of E(σ) on the pre-collapse window.

    Points used: E finite and E > min_error (so exact zeros, and rounding-level values when
    min_error is set, are left out), σ < sigma_max (e.g. the critical σ: above it the fixed point
    falls to the mean) and σ >= sigma_min (e.g. the exact-collapse scale √g_min/2). The slope is a
    measurement of this data on this window: measured slopes range from about 1 to 3.5 with both.
    """
    sigmas = check_sigmas(sigmas)
    errors = np.asarray(errors, dtype=np.float64)
    if errors.shape != sigmas.shape:
        raise ValueError(f"errors must have the same shape as sigmas {sigmas.shape}, got {errors.shape}.")
    use = np.isfinite(errors) & (errors > min_error)
    if sigma_max is not None:
        use &= sigmas < sigma_max
    if sigma_min is not None:
        use &= sigmas >= sigma_min
    n = int(use.sum())
    if n == 0:
        return SlopeFit(math.nan, math.nan, math.nan, math.nan, 0)
    s_used = sigmas[use]
    if n < 3:
        return SlopeFit(math.nan, math.nan, float(s_used.min()), float(s_used.max()), n)
    slope, intercept = np.polyfit(np.log(s_used), np.log(errors[use]), 1)
    return SlopeFit(float(slope), float(intercept), float(s_used.min()), float(s_used.max()), n)


def monotone_violations(errors, rtol: float = 1e-6, atol: float = 0.0) -> int:
    """How often E increases as σ falls: the number of consecutive pairs with
    E[s+1] > E[s]·(1 + rtol) + atol. ``errors`` are ordered by decreasing σ. Pairs with a NaN are
    skipped (NaN is neither an increase nor a decrease)."""
    errors = np.asarray(errors, dtype=np.float64)
    if errors.ndim != 1:
        raise ValueError(f"errors must be 1-D (one value per σ level), got shape {errors.shape}.")
    if rtol < 0 or atol < 0:
        raise ValueError("rtol and atol must be >= 0.")
    before, after = errors[:-1], errors[1:]
    ok = np.isfinite(before) & np.isfinite(after)
    return int(np.count_nonzero(ok & (after > before * (1.0 + rtol) + atol)))


# --- thresholds ----------------------------------------------------------------------


def min_sq_gap(X, C) -> float:
    """g_min = min_i (d_i(2) - d_i(1)): the smallest gap between a point's nearest and second-nearest
    squared distance to the centres C (k, d). Units: data units squared. inf when k = 1."""
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    return _min_sq_gap(X, C)


def _min_sq_gap(X: np.ndarray, C: np.ndarray) -> float:
    """``min_sq_gap`` on checked X (n, d) and C (k, d), both finite; computed in float64."""
    if C.shape[0] < 2:
        return math.inf
    X, C = np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(C, dtype=np.float64)
    with torch.no_grad():
        two = torch.topk(
            sq_distances(torch.from_numpy(X), torch.from_numpy(C)), 2, dim=1, largest=False
        ).values
    return float((two[:, 1] - two[:, 0]).min())


def sigma_exact_predicted(X, C_km, alpha=1.5) -> float:
    """σ*(α) = √((α-1)·g_min/2): at and below it every α-entmax row is exactly one-hot (logit gap
    ≥ 1/(α-1)), so the soft centroids of C_km are exactly its K-Means centroids. α = 1.5 (entmax15):
    √g_min/2; α = 2 (sparsemax): √(g_min/2). Units: those of X."""
    return _sigma_exact(min_sq_gap(X, C_km), check_alpha(alpha))


def _sigma_exact(g_min: float, alpha: float = 1.5) -> float:
    """σ*(α) = √((α-1)·g_min/2) from the gap g_min: a row's logit gap is g_i/(2σ²), and α-entmax makes
    a row one-hot iff that gap is at least 1/(α-1)."""
    return math.sqrt((alpha - 1.0) * g_min / 2.0)


def sigma_softmax_exact(X, C_km) -> float:
    """√(g_min / 73.4): below it every softmax off-weight is < e^{-36.7} ≈ 2^{-53}, so softmax rows are
    one-hot to float64 rounding."""
    return _sigma_softmax_exact(min_sq_gap(X, C_km))


def _sigma_softmax_exact(g_min: float) -> float:
    """√(g_min / 73.4) from the gap g_min."""
    return math.sqrt(g_min / (2.0 * SOFTMAX_EXACT_LOGIT_GAP))


def sigma_exact_measured(sigmas, errors, atol: float = 0.0):
    """The largest grid σ from which E <= atol (default: E == 0 exactly) at every smaller grid σ; None
    if E at the smallest σ is not zero. NaN never counts as zero."""
    sigmas = check_sigmas(sigmas)
    errors = np.asarray(errors, dtype=np.float64)
    if errors.shape != sigmas.shape:
        raise ValueError(f"errors must have the same shape as sigmas {sigmas.shape}, got {errors.shape}.")
    order = np.argsort(sigmas)  # increasing σ
    found = None
    for s in order:
        if not (errors[s] <= atol):  # also False for NaN
            break
        found = float(sigmas[s])
    return found


# --- Γ-convergence --------------------------------------------------------------------


@dataclass(frozen=True)
class GammaGap:
    """L_σ = Σ r·d, J = Σ_i min_j d_ij (both sums over points), gap = L_σ - J, the uniform bound on the
    gap for that map, and whether 0 <= gap <= bound holds up to rounding."""

    loss: float
    distortion: float
    gap: float
    bound: float
    within_bound: bool

    def to_dict(self) -> dict:
        return jsonable(asdict(self))


def gamma_gap_bound(n, k, sigma, kind, alpha=None) -> float:
    """Uniform bound on L_σ - J for n points, k centres, T = 2σ²:
    softmax (and naive, same map when it does not fail) n(k-1)T/e;
    α-entmax (entmax15: α = 1.5) n·T·min((k-1)·α^{-α/(α-1)}, 1/(α-1)), which tends to the softmax
    bound as α -> 1 (α^{-α/(α-1)} -> 1/e); hard 0. Derivation: docs/maths/alpha-entmax.md."""
    n = check_int(n, "n", 1)
    k = check_int(k, "k", 1)
    sigma = check_sigma(sigma)
    kind = check_kind(kind, alpha=alpha)
    return _gamma_gap_bound(n, k, sigma, kind)


def _gamma_gap_bound(n: int, k: int, sigma: float, kind: str) -> float:
    """``gamma_gap_bound`` on checked arguments.

    α-entmax: p_j = [(α-1) z_j - τ]₊^{1/(α-1)} with p_max <= 1 gives τ >= (α-1) z_max - 1, so
    p_j <= [1 - (α-1) u_j]₊^{1/(α-1)} with u_j = (d_j - d_min)/T. Then p_j (d_j - d_min) <= T·max_u
    u[1 - (α-1)u]₊^{1/(α-1)} = T·α^{-α/(α-1)} (at u = 1/α), over k - 1 entries; and p_j > 0 only where
    u_j < 1/(α-1), so a row adds less than T/(α-1) in all.
    """
    temperature = 2.0 * sigma * sigma
    if kind in ("softmax", "naive"):
        return n * (k - 1) * temperature / math.e
    alpha = entmax_alpha(kind)
    if alpha is not None:
        per_row = min((k - 1) * alpha ** (-alpha / (alpha - 1.0)), 1.0 / (alpha - 1.0))
        return n * temperature * per_row
    return 0.0


def gamma_gap(X, C, sigma, kind, alpha=None) -> GammaGap:
    """L_σ(C) - J(C) for points X (n, d), centres C (k, d), computed in X's dtype and summed in float64.

    ``within_bound`` allows for rounding: -tol <= gap <= bound + tol with tol = 16·eps(dtype)·(L + J).
    A NaN loss (naive map past its underflow threshold) is never within the bound. alpha: α of
    kind="entmax" (in [1.05, 2]).
    """
    X, C, sigma, kind = check_map_arguments(X, C, sigma, kind, alpha)
    return _gamma_gap(X, C, sigma, kind)


def _gamma_gap(X: np.ndarray, C: np.ndarray, sigma: float, kind: str) -> GammaGap:
    """``gamma_gap`` on checked arguments (X, C finite in one float dtype, σ a float valid in it, kind
    known)."""
    resp, d = _resp_and_distances(X, C, sigma, kind)
    d = d.astype(np.float64)
    # Row sums first, then the same sum over rows as J: a one-hot row then gives exactly min_j d_ij.
    loss = float((resp.astype(np.float64) * d).sum(axis=1).sum())
    distortion = float(d.min(axis=1).sum())
    bound = _gamma_gap_bound(X.shape[0], C.shape[0], sigma, kind)
    gap = loss - distortion
    tol = 16.0 * float(np.finfo(X.dtype).eps) * (abs(loss) + abs(distortion))
    within = bool(math.isfinite(gap) and -tol <= gap <= bound + tol)
    return GammaGap(loss, distortion, gap, bound, within)


def free_energy_from(d: torch.Tensor, resp: torch.Tensor, sigma: float, kind: str) -> float:
    """F_σ = Σ r·d - T·H(r) (T = 2σ²) from squared distances d and the map's responsibilities at them
    (both (n, k) torch tensors), summed in float64.

    H is the map's entropy: Shannon -Σ r log r for softmax/naive (F = -T Σ_i logsumexp_i z), Tsallis
    Σ_i (1 - Σ_j r_ij^α)/(α(α-1)) for α-entmax ((4/3) Σ_i (1 - Σ_j r_ij^{3/2}) for entmax15), 0 for
    hard (F = J). EM never increases F, which is
    what ``anneal``'s accelerated steps are checked against.
    """
    loss = (resp * d).sum(dtype=torch.float64)
    temperature = 2.0 * float(sigma) ** 2
    if kind in ("softmax", "naive"):
        entropy = -torch.special.xlogy(resp, resp).sum(dtype=torch.float64)
    elif kind == "entmax15":
        entropy = (4.0 / 3.0) * (resp.shape[0] - (resp * resp.sqrt()).sum(dtype=torch.float64))
    elif (alpha := entmax_alpha(kind)) is not None:
        powered = resp.to(torch.float64).pow(alpha).sum()
        entropy = (resp.shape[0] - powered) / (alpha * (alpha - 1.0))
    else:
        entropy = torch.zeros((), dtype=torch.float64)
    return float(loss - temperature * entropy)


def free_energy(X, C, sigma, kind="softmax", alpha=None) -> float:
    """Free energy F_σ(C) of centres C (k, d) on points X (n, d): see ``free_energy_from``.

    Bounds: softmax J - 2nσ² ln k <= F <= J; α-entmax J - 2nσ²(1 - k^{1-α})/(α(α-1)) <= F <= J
    (entmax15: J - 2nσ²(4/3)(1 - k^{-1/2})). alpha: α of kind="entmax".
    """
    X, C, sigma, kind = check_map_arguments(X, C, sigma, kind, alpha)
    with torch.no_grad():
        d = sq_distances(torch.from_numpy(X), torch.from_numpy(C))
        return free_energy_from(d, resp_from_sq_distances(d, sigma, kind), sigma, kind)


# --- annealing -------------------------------------------------------------------------


def covariance_lambda_max(X) -> float:
    """Largest eigenvalue of the 1/N covariance of X (units: data units squared)."""
    return _covariance_lambda_max(check_points(X, "X", dtype=np.float64))


def _covariance_lambda_max(X: np.ndarray) -> float:
    """``covariance_lambda_max`` of checked points X (n, d), computed in float64."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    cov = centred.T @ centred / X.shape[0]
    return float(np.linalg.eigvalsh(cov)[-1])


def critical_sigma_predicted(X, kind="softmax", m=None) -> float:
    """σ_c of the first split of m coincident centres at the data mean.

    softmax (and naive): σ_c = √λ_max; α-entmax: σ_c = (m^{α-1}·λ_max)^½ (entmax15: (√m·λ_max)^½; the
    map's Jacobian at the uniform row is m^{α-2}(I - 11ᵀ/m)), which needs m (the number of
    coincident centres, m = k at the start of an anneal); hard: inf (Lloyd has no temperature, it
    splits coincident centres at every σ). λ_max: largest eigenvalue of the 1/N covariance.
    """
    kind = check_kind(kind)
    if kind == "hard":
        return math.inf
    X = check_points(X, "X", dtype=np.float64)
    if entmax_alpha(kind) is not None:
        if m is None:
            raise ValueError(
                f"critical_sigma_predicted for {kind} needs m, the number of coincident centres "
                "(m = k at the start of an anneal)."
            )
        m = check_int(m, "m", 1)
    return _critical_sigma_predicted(X, kind, m)


def _critical_sigma_predicted(X: np.ndarray, kind: str, m: int | None = None) -> float:
    """``critical_sigma_predicted`` on checked arguments (m an int >= 1 for entmax15)."""
    if kind == "hard":
        return math.inf
    lam = _covariance_lambda_max(X)
    if kind == "entmax15":
        return math.sqrt(math.sqrt(m) * lam)
    alpha = entmax_alpha(kind)
    if alpha is not None:
        return math.sqrt(m ** (alpha - 1.0) * lam)
    return math.sqrt(lam)


def critical_sigma_measured(result, threshold: float = 1e-2):
    """The first (largest) σ of an anneal at which some centre sits further than threshold × data scale
    from the data mean, i.e. where the centres have split; None if they never do.

    Meaningful for runs started at the mean (``anneal(init=None)``). Being a grid value, it lags the
    true split by up to one cooling step.
    """
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold!r}.")
    spread = np.linalg.norm(np.asarray(result.centers, np.float64) - result.data_mean, axis=2).max(axis=1)
    split = np.flatnonzero(spread > threshold * result.data_scale)
    return float(result.sigmas[split[0]]) if split.size else None


# --- responsibilities --------------------------------------------------------------------------


def mean_entropy(resp) -> float:
    """Mean Shannon entropy (nats) of the rows of resp (n, k), with 0·log 0 = 0. NaN rows are left out;
    NaN if every row is NaN."""
    resp = np.asarray(resp, dtype=np.float64)
    finite = ~np.isnan(resp).any(axis=1)
    if not finite.any():
        return math.nan
    # every row's entropy, then the finite rows' mean: no copy of the finite rows (a gather that costs
    # more than the entropy itself when resp is a transposed (k, n) array)
    return float(-xlogy(resp, resp).sum(axis=1)[finite].mean())


def count_exact_zeros(resp) -> int:
    """Number of responsibilities that are exactly 0.0."""
    return int(np.count_nonzero(np.asarray(resp) == 0))


def label_agreement(resp, labels) -> float:
    """Fraction of points whose soft label argmax_j r_ij equals ``labels`` (e.g. K-Means labels) after
    the best one-to-one renaming of cluster ids (Hungarian). NaN rows count as disagreements."""
    resp = np.asarray(resp, dtype=np.float64)
    labels = np.asarray(labels)
    if resp.ndim != 2 or labels.shape != (resp.shape[0],):
        raise ValueError(f"resp must be (n, k) and labels (n,), got {resp.shape} and {labels.shape}.")
    if not np.issubdtype(labels.dtype, np.integer) or (labels.size and labels.min() < 0):
        raise ValueError("labels must be non-negative integers.")
    valid = ~np.isnan(resp).any(axis=1)
    pred = resp[valid].argmax(axis=1)
    size = max(resp.shape[1], int(labels.max()) + 1 if labels.size else 1)
    confusion = np.zeros((size, size), dtype=np.int64)
    np.add.at(confusion, (pred, labels[valid]), 1)
    rows, cols = linear_sum_assignment(-confusion)
    return float(confusion[rows, cols].sum() / resp.shape[0])


def stability_report(
    X, C, sigmas, kinds=("softmax", "entmax15", "naive", "hard"), dtypes=("float32", "float64")
) -> list[dict]:
    """Numerical health of each map at each σ, in each dtype, for points X (n, d) and centres C (k, d).

    One dict per (kind, dtype, σ), in that nesting order, with:
    nan_row_fraction (rows of r containing NaN), zero_fraction (entries exactly 0),
    grad_norm ||∇_C L_σ||_F with r detached (autograd, as RBFClusterLayer does; NaN if r is),
    loss L_σ = Σ r·d and loss_finite. Every σ must be representable in every dtype (2σ² normal).
    """
    X = check_points(X, "X")
    C = check_centers(C, X, "C")
    sigmas = check_sigmas(sigmas)
    kinds = [check_kind(kind) for kind in kinds]
    dtypes = [_dtype_name(dtype) for dtype in dtypes]
    for dtype in dtypes:
        for sigma in sigmas:
            check_sigma_for_dtype(float(sigma), dtype)
    return [
        row for kind in kinds for dtype in dtypes for row, _ in _stability_rows(X, C, sigmas, kind, dtype)
    ]


def _stability_rows(X: np.ndarray, C: np.ndarray, sigmas: np.ndarray, kind: str, dtype: str):
    """``stability_report``'s rows of one map and dtype on checked arguments, each with the map's
    responsibilities r (n, k) it was computed from: a generator of (row, r), one per σ in order.

    The distances do not depend on σ: they are formed once. The gradient of L_σ = Σ_ij r_ij d_ij with r
    held constant is ``weighted_sq_distances_grad``'s, the bits autograd gives."""
    x = torch.from_numpy(X.astype(dtype))
    c = torch.from_numpy(C.astype(dtype))
    with torch.no_grad():
        d = sq_distances(x, c)
    for sigma in sigmas:
        with torch.no_grad():
            resp = resp_from_sq_distances(d, float(sigma), kind)
            loss = (resp * d).sum()
            grad = weighted_sq_distances_grad(x, c, resp)
        r = resp.numpy()
        row = {
            "kind": kind,
            "dtype": dtype,
            "sigma": float(sigma),
            "nan_row_fraction": float(np.isnan(r).any(axis=1).mean()),
            "zero_fraction": float((r == 0).mean()),
            "grad_norm": float(torch.linalg.vector_norm(grad.double())),
            "loss": float(loss.detach().double()),
            "loss_finite": bool(torch.isfinite(loss).item()),
        }
        yield row, r


def kmeans_reference(X, start) -> tuple[np.ndarray, np.ndarray]:
    """C* and labels: scikit-learn's Lloyd fixed point from ``start`` (k, d), its centres then recomputed
    as partition means in X's dtype by rbfviz's centroid code (same partition; see CollapseStudy)."""
    X = check_points(X, "X")
    X64 = X.astype(np.float64)
    start = check_centers(np.asarray(start, np.float64), X64, "init")
    return _kmeans_reference(X, start, X64)


def _kmeans_reference(X: np.ndarray, start: np.ndarray, X64: np.ndarray | None = None):
    """``kmeans_reference`` on checked arguments: X (n, d) finite float32/float64, start (k, d) finite
    float64; X64, X in float64 if the caller has it."""
    _, labels = _kmeans(X.astype(np.float64) if X64 is None else X64, init=start)
    k = start.shape[0]
    x = torch.from_numpy(X)
    with torch.no_grad():
        # one-hot responsibilities in the (k, n) layout of rbfviz.maps (same rounding as the maps)
        onehot = (torch.arange(k).unsqueeze(1) == torch.from_numpy(labels)).to(x.dtype).T
        centers = soft_centroids_torch(x, torch.from_numpy(start.astype(X.dtype)), onehot)
    return centers.numpy(), labels


# --- closed forms of floating-point behaviour (the Stability view plots them) ----------------------


def underflow_logit(dtype) -> float:
    """Z such that exp(z) == 0.0 in ``dtype`` for z < −Z: half the smallest subnormal, ln(2^-1075) in
    float64 and ln(2^-150) in float32 (round to nearest)."""
    tiny = float(np.finfo(np.dtype(dtype)).smallest_subnormal)
    return -(math.log(tiny) - math.log(2.0))


def _sorted_distances(X, C) -> np.ndarray:
    """(n, k) squared distances of X to C in float64, sorted along each row."""
    with torch.no_grad():
        d = sq_distances(
            torch.from_numpy(np.asarray(X, np.float64)), torch.from_numpy(np.asarray(C, np.float64))
        )
    return np.sort(d.numpy(), axis=1)


def naive_nan_sigmas(X, C, dtype) -> tuple[float, float]:
    """(σ_first, σ_all): below σ_first at least one naive row is NaN, below σ_all every row is.

    A row is NaN once even its nearest centre's exp(z) underflows: min_j d_ij/(2σ²) > Z(dtype), so
    σ_first = √(max_i d_i(1) / 2Z) and σ_all = √(min_i d_i(1) / 2Z).
    """
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    nearest = _sorted_distances(X, C)[:, 0]
    Z = underflow_logit(dtype)
    return math.sqrt(nearest.max() / (2.0 * Z)), math.sqrt(nearest.min() / (2.0 * Z))


def predicted_fractions(X, C, sigmas, dtype) -> dict:
    """Closed-form fractions of rows at each σ (float64 distances, ``dtype``'s underflow point).

    Returns {"naive_nan": (S,), "entmax15_hard": (S,), "softmax_hard": (S,)}. Exact up to rounding
    of the logits at the boundary; the view plots them against the measured fractions.
    """
    X = check_points(X, "X", dtype=np.float64)
    C = check_centers(C, X, "C")
    sigmas = check_sigmas(sigmas)
    d = _sorted_distances(X, C)
    nearest = d[:, 0]
    gap = d[:, 1] - d[:, 0] if d.shape[1] > 1 else np.full(d.shape[0], np.inf)
    Z = underflow_logit(dtype)
    T = 2.0 * sigmas[:, None] ** 2
    return {
        "naive_nan": (nearest[None, :] / T > Z).mean(axis=1),
        "entmax15_hard": (gap[None, :] >= 2.0 * T).mean(axis=1),
        "softmax_hard": (gap[None, :] / T > Z).mean(axis=1),
    }


def one_hot_rows(resp) -> np.ndarray:
    """(n,) bool: the row has exactly one nonzero entry (NaN rows are not one-hot)."""
    resp = np.asarray(resp)
    finite = np.isfinite(resp).all(axis=1)
    return finite & (np.count_nonzero(resp != 0, axis=1) == 1)
