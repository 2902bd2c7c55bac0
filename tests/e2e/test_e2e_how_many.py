"""A student opens How many clusters in a browser: the three answers and the natural k are shown for
the default data and equal rbfviz.choose_k run here; moving the k_max slider recomputes them, and a
changed data set changes the natural k."""

import numpy as np
import pytest

from rbfviz import choose_k
from rbfviz.datasets import NATURAL_K, make_dataset
from ui.state import Controls

pytestmark = pytest.mark.e2e

LABELS = ("Annealing", "Elbow of J(k)", "Best silhouette", "Natural k")
K_MAX = "Centres to try"


def library_answers(ctrl: Controls, k_max: int) -> dict[str, str]:
    X, _ = make_dataset(ctrl.dataset, ctrl.n, ctrl.noise, ctrl.seed)
    X = np.ascontiguousarray(X, dtype=ctrl.dtype)
    sweep = choose_k.kmeans_sweep(X, k_max, seed=ctrl.seed, n_init=4)
    scores = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=ctrl.seed)

    def text(k):
        return "none" if k is None else str(k)

    return {
        "Annealing": text(choose_k.annealing_answer(X, k_max, seed=ctrl.seed).k),
        "Elbow of J(k)": text(choose_k.elbow(sweep.ks, sweep.inertia)),
        "Best silhouette": text(choose_k.best_silhouette(sweep.ks, scores)),
        "Natural k": str(NATURAL_K[ctrl.dataset]),
    }


def answers(student) -> dict[str, str]:
    return {label: student.metric(label) for label in LABELS}


def k_max_thumb(student):
    slider = student.page.locator("[data-testid='stMainBlockContainer'] [data-testid='stSlider']").filter(
        has=student.page.locator("[data-testid='stWidgetLabel']", has_text=K_MAX)
    )
    assert slider.count() == 1
    return slider.locator("input[type='range']")


def test_three_answers_agree_with_the_library_and_follow_k_max(server, student):
    student.open(f"{server.url}/How_many_clusters")
    student.page.wait_for_selector("[data-testid='stMetricValue']")
    student.wait_for_run()
    student.assert_no_problems()
    figures = student.wait_for_figures(3)
    assert len(figures) == 3 and all(fig["traces"] > 0 for fig in figures)

    ctrl = Controls()
    k_max = max(8, 2 * ctrl.k)
    thumb = k_max_thumb(student)
    assert thumb.get_attribute("aria-valuetext") == str(k_max)
    assert answers(student) == library_answers(ctrl, k_max)

    thumb.focus()
    with student.rerun():
        student.page.keyboard.press("ArrowLeft")
    student.page.wait_for_function("() => !document.querySelector('[data-testid=\"stProgress\"]')")
    student.wait_for_run()
    student.assert_no_problems()
    assert k_max_thumb(student).get_attribute("aria-valuetext") == str(k_max - 1)
    assert f"k = 1 … {k_max - 1}" in student.text()
    assert answers(student) == library_answers(ctrl, k_max - 1)


def test_changing_the_data_set_changes_the_natural_k(server, student):
    student.open(f"{server.url}/How_many_clusters?dataset=moons&n=150")
    student.page.wait_for_selector("[data-testid='stMetricValue']")
    assert student.metric("Natural k") == "2"
    student.select("Dataset", "spiral")
    student.page.wait_for_function("() => !document.querySelector('[data-testid=\"stProgress\"]')")
    student.wait_for_run()
    student.assert_no_problems()
    assert student.metric("Natural k") == "3"
    assert student.query()["dataset"] == "spiral"
