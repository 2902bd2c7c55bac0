"""rbfviz.views.lessons: every step prepares, its link lands in a valid state of the app's URL code, its
answer is what the maths says (checked against independent numpy references), and answers are checked."""

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.steps import kmeans
from rbfviz.views.lessons import STEPS, VIEWS, check, prepare, step_data
from ui.page import resolve_sigma
from ui.state import Controls, lesson_query, parse_query

PREPARED = {step.key: prepare(step) for step in STEPS}


def test_the_seven_steps_in_order():
    assert [s.key for s in STEPS] == [
        "voronoi",
        "soften",
        "anneal",
        "gradient",
        "underflow",
        "entmax",
        "moons",
    ]
    assert all(s.view in VIEWS for s in STEPS)
    assert len({s.key for s in STEPS}) == len(STEPS)


@pytest.mark.parametrize("key", PREPARED)
def test_texts_are_filled_in(key):
    p = PREPARED[key]
    for text in (p.task, p.prompt, p.explanation, p.answer_text):
        assert text and not re.search(r"\{[a-z_]+[^}]*\}", text), text
    assert p.step.equations


@pytest.mark.parametrize("key", PREPARED)
def test_link_parses_into_the_step_settings_without_notices(key):
    p = PREPARED[key]
    ctrl, notices = parse_query(lesson_query(p))
    assert notices == []
    s = p.step.settings
    expected = Controls(
        dataset=s["dataset"],
        n=s["n"],
        noise=s["noise"],
        seed=s["seed"],
        k=s["k"],
        init=s["init"],
        kind=s["kind"],
        dtype=s["dtype"],
        sigma=p.sigma,
    )
    assert ctrl == expected
    # σ is a value of the view's own σ grid: the page keeps it as it is, with no notice
    scale = step_data(s).scale
    assert p.sigma in set(scale.grid.tolist())
    assert resolve_sigma(ctrl, scale) == (p.sigma, [])


def test_choice_answers():
    assert PREPARED["voronoi"].answer == 1  # one-hot
    assert PREPARED["soften"].answer == 3  # a quarter as wide
    assert PREPARED["gradient"].answer == 0  # the soft centroid
    assert PREPARED["moons"].answer == 1  # most but not all


def test_band_width_scales_like_sigma_squared():
    facts = PREPARED["soften"].facts
    assert facts["ratio"] == pytest.approx(0.25, abs=2e-3)
    C = step_data(STEPS[1].settings).centers
    gaps = np.linalg.norm(C[:, None] - C[None], axis=2) + np.diag(np.full(len(C), np.inf))
    sigma = facts["sigma"]
    closed_form = 2 * sigma**2 * math.log(9) / gaps.min()  # |s| < σ² ln 9 / ‖c_a − c_b‖ on both sides
    assert facts["width"] == pytest.approx(closed_form, rel=2e-3)


def _blobs():
    X, _ = make_dataset("blobs", 500, 1.5, 0)
    centers, _ = kmeans(X, k=4, seed=0)
    return X, centers


def test_anneal_answer_is_the_root_of_the_largest_covariance_eigenvalue():
    X, _ = _blobs()
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    assert PREPARED["anneal"].answer == pytest.approx(math.sqrt(lam), rel=1e-12)
    assert PREPARED["anneal"].facts["lam"] == pytest.approx(lam, rel=1e-12)
    assert PREPARED["anneal"].sigma <= PREPARED["anneal"].answer


def test_entmax_answer_is_half_the_root_of_the_smallest_gap():
    X, centers = _blobs()
    d = np.sort(((X[:, None] - centers[None]) ** 2).sum(-1), axis=1)
    g_min = (d[:, 1] - d[:, 0]).min()
    p = PREPARED["entmax"]
    assert p.answer == pytest.approx(math.sqrt(g_min) / 2, rel=1e-9)
    assert p.sigma <= p.answer
    # below σ* every float32 row is exactly one-hot: the explanation's numbers say so
    assert p.facts["one_hot"] == p.facts["n"] and p.facts["zeros"] == p.facts["zeros_expected"] == 1500
    assert p.facts["nan_rows"] == 0


def test_underflow_answer_and_the_nan_rows_at_the_link():
    X, centers = _blobs()
    d_nearest = ((X[:, None] - centers[None]) ** 2).sum(-1).min(axis=1)
    Z = 150 * math.log(2)  # float32: exp(z) rounds to 0 below -Z (half the smallest subnormal)
    p = PREPARED["underflow"]
    assert p.answer == pytest.approx(math.sqrt(d_nearest.max() / (2 * Z)), rel=1e-6)
    assert p.facts["nan_rows"] >= 1 and p.facts["stable_nan_rows"] == 0
    assert p.step.settings["kind"] == "naive" and p.step.settings["dtype"] == "float32"


def test_gradient_facts():
    f = PREPARED["gradient"].facts
    assert f["gd_vs_em"] < 1e-12 < f["gd_vs_lloyd"]
    assert f["gd_vs_lloyd_low"] < 1e-12


def test_moons_facts():
    f = PREPARED["moons"].facts
    assert f["linear"] == "yes"
    assert f["circles_agreement"] == "50.0%"


def test_check_choice():
    p = PREPARED["soften"]
    assert check(p, 3).correct and check(p, 3).answered
    wrong = check(p, 2)
    assert wrong.answered and not wrong.correct and "a quarter as wide" in wrong.message
    assert not check(p, None).answered
    with pytest.raises(ValueError):
        check(p, 7)


def test_check_number_within_tolerance():
    p = PREPARED["anneal"]
    tol = p.step.question.rel_tol
    assert check(p, p.answer).correct
    assert check(p, p.answer * (1 + 0.9 * tol)).correct
    assert not check(p, p.answer * (1 + 1.1 * tol)).correct
    assert not check(p, float("nan")).answered
    assert not check(p, None).answered


def test_answers_follow_the_data():
    """Answers are computed, not typed: other data give another σ_c."""
    step = STEPS[2]
    moved = replace(step, settings=dict(step.settings, seed=3))
    assert prepare(moved).answer != PREPARED["anneal"].answer
