"""Responsibility maps: from points and centres to soft (or hard) cluster assignments.

The one temperature convention of rbfviz, stated once:

    d_ij = ||x_i - c_j||²,   z_ij = -d_ij / (2σ²),   T = 2σ²   (σ is the Gaussian RBF width).

Four maps turn a row of logits into a row of responsibilities r_i (each row on the simplex):

* ``"softmax"``  r_ij = exp(z_ij - max_l z_il) / Σ_l exp(z_il - max_l z_il)   (stable, never NaN)
* ``"entmax15"`` r_ij = [z_ij/2 - τ_i]₊², τ_i chosen so the row sums to 1   (exactly sparse)
* ``"naive"``    r_ij = φ_ij / Σ_l φ_il with φ = exp(z): the literal form. Once every φ_il of a
                 row underflows to 0 the row is 0/0 = NaN. This is the failure the paper warns
                 about, so it is reproduced, never hidden: callers count NaN rows.
* ``"hard"``     one-hot argmin_j d_ij, ties to the lowest index (K-Means' assignment).

The torch functions here are the single implementation; ``responsibilities`` is the numpy
boundary used by the app and the tests. Work happens in the caller's dtype (float32 or float64),
because the point of the "naive" map is to show where that dtype breaks.
"""
from __future__ import annotations

import numpy as np
import torch

from ._validate import check_centers, check_kind, check_points, check_sigma, check_sigma_for_dtype

# Shifted logits below this are clamped. Both stable maps give such entries exactly zero weight
# (entmax15 drops anything more than 2 below the row maximum; exp(-1e4) underflows in every
# dtype), so the clamp changes no result. It keeps inf out of entmax's sort-and-cumsum, which
# would otherwise turn ±inf into NaN.
LOGIT_FLOOR = -1.0e4

# Below this mass a centre owns no points: it keeps its position instead of dividing 0 by 0.
MIN_MASS = 1e-12

# Above this many features, distances use the Gram expansion instead of per-feature differences.
_DIRECT_DISTANCE_MAX_FEATURES = 16


# Up to this many centres, 1.5-entmax sorts each column with a sorting network (k rounds of
# elementwise max/min over the whole (k, n) tensor); torch.sort over a short axis is several times
# slower. Above it, torch.sort.
_SORT_NETWORK_MAX_K = 32


def _sort_columns_descending(a: torch.Tensor) -> torch.Tensor:
    """Each column of a (k, n) tensor sorted in descending order (odd-even transposition sort:
    k rounds of compare-exchange between neighbouring rows, written into alternating buffers)."""
    k = a.shape[0]
    if k > _SORT_NETWORK_MAX_K:
        return torch.sort(a, dim=0, descending=True).values
    if k == 1:
        return a.clone()
    src, spare = a, None
    for round_ in range(k):
        first = round_ % 2
        stop = k - (k - first) % 2  # an even number of rows from ``first``
        if stop - first < 2:
            continue
        dst = torch.empty_like(a) if spare is None or spare is a else spare
        top, bottom = src[first:stop:2], src[first + 1 : stop : 2]
        torch.maximum(top, bottom, out=dst[first:stop:2])
        torch.minimum(top, bottom, out=dst[first + 1 : stop : 2])
        if first:
            dst[0] = src[0]
        if stop < k:
            dst[stop] = src[stop]
        src, spare = dst, src
    return src


class _Entmax15Columns(torch.autograd.Function):
    """1.5-entmax down dim 0 of a (k, n) tensor of logits: p = [z/2 - τ]₊², each column summing to 1.

    The exact sort-based threshold of Peters, Niculae & Martins (2019) as in the ``entmax``
    package's ``entmax15`` (the same running sums in the same order), laid out for the (k, n)
    tensors of this module, in-place where the package allocates, and with the support test done
    without square roots; it agrees with the package to rounding. Backward with s = √p:
    dz = s⊙dp - s⟨s, dp⟩/Σs (as the package).
    """

    @staticmethod
    def forward(ctx, z: torch.Tensor) -> torch.Tensor:
        half = (z - z.amax(dim=0, keepdim=True)).div_(2)
        srt = _sort_columns_descending(half)
        rho = torch.arange(1, z.shape[0] + 1, dtype=z.dtype, device=z.device).unsqueeze(1)
        mean = srt.cumsum(0).div_(rho)                           # M_ρ, mean of the ρ largest
        delta = srt.square().cumsum_(0).div_(rho)                # their mean square
        delta.sub_(mean.square()).mul_(rho)                      # S_ρ = ρ (mean_sq - M_ρ²)
        delta.neg_().add_(1).div_(rho).clamp_min_(0)             # δ_ρ = max(0, (1 - S_ρ)/ρ)
        # ρ is in the support iff τ_ρ = M_ρ - √δ_ρ <= z_(ρ). As M_ρ >= z_(ρ), that is
        # (M_ρ - z_(ρ))² <= δ_ρ: no square root over the whole tensor (float64 sqrt costs as much
        # as exp), only one per column for τ*.
        gap = srt.sub_(mean).square_()  # srt is a fresh buffer, free to overwrite
        support = (gap <= delta).sum(dim=0, keepdim=True)
        tau_star = mean.gather(0, support - 1) - delta.gather(0, support - 1).sqrt_()
        p = half.sub_(tau_star).clamp_min_(0).square_()
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, dp: torch.Tensor) -> torch.Tensor:
        (p,) = ctx.saved_tensors
        s = p.sqrt()
        dz = dp * s
        q = dz.sum(dim=0, keepdim=True) / s.sum(dim=0, keepdim=True)
        return dz - q * s


def temperature(sigma: float) -> float:
    """T = 2σ², the temperature that divides squared distances. The only place it is formed."""
    return 2.0 * float(sigma) ** 2


def sq_distances(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Squared Euclidean distances d_ij = ||x_i - c_j||².

    x: (n, d), c: (k, d), same dtype. Returns (n, k). Never allocates an (n, k, d) temporary.
    For few features the differences are summed feature by feature, which is exact to rounding
    even when points sit far from the origin (low σ magnifies any error in d by 1/(2σ²)); for
    many features the Gram expansion ||x||² - 2x·c + ||c||² is used and clamped at 0.

    The result is the transpose of a contiguous (k, n) tensor: the maps below reduce over the k
    centres, and with points along the fast axis each reduction is k long vectorised passes
    instead of n short rows (3-7× faster; performance notes §2).
    """
    if x.shape[1] <= _DIRECT_DISTANCE_MAX_FEATURES:
        # In place (fewer ~1 MB temporaries) unless autograd needs the intermediate values.
        track = torch.is_grad_enabled() and (x.requires_grad or c.requires_grad)
        d = c[:, :1] - x[:, 0]
        d = d.square() if track else d.square_()
        for f in range(1, x.shape[1]):
            diff = c[:, f : f + 1] - x[:, f]
            if track:
                d = d + diff.square()
            else:
                d.add_(diff.square_())
        return d.T
    gram = c.square().sum(1, keepdim=True) - 2.0 * (c @ x.T) + x.square().sum(1)
    return gram.clamp_min(0.0).T


def logits(x: torch.Tensor, c: torch.Tensor, sigma: float) -> torch.Tensor:
    """z_ij = -||x_i - c_j||² / (2σ²), shape (n, k)."""
    return sq_distances(x, c) / -temperature(sigma)


def resp_from_sq_distances(d: torch.Tensor, sigma: float, kind: str) -> torch.Tensor:
    """Responsibilities (n, k) from squared distances d (n, k) at width σ.

    Differentiable for "softmax", "entmax15" and "naive"; "hard" is piecewise constant (no
    gradient). For the stable maps the logits are shifted by the row's smallest distance before
    dividing by T, z_ij - max_l z_il = -(d_ij - min_l d_il)/T, so no large numbers cancel.
    The work is done on the (k, n) transpose (free when d comes from ``sq_distances``) and the
    result is returned as its (n, k) view.
    """
    T = temperature(sigma)
    dt = d.T if d.T.is_contiguous() else d.T.contiguous()
    if kind == "naive":
        phi = torch.exp(dt / -T)
        return (phi / phi.sum(dim=0, keepdim=True)).T
    if kind == "hard":
        nearest = dt.argmin(dim=0)  # first minimum, so ties go to the lowest index
        # Built as (k, n) like the other maps, so products with it round exactly as theirs do.
        centres = torch.arange(dt.shape[0], device=d.device).unsqueeze(1)
        return (centres == nearest).to(d.dtype).T
    d_min = dt.amin(dim=0, keepdim=True).detach()  # both maps are shift-invariant
    shifted = (dt - d_min).div_(-T)
    if kind == "softmax":  # exp underflows to exactly 0 below the floor anyway: no clamp needed
        return torch.softmax(shifted, dim=0).T
    if torch.is_grad_enabled() and shifted.requires_grad:
        return _Entmax15Columns.apply(shifted.clamp_min(LOGIT_FLOOR)).T
    return _Entmax15Columns.apply(shifted.clamp_min_(LOGIT_FLOOR)).T  # no autograd: reuse the buffer


def resp_torch(x: torch.Tensor, c: torch.Tensor, sigma: float, kind: str = "softmax") -> torch.Tensor:
    """Responsibilities (n, k) of points x (n, d) for centres c (k, d); torch in, torch out."""
    return resp_from_sq_distances(sq_distances(x, c), sigma, kind)


def responsibilities(X, C, sigma, kind: str = "softmax") -> np.ndarray:
    """Responsibilities r (n, k) of points X (n, d) for centres C (k, d) at RBF width σ.

    Parameters
    ----------
    X : array (n, d), float32 or float64 (other real input becomes float64). Must be finite.
    C : array (k, d) with 1 <= k <= n; cast to X's dtype.
    sigma : float > 0, in the units of X. Logits are z = -||x - c||² / (2σ²).
    kind : "softmax" | "entmax15" | "naive" | "hard".

    Returns
    -------
    resp : ndarray (n, k) in X's dtype. Rows are on the simplex, except that "naive" rows are NaN
        wherever every exp(z_ij) of the row underflows to zero in that dtype.
    """
    X = check_points(X, "X")
    C = check_centers(C, X, "C")
    sigma = check_sigma(sigma)
    kind = check_kind(kind)
    check_sigma_for_dtype(sigma, X.dtype)
    with torch.no_grad():
        r = resp_torch(torch.from_numpy(X), torch.from_numpy(C), sigma, kind)
    return np.ascontiguousarray(r.numpy())  # r is a (k, n) tensor's transpose; hand out plain rows
