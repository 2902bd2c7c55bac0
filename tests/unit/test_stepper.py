"""Step by step: the E-step, the M-step and the Lloyd step (rbfviz.steps), their replay from a sequence
of letters (rbfviz.views.step_by_step.arrays), its figures, and the sequence's URL form (ui.state).

References written here in numpy: the E-step is softmax_j(-d_ij / (2σ²)) (or one-hot nearest centre),
the M-step the r-weighted mean, J the sum of each point's smallest squared distance; the Lloyd step is
also checked against scikit-learn's KMeans(init=C, n_init=1, max_iter=1).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_reference import sq_dist
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from rbfviz import lloyd_step, responsibilities, soft_centroid_step
from rbfviz.steps import e_step, m_step
from rbfviz.views.common.layout import validated
from rbfviz.views.step_by_step.arrays import MAX_STEPS, check_steps, compare_with_lloyd, replay, soft_vs_lloyd
from rbfviz.views.step_by_step.figures import history_figure, step_plane_figure
from ui.state import Controls, changed, parse_query, without_steps

SETTINGS = settings(derandomize=True, max_examples=40, deadline=None)
DTYPES = ("float64", "float32")
TOL = {"float64": 1e-10, "float32": 2e-4}  # relative, on sums of a few hundred terms


# --- references in numpy ------------------------------------------------------------------------


def softmax_resp_np(X, C, sigma):
    z = -sq_dist(X, C, np.float64) / (2.0 * sigma**2)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def hard_resp_np(X, C):
    d = sq_dist(X, C, np.float64)
    return (np.arange(C.shape[0])[None, :] == d.argmin(axis=1)[:, None]).astype(np.float64)


def weighted_mean_np(X, r, C):
    mass = r.sum(axis=0)
    out = np.asarray(C, np.float64).copy()
    full = mass >= 1e-12
    out[full] = (r.T @ np.asarray(X, np.float64))[full] / mass[full, None]
    return out


def replay_np(X, C0, sigma, steps):
    """The softmax replay written out: returns (centres after each step, r after the last, L, J)."""
    C = np.asarray(C0, np.float64)
    r = softmax_resp_np(X, C, sigma)
    centers = [C]
    for letter in steps:
        if letter == "E":
            r = softmax_resp_np(X, C, sigma)
        elif letter == "M":
            C = weighted_mean_np(X, r, C)
        else:
            r = hard_resp_np(X, C)
            C = weighted_mean_np(X, r, C)
        centers.append(C)
    loss = [float((softmax_resp_np(X, c, sigma) * sq_dist(X, c, np.float64)).sum()) for c in centers]
    inertia = [float(sq_dist(X, c, np.float64).min(axis=1).sum()) for c in centers]
    return np.stack(centers), r, np.array(loss), np.array(inertia)


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(300, centers=4, cluster_std=1.0, center_box=(-6, 6), random_state=3)
    C0 = X[[0, 1, 2, 5]].copy()  # a poor start, so the steps move the centres a lot
    return X, C0


# --- E-step and M-step ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sigma", [0.1, 0.5, 2.0])
def test_e_step_is_the_softmax_of_scaled_distances(blobs, dtype, sigma):
    X, C0 = (a.astype(dtype) for a in blobs)
    r = e_step(X, C0, sigma)
    assert r.dtype == np.dtype(dtype) and r.shape == (300, 4)
    np.testing.assert_allclose(r, softmax_resp_np(X, C0, sigma), atol=TOL[dtype] * 10)
    np.testing.assert_array_equal(r, responsibilities(X, C0, sigma, "softmax"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_hard_e_step_is_the_nearest_centre(blobs, dtype):
    X, C0 = (a.astype(dtype) for a in blobs)
    np.testing.assert_array_equal(e_step(X, C0, 1.0, "hard"), hard_resp_np(X, C0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["softmax", "entmax15", "hard"])
def test_m_step_is_the_weighted_mean_and_e_then_m_is_the_soft_step(blobs, dtype, kind):
    X, C0 = (a.astype(dtype) for a in blobs)
    r = e_step(X, C0, 0.7, kind)
    C1 = m_step(X, r, C0)
    assert C1.dtype == np.dtype(dtype)
    np.testing.assert_allclose(
        C1, weighted_mean_np(X, r.astype(np.float64), C0), rtol=TOL[dtype], atol=TOL[dtype]
    )
    np.testing.assert_array_equal(C1, soft_centroid_step(X, C0, 0.7, kind))  # the same bits


def test_m_step_keeps_a_centre_without_mass(blobs):
    X, C0 = blobs
    r = hard_resp_np(X, C0)
    r[:, 2] = 0.0  # centre 2 owns nothing
    r[:, 0] += hard_resp_np(X, C0)[:, 2]
    C1 = m_step(X, r, C0)
    np.testing.assert_array_equal(C1[2], C0[2])
    np.testing.assert_allclose(C1, weighted_mean_np(X, r, C0), rtol=1e-12)


def test_m_step_lets_a_naive_nan_row_show():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    C = X[:2].copy()
    r = np.array([[1.0, 0.0], [0.0, 1.0], [np.nan, np.nan]])
    assert np.isnan(m_step(X, r, C)).all()


@pytest.mark.parametrize(
    "resp, message",
    [
        (np.ones((300, 3)), "shape"),
        (-np.ones((300, 4)), "non-negative"),
        (np.full((300, 4), np.inf), "non-negative"),
        (np.full((300, 4), "a"), "numeric"),
    ],
)
def test_m_step_says_what_is_wrong(blobs, resp, message):
    X, C0 = blobs
    with pytest.raises(ValueError, match=message):
        m_step(X, resp, C0)


def test_e_step_validates_sigma(blobs):
    X, C0 = blobs
    with pytest.raises(ValueError, match="sigma"):
        e_step(X, C0, 0.0)
    with pytest.raises(ValueError, match="kind"):
        e_step(X, C0, 1.0, "soft")


# --- Lloyd ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_lloyd_letter_is_one_iteration_of_scikit_learn_kmeans(blobs, dtype):
    X, C0 = (a.astype(dtype) for a in blobs)
    run = replay(X, C0, 0.5, "softmax", "L")
    model = KMeans(4, init=C0, n_init=1, max_iter=1, algorithm="lloyd").fit(X)
    np.testing.assert_allclose(run.current, model.cluster_centers_, rtol=TOL[dtype], atol=TOL[dtype])
    np.testing.assert_array_equal(run.current, lloyd_step(X, C0).astype(np.float64))
    np.testing.assert_array_equal(run.resp, hard_resp_np(X, C0))  # r shown: the assignment it used
    assert run.resp_by == "L" and not run.resp_current


# --- replay ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_replay_matches_numpy_step_by_step(blobs, dtype):
    X, C0 = (a.astype(dtype) for a in blobs)
    steps = "EMEMLEMMELLE"
    run = replay(X, C0, 0.8, "softmax", steps)
    centers, r, loss, inertia = replay_np(X, C0, 0.8, steps)
    tol = TOL[dtype]
    np.testing.assert_allclose(run.centers, centers, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(run.resp, r, atol=tol * 10)
    np.testing.assert_allclose(run.loss, loss, rtol=tol * 10)
    np.testing.assert_allclose(run.distortion, inertia, rtol=tol * 10)
    assert run.count == len(steps) and run.centers.shape == (len(steps) + 1, 4, 2)


def test_the_losses_are_the_inertia_and_the_soft_loss(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.3, "softmax", "LL")
    for C, J in zip(run.centers, run.distortion):
        model = KMeans(4, init=C, n_init=1, max_iter=1).fit(X)
        model.cluster_centers_ = C  # score the given centres, not the fitted ones
        assert J == pytest.approx(-model.score(X), rel=1e-10)
    assert (run.loss >= run.distortion - 1e-9).all()  # L_σ ≥ J for any centres


def test_an_e_step_moves_nothing_and_an_m_step_twice_is_one(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.6, "softmax", "EMMEE")
    c = run.centers
    np.testing.assert_array_equal(c[1], c[0])  # E
    np.testing.assert_array_equal(c[3], c[2])  # M with the same r: the same centroids
    np.testing.assert_array_equal(c[5], c[4])
    assert run.loss[1] == run.loss[0] and run.loss[4] == run.loss[3]
    assert run.resp_current and run.resp_by == "E"
    assert not replay(X, C0, 0.6, "softmax", "EM").resp_current


def test_replay_is_deterministic_and_empty_replay_is_the_start(blobs):
    X, C0 = blobs
    a, b = replay(X, C0, 0.4, "entmax15", "EMLEM"), replay(X, C0, 0.4, "entmax15", "EMLEM")
    np.testing.assert_array_equal(a.centers, b.centers)
    start = replay(X, C0, 0.4, "softmax", "")
    assert start.count == 0
    np.testing.assert_array_equal(start.current, C0)
    np.testing.assert_allclose(start.resp, softmax_resp_np(X, C0, 0.4), atol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_continuing_a_prefix_gives_the_same_bits(blobs, dtype):
    X, C0 = (a.astype(dtype) for a in blobs)
    steps = "EMLEMMLE"
    whole = replay(X, C0, 0.5, "entmax15", steps)
    for cut in (0, 1, 4, 7, 8):
        part = replay(X, C0, 0.5, "entmax15", steps[:cut])
        continued = replay(X, C0, 0.5, "entmax15", steps, prefix=part)
        for field in ("centers", "resp", "loss", "distortion"):
            np.testing.assert_array_equal(getattr(continued, field), getattr(whole, field))
        assert (continued.resp_by, continued.resp_index) == (whole.resp_by, whole.resp_index)
    part = replay(X, C0, 0.5, "entmax15", "EMM")
    for args in [(0.5, "entmax15", "EML"), (0.4, "entmax15", "EMML"), (0.5, "softmax", "EMML")]:
        with pytest.raises(ValueError, match="prefix"):
            replay(X, C0, *args, prefix=part)
    with pytest.raises(ValueError, match="prefix"):
        replay(X, C0[::-1], 0.5, "entmax15", "EMML", prefix=part)


def test_naive_failure_gives_nan_not_an_error(blobs):
    X, C0 = (a.astype("float32") for a in blobs)
    run = replay(X, C0, 0.02, "naive", "EMEML")
    assert np.isnan(run.loss).all() and np.isnan(run.current).any()
    cmp = compare_with_lloyd(X, run, 0.02, "naive", [1.0, 0.1])
    assert np.isnan(cmp.difference)


@given(
    steps=st.text(alphabet="EML", max_size=12),
    seed=st.integers(0, 50),
    sigma=st.floats(0.2, 3.0),
)
@SETTINGS
def test_replay_matches_numpy_for_any_sequence(steps, seed, sigma):
    X, _ = make_blobs(60, centers=3, cluster_std=1.0, random_state=seed)
    C0 = X[np.random.RandomState(seed).choice(60, 3, replace=False)]
    run = replay(X, C0, sigma, "softmax", steps)
    centers, _, loss, inertia = replay_np(X, C0, sigma, steps)
    np.testing.assert_allclose(run.centers, centers, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(run.loss, loss, rtol=1e-9)
    np.testing.assert_allclose(run.distortion, inertia, rtol=1e-9)


@pytest.mark.parametrize(
    "bad, message", [("EXQ", "letters"), ("E" * (MAX_STEPS + 1), "at most"), (3, "string")]
)
def test_check_steps_says_what_is_wrong(bad, message):
    with pytest.raises(ValueError, match=message):
        check_steps(bad)
    assert check_steps(" eml ") == "EML"


# --- σ → 0: the soft step becomes the Lloyd step --------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_soft_step_converges_to_lloyd_as_sigma_falls(blobs, dtype, kind):
    X, C0 = (a.astype(dtype) for a in blobs)
    sigmas = [4.0, 2.0, 1.0, 0.5, 0.25, 0.1, 0.05, 0.01]
    gaps = soft_vs_lloyd(X, C0, sigmas, kind)
    lloyd = weighted_mean_np(X, hard_resp_np(X, C0), C0)
    expected = [
        np.abs(weighted_mean_np(X, e_step(X, C0, s, kind).astype(np.float64), C0) - lloyd).max()
        for s in sigmas
    ]
    np.testing.assert_allclose(gaps, expected, rtol=1e-3, atol=TOL[dtype] * 100)
    assert gaps[0] > 0.5  # far apart at large σ
    assert gaps[-1] <= 10 * TOL[dtype]  # coincide at small σ
    # the trend: every σ at least 4× smaller gives a gap no larger
    assert all(gaps[i + 2] <= gaps[i] + TOL[dtype] for i in range(len(gaps) - 2))


def test_compare_with_lloyd_uses_the_centres_before_the_last_pair(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.3, "softmax", "LEM")
    cmp = compare_with_lloyd(X, run, 0.3, "softmax", [1.0, 0.3, 0.01])
    assert cmp.after_pair
    np.testing.assert_array_equal(cmp.start, run.centers[1])
    np.testing.assert_array_equal(cmp.soft, run.current)  # the pair just taken
    np.testing.assert_allclose(
        cmp.lloyd, weighted_mean_np(X, hard_resp_np(X, run.centers[1]), run.centers[1])
    )
    assert cmp.difference == pytest.approx(np.abs(run.current - cmp.lloyd).max())
    assert cmp.differences[1] == pytest.approx(cmp.difference)
    nxt = compare_with_lloyd(X, replay(X, C0, 0.3, "softmax", "EML"), 0.3, "softmax", [0.3])
    assert not nxt.after_pair


# --- figures --------------------------------------------------------------------------------------


def test_step_plane_figure_draws_arrows_after_a_move(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.5, "softmax", "EM")
    cmp = compare_with_lloyd(X, run, 0.5, "softmax", [0.5])
    fig = validated(step_plane_figure(X, run, lloyd_from_pair=cmp.lloyd, title="t"))
    names = [t.name for t in fig.data]
    assert names == [
        "points (colour mixed by r)",
        "centres before the step",
        "centres now",
        "Lloyd step from the same centres",
    ]
    arrows = fig.layout.annotations
    assert len(arrows) == 4
    for a, old, new in zip(arrows, run.previous, run.current):
        assert (a.ax, a.ay, a.x, a.y) == pytest.approx((*old, *new))
    start = step_plane_figure(X, replay(X, C0, 0.5, "softmax", "E"))
    assert len(start.data) == 2 and not start.layout.annotations  # an E-step moves nothing
    with pytest.raises(ValueError):
        step_plane_figure(X[:10], run)


def test_history_figure_has_one_point_per_step(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.5, "softmax", "EMLL")
    fig = history_figure(run)
    validated(fig)  # every property is one Plotly knows
    assert [len(t.y) for t in fig.data] == [5, 5]
    np.testing.assert_array_equal(fig.data[0].y, run.loss)
    np.testing.assert_array_equal(fig.data[1].y, run.distortion)
    assert list(fig.layout.xaxis.ticktext) == ["start", "1 E", "2 M", "3 L", "4 L"]


# --- the sequence in the URL (ui.state) -------------------------------------------------------------


def test_steps_round_trip_through_the_url():
    ctrl = Controls(sigma=0.4, steps="EMEML")
    query = ctrl.to_query()
    assert query["steps"] == "EMEML"
    back, notices = parse_query(query)
    assert back == ctrl and notices == []
    assert "steps" not in Controls(sigma=0.4).to_query()  # no steps, no parameter
    assert parse_query({"steps": "eml"})[0].steps == "EML"


@pytest.mark.parametrize("text", ["EXQ", "E M", "1"])
def test_a_bad_steps_value_is_a_notice_and_no_steps(text):
    ctrl, notices = parse_query({"steps": text, "k": "3"})
    assert ctrl.steps == "" and ctrl.k == 3
    assert len(notices) == 1 and "`steps=" in notices[0] and "E" in notices[0]


def test_a_too_long_sequence_keeps_its_first_steps_and_says_so():
    ctrl, notices = parse_query({"steps": "EM" * MAX_STEPS})
    assert ctrl.steps == "EM" * (MAX_STEPS // 2)
    assert len(notices) == 1 and str(MAX_STEPS) in notices[0]
    ctrl, notices = parse_query({"steps": "EX" * MAX_STEPS})  # too long and wrong: none
    assert ctrl.steps == "" and len(notices) == 1


@pytest.mark.parametrize(
    "field, value, kept",
    [
        ("sigma", 0.2, True),
        ("kind", "entmax15", True),
        ("presenter", True, True),
        ("k", 3, False),
        ("seed", 4, False),
        ("n", 300, False),
        ("init", "random", False),
        ("dtype", "float32", False),
        ("dataset", "moons", False),
        ("noise", 1.0, False),
    ],
)
def test_which_changes_keep_the_steps(field, value, kept):
    new, _ = changed(Controls(steps="EM"), field, value)
    assert new.steps == ("EM" if kept else "")


def test_without_steps():
    assert without_steps(Controls(steps="EM")) == Controls()
    ctrl = Controls(k=3)
    assert without_steps(ctrl) is ctrl
