"""Independent numpy references the tests compare the library with, written once.

Plain broadcasting, no shared code with rbfviz: a bug in the library's distance code cannot hide in its
own reference.
"""

import numpy as np


def sq_dist(X, C, dtype=None) -> np.ndarray:
    """(n, k) squared distances d_ij = ||x_i - c_j||² of points X (n, d) to centres C (k, d), by
    broadcasting (n, 1, d) - (1, k, d); computed in ``dtype`` (default: the inputs')."""
    X, C = np.asarray(X, dtype), np.asarray(C, dtype)
    return ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=-1)
