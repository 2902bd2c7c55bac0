"""rbfviz.views.lessons.arrays: every step prepares, its link lands in a valid state of the app's URL
code, its
answer is what the maths says (checked against independent numpy references), and answers are checked."""

import math
import re
from dataclasses import replace

import numpy as np
import pytest
from numpy_reference import sq_dist
from sklearn.cluster import KMeans

from rbfviz.datasets import make_dataset
from rbfviz.steps import kmeans
from rbfviz.views.lessons.arrays import STEPS, VIEWS, check, prepare, step_data
from ui.page import resolve_sigma
from ui.state import Controls, lesson_query, parse_query

KEYS = [step.key for step in STEPS]
# the tests read the prepared steps (PREPARED, on first use): all of them on one pytest-xdist worker
pytestmark = pytest.mark.xdist_group("lessons")


class _Prepared(dict):
    """``prepare(step)`` by key, on first use (not at collection, which every pytest-xdist worker does)."""

    def __missing__(self, key: str):
        self[key] = prepare(STEPS[KEYS.index(key)])
        return self[key]


PREPARED = _Prepared()


def test_the_steps_in_order():
    assert [s.key for s in STEPS] == [
        "voronoi",
        "soften",
        "anneal",
        "restarts",
        "gradient",
        "underflow",
        "entmax",
        "family",
        "moons",
        "sheared",
    ]
    assert all(s.view in VIEWS for s in STEPS)
    assert len({s.key for s in STEPS}) == len(STEPS)


@pytest.mark.parametrize("key", KEYS)
def test_texts_are_filled_in(key):
    p = PREPARED[key]
    for text in (p.task, p.prompt, p.explanation, p.answer_text):
        assert text and not re.search(r"\{[a-z_]+[^}]*\}", text), text
    assert p.step.equations


@pytest.mark.parametrize("key", KEYS)
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
        alpha=s.get("alpha", Controls.alpha),
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
    assert PREPARED["sheared"].answer == 1  # straight across the long groups
    assert PREPARED["restarts"].answer == 2  # fewer than one in five


def test_restarts_facts_against_scikit_learn():
    """The share of random restarts that reach the annealed J, and the caveat's claim, recomputed here."""
    facts = PREPARED["restarts"].facts
    X = make_dataset("iris", 150, 0.0, 0)[0]
    J = []
    for i in range(facts["n_restarts"]):
        rows = np.sort(np.random.RandomState(i).choice(len(X), 3, replace=False))
        J.append(KMeans(3, init=X[rows], n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(X).inertia_)
    share = np.mean(np.array(J) <= facts["annealed"] * (1 + 1e-3))
    assert facts["share_random"] == f"{100 * share:.1f}%"
    assert facts["worst"] >= max(J) * (1 - 1e-12)  # the worst of both starts
    assert facts["uneven_verdict"] == "higher" and facts["uneven_best"] < facts["uneven_annealed"]


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
    d = np.sort(sq_dist(X, centers), axis=1)
    g_min = (d[:, 1] - d[:, 0]).min()
    p = PREPARED["entmax"]
    assert p.answer == pytest.approx(math.sqrt(g_min) / 2, rel=1e-9)
    assert p.sigma <= p.answer
    # below σ* every float32 row is exactly one-hot: the explanation's numbers say so
    assert p.facts["one_hot"] == p.facts["n"] and p.facts["zeros"] == p.facts["zeros_expected"] == 1500
    assert p.facts["nan_rows"] == 0


def test_underflow_answer_and_the_nan_rows_at_the_link():
    X, centers = _blobs()
    d_nearest = sq_dist(X, centers).min(axis=1)
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


def test_sheared_step_opens_the_sheared_data_at_the_smallest_sigma():
    p = PREPARED["sheared"]
    s = p.step.settings
    assert p.step.view == "Explorer" and s["dataset"] == "sheared" and s["k"] == 3
    assert p.sigma == step_data(s).scale.low


def test_sheared_facts_against_scikit_learn_and_numpy():
    """K-Means' cells from scikit-learn (started at our centroids, so the same fixed point), the cut,
    the angle and the distortions recomputed here with numpy."""
    p = PREPARED["sheared"]
    f = p.facts
    X, y = make_dataset("sheared", 500, 1.0, 0)
    centers, _ = kmeans(X, k=3, seed=0)
    km = KMeans(n_clusters=3, init=centers, n_init=1).fit(X)
    np.testing.assert_allclose(km.cluster_centers_, centers, atol=1e-9)
    assert f["J_kmeans"] == pytest.approx(km.inertia_, rel=1e-9)
    J_groups = sum(((X[y == g] - X[y == g].mean(axis=0)) ** 2).sum() for g in range(3))
    assert f["J_groups"] == pytest.approx(J_groups, rel=1e-12)
    assert f["J_kmeans"] < f["J_groups"]  # K-Means prefers its cut: the failure is in the objective
    table = np.array([[np.sum((y == g) & (km.labels_ == c)) for c in range(3)] for g in range(3)])
    share = table.max(axis=1) / table.sum(axis=1)
    g = int(np.argmin(share))
    assert share.min() < 0.99  # some group is split between cells: the answer is not "whole cells"
    assert f["group_size"] == table[g].sum() and f["cut"] == np.sort(table[g])[-2]
    # the edge between the group's two cells, against the group's long axis (from the SVD)
    a, b = np.argsort(-table[g])[:2]
    normal = centers[a] - centers[b]
    _, _, vt = np.linalg.svd(X[y == g] - X[y == g].mean(axis=0))
    cos_to_normal = abs(normal @ vt[0]) / np.linalg.norm(normal)
    assert f["angle"] == pytest.approx(90 - math.degrees(math.acos(cos_to_normal)), abs=1e-6)
    assert f["angle"] > 45  # across the group, not along it
    assert f["linear"] == "yes"
    best = max(
        np.mean(km.labels_ == np.array(perm)[y])
        for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
    )
    assert f["agreement"] == f"{100 * best:.1f}%"


def test_sheared_answer_follows_the_data():
    """On three well-separated round blobs (unequal sizes, seed 0) K-Means' cells are the groups."""
    step = next(s for s in STEPS if s.key == "sheared")
    round_blobs = replace(step, settings=dict(step.settings, dataset="uneven"))
    p = prepare(round_blobs)
    assert p.answer == 0 and p.facts["agreement"] == "100%"
    assert check(p, 0).correct and not check(PREPARED["sheared"], 0).correct


def test_family_step_answer_comes_from_the_measured_collapse():
    from rbfviz.family import exact_collapse_answer
    from rbfviz.views.lessons.arrays import FAMILY_OPTION_ALPHAS, step_data

    p = PREPARED["family"]
    d = step_data(p.step.settings)
    found = exact_collapse_answer(d.X, d.centers)
    assert FAMILY_OPTION_ALPHAS[int(p.answer)] == found["larger"] == 2.0
    assert p.facts["ratio_predicted"] == pytest.approx(2**0.5, rel=1e-12)
    assert p.facts["m2"] > p.facts["m15"]
    ctrl, _ = parse_query(lesson_query(p))
    assert ctrl.kind == "entmax:2.0" and ctrl.map_choice() == "entmax"


def test_a_step_in_portuguese_has_the_same_numbers_and_its_own_words():
    """The facts are computed once; each language fills its own texts with them, numbers in its decimal
    separator, and check speaks the prepared step's language."""
    from rbfviz.i18n import translator
    from rbfviz.views.lessons.arrays import step_facts

    pt = translator("pt-BR")
    step = STEPS[KEYS.index("anneal")]
    facts = step_facts(step)
    english, portuguese = prepare(step, facts=facts), prepare(step, pt, facts)
    assert english == PREPARED["anneal"]
    assert (portuguese.answer, portuguese.sigma, portuguese.lang) == (english.answer, english.sigma, "pt-BR")
    assert portuguese.title == "Recozimento: observe as bifurcações" == pt(step.title)
    assert f"σ_c = √λ_max = {facts['sigma_c']:.4g}".replace(".", ",") in portuguese.explanation
    assert portuguese.unit == " (unidades dos dados)"
    assert check(portuguese, portuguese.answer).message == f"Certo: {portuguese.answer_text}."
    wrong = check(portuguese, 0.5)
    assert wrong.message == f"Não exatamente: você disse 0,5; {portuguese.answer_text}."
    assert check(portuguese, None).message == "Digite um número primeiro."


def test_shares_and_words_are_shown_in_the_language():
    from rbfviz.i18n import ENGLISH, translator
    from rbfviz.views.lessons.arrays import Share, shown_fact

    pt = translator("pt-BR")
    assert (shown_fact(Share(0.1234), ENGLISH), shown_fact(Share(0.1234), pt)) == ("12.3%", "12,3%")
    assert shown_fact(Share(1.0), pt) == "100%"
    assert (shown_fact("yes", ENGLISH), shown_fact("yes", pt)) == ("yes", "sim")
    assert shown_fact(0.25, pt) == 0.25  # a number is formatted by its message's field


def test_the_words_in_equations_are_translated_and_the_maths_is_not():
    from rbfviz.i18n import ENGLISH, translator
    from rbfviz.views.lessons.arrays import equation_in

    pt = translator("pt-BR")
    assert (
        equation_in(r"\qquad \text{band } |s| < \frac{1}{2}", pt) == r"\qquad \text{faixa } |s| < \frac{1}{2}"
    )
    assert equation_in(r"r_i \text{ one-hot} \iff x", pt) == r"r_i \text{ one-hot} \iff x"
    for step in STEPS:
        assert [equation_in(eq, ENGLISH) for eq in step.equations] == list(step.equations)
    assert r"\text{faixa }" in prepare(STEPS[KEYS.index("soften")], pt).equations[1]


def test_every_option_and_text_has_a_portuguese_translation():
    from rbfviz.i18n import translator

    pt = translator("pt-BR")
    technical = {"sparsemax (α = 2)", "entmax-1.5 (α = 1.5)"}  # map names: the same in both languages
    for step in STEPS:
        texts = (step.title, step.task, step.question.prompt, step.explanation, *step.question.options)
        for text in texts:
            assert text in technical or pt(text) != text, text
