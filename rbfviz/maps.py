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
from entmax import entmax15 as _entmax15

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
        xt = x.T.contiguous()
        d = (c[:, :1] - xt[:1]).square()
        for f in range(1, x.shape[1]):
            d = d + (c[:, f : f + 1] - xt[f : f + 1]).square()
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
        return torch.nn.functional.one_hot(nearest, dt.shape[0]).to(d.dtype)
    d_min = dt.amin(dim=0, keepdim=True).detach()  # both maps are shift-invariant
    shifted = ((dt - d_min) / -T).clamp_min(LOGIT_FLOOR)
    if kind == "softmax":
        return torch.softmax(shifted, dim=0).T
    return _entmax15(shifted, dim=0).T


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
