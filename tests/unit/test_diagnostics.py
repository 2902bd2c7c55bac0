"""Diagnostics: each measurement against closed forms, constructed cases and the theory's bounds (§4–§8)."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rbfviz import make_dataset
from rbfviz.collapse import collapse_study
from rbfviz.maps import responsibilities
from rbfviz.measures import (
    GammaGap,
    SlopeFit,
    collapse_error,
    count_exact_zeros,
    critical_sigma_predicted,
    fit_loglog_slope,
    free_energy,
    gamma_gap,
    gamma_gap_bound,
    label_agreement,
    match_centers,
    mean_entropy,
    min_sq_gap,
    monotone_violations,
    sigma_exact_measured,
    sigma_exact_predicted,
    sigma_softmax_exact,
    stability_report,
)

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)


# --- matching and errors ------------------------------------------------------------------------


def test_match_centers_recovers_a_permutation():
    rng = np.random.RandomState(0)
    C_ref = rng.normal(size=(6, 3))
    perm = rng.permutation(6)
    C = C_ref[np.argsort(perm)] + 1e-6  # C[perm] = C_ref (+ offset)
    found = match_centers(C, C_ref)
    np.testing.assert_allclose(C[found], C_ref, atol=1e-5)
    assert collapse_error(C[np.argsort(found)][found], C_ref) == pytest.approx(math.sqrt(18) * 1e-6, rel=1e-6)


def test_collapse_error_is_zero_for_a_relabelled_copy_and_nan_for_broken_centres():
    C_ref = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    levels = np.stack(
        [C_ref[[2, 0, 1]], C_ref + np.array([[0.0, 0.1], [0, 0], [0, 0]]), np.full((3, 2), np.nan)]
    )
    errors = collapse_error(levels, C_ref)
    assert errors.shape == (3,)
    assert errors[0] == 0.0 and errors[1] == pytest.approx(0.1) and math.isnan(errors[2])
    np.testing.assert_array_equal(match_centers(levels[2], C_ref), np.arange(3))


# --- slope fits ---------------------------------------------------------------------------------


def test_slope_of_an_exact_power_law_and_its_window():
    sigmas = np.geomspace(1.0, 0.01, 30)
    errors = 3.0 * sigmas**2
    errors[sigmas < 0.05] = 0.0  # collapsed: left out
    errors[sigmas > 0.5] = 10.0  # above σ_c: left out by sigma_max
    fit = fit_loglog_slope(sigmas, errors, sigma_max=0.5)
    assert isinstance(fit, SlopeFit)
    assert fit.slope == pytest.approx(2.0, abs=1e-12) and fit.intercept == pytest.approx(
        math.log(3.0), abs=1e-12
    )
    assert fit.sigma_max < 0.5 and fit.sigma_min >= 0.05
    assert fit.n_points == int(np.count_nonzero((sigmas < 0.5) & (sigmas >= 0.05)))
    windowed = fit_loglog_slope(sigmas, errors, sigma_min=0.1, sigma_max=0.5, min_error=0.0)
    assert windowed.sigma_min >= 0.1 and windowed.slope == pytest.approx(2.0, abs=1e-12)


def test_slope_is_nan_with_fewer_than_three_points():
    fit = fit_loglog_slope([1.0, 0.5, 0.25], [1.0, 0.0, 0.0])
    assert math.isnan(fit.slope) and fit.n_points == 1
    empty = fit_loglog_slope([1.0, 0.5], [0.0, np.nan])
    assert empty.n_points == 0 and math.isnan(empty.sigma_min)
    with pytest.raises(ValueError, match="same shape"):
        fit_loglog_slope([1.0, 0.5], [1.0])


def test_monotone_violation_counter():
    assert monotone_violations([5.0, 4.0, 3.0, 0.0, 0.0]) == 0
    assert monotone_violations([5.0, 6.0, 4.0, 4.5, 1.0]) == 2
    assert monotone_violations([1.0, 1.0 + 1e-9]) == 0  # within rtol 1e-6
    assert monotone_violations([1.0, 1.0 + 1e-9], rtol=0.0) == 1
    assert monotone_violations([1e-20, 2e-20], atol=1e-16) == 0
    assert monotone_violations([1.0, np.nan, 2.0, 3.0]) == 1  # pairs with NaN are skipped
    assert monotone_violations([2.0]) == 0
    with pytest.raises(ValueError):
        monotone_violations(np.ones((2, 2)))


# --- thresholds ---------------------------------------------------------------------------------


def test_min_sq_gap_and_sigma_thresholds_on_a_hand_example():
    X = np.array([[0.0, 0.0], [0.9, 0.0], [3.0, 0.0]])
    C = np.array([[0.0, 0.0], [2.0, 0.0]])
    # gaps: point 0: 4 - 0 = 4; point 1: 1.21 - 0.81 = 0.4; point 2: 9 - 1 = 8
    assert min_sq_gap(X, C) == pytest.approx(0.4)
    assert sigma_exact_predicted(X, C) == pytest.approx(math.sqrt(0.4) / 2)
    assert sigma_softmax_exact(X, C) == pytest.approx(math.sqrt(0.4 / 73.4))
    assert min_sq_gap(X, C[:1]) == math.inf


def test_sigma_exact_measured_on_constructed_curves():
    sigmas = [1.0, 0.5, 0.2, 0.1]
    assert sigma_exact_measured(sigmas, [1.0, 0.0, 0.0, 0.0]) == 0.5
    assert sigma_exact_measured(sigmas, [1.0, 0.0, 1e-3, 0.0]) == 0.1
    assert sigma_exact_measured(sigmas, [1.0, 0.0, 0.0, 1e-17]) is None
    assert sigma_exact_measured(sigmas, [1.0, 0.0, np.nan, 0.0]) == 0.1
    assert sigma_exact_measured(sigmas, [1.0, 1e-14, 0.0, 0.0], atol=1e-12) == 0.5


def test_critical_sigma_predicted_formulas():
    X = np.random.RandomState(0).normal(size=(500, 2)) * np.array([3.0, 0.5])
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    assert critical_sigma_predicted(X) == pytest.approx(math.sqrt(lam), rel=1e-12)
    assert critical_sigma_predicted(X, "naive") == pytest.approx(math.sqrt(lam), rel=1e-12)
    assert critical_sigma_predicted(X, "entmax15", m=4) == pytest.approx(math.sqrt(2.0 * lam), rel=1e-12)
    assert critical_sigma_predicted(X, "hard") == math.inf
    with pytest.raises(ValueError, match="needs m"):
        critical_sigma_predicted(X, "entmax15")


# --- Γ-convergence bounds (theory §4) --------------------------------------------------------------


def problems():
    return st.tuples(
        st.integers(0, 10_000), st.integers(2, 40), st.integers(1, 6), st.integers(1, 3), st.floats(-3.0, 1.5)
    )


@SETTINGS
@given(problems())
def test_gamma_gap_within_bounds_for_random_configurations(problem):
    seed, n, k, d, log_sigma = problem
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 5.0)
    C = rng.normal(size=(min(k, n), d)) * rng.uniform(0.1, 5.0)
    sigma = 10.0**log_sigma
    for kind in ("softmax", "entmax15", "hard"):
        g = gamma_gap(X, C, sigma, kind)
        assert isinstance(g, GammaGap)
        assert g.within_bound, (kind, g)
        assert g.gap >= -1e-9 * (1 + g.distortion)
        assert g.bound == gamma_gap_bound(n, C.shape[0], sigma, kind) >= 0
    assert gamma_gap(X, C, sigma, "hard").gap == 0.0


@SETTINGS
@given(problems())
def test_free_energy_bounds(problem):
    seed, n, k, d, log_sigma = problem
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    C = rng.normal(size=(min(k, n), d))
    k = C.shape[0]
    sigma = 10.0**log_sigma
    J = gamma_gap(X, C, sigma, "hard").distortion
    T = 2 * sigma**2
    slack = 1e-9 * (1 + J)
    F_soft = free_energy(X, C, sigma, "softmax")
    assert J - n * T * math.log(k) - slack <= F_soft <= J + slack
    F_ent = free_energy(X, C, sigma, "entmax15")
    assert J - n * T * (4 / 3) * (1 - k**-0.5) - slack <= F_ent <= J + slack


def test_gamma_gap_bound_values_and_naive_failure():
    assert gamma_gap_bound(10, 3, 0.5, "softmax") == pytest.approx(10 * 2 * 0.5 / math.e)
    # α = 1.5: n·T·min((k-1)·α^{-α/(α-1)}, 1/(α-1)) = 10·0.5·min(2/3.375, 2)
    assert gamma_gap_bound(10, 3, 0.5, "entmax15") == pytest.approx(10 * 0.5 * 2 / 3.375)
    assert gamma_gap_bound(10, 30, 0.5, "entmax15") == pytest.approx(4 * 10 * 0.25)
    assert gamma_gap_bound(10, 3, 0.5, "hard") == 0.0
    X = np.array([[0.0, 0.0], [100.0, 0.0]], dtype=np.float32)
    broken = gamma_gap(X, np.array([[0.0, 0.0], [0.0, 1.0]]), 0.01, "naive")
    assert math.isnan(broken.gap) and not broken.within_bound


# --- responsibilities -----------------------------------------------------------------------------


def test_entropy_zeros_and_label_agreement():
    uniform = np.full((4, 3), 1 / 3)
    assert mean_entropy(uniform) == pytest.approx(math.log(3))
    onehot = np.eye(3)[[0, 2, 1, 1]]
    assert mean_entropy(onehot) == 0.0
    assert mean_entropy(np.vstack([onehot, np.full((1, 3), np.nan)])) == 0.0
    assert math.isnan(mean_entropy(np.full((2, 3), np.nan)))
    assert count_exact_zeros(onehot) == 8
    labels = np.array([5, 7, 6, 6]) - 5  # the same partition under other names
    assert label_agreement(onehot, labels) == 1.0
    assert label_agreement(onehot, np.array([0, 0, 1, 1])) == 0.75  # one point in the wrong group
    with_nan = np.vstack([onehot, np.full((1, 3), np.nan)])
    assert label_agreement(with_nan, np.array([0, 2, 1, 1, 0])) == 0.8


def test_stability_report_naive_fails_only_where_expected():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 2))
    C = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.5]])
    sigmas = [3.0, 0.5, 0.021, 0.0071]
    rows = stability_report(X, C, sigmas)
    assert len(rows) == 4 * 2 * 4
    by = {(r["kind"], r["dtype"], r["sigma"]): r for r in rows}
    for dtype in ("float32", "float64"):
        for sigma in (3.0, 0.5):
            assert by[("naive", dtype, sigma)]["nan_row_fraction"] == 0.0
        for kind in ("softmax", "entmax15", "hard"):
            for sigma in sigmas:
                row = by[(kind, dtype, sigma)]
                assert (
                    row["nan_row_fraction"] == 0.0 and row["loss_finite"] and math.isfinite(row["grad_norm"])
                )
    assert by[("naive", "float32", 0.021)]["nan_row_fraction"] > 0.5  # performance notes §8: 92 %
    assert by[("naive", "float64", 0.0071)]["nan_row_fraction"] > 0.5  # 94 %
    assert not by[("naive", "float32", 0.021)]["loss_finite"]
    # entmax15 is exactly sparse: at small σ almost every entry is an exact zero
    assert by[("entmax15", "float64", 0.021)]["zero_fraction"] > 0.6
    assert by[("softmax", "float64", 3.0)]["zero_fraction"] == 0.0
    # the detached gradient: ||∇_C L_σ|| = 2||N_j c_j - Σ_i r_ij x_i||
    r = responsibilities(X, C, 0.5, "softmax")
    grad = 2 * (r.sum(0)[:, None] * C - r.T @ X)
    assert by[("softmax", "float64", 0.5)]["grad_norm"] == pytest.approx(np.linalg.norm(grad), rel=1e-10)
    with pytest.raises(ValueError, match="out of range for float32"):
        stability_report(X, C, [1e-30], kinds=("softmax",))
    with pytest.raises(ValueError, match="dtype"):
        stability_report(X, C, [1.0], dtypes=("float16",))


def test_stability_report_on_a_grid_is_each_sigma_alone():
    """The report forms the distances (and their autograd graph) once for every σ: each row is the row
    of that σ reported alone, to the bit, gradient included, on every map and dtype."""
    rng = np.random.RandomState(3)
    X = rng.normal(size=(200, 2))
    C = np.array([[-1.0, 0.0], [1.0, 0.0], [0.0, 1.5]])
    sigmas = [3.0, 0.5, 0.05, 0.0071]
    kinds = ("softmax", "entmax15", "naive", "hard", "entmax:1.3")
    rows = stability_report(X, C, sigmas, kinds=kinds)
    alone = [row for sigma in sigmas for row in stability_report(X, C, [sigma], kinds=kinds)]
    key = lambda row: (row["kind"], row["dtype"], row["sigma"])  # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, alone))
    alone = {key(row): row for row in alone}
    for row in rows:
        for name, value in row.items():
            want = alone[key(row)][name]
            assert value == want or (math.isnan(value) and math.isnan(want)), (key(row), name)


# --- the collapse experiment -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def moons_studies():
    X, _ = make_dataset("moons", n=400, seed=0)
    soft = collapse_study(X, 2, kind="softmax", dtype="float64")
    ent = collapse_study(X, 2, kind="entmax15", dtype="float64", kmeans_init=soft.kmeans_centers)
    return X, soft, ent


def test_entmax_error_is_exactly_zero_at_and_below_sigma_star(moons_studies):
    X, _, ent = moons_studies
    star = sigma_exact_predicted(X, ent.kmeans_centers)
    assert star == pytest.approx(ent.sigma_exact_predicted)
    below = ent.sigmas <= star
    assert below.sum() >= 5
    assert np.all(ent.error[below] == 0.0)
    # and not above: the first grid σ above σ* still has a soft row at C*, so E > 0
    assert ent.error[np.flatnonzero(~below)[-1]] > 0.0
    assert ent.sigma_exact_measured == pytest.approx(ent.sigmas[below][0])


def test_softmax_error_below_float64_exact_sigma(moons_studies):
    X, soft, _ = moons_studies
    exact = sigma_softmax_exact(X, soft.kmeans_centers)
    below = soft.sigmas <= exact
    assert below.sum() >= 3
    assert np.all(soft.error[below] < 1e-12)
    # while at σ* (entmax's exact scale) softmax is still measurably soft
    assert (
        np.max(soft.error[(soft.sigmas > 2 * exact) & (soft.sigmas < soft.sigma_critical_predicted)]) > 1e-6
    )


def test_collapse_study_reports(moons_studies):
    X, soft, ent = moons_studies
    for study in (soft, ent):
        assert math.isfinite(study.slope.slope) and study.slope.n_points >= 3  # reported, never asserted
        assert study.label_agreement == 1.0
        assert study.nan_rows.sum() == 0
        assert study.monotone_violations == monotone_violations(
            study.error, rtol=1e-6, atol=study.error_floor
        )
        above = study.sigmas >= study.sigma_critical_predicted
        assert np.all(np.isnan(study.error[above])) and np.all(np.isfinite(study.error[~above]))
        assert np.all(np.nan_to_num(study.loss_gap) <= study.loss_gap_bound * (1 + 1e-9))
        assert study.sigma_critical_measured is not None
        assert (
            abs(study.sigma_critical_measured / study.sigma_critical_predicted - 1) < 0.15
        )  # grid spacing 8 %
        d = study.to_dict()
        for key in (
            "sigmas",
            "centers",
            "kmeans_centers",
            "error",
            "slope",
            "sigma_exact_predicted",
            "sigma_exact_measured",
            "nan_rows",
        ):
            assert key in d
        json.dumps(d, allow_nan=False)
    # both maps share one K-Means reference here
    np.testing.assert_array_equal(soft.kmeans_centers, ent.kmeans_centers)


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "entmax:1.3"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_only_the_naive_map_has_nan_rows_to_count(kind, dtype):
    """The study counts NaN rows for the naive map only: the other maps' rows at C* are finite at every
    σ of the grid, down to the last (where naive's have long turned NaN), so their count is 0."""
    X, _ = make_dataset("moons", n=200, seed=0)
    sigmas = np.geomspace(0.8, 0.01, 20)
    study = collapse_study(X, 3, kind=kind, dtype=dtype, sigmas=sigmas)
    assert (study.nan_rows == 0).all()
    for sigma in sigmas:
        assert np.isfinite(
            responsibilities(X.astype(dtype), study.kmeans_centers.astype(dtype), sigma, kind)
        ).all()
    naive = collapse_study(X, 3, kind="naive", dtype=dtype, sigmas=sigmas, kmeans_init=study.kmeans_centers)
    assert naive.nan_rows[-1] > 0


def test_naive_study_counts_nan_rows_and_survives():
    X, _ = make_dataset("moons", n=200, seed=0)
    study = collapse_study(X, 2, kind="naive", dtype="float32", sigmas=np.geomspace(0.8, 0.01, 20))
    assert study.nan_rows[0] == 0 and study.nan_rows[-1] > 0
    assert np.isnan(study.error[-1])
    json.dumps(study.to_dict(), allow_nan=False)


def test_collapse_study_float32_reaches_exact_zero_in_its_own_arithmetic():
    X, _ = make_dataset("moons", n=300, seed=0)
    study = collapse_study(X, 2, kind="entmax15", dtype="float32")
    assert study.kmeans_centers.dtype == np.float32 and study.path.dtype == "float32"
    assert study.sigma_exact_measured is not None
    assert study.sigma_exact_measured <= study.sigma_exact_predicted * (1 + 1e-6)
