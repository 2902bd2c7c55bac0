"""A float64 softmax EM step over a wide block of points takes its logits from one product per chunk
(``annealing._softmax_sums_chunked``: z_ij = (2 c_j·x_i - ||c_j||²)/T, the point's own ||x_i||²/T
cancelling in its softmax) and its centre sums and pair moments while the chunk is in cache, instead of
the squared distances' passes. That rounds differently, so it is held to the distance form within a
stated bound, not to the bit.

The bound: each logit of either form is within δ = 16 ε (max ||x|| + max ||c||)²/T of the exact -d_ij/T
(plus the shared constant) — the product sums terms up to 2||c||·||x||/T and ||c||²/T, the distances are
rounded relative to d_ij ≤ (||x|| + ||c||)², a handful of roundings each, ε float64's epsilon —, so each
weight exp(z_ij - max z_i)/s_i is within a factor e^{±4δ} of the other form's, and every sum of weights
times a point's coordinates within 8δ of the sum of their absolute values (e^{4δ} - 1 < 8δ for δ < 0.1;
δ is at most 5e-9 here). A far logit raised to the clip's -700 in one form and not in the other changes
a weight of ~1e-304: an absolute 1e-290 covers it. Sums over the points add their own rounding, at most
2wε of the sum of the terms' absolute values for w points. Then whole annealing runs on several blocks:
the same number of distinct centres at every level (the same splits, the same staircase), on every data
set, and at every level the centres within a stated tolerance of each other.
"""

from __future__ import annotations

import numpy as np
import pytest

import rbfviz.annealing as annealing
from rbfviz import make_dataset
from rbfviz.annealing import _em_steps, anneal, data_scale, default_sigmas
from rbfviz.choose_k import DISTINCT_TOL, distinct_counts
from rbfviz.datasets import DATASETS
from rbfviz.maps import temperature
from rbfviz.steps import points_with_ones, weighted_sums

SIGMA_FACTORS = (2.0, 0.5, 0.1, 0.02, 0.003)  # × the data scale: soft to one-hot, far logits included
EPS = float(np.finfo(np.float64).eps)


def _points(name, n, seed):
    """n float64 points of the data set ``name``; one of fixed size (iris) repeated to n rows."""
    try:
        return make_dataset(name, n=n, seed=seed)[0].astype(np.float64)
    except ValueError:
        X = make_dataset(name, seed=seed)[0]
        return np.resize(X, (n, X.shape[1])).astype(np.float64)


def _distance_form(block, c, T):
    """The step's sums, nearest distances, column sums and pair moments from the squared distances."""
    resp, d_min, column_sums = annealing._softmax_level_chunked(block, c, T)
    # the moments chunk by chunk, as the fused step takes them: each chunk leaves its one-hot points out
    # or not on its own (the Jacobian is the same either way, G is not)
    step = annealing._SOFTMAX_CHUNK
    moments = sum(
        annealing._pair_moments(block[:, i : i + step], resp[:, i : i + step], column_sums[i : i + step])
        for i in range(0, block.shape[1], step)
    )
    return weighted_sums(block, resp), d_min, column_sums, moments, resp


def _logit_bound(X, c, T):
    reach = float(np.sqrt((X * X).sum(axis=1)).max() + np.sqrt((c * c).sum(axis=1)).max())
    return 16 * EPS * reach * reach / T


@pytest.mark.parametrize("name", DATASETS)
def test_the_fused_step_is_the_distance_form_within_the_logits_rounding(name, monkeypatch):
    monkeypatch.setattr(annealing, "_SOFTMAX_CHUNK", 4096)
    X = _points(name, 3 * 4096 + 123, 2)  # a narrower last chunk
    block, scale = points_with_ones(X), data_scale(X)
    rng = np.random.RandomState(3)
    for k in (2, 5, 9):
        c = X[rng.choice(X.shape[0], k, replace=False)] + 0.2 * scale * rng.normal(size=(k, X.shape[1]))
        assert annealing._fused(block, c[None])
        for factor in SIGMA_FACTORS:
            T = temperature(factor * scale)
            delta = _logit_bound(X, c, T)
            assert delta < 0.1  # the bounds below assume e^{4δ} - 1 < 8δ
            sums, d_min, column_sums, moments = annealing._softmax_sums_chunked(block, c, T, True)
            want_sums, want_d_min, want_column_sums, want_moments, resp = _distance_form(block, c, T)
            summed = 2 * X.shape[0] * EPS  # either sum's rounding over the points, relative to Σ|terms|
            bound = (8 * delta + summed) * (resp @ np.abs(block).T)
            assert np.all(np.abs(sums - want_sums) <= bound + 1e-290)
            # s_i: k terms each within e^{±2δ}; d_min = ||x||² - T max z: T δ plus ||x||²'s rounding
            bound = (4 * delta + 4 * k * EPS) * want_column_sums
            assert np.all(np.abs(column_sums - want_column_sums) <= bound + 1e-290)
            squared = (X * X).sum(axis=1)
            assert np.all(np.abs(d_min - want_d_min) <= T * delta + 4 * EPS * squared)
            weighted = np.abs(resp[:, None, :] * block[None, :, :]).reshape(-1, block.shape[1])
            bound = (16 * delta + summed) * (weighted @ weighted.T)
            assert np.all(np.abs(moments - want_moments) <= bound + 1e-290)


def test_the_step_takes_the_fused_form_for_wide_float64_levels_only():
    X = make_dataset("blobs", n=2 * annealing._SOFTMAX_CHUNK + 500, seed=4)[0]
    block, c = points_with_ones(X), X[:6] + 0.1
    assert annealing._fused(block.astype(np.float64), c[None].astype(np.float64))
    assert not annealing._fused(block.astype(np.float32), c[None].astype(np.float32))
    assert not annealing._fused(block[:, : annealing._SOFTMAX_CHUNK], c[None])  # one chunk: distances
    assert not annealing._fused(block, np.stack([c, c]))  # several levels stacked: distances


def test_an_em_step_on_several_blocks_with_energy_and_jacobian(monkeypatch):
    """Two EM blocks, each in chunks: the new centres, F_σ and the Jacobian against the distance form."""
    n = annealing.EM_BLOCK + 4 * annealing._SOFTMAX_CHUNK // 3
    X = make_dataset("moons", n=n, seed=1)[0].astype(np.float64)
    points, scale = points_with_ones(X), data_scale(X)
    C = X[np.random.RandomState(0).choice(n, 4, replace=False)][None].copy()
    for sigma in default_sigmas(X, 4, "softmax", num=8)[[0, 3, 7]]:
        got = _em_steps(points, C, (float(sigma),), "softmax", (True,), (True,))
        with monkeypatch.context() as patch:
            patch.setattr(annealing, "_fused", lambda *args: False)
            want = _em_steps(points, C, (float(sigma),), "softmax", (True,), (True,))
        delta = _logit_bound(X, C[0], temperature(sigma))
        # a centre is a ratio of sums each within 8δ (relative to Σ r|p|): within 32δ of the data's reach
        reach = float(np.abs(X).max()) + scale
        assert np.abs(got[0] - want[0]).max() <= 32 * delta * reach
        # F = Σ d_min - T Σ log s: T δ per point, and the sums' rounding
        assert abs(got[1][0] - want[1][0]) <= n * temperature(sigma) * 8 * delta + 1e-12 * abs(want[1][0])
        assert np.abs(got[2][0] - want[2][0]).max() <= 1e-6 * np.abs(want[2][0]).max()


@pytest.mark.parametrize("name", ["blobs", "moons", "circles", "spiral"])
def test_annealing_keeps_its_splits_and_centres(name, monkeypatch):
    """Annealing on three EM blocks of 6,000 points (chunks of 2,048), fused against the distance form:
    the same distinct-centre count at every level (the same splits on the same branch), and the centres
    within 1e-6 × the data scale at every level. Why that tolerance: both runs stop a level when one EM
    step moves no coordinate more than tol × scale (1e-10), which leaves the centres within tol·ρ/(1 - ρ)
    of the level's fixed point for an EM rate ρ; the slowest levels of these runs have ρ ≈ 0.999, so
    ~1e-7 × scale each way. A split on another branch moves centres by a sizeable fraction of the scale."""
    monkeypatch.setattr(annealing, "EM_BLOCK", 6000)
    monkeypatch.setattr(annealing, "_SOFTMAX_CHUNK", 2048)
    monkeypatch.setattr(annealing, "_TORCH_SOFTMAX_MIN_ENTRIES", 2048)
    X = make_dataset(name, n=16_000, seed=0)[0].astype(np.float64)
    k = 5
    grid = default_sigmas(X, k, "softmax", num=30)
    fused = anneal(X, k, grid)
    with monkeypatch.context() as patch:
        calls = []
        patch.setattr(annealing, "_fused", lambda *args: calls.append(1) and False)
        plain = anneal(X, k, grid)
    assert calls  # the distance form ran where the fused form would have
    tol = DISTINCT_TOL * fused.data_scale
    assert np.array_equal(distinct_counts(fused.centers, tol), distinct_counts(plain.centers, tol))
    assert np.array_equal(fused.converged, plain.converged)
    assert np.abs(fused.centers - plain.centers).max() <= 1e-6 * fused.data_scale


@pytest.mark.parametrize("name", DATASETS)
def test_the_level_statistics_in_chunks_are_the_whole_arrays_within_their_sums_rounding(name, monkeypatch):
    """``_softmax_statistics_chunked`` (float64, more points than one EM block) against the whole-array
    statistics: L_σ, J and the masses are sums of the same terms (torch's exp has numpy's bits with
    AVX-512, within one unit in the last place of them without), in another order, so within 2nε of the
    sum of the terms (4nε with the exp's unit); a weight below e^-700 is taken as 0 (n·1e-304 of a mass).
    The mean entropy is (Σ log s_i + (L_σ - J)/T)/n, so within (|ΔL| + |ΔJ|)/(nT) plus its logs' rounding."""
    monkeypatch.setattr(annealing, "EM_BLOCK", 4096)
    monkeypatch.setattr(annealing, "_SOFTMAX_CHUNK", 1024)
    X = _points(name, 3 * 4096 + 123, 5)
    points, features, scale = points_with_ones(X), X, data_scale(X)
    n = X.shape[0]
    rng = np.random.RandomState(7)
    for k in (2, 5, 9):
        c = X[rng.choice(n, k, replace=False)] + 0.2 * scale * rng.normal(size=(k, X.shape[1]))
        for factor in SIGMA_FACTORS:
            sigma = factor * scale
            loss, distortion, masses, nan_rows, entropy = annealing._level_statistics(
                features, c, sigma, "softmax", points
            )
            want = annealing._level_statistics(features, c, sigma, "softmax")
            rounding = 4 * n * EPS
            assert abs(loss - want[0]) <= rounding * want[0] + 1e-290
            assert abs(distortion - want[1]) <= rounding * want[1]
            assert np.all(np.abs(masses - want[2]) <= rounding * want[2] + n * 1e-304)
            assert nan_rows == want[3] == 0
            T = temperature(sigma)
            bound = rounding * (want[0] + want[1]) / (n * T) + rounding * np.log(k)
            assert abs(entropy - want[4]) <= bound, (k, factor)
    c[0, 0] = np.nan  # a NaN centre: every point's row has a NaN, as in the whole-array statistics
    assert annealing._level_statistics(features, c, scale, "softmax", points)[3] == n


def test_the_level_statistics_take_the_chunks_on_wide_float64_levels_only(monkeypatch):
    monkeypatch.setattr(annealing, "EM_BLOCK", 4096)
    monkeypatch.setattr(annealing, "_SOFTMAX_CHUNK", 1024)
    calls = []
    monkeypatch.setattr(annealing, "_softmax_statistics_chunked", lambda *args: calls.append(1))
    X = _points("blobs", 4096 + 10, 1)
    c = X[:3] + 0.1
    annealing._level_statistics(X, c, 1.0, "softmax", points_with_ones(X))
    assert calls == [1]
    for args in (
        (X, c, 1.0, "softmax"),  # no points at hand
        (X[:4096], c, 1.0, "softmax", points_with_ones(X[:4096])),  # one EM block
        (X.astype(np.float32), c.astype(np.float32), 1.0, "softmax", points_with_ones(X.astype(np.float32))),
        (X, c, 1.0, "entmax15", points_with_ones(X)),
    ):
        annealing._level_statistics(*args)
    assert calls == [1]
