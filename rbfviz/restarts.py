"""Restarts against annealing: N K-Means restarts from k-means++ and from random starts, one deterministic
annealing run, and scikit-learn's ``KMeans(n_init=N)`` as the reference, on the same data.

Every restart and the annealed end point are run by scikit-learn's Lloyd algorithm to its fixed point
(``KMeans(algorithm="lloyd", n_init=1, tol=0)``: until the assignment stops changing), so each J is the
distortion of a local minimum and the numbers compare like with like:

* restart i of init "k-means++" starts from ``kmeans_plusplus(X, k, random_state=seed + i)``, of init
  "random" from k distinct data points drawn by ``RandomState(seed + i)``;
* annealing is ``rbfviz.anneal`` (softmax, ``default_sigmas``, from the data mean, ``seed``), its last
  centres then polished by Lloyd to the fixed point (at the grid's last σ they are already hard K-Means,
  so the polish moves them by rounding at most);
* the reference is ``KMeans(n_clusters=k, n_init=N, random_state=seed)``: scikit-learn's own best of N
  k-means++ restarts (its seeds are its own, so its J need not be any of ours).

A restart "reaches" the annealed J when its J ≤ J_annealed · (1 + tolerance). Where it matters, the answer
is honest both ways: annealing is one deterministic run, not a guarantee, and on some data the best of N
restarts is lower.

Runs with one BLAS/OpenMP thread (``threadpool_limits``): hundreds of small fits on shared cores are many
times faster without thread start-ups and oversubscription.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans, kmeans_plusplus
from threadpoolctl import threadpool_limits

from .annealing import _default_sigmas, anneal
from .validate import check_int, check_k, check_points

INITS = ("k-means++", "random")
MAX_RESTARTS = 200
# Relative: a J within 0.1% of the annealed J counts as reaching it. On overlapping clusters many local
# minima differ only in a boundary point or two; they are the same answer for the race's question.
TOLERANCE = 1e-3


@dataclass(frozen=True)
class Race:
    """The outcome, all float64.

    distortions[init] (N,): the final J of each restart (data units²); centers[init] (N, k, d) where it
    ended; annealed_j, annealed_centers (k, d): annealing's; reference_j: ``KMeans(n_init=N)``'s inertia;
    tolerance: relative, for ``share_reaching``.
    """

    k: int
    seed: int
    distortions: dict
    centers: dict
    annealed_j: float
    annealed_centers: np.ndarray
    reference_j: float
    tolerance: float

    @property
    def n_restarts(self) -> int:
        return len(self.distortions[INITS[0]])

    @property
    def best_j(self) -> float:
        """The lowest J of all 2N restarts."""
        return float(min(values.min() for values in self.distortions.values()))

    def reaches(self, init: str) -> np.ndarray:
        """(N,) bool: which restarts of ``init`` end within the tolerance of the annealed J (or below)."""
        return self.distortions[init] <= self.annealed_j * (1.0 + self.tolerance)

    def share_reaching(self, init: str) -> float:
        """The fraction of restarts of ``init`` that reach the annealed J."""
        return float(self.reaches(init).mean())

    def poor_restart(self) -> tuple[str, int]:
        """(init, i) of the restart with the largest J: the poor local minimum shown beside annealing's."""
        init = max(INITS, key=lambda name: self.distortions[name].max())
        return init, int(np.argmax(self.distortions[init]))

    def annealing_verdict(self) -> str:
        """ "lower", "tied" or "higher": annealing's J against the best restart's, within the tolerance."""
        if self.annealed_j < self.best_j * (1.0 - self.tolerance):
            return "lower"
        if self.annealed_j <= self.best_j * (1.0 + self.tolerance):
            return "tied"
        return "higher"


def restart_starts(X, k: int, init: str, n_restarts: int, seed: int = 0) -> np.ndarray:
    """The starting centres (N, k, d) float64 of the N restarts of ``init`` (see the module docstring)."""
    X = check_points(X, "X", dtype=np.float64)
    k = check_k(k, X.shape[0])
    n_restarts = check_int(n_restarts, "n_restarts", 1, MAX_RESTARTS)
    seed = check_int(seed, "seed", 0, 2**31 - 1 - MAX_RESTARTS)
    if init not in INITS:
        raise ValueError(f"init={init!r} is unknown; allowed: {', '.join(INITS)}.")
    return np.stack([_start(X, k, init, seed + i) for i in range(n_restarts)])


def _start(X: np.ndarray, k: int, init: str, seed: int) -> np.ndarray:
    if init == "k-means++":
        return kmeans_plusplus(X, n_clusters=k, random_state=seed)[0]
    return X[np.sort(np.random.RandomState(seed).choice(X.shape[0], size=k, replace=False))]


def lloyd_fixed_point(X: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, float]:
    """(centres (k, d), J) of scikit-learn's Lloyd run from ``start`` to its fixed point (float64 X)."""
    model = KMeans(n_clusters=start.shape[0], init=start, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000)
    model.fit(X)
    return model.cluster_centers_, float(model.inertia_)


def race(X, k: int, n_restarts: int = 50, seed: int = 0, tolerance: float = TOLERANCE) -> Race:
    """N restarts per init, one annealing run and ``KMeans(n_init=N)`` on points X (n, d); see ``Race``.

    1 <= n_restarts <= MAX_RESTARTS; 2 <= k <= n. Costs about 2N + N small scikit-learn fits and one
    annealing run (a second or two for N = 200 on 500 points, one thread).
    """
    X = check_points(X, "X", dtype=np.float64)
    k = check_k(k, X.shape[0])
    if k < 2:
        raise ValueError(f"a race needs at least 2 centres, got k={k}.")
    n_restarts = check_int(n_restarts, "n_restarts", 1, MAX_RESTARTS)
    if not (isinstance(tolerance, (int, float)) and 0 <= tolerance < 1):
        raise ValueError(f"tolerance must be a number from 0 up to 1 (relative), got {tolerance!r}.")
    distortions, centers = {}, {}
    with threadpool_limits(limits=1):
        for init in INITS:
            ends = [lloyd_fixed_point(X, s) for s in restart_starts(X, k, init, n_restarts, seed)]
            centers[init] = np.stack([c for c, _ in ends])
            distortions[init] = np.array([j for _, j in ends])
        path = anneal(X, k, _default_sigmas(X, k, "softmax"), kind="softmax", seed=seed)
        annealed_centers, annealed_j = lloyd_fixed_point(X, path.centers[-1].astype(np.float64))
        reference = KMeans(n_clusters=k, n_init=n_restarts, random_state=seed).fit(X)
    return Race(
        k=k,
        seed=seed,
        distortions=distortions,
        centers=centers,
        annealed_j=annealed_j,
        annealed_centers=annealed_centers,
        reference_j=float(reference.inertia_),
        tolerance=float(tolerance),
    )
