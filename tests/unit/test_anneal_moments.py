"""The Newton Jacobian's pair moments (``annealing._pair_moments``, a product in torch) against the
computation they replaced, numpy's product of the (k·(d + 1), w) rows r_ij p_ia with their transpose.

Not bit for bit: the two products add in different orders. Stated tolerances: the moments within 1e-13 of
their largest entry; every annealed level's centres within 1e-6 × the data scale (the tolerance of
tests/unit/test_anneal_newton.py: a level stops when one EM step moves no coordinate more than 1e-10 ×
scale, and near a critical σ, where EM contracts by a factor close to 1 per step, two converged runs can
stand that much further apart), with the same levels converged, the same staircase of distinct centres
and the last (hard) level's centres equal to the bit, on every data set, at its natural k and at k = 8."""

import numpy as np
import pytest

from rbfviz import DATASETS, NATURAL_K, annealing, make_dataset
from rbfviz.annealing import (
    _pair_moments,
    _softmax_levels_with_sums_,
    _sq_distance_levels,
    anneal,
    data_scale,
    default_sigmas,
)
from rbfviz.choose_k import distinct_counts
from rbfviz.maps import temperature
from rbfviz.steps import points_with_ones


def points_of(dataset):
    return make_dataset(dataset, n=150 if dataset == "iris" else 1500, seed=3)[0]


def numpy_pair_moments(block, resp, column_sums):
    """The moments as numpy's product (the previous computation, one-hot points left out alike)."""
    soft = column_sums > 1.0 + annealing._ONE_HOT
    if soft.mean() < 0.75:
        block, resp = block[:, soft], resp[:, soft]
    k, w = resp.shape
    weighted = np.multiply(resp[:, None, :], block[None], dtype=np.float64).reshape(k * block.shape[0], w)
    return weighted @ weighted.T


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dataset", ["blobs", "varied", "iris"])
def test_pair_moments_are_numpys(dataset, dtype):
    X = points_of(dataset).astype(dtype)
    points = points_with_ones(X)
    C = X[np.random.RandomState(2).choice(X.shape[0], 5)][None].copy()
    for sigma in default_sigmas(X, 5)[[5, 30, 59]]:  # soft, between, nearly hard (most points left out)
        distances = _sq_distance_levels(points, C.copy())
        resp, _, sums = _softmax_levels_with_sums_(distances, [temperature(sigma)])
        expected = numpy_pair_moments(points, resp[0], sums[0])
        moments = _pair_moments(points, resp[0], sums[0])
        assert moments.dtype == np.float64 and moments.shape == expected.shape
        np.testing.assert_allclose(moments, expected, rtol=0, atol=1e-13 * np.abs(expected).max())


@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("k", ["natural", 8])
def test_annealing_path_is_the_previous_ones(dataset, k, monkeypatch):
    X = points_of(dataset)
    k = NATURAL_K[dataset] if k == "natural" else k
    grid = default_sigmas(X, k)
    path = anneal(X, k, grid)
    with monkeypatch.context() as patch:
        patch.setattr(annealing, "_pair_moments", numpy_pair_moments)
        before = anneal(X, k, grid)
    scale = data_scale(X)
    assert np.abs(path.centers - before.centers).max() <= 1e-6 * scale
    assert np.array_equal(path.converged, before.converged)
    tol = 1e-2 * scale
    assert np.array_equal(distinct_counts(path.centers, tol), distinct_counts(before.centers, tol))
    assert np.array_equal(path.centers[-1], before.centers[-1])
