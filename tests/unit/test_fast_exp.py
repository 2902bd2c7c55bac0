"""The softmax's exp runs in torch (vectorised for float64 without AVX-512), not numpy: the same numbers as
numpy's exp, the previous computation, on every data set, within the rounding of one exp.

torch's and numpy's float64 exp differ by at most one unit in the last place (2.2e-16 relative); a
responsibility is one exp divided by a sum of k of them, so it moves by at most a few units: rtol 1e-15
(4.5 units), with no absolute tolerance, so that tiny weights are held to the same relative standard
and exact zeros stay exact zeros."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rbfviz.annealing as annealing
from rbfviz import make_dataset
from rbfviz.datasets import DATASETS
from rbfviz.maps import _EXP_UNDERFLOW, _FAST_EXP_FLOOR, _exp_logits_, resp_columns, sq_distance_columns
from rbfviz.steps import points_with_ones

RTOL = 1e-15
SIGMA_FACTORS = (3.0, 1.0, 0.3, 0.1, 0.03, 0.01)  # × the data scale: soft to one-hot, far logits included


def _numpy_softmax_levels_with_sums_(D, T, C=None):
    """The EM step's softmax as it was computed before, with numpy's exp (the reference)."""
    d_min = D.min(axis=1)
    D -= d_min[:, None, :]
    if D.dtype == np.float64:
        np.minimum(D, np.array([annealing._CLIP_LOGIT * t for t in T])[:, None, None], out=D)
    D *= np.array([-1.0 / t for t in T]).astype(D.dtype)[:, None, None]
    np.exp(D, out=D)
    column_sums = D.sum(axis=1)
    D *= (1.0 / column_sums)[:, None, :]
    return D, d_min, column_sums


def _cases():
    for name in DATASETS:
        X, _ = make_dataset(name, seed=1)
        scale = annealing.data_scale(X)
        rng = np.random.default_rng(len(name))
        for k in (2, 5, 9):
            C = X[rng.choice(X.shape[0], size=min(k, X.shape[0]), replace=False)]
            yield name, X, C, scale


def test_exp_logits_is_torchs_exp_within_one_ulp_of_numpys_and_keeps_its_zeros():
    z = np.concatenate(
        [
            -np.geomspace(1e-12, 1e4, 200_001),
            np.linspace(_EXP_UNDERFLOW - 1.0, _FAST_EXP_FLOOR + 1.0, 10_001),  # the tiny/subnormal band
            [0.0, -0.0, -np.inf, -745.1332, -745.14, -708.4, -700.0],
        ]
    )
    expected = np.exp(z)
    got = _exp_logits_(z.copy())
    # torch's values everywhere, the far band's subnormals and zeros included
    assert np.array_equal(got.view(np.uint64), torch.exp(torch.from_numpy(z)).numpy().view(np.uint64))
    normal = expected >= np.finfo(np.float64).tiny
    np.testing.assert_allclose(got[normal], expected[normal], rtol=2.3e-16, atol=0)
    # a subnormal's last unit is 4.9e-324 absolute: within one of numpy's, and a zero where numpy's is
    np.testing.assert_allclose(got[~normal], expected[~normal], rtol=0, atol=5e-324)
    np.testing.assert_array_equal(got == 0.0, expected == 0.0)
    assert np.isnan(_exp_logits_(np.array([np.nan]))).all()


def _exp_logits_with_a_mask_(z: np.ndarray) -> np.ndarray:
    """``_exp_logits_`` as it was, deciding whether any logit is far from a mask of every entry (the
    reference of the minimum it reads now)."""
    if z.dtype != np.float64:
        return np.exp(z, out=z)
    t = torch.from_numpy(z)
    far = t < _FAST_EXP_FLOOR
    if not bool(far.any()):
        t.exp_()
        return z
    tiny = (far & (t >= _EXP_UNDERFLOW)).numpy()
    tiny_values = torch.exp(torch.from_numpy(z[tiny])).numpy()
    t.clamp_min_(_FAST_EXP_FLOOR).exp_()
    t.masked_fill_(far, 0.0)
    z[tiny] = tiny_values
    return z


_LOGITS = st.one_of(
    st.floats(-1e4, 0.0),
    st.floats(_EXP_UNDERFLOW - 2.0, _FAST_EXP_FLOOR + 2.0),
    st.sampled_from([0.0, -0.0, -np.inf, np.nan, _FAST_EXP_FLOOR, np.nextafter(_FAST_EXP_FLOOR, 0.0)]),
)


@given(
    hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=40), elements=_LOGITS
    ),
    st.sampled_from([np.float64, np.float32]),
)
def test_exp_logits_gives_the_bits_of_the_masked_computation(z, dtype):
    """Whether a logit is far is read from the smallest one (NaN: from every entry): the same bits as the
    mask of every entry, for any logits, NaN, -inf and empty arrays included, in both precisions."""
    z = z.astype(dtype)
    expected = _exp_logits_with_a_mask_(z.copy())
    got = _exp_logits_(z.copy())
    np.testing.assert_array_equal(got, expected)  # NaN where NaN; otherwise every bit
    assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_responsibilities_match_the_numpy_exp_computation_on_every_data_set(dtype):
    for name, X, C, scale in _cases():
        D = sq_distance_columns(X.astype(dtype), C.astype(dtype))
        for factor in SIGMA_FACTORS:
            sigma = factor * scale
            got = resp_columns(D.copy(), sigma, "softmax")
            logits = (D - D.min(axis=0)) * (-1.0 / (2.0 * sigma**2))
            e = np.exp(logits.astype(dtype))
            expected = e * (1.0 / e.sum(axis=0))
            if dtype == "float64":
                np.testing.assert_allclose(got, expected, rtol=RTOL, atol=0, err_msg=f"{name} σ={sigma}")
                np.testing.assert_array_equal(got == 0.0, expected == 0.0)
            else:  # float32 keeps numpy's exp: the same bits
                np.testing.assert_array_equal(got, expected, err_msg=f"{name} σ={sigma}")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_em_step_matches_the_numpy_exp_computation_on_every_data_set(dtype, monkeypatch):
    """One EM step (centres, free energy) and a batch of levels, against the same step with numpy's exp."""
    for name, X, C, scale in _cases():
        points = points_with_ones(X.astype(dtype))
        c = C.astype(dtype)
        sigmas = [factor * scale for factor in SIGMA_FACTORS]
        stacked = np.stack([c] * len(sigmas))
        energy = [True] * len(sigmas)
        with torch.no_grad():
            got, got_f = annealing._em_steps(points, stacked, sigmas, "softmax", energy)
            monkeypatch.setattr(annealing, "_softmax_levels_with_sums_", _numpy_softmax_levels_with_sums_)
            ref, ref_f = annealing._em_steps(points, stacked, sigmas, "softmax", energy)
            monkeypatch.undo()
        tol = (1e-13 if dtype == "float64" else 1e-5) * scale
        np.testing.assert_allclose(got, ref, rtol=0, atol=tol, err_msg=name)
        np.testing.assert_allclose(got_f, ref_f, rtol=1e-12 if dtype == "float64" else 1e-5, err_msg=name)
