"""One softmax level over a wide block of points is computed a chunk of points at a time
(``annealing._softmax_level_chunked``): the same bits as the whole block at once, since every operation
of the distances and the softmax is column by column. Held to the whole-block computation (the previous
one) on every data set, float64 and float32, from soft responsibilities to far logits (the clip busy
and idle), and through an EM step with its free energy and Jacobian and a short annealing run on more
points than one EM block."""

from __future__ import annotations

import numpy as np
import pytest

import rbfviz.annealing as annealing
from rbfviz import make_dataset
from rbfviz.annealing import _em_steps, anneal, data_scale, default_sigmas
from rbfviz.datasets import DATASETS
from rbfviz.maps import temperature
from rbfviz.steps import points_with_ones

SIGMA_FACTORS = (2.0, 0.5, 0.1, 0.02, 0.003)  # × the data scale: soft to one-hot, far logits included


def _points(name, n, seed):
    """n points of the data set ``name``; one of fixed size (iris) repeated to n rows."""
    try:
        return make_dataset(name, n=n, seed=seed)[0]
    except ValueError:
        return np.resize(make_dataset(name, seed=seed)[0], (n, make_dataset(name, seed=seed)[0].shape[1]))


def _whole_block(block, c, T):
    """The previous computation: the block's distances at once, then its softmax."""
    return annealing._softmax_level_with_sums_(annealing._sq_distance_levels(block, c[None])[0], T, c)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", DATASETS)
def test_a_level_in_chunks_is_the_whole_block_to_the_bit(name, dtype, monkeypatch):
    monkeypatch.setattr(annealing, "_SOFTMAX_CHUNK", 4096)
    X = _points(name, 3 * 4096 + 123, 2).astype(dtype)  # a narrower last chunk
    block, scale = points_with_ones(X), data_scale(X)
    rng = np.random.RandomState(3)
    for k in (2, 5, 9):
        c = X[rng.choice(X.shape[0], k, replace=False)] + 0.2 * scale * rng.normal(size=(k, X.shape[1]))
        c = c.astype(dtype)
        assert annealing._chunked(block, c[None])
        for factor in SIGMA_FACTORS:
            T = temperature(factor * scale)
            got, want = annealing._softmax_level_chunked(block, c, T), _whole_block(block, c, T)
            for a, b in zip(got, want):
                assert a.dtype == b.dtype and np.array_equal(a, b), (k, factor)


def test_the_chunks_at_their_own_size():
    X = make_dataset("blobs", n=2 * annealing._SOFTMAX_CHUNK + 500, seed=4)[0]
    block = points_with_ones(X)
    c = X[:6] + 0.1
    assert annealing._chunked(block, c[None])
    for T in (temperature(1.0), temperature(0.01)):
        got, want = annealing._softmax_level_chunked(block, c, T), _whole_block(block, c, T)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_em_steps_and_annealing_over_several_blocks_are_unchanged(dtype, monkeypatch):
    """More points than one EM block (two blocks, both chunked): the EM step, its free energy and its
    Jacobian, and a short annealing run, equal to the bit to the computation without chunks. float64
    levels on wide blocks take the logits' product instead (``_softmax_sums_chunked``, held to this
    distance form within a stated tolerance in test_anneal_fused.py); here it is off."""
    monkeypatch.setattr(annealing, "_fused", lambda *args: False)
    n = annealing.EM_BLOCK + 4 * annealing._SOFTMAX_CHUNK // 3
    X = make_dataset("moons", n=n, seed=1)[0].astype(dtype)
    points = points_with_ones(X)
    C = X[np.random.RandomState(0).choice(X.shape[0], 4, replace=False)][None].copy()
    grid = default_sigmas(X, 4, "softmax", num=8)

    def run():
        steps = [_em_steps(points, C, (float(s),), "softmax", (True,), (True,)) for s in grid[[0, 3, 7]]]
        result = anneal(X, 4, grid)
        return steps, result

    (steps, result), chunked_calls = run(), []
    with monkeypatch.context() as patch:
        patch.setattr(annealing, "_chunked", lambda *args: chunked_calls.append(1) and False)
        plain_steps, plain = run()
    assert chunked_calls  # the run without chunks went where the chunks would have been
    for (centers, energy, jacobian), (want_centers, want_energy, want_jacobian) in zip(steps, plain_steps):
        assert np.array_equal(centers, want_centers) and energy == want_energy
        assert np.array_equal(jacobian[0], want_jacobian[0])
    for field in ("centers", "loss", "distortion", "masses", "iterations", "converged", "entropy"):
        assert np.array_equal(getattr(result, field), getattr(plain, field)), field
