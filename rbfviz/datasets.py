"""Two-dimensional data sets: scikit-learn's generators, our spiral, and the real iris data.

Everything is generated or ships with scikit-learn, so nothing is downloaded at run time.
"""

from __future__ import annotations

import numpy as np
from sklearn import datasets as skd
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

from ._validate import check_int

DATASETS = ("blobs", "moons", "circles", "spiral", "iris")

# Per-dataset noise defaults (the generator's own noise parameter, in data units). Blobs use a
# cluster spread that makes neighbouring blobs touch, so soft and hard assignments differ.
DEFAULT_NOISE = {"blobs": 1.5, "moons": 0.1, "circles": 0.05, "spiral": 0.2, "iris": 0.0}
DEFAULT_N = 500
IRIS_SIZE = 150
MAX_N = 5_000_000
MAX_NOISE = 10.0

# Natural number of groups, a sensible default k in the app.
NATURAL_K = {"blobs": 4, "moons": 2, "circles": 2, "spiral": 3, "iris": 3}


def make_dataset(name: str, n: int | None = None, noise: float | None = None, seed: int = 0):
    """Make a 2-D data set.

    Parameters
    ----------
    name : "blobs" | "moons" | "circles" | "spiral" | "iris".
    n : number of points (default 500). For "iris", at most 150; fewer gives a seeded subsample.
    noise : the generator's noise in data units (>= 0); None takes the per-dataset default
        (``DEFAULT_NOISE``). For blobs it is the cluster standard deviation; for iris, Gaussian
        jitter added after standardising and projecting.
    seed : non-negative integer; the same arguments always give the same data.

    Returns
    -------
    X : float64 array (n, 2).
    y : int64 array (n,), the generating group of each point (iris: the species).
    """
    if name not in DATASETS:
        raise ValueError(f"dataset {name!r} is unknown; allowed: {', '.join(DATASETS)}.")
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    if noise is None:
        noise = DEFAULT_NOISE[name]
    if (
        isinstance(noise, bool)
        or not isinstance(noise, (int, float, np.integer, np.floating))
        or not np.isfinite(noise)
        or not 0 <= noise <= MAX_NOISE
    ):
        raise ValueError(f"noise must be a number between 0 and {MAX_NOISE}, got {noise!r}.")
    noise = float(noise)
    if name == "iris":
        n = IRIS_SIZE if n is None else check_int(n, "n", 3, IRIS_SIZE)
        return _iris(n, noise, seed)
    n = DEFAULT_N if n is None else check_int(n, "n", 3, MAX_N)
    rng = np.random.RandomState(seed)
    if name == "blobs":
        X, y = skd.make_blobs(
            n_samples=n, centers=4, cluster_std=noise, center_box=(-5.0, 5.0), random_state=rng
        )
    elif name == "moons":
        X, y = skd.make_moons(n_samples=n, noise=noise, random_state=rng)
    elif name == "circles":
        X, y = skd.make_circles(n_samples=n, noise=noise, factor=0.5, random_state=rng)
    else:
        X, y = _spiral(n, noise, rng)
    return np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


def _spiral(n: int, noise: float, rng: np.random.RandomState, arms: int = 3):
    """Three interleaved arms: radius t in [0.5, 3], angle 1.6·t + 2πa/3 for arm a; isotropic Gaussian
    noise."""
    y = np.arange(n) % arms
    t = 0.5 + 2.5 * np.sqrt(rng.uniform(size=n))  # sqrt: even density along the arm's length
    angle = 1.6 * t + 2 * np.pi * y / arms
    X = np.column_stack([t * np.cos(angle), t * np.sin(angle)])
    X += noise * rng.normal(size=X.shape)
    return X, y


def _iris(n: int, noise: float, seed: int):
    """Fisher's iris (ships with scikit-learn): standardised, then the first two principal components."""
    data = skd.load_iris()
    X = PCA(n_components=2).fit_transform(StandardScaler().fit_transform(data.data))
    y = data.target.astype(np.int64)
    rng = np.random.RandomState(seed)
    if n < IRIS_SIZE:
        keep = np.sort(rng.choice(IRIS_SIZE, size=n, replace=False))
        X, y = X[keep], y[keep]
    if noise > 0:
        X = X + noise * rng.normal(size=X.shape)
    return np.ascontiguousarray(X, dtype=np.float64), y
