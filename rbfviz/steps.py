"""One step of each centre update, and K-Means itself.

* ``soft_centroid_step``: the EM / soft K-Means update c_j ← x̄_j = Σ_i r_ij x_i / N_j.
* ``e_step`` and ``m_step``: the same update in its two halves, for showing one half at a time:
  responsibilities at the current centres, then every centre to its soft centroid under given r.
* ``gradient_step``: one autograd step on L_σ = Σ_i Σ_j r_ij ||x_i - c_j||² with r detached and
  per-centre step η_j = 1/(2N_j). Since ∇_{c_j} L_σ = -2 N_j (x̄_j - c_j), this lands exactly on x̄_j:
  gradient descent on the RBF loss *is* the soft centroid update, and with hard r it is Lloyd's.
* ``kmeans``: scikit-learn's Lloyd run to convergence, the reference every soft result is
  compared against.

In all updates a centre whose mass N_j = Σ_i r_ij is below ``MIN_MASS`` keeps its position
(never 0/0). NaN responsibilities (the "naive" map) are not masked: they make the centres NaN.
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.cluster import KMeans

from .maps import (
    MIN_MASS,
    _responsibilities,
    resp_columns,
    resp_from_sq_distances,
    sq_distance_columns,
    sq_distances,
)
from .validate import (
    check_centers,
    check_int,
    check_k,
    check_map_arguments,
    check_points,
)


def _checked(X, C, sigma, kind):
    X, C, sigma, _ = check_map_arguments(X, C, sigma, kind)
    return X, C, sigma


def keep_empty(c_old: np.ndarray, c_new: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """c_new where the centre has mass, c_old where it is empty (mass < MIN_MASS).
    Arrays (k, d), (k, d), (k,).

    A NaN mass is not "empty": it leaves c_new (NaN) in place, so a broken map stays visible.
    """
    return np.where((mass < MIN_MASS)[:, None], c_old, c_new)


def points_with_ones(X: np.ndarray) -> np.ndarray:
    """(d + 1, n): each feature of the points X (n, d) as a contiguous row, then a row of ones.

    The operand of the centre update's product; its first d rows, transposed, are X with contiguous
    features, the layout the distances prefer.
    """
    n, d = X.shape
    rows = np.empty((d + 1, n), dtype=X.dtype)
    rows[:d] = X.T
    rows[d] = 1
    return rows


# Past this many points torch's product for the centre update is 1.7-4.7× faster than numpy's BLAS, whose
# single product falls out of cache from 65,536 points on (bench/bench_core.py, "centre sums"); up to it
# the two differ by microseconds and numpy's is kept (below ~1,000 points it is the faster).
_SUM_CHUNK = 16384


def weighted_sums(points: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """[Σ_i r_ij x_i | N_j] as one (k, d + 1) array: the numerators of the centre update and the masses
    N_j = Σ_i r_ij, from one product of the responsibilities with the points and their row of ones.

    points: ``points_with_ones(X)`` (d + 1, n); weights: responsibilities as (k, n) (the maps' layout).
    """
    if points.shape[1] > _SUM_CHUNK:
        return (torch.from_numpy(weights) @ torch.from_numpy(points).T).numpy()
    return weights @ points.T


def centroids_from_sums(c: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """x̄_j = (Σ_i r_ij x_i) / N_j from ``weighted_sums`` (k, d + 1); centres with N_j < MIN_MASS
    stay at c (k, d)."""
    mass = sums[:, -1]
    if not np.fmin.reduce(mass) < MIN_MASS:  # no mass below it (fmin skips NaN): without keep_empty's copy
        return sums[:, :-1] / mass[:, None]
    empty = mass < MIN_MASS
    safe_mass = np.where(empty, 1, mass)
    return keep_empty(c, sums[:, :-1] / safe_mass[:, None], mass)


def soft_centroids_torch(x: torch.Tensor, c: torch.Tensor, resp: torch.Tensor) -> torch.Tensor:
    """x̄_j = Σ_i r_ij x_i / N_j for centres with mass; empty centres stay at c.
    Shapes: x (n,d), c, result (k,d), resp (n,k).

    No autograd (the gradient step is ``gradient_step_torch``).
    """
    sums = weighted_sums(points_with_ones(x.detach().numpy()), resp.detach().numpy().T)
    return torch.from_numpy(centroids_from_sums(c.detach().numpy(), sums))


def soft_centroid_step(X, C, sigma, kind: str = "softmax") -> np.ndarray:
    """One EM step: responsibilities at σ, then every centre to its soft centroid.
    Returns (k, d) in X's dtype.

    The same functions, hence the same bits, as ``soft_centroids_torch(x, c, resp_torch(x, c, σ, kind))``
    and as one EM step of ``anneal``, called on numpy arrays.
    """
    X, C, sigma = _checked(X, C, sigma, kind)
    return _soft_centroid_step(X, C, sigma, kind)


def _soft_centroid_step(X: np.ndarray, C: np.ndarray, sigma: float, kind: str) -> np.ndarray:
    """``soft_centroid_step`` on checked arguments (X, C finite in one float dtype, σ valid in it)."""
    points = points_with_ones(X)
    with torch.no_grad():  # "naive" and "hard" are computed in torch
        resp = resp_columns(sq_distance_columns(points[:-1].T, C), sigma, kind, overwrite=True)
    return centroids_from_sums(C, weighted_sums(points, resp))


def e_step(X, C, sigma, kind: str = "softmax") -> np.ndarray:
    """The E-step: responsibilities r (n, k) of points X (n, d) for centres C (k, d) at width σ.

    ``rbfviz.responsibilities`` under the name of its role in EM; with kind="hard" it is Lloyd's
    assignment step (one-hot nearest centre). Returns (n, k) in X's dtype.
    """
    X, C, sigma = _checked(X, C, sigma, kind)
    return _responsibilities(X, C, sigma, kind)


def _check_resp(resp, X: np.ndarray, C: np.ndarray, name: str = "resp") -> np.ndarray:
    """Responsibilities (n, k) for points X (n, d) and centres C (k, d), cast to X's dtype.

    Entries must be >= 0 and not infinite; NaN is allowed, because the "naive" map produces NaN rows
    and the centres they reach must show it (see the module docstring).
    """
    arr = np.asarray(resp)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise ValueError(f"{name} must be a real numeric array, got dtype {arr.dtype}.")
    expected = (X.shape[0], C.shape[0])
    if arr.shape != expected:
        raise ValueError(
            f"{name} must have shape (n, k) = {expected} for {expected[0]} points and {expected[1]} "
            f"centres, got {arr.shape}."
        )
    arr = np.ascontiguousarray(arr, dtype=X.dtype)
    if np.isinf(arr).any() or (arr < 0).any():
        raise ValueError(f"{name} must hold non-negative finite weights (NaN rows allowed), got inf or < 0.")
    return arr


def m_step(X, resp, C) -> np.ndarray:
    """The M-step: every centre to its soft centroid x̄_j = Σ_i r_ij x_i / N_j under responsibilities r.

    X (n, d); resp (n, k), e.g. from ``e_step``; C (k, d) the current centres, kept where a centre's
    mass N_j = Σ_i r_ij is below ``MIN_MASS`` (``keep_empty``). Returns (k, d) in X's dtype.
    ``m_step(X, e_step(X, C, σ, kind), C)`` is ``soft_centroid_step(X, C, σ, kind)``, bit for bit.
    """
    X = check_points(X, "X")
    C = check_centers(C, X, "C")
    resp = _check_resp(resp, X, C)
    return _m_step(X, resp, C)


def _m_step(X: np.ndarray, resp: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``m_step`` on checked arguments (X, C, resp in one float dtype; resp (n, k))."""
    return centroids_from_sums(C, weighted_sums(points_with_ones(X), np.ascontiguousarray(resp.T)))


def gradient_step_torch(x: torch.Tensor, c: torch.Tensor, sigma: float, kind: str) -> torch.Tensor:
    """One step c_j - η_j ∇_{c_j} L_σ with η_j = 1/(2N_j), the gradient taken by autograd (r detached)."""
    c = c.detach().clone().requires_grad_(True)
    d = sq_distances(x, c)
    with torch.no_grad():
        resp = resp_from_sq_distances(d, sigma, kind)
    loss = (resp * d).sum()
    (grad,) = torch.autograd.grad(loss, c)
    mass = resp.sum(0)
    safe_mass = torch.where(mass < MIN_MASS, torch.ones_like(mass), mass)
    with torch.no_grad():
        stepped = c - grad / (2.0 * safe_mass.unsqueeze(1))
    return torch.from_numpy(keep_empty(c.detach().numpy(), stepped.numpy(), mass.numpy()))


def gradient_step(X, C, sigma, kind: str = "softmax") -> np.ndarray:
    """One gradient-descent step on L_σ with per-centre learning rate η_j = 1/(2N_j).

    L_σ(C) = Σ_i Σ_j r_ij ||x_i - c_j||² is built in torch with r computed at the current C and
    detached; autograd gives ∇_{c_j} L_σ = -2 Σ_i r_ij (x_i - c_j). Stepping by η_j = 1/(2N_j)
    therefore moves c_j exactly to the soft centroid Σ_i r_ij x_i / N_j (Lloyd's update for
    kind="hard"). Empty centres (N_j < 1e-12) stay where they are.

    X : (n, d) float32/float64; C : (k, d); sigma > 0; kind as in ``responsibilities``.
    Returns the new centres (k, d) in X's dtype.
    """
    X, C, sigma = _checked(X, C, sigma, kind)
    return gradient_step_torch(torch.from_numpy(X), torch.from_numpy(C), sigma, kind).numpy()


def lloyd_step(X, C) -> np.ndarray:
    """One Lloyd iteration (hard assignment, then means); empty clusters keep their centre."""
    return soft_centroid_step(X, C, 1.0, kind="hard")


def kmeans(X, init=None, k: int | None = None, seed: int = 0, max_iter: int = 1000):
    """K-Means by scikit-learn's Lloyd algorithm, run until the assignment stops changing.

    With ``init`` (k, d): ``KMeans(algorithm="lloyd", n_init=1, init=init, tol=0)``, the fixed
    point reached from that start. Without it: k-means++ seeding from ``seed`` (then ``k`` is
    required), a single run. Returns (centers (k, d) float64, labels (n,) int64).
    """
    X = check_points(X, "X", dtype=np.float64)
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    max_iter = check_int(max_iter, "max_iter", 1)
    if init is None:
        if k is None:
            raise ValueError("kmeans needs either init (k, d) centres or the number of clusters k.")
        k = check_k(k, X.shape[0])
    else:
        init = check_centers(init, X, "init")
        if k is not None and k != init.shape[0]:
            raise ValueError(f"k={k} does not match init, which has {init.shape[0]} centres.")
    return _kmeans(X, init=init, k=k, seed=seed, max_iter=max_iter)


def _kmeans(
    X: np.ndarray, init: np.ndarray | None = None, k: int | None = None, seed: int = 0, max_iter: int = 1000
):
    """``kmeans`` on checked arguments: X (n, d) float64, finite; init (k, d) float64 or None, then k."""
    if init is None:
        model = KMeans(
            n_clusters=k,
            init="k-means++",
            n_init=1,
            algorithm="lloyd",
            tol=0.0,
            max_iter=max_iter,
            random_state=seed,
        )
    else:
        model = KMeans(
            n_clusters=init.shape[0],
            init=init,
            n_init=1,
            algorithm="lloyd",
            tol=0.0,
            max_iter=max_iter,
            random_state=seed,
        )
    model.fit(X)
    return model.cluster_centers_.astype(np.float64), model.labels_.astype(np.int64)
