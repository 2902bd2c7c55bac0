"""The four responsibility maps (rbfviz.maps), pinned against closed forms and independent references.

Every expectation is computed here, in numpy, from the theory (docs/maths/index.md): squared distances
and logits z = -d/(2σ²) in the caller's dtype, a numpy port of the exact sort-based entmax-1.5
algorithm, the two-centre closed form, and the entmax package's own bisection solver as a second,
differently built reference.
"""

import math

import numpy as np
import pytest
import torch
from entmax import entmax_bisect
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rbfviz import KINDS, responsibilities, temperature
from rbfviz.maps import (
    LOGIT_FLOOR,
    resp_columns,
    resp_from_sq_distances,
    softmax_weight_columns,
    sq_distances,
    weighted_sq_distances_grad,
)

SETTINGS = settings(derandomize=True, max_examples=50, deadline=None)
DTYPES = (np.float32, np.float64)
# Row sums of a stable map: a few rounding errors per entry (k <= 6 here; measured <= 2 ulp of 1).
SUM_TOL = {np.float32: 1e-6, np.float64: 1e-13}


# --- independent numpy references -------------------------------------------------------------


def sq_dist_np(X, C):
    """d_ij = Σ_f (x_if - c_jf)², summed feature by feature in the arrays' dtype."""
    d = np.zeros((X.shape[0], C.shape[0]), dtype=X.dtype)
    for f in range(X.shape[1]):
        d = d + (X[:, None, f] - C[None, :, f]) ** 2
    return d


def logits_np(X, C, sigma):
    """z = -d / (2σ²) in X's dtype (T is rounded to that dtype, as any float computation would)."""
    return sq_dist_np(X, C) / X.dtype.type(-2.0 * sigma**2)


def shifted_logits_np(X, C, sigma):
    """z - max_j z = -(d - min_j d)/(2σ²): the same logits, shifted so the row maximum is 0."""
    d = sq_dist_np(X, C)
    return (d - d.min(axis=1, keepdims=True)) / X.dtype.type(-2.0 * sigma**2)


def softmax_np(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entmax15_np(z):
    """Exact entmax-1.5 by sorting (Peters, Niculae & Martins 2019), written from theory.md §2.

    Halve the max-shifted logits, sort descending; for each prefix ρ: M = mean, S = ρ(mean_sq - M²),
    τ_ρ = M - √max(0, (1 - S)/ρ); support = #{ρ : τ_ρ <= z_(ρ)}; p = [z/2 - τ*]₊².
    """
    z = np.asarray(z, dtype=np.float64)
    half = (z - z.max(axis=-1, keepdims=True)) / 2
    srt = -np.sort(-half, axis=-1)
    rho = np.arange(1, z.shape[-1] + 1)
    mean = np.cumsum(srt, axis=-1) / rho
    mean_sq = np.cumsum(srt**2, axis=-1) / rho
    ss = rho * (mean_sq - mean**2)
    tau = mean - np.sqrt(np.clip((1 - ss) / rho, 0, None))
    support = (tau <= srt).sum(axis=-1)
    tau_star = np.take_along_axis(tau, support[..., None] - 1, axis=-1)
    return np.clip(half - tau_star, 0, None) ** 2


def two_centre_off_weight(u):
    """k = 2, logit gap u: weight of the farther centre, ((√(2 - u²/4) - u/2)/2)² for u < 2, else 0."""
    u = np.asarray(u, dtype=np.float64)
    off = ((np.sqrt(np.clip(2 - u**2 / 4, 0, None)) - u / 2) / 2) ** 2
    return np.where(u < 2, off, 0.0)


# --- random problems --------------------------------------------------------------------------


@st.composite
def problems(draw, log_sigma=(-8.0, 8.0), max_k=5, span=100.0):
    """(X, C, σ): a few points and centres in 1-3 dimensions, float64 values in [-span, span].

    Half the time the centres are copies of data points (possibly repeated), so exact ties and
    zero distances occur.
    """
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, min(n, max_k)))
    dim = draw(st.integers(1, 3))
    coords = st.floats(-span, span, allow_nan=False, allow_infinity=False)
    X = draw(hnp.arrays(np.float64, (n, dim), elements=coords))
    if draw(st.booleans()):
        idx = draw(hnp.arrays(np.int64, (k,), elements=st.integers(0, n - 1)))
        C = X[idx].copy()
    else:
        C = draw(hnp.arrays(np.float64, (k, dim), elements=coords))
    sigma = 10.0 ** draw(st.floats(*log_sigma))
    return X, C, sigma


# --- the stable maps: simplex rows, never NaN ---------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
@SETTINGS
@given(problem=problems())
def test_stable_rows_on_simplex_for_sigma_1e_minus8_to_1e8(problem, kind, dtype):
    X, C, sigma = problem
    X, C = X.astype(dtype), C.astype(dtype)
    r = responsibilities(X, C, sigma, kind)
    assert r.dtype == dtype and r.shape == (X.shape[0], C.shape[0])
    assert np.all(np.isfinite(r)), "a stable map produced NaN/inf"
    assert np.all(r >= 0)
    np.testing.assert_allclose(r.sum(axis=1), 1.0, rtol=0, atol=SUM_TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
@SETTINGS
@given(problem=problems())
def test_stable_maps_are_order_preserving_so_the_voronoi_winner_has_the_largest_weight(problem, kind, dtype):
    X, C, sigma = problem
    X, C = X.astype(dtype), C.astype(dtype)
    r = responsibilities(X, C, sigma, kind)
    d = sq_dist_np(X, C)
    label = d.argmin(axis=1)
    rows = np.arange(len(X))
    assert np.all(r[rows, label] == r.max(axis=1))
    # weakly order-preserving in every pair: d_ij < d_il  =>  r_ij >= r_il
    closer = d[:, :, None] < d[:, None, :]
    assert np.all((r[:, :, None] >= r[:, None, :])[closer])


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
@pytest.mark.parametrize("sigma", [1e-3, 1e-2, 0.1, 1.0, 10.0])
def test_argmax_equals_voronoi_label(kind, sigma):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 2)) * 3
    C = rng.normal(size=(5, 2)) * 3
    r = responsibilities(X, C, sigma, kind)
    d = sq_dist_np(X, C)
    srt = np.sort(d, axis=1)
    assert (srt[:, 1] - srt[:, 0]).min() > 1e-6  # no numerical ties in this data
    np.testing.assert_array_equal(r.argmax(axis=1), d.argmin(axis=1))


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_stable_maps_are_one_hot_far_below_the_gap_and_uniform_far_above(kind):
    X = np.array([[0.0, 0.0], [3.0, 1.0], [-2.0, 5.0]])
    C = np.array([[0.1, 0.0], [3.0, 1.2], [-2.0, 4.0]])
    np.testing.assert_array_equal(responsibilities(X, C, 1e-4, kind), np.eye(3))
    np.testing.assert_allclose(responsibilities(X, C, 1e6, kind), np.full((3, 3), 1 / 3), atol=1e-10)


# --- shift invariance ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
@SETTINGS
@given(problem=problems(log_sigma=(-1.0, 1.0), span=10.0), shift=st.floats(-1e3, 1e3, allow_nan=False))
def test_adding_a_constant_to_a_rows_distances_changes_nothing(problem, shift, kind):
    """Adding a_i to every d_ij shifts row i's logits by -a_i/(2σ²): the map must not see it."""
    X, C, sigma = problem
    d = torch.from_numpy(sq_dist_np(X, C))
    a = torch.linspace(0, 1, len(X), dtype=torch.float64)[:, None] * shift
    shifted_d = d + a - min(0.0, float(a.min()))  # keep distances nonnegative
    r = resp_from_sq_distances(d, sigma, kind).numpy()
    r_shift = resp_from_sq_distances(shifted_d, sigma, kind).numpy()
    # the only difference is the rounding of d + a, amplified by 1/(2σ²) <= 50
    np.testing.assert_allclose(r_shift, r, rtol=0, atol=1e-9)


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_translating_points_and_centres_together_changes_nothing(kind):
    rng = np.random.default_rng(3)
    X, C = rng.normal(size=(50, 2)), rng.normal(size=(4, 2))
    offset = np.array([123.0, -45.5])
    np.testing.assert_allclose(
        responsibilities(X + offset, C + offset, 0.4, kind),
        responsibilities(X, C, 0.4, kind),
        rtol=0,
        atol=1e-11,
    )


# --- naive: NaN exactly where exp underflows in every entry of a row ---------------------------

# exp(z) underflows to 0 below these logits (IEEE with subnormals): float64 ≈ -745.13, float32 ≈ -103.97.
UNDERFLOW = {np.float64: -745.1332191019412, np.float32: -103.97208}


@pytest.mark.parametrize("dtype", DTYPES)
def test_underflow_thresholds_are_what_the_tests_assume(dtype):
    lo = UNDERFLOW[dtype]
    assert np.exp(dtype(lo - 0.01)) == 0 and np.exp(dtype(lo + 0.01)) > 0
    assert torch.exp(torch.tensor(lo - 0.01, dtype=getattr(torch, np.dtype(dtype).name))) == 0
    assert torch.exp(torch.tensor(lo + 0.01, dtype=getattr(torch, np.dtype(dtype).name))) > 0


@pytest.mark.parametrize(
    "dtype, finite_z, nan_z",
    [
        # float64: exp is normal down to -708.4, subnormal down to -745.13, then 0.
        (np.float64, [-1.0, -300.0, -700.0, -740.0], [-750.0, -800.0, -5000.0]),
        # float32: normal down to -87.3, subnormal (torch keeps subnormals by default) down to -103.97.
        (np.float32, [-1.0, -50.0, -85.0, -100.0], [-106.0, -120.0, -1000.0]),
    ],
)
def test_naive_rows_are_nan_exactly_beyond_the_underflow_threshold(dtype, finite_z, nan_z):
    """One point per row; centres at 0 and -1 so the nearest centre's logit is z_min = -x²/(2σ²)."""
    sigma = math.sqrt(0.5)  # 2σ² = 1, so z_min = -x²
    z_min = np.array(finite_z + nan_z)
    X = np.sqrt(-z_min)[:, None].astype(dtype)
    C = np.array([[0.0], [-1.0]], dtype=dtype)
    z = logits_np(X, C, sigma)
    np.testing.assert_allclose(z.max(axis=1), z_min, rtol=1e-5)  # the construction is right
    r = responsibilities(X, C, sigma, "naive")
    assert r.dtype == dtype
    expected_nan = np.array([False] * len(finite_z) + [True] * len(nan_z))
    np.testing.assert_array_equal(np.isnan(r).any(axis=1), expected_nan)
    assert np.isnan(r[expected_nan]).all(), "a NaN row must be NaN in every entry"
    np.testing.assert_allclose(r[~expected_nan].sum(axis=1), 1.0, atol=SUM_TOL[dtype])
    # the stable maps are fine on the very same rows
    for kind in ("softmax", "entmax15"):
        assert np.isfinite(responsibilities(X, C, sigma, kind)).all()


@st.composite
def naive_problems(draw, dtype):
    """Problems whose σ puts the rows' best logits around the underflow threshold, so NaN and
    finite rows both occur."""
    X, C, _ = draw(problems(log_sigma=(0.0, 0.0), span=100.0))
    X, C = X.astype(dtype), C.astype(dtype)
    d_min = sq_dist_np(X, C).min(axis=1).astype(np.float64)
    scale = float(np.median(d_min[d_min > 0])) if np.any(d_min > 0) else 1.0
    # 2σ² = scale / |threshold| puts a median row at the threshold; spread it by up to 10^±0.5
    temp = scale / -UNDERFLOW[dtype] * 10.0 ** draw(st.floats(-0.5, 0.5))
    return X, C, math.sqrt(temp / 2)


@pytest.mark.parametrize("dtype", DTYPES)
@SETTINGS
@given(data=st.data())
def test_naive_nan_rows_match_numpys_exp_of_the_same_logits(data, dtype):
    X, C, sigma = data.draw(naive_problems(dtype))
    r = responsibilities(X, C, sigma, "naive")
    assert r.dtype == dtype
    z = logits_np(X, C, sigma)  # same float logits as the map (same operations, same dtype)
    with np.errstate(under="ignore"):
        phi = np.exp(z)
    predicted_nan = np.all(phi == 0, axis=1)
    event(f"NaN rows: {'none' if not predicted_nan.any() else 'all' if predicted_nan.all() else 'some'}")
    np.testing.assert_array_equal(np.isnan(r).any(axis=1), predicted_nan)
    assert np.isnan(r[predicted_nan]).all()

    ok = ~predicted_nan
    assert np.isfinite(r[ok]).all() and (r[ok] >= 0).all()
    np.testing.assert_allclose(r[ok].sum(axis=1), 1.0, atol=SUM_TOL[dtype])
    # Where the row's largest exp(z) is a normal number, naive is just an unshifted softmax.
    # (Below that, in the subnormal band, it is finite but inaccurate: see the next test.)
    normal = ok & (phi.max(axis=1) >= np.finfo(dtype).tiny)
    soft = responsibilities(X, C, sigma, "softmax")
    np.testing.assert_allclose(r[normal], soft[normal], rtol=0, atol=50 * np.finfo(dtype).eps)


def test_naive_is_already_wrong_in_the_subnormal_band_before_it_turns_nan():
    """float64 logits -744 and -744.5: exp gives subnormals with 1-2 significant bits."""
    X = np.array([[0.0], [0.0]])  # responsibilities needs k <= n
    C = np.array([[math.sqrt(744.0)], [-math.sqrt(744.5)]])
    naive = responsibilities(X, C, math.sqrt(0.5), "naive")
    soft = responsibilities(X, C, math.sqrt(0.5), "softmax")
    np.testing.assert_allclose(soft, [[1 / (1 + math.exp(-0.5)), 1 / (1 + math.exp(0.5))]] * 2, atol=1e-9)
    assert np.isfinite(naive).all()
    assert np.abs(naive - soft).max() > 0.01


def test_naive_equals_softmax_in_the_normal_range():
    rng = np.random.default_rng(11)
    X, C = rng.normal(size=(200, 2)), rng.normal(size=(5, 2))
    for sigma in (0.1, 0.5, 2.0):
        np.testing.assert_allclose(
            responsibilities(X, C, sigma, "naive"),
            responsibilities(X, C, sigma, "softmax"),
            rtol=0,
            atol=1e-13,
        )


# --- entmax15 ------------------------------------------------------------------------------------


def test_entmax15_sanity_value():
    """entmax15([-2, 0, .5]) = [0, .3260, .6740] (softmax: [.049, .359, .592])."""
    # One point at 0; centres at distance² d so that z = -d/(2σ²) = [-2.5, -0.5, 0] = [-2, 0, .5] - .5.
    sigma = math.sqrt(0.5)
    X = np.zeros((3, 1))  # the same point three times (responsibilities needs k <= n)
    C = np.array([[math.sqrt(2.5)], [-math.sqrt(0.5)], [0.0]])
    r = responsibilities(X, C, sigma, "entmax15")
    np.testing.assert_allclose(r, [[0.0, 0.3260, 0.6740]] * 3, atol=5e-5)
    assert np.all(r[:, 0] == 0.0)
    np.testing.assert_allclose(r[0], entmax15_np(np.array([-2.0, 0.0, 0.5])), atol=1e-12)
    np.testing.assert_allclose(
        responsibilities(X, C, sigma, "softmax"), [[0.049, 0.359, 0.592]] * 3, atol=5e-4
    )


def test_numpy_port_reproduces_the_sanity_value_by_itself():
    np.testing.assert_allclose(entmax15_np(np.array([-2.0, 0.0, 0.5])), [0.0, 0.3260, 0.6740], atol=5e-5)


def _two_centre_rows(u, sigma):
    """Points on a line with centres at ±1: a point at s > 0 has logit gap 4s/(2σ²); pick s for gap u."""
    s = np.asarray(u, dtype=np.float64) * sigma**2 / 2
    X = s[:, None]
    C = np.array([[-1.0], [1.0]])
    return X, C


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 4.0])
def test_two_centre_closed_form_check_values(sigma):
    u = np.array([0.0, 1.0, 1.5, 1.99])
    X, C = _two_centre_rows(u, sigma)
    r = responsibilities(X, C, sigma, "entmax15")
    np.testing.assert_allclose(r[:, 0], [0.5, 0.16928, 0.05039, 2.49e-5], rtol=2e-3)
    np.testing.assert_allclose(r[:, 0], two_centre_off_weight(u), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r[:, 1], 1 - two_centre_off_weight(u), rtol=0, atol=1e-12)


@pytest.mark.parametrize("sigma", [0.05, 1.0])
def test_two_centre_off_weight_is_exactly_zero_from_gap_two(sigma):
    u = np.array([2.01, 2.5, 3.0, 10.0, 1e3])
    X, C = _two_centre_rows(u, sigma)
    r = responsibilities(X, C, sigma, "entmax15")
    np.testing.assert_array_equal(r, np.tile([0.0, 1.0], (len(u), 1)))


@SETTINGS
@given(u=st.floats(0.0, 4.0), log_sigma=st.floats(-1.5, 1.0))
def test_two_centre_closed_form_property(u, log_sigma):
    assume(abs(u - 2.0) > 1e-9)
    sigma = 10.0**log_sigma
    X, C = _two_centre_rows([u, u], sigma)
    r = responsibilities(X, C, sigma, "entmax15")
    np.testing.assert_allclose(r[0, 0], two_centre_off_weight(u), rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@SETTINGS
@given(problem=problems(log_sigma=(-2.0, 2.0), max_k=6, span=20.0))
def test_entmax15_is_one_hot_exactly_iff_the_top_logit_gap_is_at_least_two(problem, dtype):
    X, C, sigma = problem
    X, C = X.astype(dtype), C.astype(dtype)
    r = responsibilities(X, C, sigma, "entmax15")
    z = shifted_logits_np(X, C, sigma)  # the map's own shifted logits, bitwise
    padded = np.column_stack([z, np.full(len(z), -np.inf, dtype=z.dtype)])  # k = 1: gap is infinite
    top2 = -np.sort(-padded, axis=1)[:, :2]
    gap = (top2[:, 0] - top2[:, 1]).astype(np.float64)
    one_hot = (r.max(axis=1) == 1.0) & (np.count_nonzero(r, axis=1) == 1)
    clear = np.abs(gap - 2.0) > 1e-4  # rows not straddling the threshold in rounding
    event(f"one-hot rows: {'none' if not one_hot.any() else 'all' if one_hot.all() else 'some'}")
    np.testing.assert_array_equal(one_hot[clear], gap[clear] >= 2.0)
    # sparsity band: a centre has weight only if its logit is within 2 of the row's best
    assert np.all(r[(z < -2.0 - 1e-4)] == 0.0)


@SETTINGS
@given(problem=problems(log_sigma=(-2.0, 2.0), max_k=6, span=20.0))
def test_entmax15_equals_the_sort_based_algorithm_and_bisection(problem):
    X, C, sigma = problem
    r = responsibilities(X, C, sigma, "entmax15")
    z = shifted_logits_np(X, C, sigma)
    z_floor = np.maximum(z, LOGIT_FLOOR)  # no effect on the result: such entries get weight 0 anyway
    np.testing.assert_allclose(r, entmax15_np(z), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r, entmax15_np(z_floor), rtol=0, atol=1e-12)
    # Bisection (50 halvings of an interval of width <= 2 in τ): τ to ~2e-15, so p to ~1e-14.
    bisect = entmax_bisect(torch.from_numpy(z_floor), alpha=1.5, dim=-1, n_iter=50).numpy()
    np.testing.assert_allclose(r, bisect, rtol=0, atol=1e-12)


def test_entmax15_bisection_reference_on_a_larger_problem():
    rng = np.random.default_rng(5)
    X, C = rng.normal(size=(500, 3)), rng.normal(size=(12, 3))
    for sigma in (0.2, 0.7, 3.0):
        r = responsibilities(X, C, sigma, "entmax15")
        z = torch.from_numpy(shifted_logits_np(X, C, sigma))
        np.testing.assert_allclose(r, entmax_bisect(z, alpha=1.5, dim=-1).numpy(), rtol=0, atol=1e-12)
        assert (r == 0).any() and ((r > 0).sum(axis=1) > 1).any()  # sparse and soft rows both occur


# --- hard ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@SETTINGS
@given(problem=problems())
def test_hard_is_one_hot_argmin_with_ties_to_the_lowest_index(problem, dtype):
    X, C, sigma = problem
    X, C = X.astype(dtype), C.astype(dtype)
    r = responsibilities(X, C, sigma, "hard")
    assert r.dtype == dtype
    expected = np.eye(C.shape[0], dtype=dtype)[sq_dist_np(X, C).argmin(axis=1)]  # numpy: first minimum
    np.testing.assert_array_equal(r, expected)


def test_hard_ties_go_to_the_lowest_index():
    X = np.array([[0.0], [1.0], [3.0], [0.0]])
    C = np.array([[5.0], [1.0], [-1.0], [1.0]])  # x=0: tie 1, 2, 3; x=1: tie 1, 3; x=3: tie 0, 1, 3
    r = responsibilities(X, C, 1.0, "hard")
    np.testing.assert_array_equal(r.argmax(axis=1), [1, 1, 0, 1])
    np.testing.assert_array_equal(r.sum(axis=1), [1.0, 1.0, 1.0, 1.0])


def test_hard_does_not_depend_on_sigma():
    rng = np.random.default_rng(2)
    X, C = rng.normal(size=(100, 2)), rng.normal(size=(4, 2))
    ref = responsibilities(X, C, 1.0, "hard")
    for sigma in (1e-8, 1e-3, 10.0, 1e8):
        np.testing.assert_array_equal(responsibilities(X, C, sigma, "hard"), ref)


# --- dtypes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype_is_preserved(kind, dtype):
    rng = np.random.default_rng(0)
    X, C = rng.normal(size=(30, 2)).astype(dtype), rng.normal(size=(3, 2)).astype(np.float64)
    r = responsibilities(X, C, 0.5, kind)
    assert r.dtype == dtype and r.shape == (30, 3)


def test_integer_input_becomes_float64():
    r = responsibilities(np.array([[0, 1], [2, 3]]), np.array([[0, 0]]), 1.0)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, [[1.0], [1.0]])


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_float32_agrees_with_float64(kind):
    rng = np.random.default_rng(4)
    X, C = rng.normal(size=(200, 2)), rng.normal(size=(4, 2))
    r64 = responsibilities(X, C, 0.5, kind)
    r32 = responsibilities(X.astype(np.float32), C.astype(np.float32), 0.5, kind)
    np.testing.assert_allclose(r32, r64, rtol=0, atol=2e-5)


def test_temperature_is_two_sigma_squared():
    assert temperature(0.5) == 0.5
    assert temperature(3.0) == 18.0


# --- Γ-convergence bounds (theory §4) --------------------------------------------------------------


@SETTINGS
@given(problem=problems(log_sigma=(-2.0, 1.5), max_k=6, span=10.0))
def test_loss_gap_bounds(problem):
    """0 <= L_σ - J <= N(k-1)(2σ²)/e (softmax) and < 4Nσ² (entmax15), L_σ = Σ r d, J = Σ min_j d."""
    X, C, sigma = problem
    n, k = X.shape[0], C.shape[0]
    d = sq_dist_np(X, C)
    J = d.min(axis=1).sum()
    T = 2 * sigma**2
    slack = 1e-12 * (1 + d.sum())
    L_soft = (responsibilities(X, C, sigma, "softmax") * d).sum()
    L_ent = (responsibilities(X, C, sigma, "entmax15") * d).sum()
    assert J - slack <= L_soft <= J + n * (k - 1) * T / math.e + slack
    assert J - slack <= L_ent < J + 2 * n * T + slack
    assert (responsibilities(X, C, sigma, "hard") * d).sum() == pytest.approx(J, rel=1e-12, abs=0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["softmax", "entmax15", "hard"])
def test_no_nan_up_to_the_largest_accepted_magnitude(kind, dtype):
    """Values just inside the validation limit sqrt(max/(4·D)): squared distances stay finite."""
    limit = math.sqrt(float(np.finfo(dtype).max) / (4 * 2)) * 0.999
    X = np.array([[limit, limit], [-limit, -limit], [0.0, 0.0]], dtype=dtype)
    C = np.array([[-limit, -limit], [limit, -limit]], dtype=dtype)
    for sigma in (1e-3, 1.0, 1e3):
        r = responsibilities(X, C, sigma, kind)
        assert np.isfinite(r).all()
        np.testing.assert_allclose(r.sum(axis=1), 1.0, atol=SUM_TOL[dtype])


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "hard"])
def test_many_features_use_the_gram_expansion_and_still_agree(kind):
    """Above 16 features sq_distances switches to ||x||² - 2x·c + ||c||² (clamped at 0)."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(120, 32))
    C = np.vstack([X[:2], rng.normal(size=(3, 32))])  # two centres on data points: d = 0 there
    d = sq_dist_np(X, C)
    for sigma in (0.5, 2.0, 8.0):
        z = d / -(2 * sigma**2)
        expected = {
            "softmax": softmax_np(z),
            "entmax15": entmax15_np(z),
            "hard": np.eye(5)[d.argmin(axis=1)],
        }[kind]
        r = responsibilities(X, C, sigma, kind)
        assert np.isfinite(r).all()
        np.testing.assert_allclose(r, expected, rtol=0, atol=1e-10)


# --- our (k, n) 1.5-entmax against the entmax package itself -------------------------------------
# rbfviz computes 1.5-entmax with its own column-wise kernel (maps._Entmax15Columns) because the
# package's sort over a short last axis is ~8x slower. The package stays the reference: same
# numbers forward and backward, in both dtypes, with ties, for small k (sorting network) and large k.
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("k", [1, 2, 3, 7, 10, 33, 50])
def test_entmax15_kernel_equals_the_entmax_package(dtype, k):
    import entmax

    from rbfviz.maps import _Entmax15Columns

    gen = torch.Generator().manual_seed(k)
    z = 3.0 * torch.randn(257, k, generator=gen, dtype=dtype)
    z[:20] = torch.round(z[:20])  # many exact ties
    z[20:25] = 0.0  # all-equal rows
    z_ours = z.clone().requires_grad_(True)
    z_pkg = z.clone().requires_grad_(True)
    ours = _Entmax15Columns.apply(z_ours.T.contiguous()).T
    pkg = entmax.entmax15(z_pkg, dim=-1)
    tol = 1e-6 if dtype == torch.float32 else 1e-14
    torch.testing.assert_close(ours, pkg, rtol=0, atol=tol)
    upstream = torch.randn(257, k, generator=gen, dtype=dtype)
    (ours * upstream).sum().backward()
    (pkg * upstream).sum().backward()
    torch.testing.assert_close(z_ours.grad, z_pkg.grad, rtol=0, atol=10 * tol)


@settings(max_examples=60)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 9),
    st.sampled_from([1e-3, 0.05, 0.5, 5.0]),
    st.sampled_from([np.float32, np.float64]),
)
def test_softmax_weights_times_their_reciprocal_sum_are_the_map(seed, k, sigma, dtype):
    """``softmax_weight_columns``'s w · inv is ``resp_columns``'s softmax bit for bit, and each column's
    largest r is inv, first reached where w is exactly 1."""
    rng = np.random.default_rng(seed)
    D = np.square(rng.normal(scale=rng.choice([0.01, 1.0, 30.0]), size=(k, 200))).astype(dtype)
    D[:, :5] = D[:1, :5]  # columns of ties
    expected = resp_columns(D.copy(), sigma, "softmax")
    weights, inv = softmax_weight_columns(D.copy(), sigma)
    assert weights.dtype == inv.dtype == dtype
    assert np.array_equal(weights * inv, expected)
    assert np.array_equal(expected.max(axis=0), inv)
    assert np.array_equal(expected.argmax(axis=0), (weights == 1.0).argmax(axis=0))


def _autograd_weighted_grad(x, c, w):
    """∇_c Σ r·d by autograd through ``sq_distances``: what ``weighted_sq_distances_grad`` replaces."""
    c = c.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad((w * sq_distances(x, c)).sum(), c)
    return grad


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([1, 2, 3, 17, 20]),  # 17 and more: the Gram expansion
    st.integers(1, 10),
    st.sampled_from([1e-3, 0.05, 0.5, 5.0]),
    st.sampled_from([*KINDS, "random"]),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_weighted_sq_distances_grad_is_autograds_bit_for_bit(seed, dim, k, sigma, kind, dtype):
    """The gradient of Σ_ij w_ij d_ij (w held constant), with every map's responsibilities as w (NaN
    rows of the naive map included) and with arbitrary weights, in both dtypes: autograd's bits."""
    rng = np.random.default_rng(seed)
    scale = rng.choice([0.01, 1.0, 30.0])
    x = torch.from_numpy(rng.normal(scale=scale, size=(rng.integers(1, 300), dim))).to(dtype)
    c = torch.from_numpy(rng.normal(scale=scale, size=(k, dim))).to(dtype)
    with torch.no_grad():
        d = sq_distances(x, c)
        w = (
            torch.from_numpy(rng.normal(size=tuple(d.shape))).to(dtype)
            if kind == "random"
            else resp_from_sq_distances(d, sigma, kind)
        )
        ours = weighted_sq_distances_grad(x, c, w)
    expected = _autograd_weighted_grad(x, c, w)
    assert ours.dtype == dtype and ours.shape == c.shape
    assert torch.equal(torch.nan_to_num(ours, nan=7.0), torch.nan_to_num(expected, nan=7.0))
    assert torch.equal(ours.isnan(), expected.isnan())
