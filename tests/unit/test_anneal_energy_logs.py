"""The free energy F_σ = Σ_i d_min,i - T Σ_i log s_i that the accelerated EM compares (``_LazyEnergy``, the
batched levels) takes its float64 logarithms from torch (vectorised without AVX-512), not numpy.

torch's and numpy's float64 log differ by at most one unit in the last place. Each term log s_i >= 0
(s_i >= 1), so the two sums differ by at most eps Σ log s_i for the terms, plus each sum's own rounding,
at most ⌈log₂ w⌉ eps Σ log s_i for numpy's pairwise sum of w terms: the bound tested below. F_σ is used
only to accept or refuse a jump (SQUAREM, Anderson, Newton), never in the centres' arithmetic, so
annealing changes only where two compared energies lie within that bound of each other; on every data
set, float64 and float32, the runs are the same to the bit as with numpy's logarithms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rbfviz.annealing as annealing
from rbfviz import make_dataset
from rbfviz.annealing import anneal, data_scale, default_sigmas
from rbfviz.datasets import DATASETS
from rbfviz.maps import temperature
from rbfviz.steps import points_with_ones

SIGMA_FACTORS = (3.0, 1.0, 0.3, 0.1, 0.03, 0.01)  # × the data scale: soft to one-hot


def _numpy_sum_of_logs(values):
    """The previous computation: numpy's logarithms."""
    return float(np.add.reduce(np.log(values), dtype=np.float64))


@pytest.mark.parametrize("name", DATASETS)
def test_the_sum_of_logs_is_numpys_within_its_rounding(name):
    X = make_dataset(name, seed=1)[0]
    points, scale = points_with_ones(X), data_scale(X)
    rng = np.random.default_rng(len(name))
    for k in (2, 5, 9):
        c = X[rng.choice(X.shape[0], size=min(k, X.shape[0]), replace=False)]
        for factor in SIGMA_FACTORS:
            D = annealing._sq_distance_levels(points, c[None])[0]
            _, _, sums = annealing._softmax_level_with_sums_(D, temperature(factor * scale), c)
            logs = np.log(sums)
            torch_logs = annealing.torch.from_numpy(sums).log().numpy()
            assert np.all(np.abs(torch_logs - logs) <= np.spacing(logs)), (k, factor)  # one ulp each
            got, want = annealing._sum_of_logs(sums), _numpy_sum_of_logs(sums)
            bound = (1 + math.ceil(math.log2(sums.size))) * np.finfo(np.float64).eps * float(logs.sum())
            assert abs(got - want) <= bound, (k, factor)
            single = sums.astype(np.float32)
            assert annealing._sum_of_logs(single) == _numpy_sum_of_logs(single)  # float32: numpy's


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", DATASETS)
def test_annealing_is_unchanged_from_numpys_logarithms(name, dtype, monkeypatch):
    X = make_dataset(name, seed=3)[0].astype(dtype)
    k = 6
    grid = default_sigmas(X, k, "softmax", num=30)
    got = anneal(X, k, grid)
    monkeypatch.setattr(annealing, "_sum_of_logs", _numpy_sum_of_logs)
    want = anneal(X, k, grid)
    for field in ("centers", "iterations", "converged", "loss", "masses", "entropy"):
        assert np.array_equal(getattr(got, field), getattr(want, field)), field
