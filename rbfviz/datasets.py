"""Two-dimensional data sets: scikit-learn's generators, our spiral, the real iris data, and three
data sets on which K-Means fails.

Everything is generated or ships with scikit-learn, so nothing is downloaded at run time.

The three K-Means failures ("sheared", "varied", "uneven") are the data of scikit-learn's gallery
example "Demonstration of k-means assumptions" (plot_kmeans_assumptions.py in scikit-learn's examples, by the
scikit-learn developers, BSD-3-Clause): three ``make_blobs`` clusters, (a) multiplied by a shear
matrix, (b) with standard deviations 1.0, 2.5 and 0.5, (c) cut to 500, 100 and 10 points. The
seed counts from the example's ``random_state=170``, so the default seed 0 has the example's three
well-separated centres (many small seeds put two centres on top of each other, and then no method
can find three groups); with the example's sizes (n=1500, 1500 and 610) they are its points exactly.
"""

from __future__ import annotations

import numpy as np
from sklearn import datasets as skd
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

from .i18n import N_
from .validate import check_int

DATASETS = ("blobs", "moons", "circles", "spiral", "iris", "sheared", "varied", "uneven")

# How each data set reads in a menu (its key is what a URL and make_dataset use).
DATASET_LABELS = {  # shown as tr(DATASET_LABELS[name])
    "blobs": N_("blobs"),
    "moons": N_("moons"),
    "circles": N_("circles"),
    "spiral": N_("spiral"),
    "iris": N_("iris"),
    "sheared": N_("sheared blobs"),
    "varied": N_("unequal-variance blobs"),
    "uneven": N_("unequal-size blobs"),
}

# Per-dataset noise defaults (the generator's own noise parameter, in data units). Blobs use a
# cluster spread that makes neighbouring blobs touch, so soft and hard assignments differ. The
# K-Means failures default to scikit-learn's example (cluster standard deviation 1).
DEFAULT_NOISE = {
    "blobs": 1.5,
    "moons": 0.1,
    "circles": 0.05,
    "spiral": 0.2,
    "iris": 0.0,
    "sheared": 1.0,
    "varied": 1.0,
    "uneven": 1.0,
}
DEFAULT_N = 500
IRIS_SIZE = 150
MAX_N = 5_000_000
MAX_NOISE = 10.0

# Natural number of groups, a sensible default k in the app.
NATURAL_K = {
    "blobs": 4,
    "moons": 2,
    "circles": 2,
    "spiral": 3,
    "iris": 3,
    "sheared": 3,
    "varied": 3,
    "uneven": 3,
}

# scikit-learn's "k-means assumptions" example: the shear that makes its blobs anisotropic, the
# three standard deviations of its unequal-variance blobs (relative to ``noise``), and the sizes
# of its unevenly sized blobs (kept as a ratio at any n).
SHEAR = np.array([[0.60834549, -0.63667341], [-0.40887718, 0.85253229]])
VARIED_STD = (1.0, 2.5, 0.5)
UNEVEN_SIZES = (500, 100, 10)
EXAMPLE_RANDOM_STATE = 170  # seed s draws with make_blobs' random_state 170 + s (mod 2**32)


def make_dataset(name: str, n: int | None = None, noise: float | None = None, seed: int = 0):
    """Make a 2-D data set.

    Parameters
    ----------
    name : one of ``DATASETS``: "blobs" | "moons" | "circles" | "spiral" | "iris" | "sheared" |
        "varied" | "uneven".
    n : number of points (default 500). For "iris", at most 150; fewer gives a seeded subsample.
        For "uneven", the three blobs keep the ratio 500 : 100 : 10 as closely as whole points
        allow, with at least one point each.
    noise : the generator's noise in data units (>= 0); None takes the per-dataset default
        (``DEFAULT_NOISE``). For blobs, sheared and uneven it is the cluster standard deviation
        (for sheared, before the shear); for varied, the first blob's standard deviation (the others
        have 2.5 and 0.5 times it); for iris, Gaussian jitter added after standardising and
        projecting.
    seed : non-negative integer; the same arguments always give the same data. For the K-Means
        failures, make_blobs' ``random_state`` is ``EXAMPLE_RANDOM_STATE + seed`` (mod 2**32): it
        places the three centres and draws the points, and seed 0 is scikit-learn's example.

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
    elif name == "spiral":
        X, y = _spiral(n, noise, rng)
    else:
        X, y = _kmeans_failure(name, n, noise, (EXAMPLE_RANDOM_STATE + seed) % 2**32)
    return np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64)


def _kmeans_failure(name: str, n: int, noise: float, random_state: int):
    """scikit-learn's "k-means assumptions" data: sheared, varied or uneven blobs."""
    rng = np.random.RandomState(random_state)
    if name == "sheared":
        X, y = skd.make_blobs(n_samples=n, centers=3, cluster_std=noise, random_state=rng)
        X = X @ SHEAR
    elif name == "varied":
        X, y = skd.make_blobs(
            n_samples=n, centers=3, cluster_std=[noise * s for s in VARIED_STD], random_state=rng
        )
    else:
        X, y = _uneven(n, noise, rng)
    return X, y


def _spiral(n: int, noise: float, rng: np.random.RandomState, arms: int = 3):
    """Three interleaved arms: radius t in [0.5, 3], angle 1.6·t + 2πa/3 for arm a; isotropic Gaussian
    noise."""
    y = np.arange(n) % arms
    t = 0.5 + 2.5 * np.sqrt(rng.uniform(size=n))  # sqrt: even density along the arm's length
    angle = 1.6 * t + 2 * np.pi * y / arms
    X = np.column_stack([t * np.cos(angle), t * np.sin(angle)])
    X += noise * rng.normal(size=X.shape)
    return X, y


def uneven_sizes(n: int) -> tuple[int, ...]:
    """The sizes of the "uneven" blobs for n >= 3 points: n shared in the ratio 500 : 100 : 10 by
    largest remainder (so n=610 gives exactly 500, 100, 10), then any empty blob given one point from
    the largest. Sum: n."""
    weights = np.asarray(UNEVEN_SIZES, dtype=np.float64)
    share = n * weights / weights.sum()
    sizes = np.floor(share).astype(np.int64)
    leftover = n - int(sizes.sum())
    sizes[np.argsort(-(share - sizes), kind="stable")[:leftover]] += 1
    for empty in np.flatnonzero(sizes == 0):
        sizes[np.argmax(sizes)] -= 1
        sizes[empty] = 1
    return tuple(int(s) for s in sizes)


def _uneven(n: int, noise: float, rng: np.random.RandomState):
    """scikit-learn's unevenly sized blobs: three equal make_blobs clusters, each cut to its size
    (the first points of each, in make_blobs' shuffled order); rows grouped by blob."""
    sizes = uneven_sizes(n)
    X, y = skd.make_blobs(n_samples=len(sizes) * max(sizes), centers=3, cluster_std=noise, random_state=rng)
    X = np.vstack([X[y == label][:size] for label, size in enumerate(sizes)])
    return X, np.repeat(np.arange(len(sizes)), sizes)


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
