"""Every split of an annealing run, detected and predicted (rbfviz.splits).

References are written here, separately from the code: numpy's np.cov(aweights=..., bias=True) for
the weighted covariance, numpy eigenvalues of each blob's own sample covariance for the closed-form
later split, hand-built trajectories for the detection, and the first-split functions of
rbfviz.measures for split 1.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy_reference import sq_dist

from rbfviz.annealing import anneal, default_sigmas
from rbfviz.datasets import NATURAL_K, make_dataset
from rbfviz.measures import critical_sigma_measured, critical_sigma_predicted
from rbfviz.splits import (
    SPLIT_THRESHOLD,
    MeasuredSplit,
    detect_splits,
    predict_splits,
    split_sigma,
    weighted_covariance,
)

# --- the weighted covariance and its top eigenvalue ----------------------------------------------


def test_weighted_covariance_is_numpys_weighted_biased_covariance():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(50, 3)) * [1.0, 2.0, 0.5]
    w = rng.uniform(0, 1, size=50)
    center, cov, mass = weighted_covariance(X, w)
    np.testing.assert_allclose(cov, np.cov(X.T, aweights=w, bias=True), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(center, np.average(X, axis=0, weights=w), rtol=1e-12)
    assert mass == pytest.approx(w.sum(), rel=1e-14)


def test_weighted_covariance_of_float32_points_is_computed_in_float64():
    rng = np.random.RandomState(4)
    X = (rng.normal(size=(200, 2)) * [3.0, 0.1]).astype(np.float32)
    w = rng.uniform(0, 1, size=200).astype(np.float32)
    _, cov, _ = weighted_covariance(X, w)
    assert cov.dtype == np.float64
    reference = np.cov(X.astype(np.float64).T, aweights=w.astype(np.float64), bias=True)
    np.testing.assert_allclose(cov, reference, rtol=1e-12, atol=1e-14)


@settings(max_examples=60, deadline=None)
@given(
    X=arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 4)), elements=st.floats(-1e3, 1e3)),
    data=st.data(),
)
def test_weighted_covariance_and_its_top_eigenvalue_match_numpy(X, data):
    w = data.draw(arrays(np.float64, X.shape[0], elements=st.floats(0.0, 1.0)))
    if not w.sum() > 1e-6:
        w[0] = 1.0
    center, cov, mass = weighted_covariance(X, w)
    reference = np.atleast_2d(np.cov(X.T, aweights=w, bias=True))
    scale = max(1.0, float(np.abs(X).max()) ** 2)
    np.testing.assert_allclose(cov, reference, rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(cov, cov.T, rtol=0, atol=0)
    lam = np.linalg.eigvalsh(cov)[-1]
    assert lam >= -1e-9 * scale  # a covariance is positive semi-definite
    # the split σ is the formula on that eigenvalue, for either map
    lam = max(lam, 0.0)
    assert split_sigma(lam, "softmax") == pytest.approx(math.sqrt(lam), rel=1e-12, abs=1e-300)
    m = data.draw(st.integers(1, 8))
    assert split_sigma(lam, "entmax15", m) == pytest.approx((m**0.5 * lam) ** 0.5, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: weighted_covariance(np.zeros((3, 2)), np.ones(4)), "shape"),
        (lambda: weighted_covariance(np.zeros((3, 2)), [1.0, -1.0, 1.0]), "non-negative"),
        (lambda: weighted_covariance(np.zeros((3, 2)), np.zeros(3)), "not all zero"),
        (lambda: split_sigma(1.0, "entmax15", 0), "integer >= 1"),
        (lambda: split_sigma(-1.0), "lambda_max"),
        (lambda: split_sigma(1.0, "tanh"), "kind"),
    ],
)
def test_bad_arguments_say_what_is_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_hard_has_no_temperature():
    assert split_sigma(2.0, "hard", 3) == math.inf


# --- detection on a hand-built trajectory --------------------------------------------------------


def hand_built():
    """4 centres: one stack at the origin (with noise far below the threshold) for levels 0-1; two
    stacks at x = ±1 from level 2; the stack at +1 splits along y at level 4."""
    S = 6
    centers = np.zeros((S, 4, 2))
    centers[:2] += 1e-5 * np.arange(4)[None, :, None]
    centers[2:, :2, 0], centers[2:, 2:, 0] = -1.0, 1.0
    centers[4:, 2, 1], centers[4:, 3, 1] = 0.5, -0.5
    return centers, np.geomspace(4.0, 0.25, S)


def test_detect_splits_on_a_hand_built_trajectory():
    centers, sigmas = hand_built()
    found = detect_splits(centers, sigmas, scale=1.0)
    assert found == [
        MeasuredSplit(level=2, parent=(0, 1, 2, 3), children=((0, 1), (2, 3))),
        MeasuredSplit(level=4, parent=(2, 3), children=((2,), (3,))),
    ]


def test_detect_splits_threshold_is_relative_to_the_data_scale():
    centers, sigmas = hand_built()
    # at scale 200 the threshold is 2 data units: the stacks at ±1 (2 apart, 1 from the middle) and the
    # ±0.5 pair stay single stacks
    assert detect_splits(centers, sigmas, scale=200.0) == []
    # at scale 40 it is 0.4: the first split shows (each member 1 from the mean), the ±0.5 pair too
    assert [s.level for s in detect_splits(centers, sigmas, scale=40.0)] == [2, 4]


def test_detect_splits_stops_at_non_finite_centres_and_checks_shapes():
    centers, sigmas = hand_built()
    centers[3] = np.nan
    assert [s.level for s in detect_splits(centers, sigmas, scale=1.0)] == [2]
    with pytest.raises(ValueError, match="masses"):
        detect_splits(centers, sigmas, scale=1.0, masses=np.ones((2, 2)))
    with pytest.raises(ValueError, match="sigmas"):
        detect_splits(centers, sigmas[:-1], scale=1.0)


def test_detect_splits_uses_the_mass_weighted_centre():
    # a stack of 3 where centre 2 (mass 0) sits 0.6 from the other two: with equal weights the middle
    # is 0.4 from it (under a threshold of 0.5), with masses it is 0.6 away (a split)
    centers = np.zeros((2, 3, 1))
    centers[1, 2, 0] = 0.6
    masses = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]])
    assert detect_splits(centers, [2.0, 1.0], scale=1.0, threshold=0.5) == []
    assert detect_splits(centers, [2.0, 1.0], scale=1.0, masses=masses, threshold=0.5) == [
        MeasuredSplit(level=1, parent=(0, 1, 2), children=((0, 1), (2,)))
    ]


# --- the closed-form case: two blobs at x = ±5, within-blob covariance diag(0.25, 1) ------------

N_BLOB = 300
RATIO = 0.95  # σ² ← 0.95 σ² per level


@pytest.fixture(scope="module")
def two_blobs():
    rng = np.random.RandomState(11)
    left = rng.normal(size=(N_BLOB, 2)) * [0.5, 1.0] + [-5.0, 0.0]
    right = rng.normal(size=(N_BLOB, 2)) * [0.5, 1.0] + [5.0, 0.0]
    return np.vstack([left, right])


def grid(top: float, bottom: float) -> np.ndarray:
    steps = int(math.ceil(math.log(bottom / top) / math.log(math.sqrt(RATIO))))
    return top * math.sqrt(RATIO) ** np.arange(steps + 1)


def numpy_expectations(X, kind, k):
    """First split: λ_max of the whole 1/N covariance; later: of each blob's own, ×√m for entmax."""
    first = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    blobs = [np.linalg.eigvalsh(np.cov(X[side].T, bias=True))[-1] for side in (X[:, 0] < 0, X[:, 0] > 0)]
    factor = (lambda m: math.sqrt(m)) if kind == "entmax15" else (lambda m: 1.0)
    return math.sqrt(factor(k) * first), [math.sqrt(factor(2) * lam) for lam in blobs]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_every_split_of_two_blobs_is_predicted_and_measured_within_the_grid(two_blobs, kind, dtype):
    X = two_blobs.astype(dtype)
    k = 4
    first, later = numpy_expectations(two_blobs, kind, k)
    sigmas = grid(1.4 * first, 0.6 * min(later))
    result = anneal(X, k, sigmas, kind=kind, seed=0)
    records = predict_splits(result, X)
    # one split of the whole stack, then each blob's stack of two (m = 2) across its own long axis (y)
    assert [r.m for r in records] == [4, 2, 2]
    assert sorted(len(c) for c in records[0].children) == [2, 2]
    rtol = 1e-9 if dtype == "float64" else 1e-5
    assert records[0].sigma_predicted == pytest.approx(first, rel=rtol)
    blob_of = {tuple(sorted(r.parent)): r for r in records[1:]}
    for parent, record in blob_of.items():
        side = np.sign(np.asarray(result.centers[record.level - 1], np.float64)[parent[0], 0])
        expected = later[0] if side < 0 else later[1]
        # the other blob's responsibilities are below e^-40 here: the closed form holds to rounding
        assert record.sigma_predicted == pytest.approx(expected, rel=max(rtol, 1e-6))
        assert record.sigma_linearised == pytest.approx(expected, rel=max(rtol, 1e-6))
        assert abs(record.axis[1]) == pytest.approx(1.0, abs=1e-3)  # the split is along y
    step = 1.0 / math.sqrt(RATIO)  # σ ratio between two levels
    for record, expected in zip(records, [first] + [r.sigma_predicted for r in records[1:]]):
        # the stacked state is stable above the critical σ: the split is seen at or below it, and
        # within two grid steps (critical slowing delays a split by at most one more level here)
        assert record.sigma_measured <= expected * (1 + 1e-9)
        assert record.sigma_measured * step**2 >= expected
        assert record.sigma_above == pytest.approx(record.sigma_measured * step, rel=1e-9)
        assert record.relative_error == pytest.approx(record.sigma_predicted / record.sigma_measured - 1)


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_split_one_agrees_with_the_first_split_functions(kind):
    X, _ = make_dataset("blobs", n=300, seed=0)
    k = NATURAL_K["blobs"]
    top = 1.5 * critical_sigma_predicted(X, kind, m=k)
    result = anneal(X, k, np.geomspace(top, top / 30, 40), kind=kind)
    records = predict_splits(result, X)
    assert records and records[0].m == k and records[0].evaluation == "first split"
    assert records[0].sigma_predicted == critical_sigma_predicted(X, kind, m=k)
    assert records[0].sigma_measured == critical_sigma_measured(result)
    assert [r.number for r in records] == list(range(1, len(records) + 1))
    assert all(a.sigma_measured >= b.sigma_measured for a, b in zip(records, records[1:]))


def test_last_level_evaluation_uses_the_level_above_the_split(two_blobs):
    first, later = numpy_expectations(two_blobs, "softmax", 4)
    result = anneal(two_blobs, 4, grid(1.4 * first, 0.6 * min(later)), kind="softmax")
    records = predict_splits(result, two_blobs, evaluate="last_level")
    for record in records[1:]:
        assert record.sigma_evaluated == record.sigma_above
        assert record.sigma_predicted == pytest.approx(
            min(later, key=lambda v: abs(v - record.sigma_predicted))
        )
    with pytest.raises(ValueError, match="evaluate"):
        predict_splits(result, two_blobs, evaluate="midpoint")


def test_entmax_linearised_prediction_is_never_below_the_formula():
    # √r >= r for responsibilities in [0, 1], so the √r-weighted matrix dominates C_{x|y}
    X, _ = make_dataset("varied", n=300, seed=0)
    k = NATURAL_K["varied"]
    top = 1.5 * critical_sigma_predicted(X, "entmax15", m=k)
    result = anneal(X, k, np.geomspace(top, top / 20, 40), kind="entmax15")
    records = predict_splits(result, X)
    assert len(records) >= 2
    for record in records:
        assert record.sigma_linearised >= record.sigma_predicted * (1 - 1e-9)
    assert records[0].sigma_linearised == records[0].sigma_predicted
    json.dumps(records[-1].to_dict())  # JSON-ready


def test_a_run_that_never_splits_has_no_records():
    X, _ = make_dataset("moons", n=100, seed=0)
    top = critical_sigma_predicted(X, "softmax")
    result = anneal(X, 2, np.geomspace(3 * top, 1.5 * top, 5))
    assert predict_splits(result, X) == []
    assert SPLIT_THRESHOLD > result.noise  # the symmetry-breaking noise is below "distinct"


def test_a_split_right_after_the_one_that_made_its_stack_keeps_the_last_level_value(two_blobs):
    # A hand-built path on the two blobs: split 1 at σ = 4.9 (just below σ_c ≈ 5), and one stack
    # splitting again at the very next level. On the stacked branch just below σ_c the stacks sit
    # near the mean, their covariance is nearly the whole data's, and the self-consistent solve climbs
    # back to σ_c, above the σ where the stack was first seen: the last-level value is kept instead.
    from types import SimpleNamespace

    X = two_blobs
    sigma_c = math.sqrt(np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1])
    sigmas = np.array([1.2, 0.975, 0.97]) * sigma_c
    centers = np.zeros((3, 4, 2))
    centers[1:, :2, 0], centers[1:, 2:, 0] = -1.0, 1.0
    centers[2, 0, 1], centers[2, 1, 1] = 0.5, -0.5
    result = SimpleNamespace(
        centers=centers, sigmas=sigmas, masses=np.full((3, 4), 150.0), kind="softmax", data_scale=5.0
    )
    records = predict_splits(result, X)
    assert [(r.m, r.level) for r in records] == [(4, 1), (2, 2)]
    later = records[1]
    assert later.evaluation == "last_level" and not later.converged
    assert later.sigma_evaluated == pytest.approx(sigmas[1])
    # the last-level value: numpy's weighted covariance of the stack at the level above, as given
    resp = np.exp(-sq_dist(X, centers[1]) / (2 * sigmas[1] ** 2))
    resp /= resp.sum(axis=1, keepdims=True)
    weights = resp[:, :2].sum(axis=1)
    expected = math.sqrt(np.linalg.eigvalsh(np.cov(X.T, aweights=weights, bias=True))[-1])
    assert later.sigma_predicted == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("kind", ["softmax", "naive", "entmax:1.3"])
def test_one_self_consistent_solve_where_the_linearisation_is_the_formula(kind, monkeypatch):
    """Only entmax-1.5 has a √r-weighted linearisation of its own. For the other maps the second solve
    would be the first one again (the same arguments), so it is not run: checked here by running it
    beside each first solve, which must give the same values, bit for bit."""
    from rbfviz import splits

    X = make_dataset("blobs", n=600, seed=4)[0]
    path = anneal(X, 5, default_sigmas(X, 5, kind), kind=kind)
    solve = splits._self_consistent
    solved = []

    def both(*args):
        found = solve(*args)
        if not args[-1]:  # the first solve: the linearised one, as it was run before
            again = solve(*args[:-1], True)
            assert again[0] == found[0] and again[2] == found[2] and again[3] == found[3]
            assert again[1].lam == found[1].lam and again[1].lam_sqrt == found[1].lam_sqrt
        solved.append(args[-1])
        return found

    monkeypatch.setattr(splits, "_self_consistent", both)
    records = predict_splits(path, X)
    assert solved and not any(solved)  # only first solves
    assert len(records) >= 3
    for record in records:
        assert record.sigma_linearised == record.sigma_predicted
        assert record.linearised_error == record.relative_error


def test_progress_counts_the_splits_and_leaves_the_records_unchanged():
    """predict_splits reports (splits predicted so far, splits measured) before each self-consistent solve
    and after each split, ending at (total, total); the records are the same with and without it."""
    X = make_dataset("blobs", n=400, seed=2)[0]
    path = anneal(X, 5, default_sigmas(X, 5, "entmax15"), kind="entmax15")
    calls = []
    with_progress = predict_splits(path, X, progress=lambda done, total: calls.append((done, total)))
    # bit for bit (NaN where a record has no evaluated σ, arrays compared element by element)
    without = predict_splits(path, X)
    np.testing.assert_equal([r.to_dict() for r in with_progress], [r.to_dict() for r in without])
    total = len(with_progress)
    assert total >= 2 and calls[-1] == (total, total)
    assert all(t == total and 0 <= d <= total for d, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(calls) > 2 * total  # the solves report too, not only the splits
    with pytest.raises(ValueError, match="progress"):
        predict_splits(path, X, progress=3)
