"""A student opens the Gaussian-mixture view in Chromium: the difference shown is rounding, the learned
table is what rbfviz.mixture computes, and the sidebar's σ moves the RBF side only."""

import math

import numpy as np
import pytest

import rbfviz
from rbfviz import mixture
from rbfviz.views.explorer.arrays import initial_centers, soft_fixed_point

pytestmark = pytest.mark.e2e

QUERY = "dataset=moons&k=3&seed=2"
DIFFERENCE = "max |predict_proba − r|"
SIGMA = "σ (log scale)"


def shown_table(student) -> list[dict]:
    """The learned-against-fixed table as drawn: one dict per row, header -> cell text."""
    table = student.page.locator("[data-testid='stTable'] table").first
    table.wait_for()
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    rows = []
    for row in table.locator("tbody tr").all():
        cells = [c.strip() for c in row.locator("th, td").all_inner_texts()]
        rows.append(dict(zip(headers, cells)))
    return rows


def test_difference_and_learned_table_match_the_library(server, student):
    student.open(f"{server.url}/Gaussian_mixture?{QUERY}")
    student.wait_for_figures()
    sigma = float(student.query()["sigma"])
    X, _ = rbfviz.make_dataset("moons", 500, rbfviz.DEFAULT_NOISE["moons"], 2)
    start = initial_centers(X, 3, "kmeans++", 2)
    centers, _, _ = soft_fixed_point(X, start, sigma, kind="softmax")
    expected = mixture.posterior_difference(X, centers, sigma)
    shown = float(student.metric(DIFFERENCE))
    assert shown <= 1e-12 and expected <= 1e-12, (shown, expected)
    if shown > 0 and expected > 0:  # the same computation; BLAS may round the last bits differently
        assert abs(math.log10(shown / expected)) < 1, (shown, expected)

    fit = mixture.fit_mixture(X, 3, start=start, seed=2)
    rows = shown_table(student)
    assert [row["j"] for row in rows] == ["0", "1", "2"], rows
    np.testing.assert_allclose([float(r["learned σ_j"]) for r in rows], fit.sigmas, rtol=5e-4)
    np.testing.assert_allclose([float(r["learned π_j"]) for r in rows], fit.weights, rtol=5e-4)
    np.testing.assert_allclose([float(r["fixed σ"]) for r in rows], sigma, rtol=5e-4)
    np.testing.assert_allclose([float(r["fixed 1/k"]) for r in rows], 1 / 3, rtol=5e-4)
    student.assert_no_problems()


def test_sidebar_sigma_moves_the_fixed_model_only(server, student):
    student.open(f"{server.url}/Gaussian_mixture?{QUERY}")
    student.wait_for_figures()
    sigma0 = student.query()["sigma"]
    before = shown_table(student)
    figure0 = student.figures()[0]
    student.press_slider(SIGMA, "ArrowLeft", times=3)  # small σ on the left
    student.page.wait_for_function(
        "(s) => new URLSearchParams(window.location.search).get('sigma') !== s", arg=sigma0
    )
    student.wait_for_run()
    sigma1 = student.query()["sigma"]
    assert float(sigma1) < float(sigma0)
    student.wait_for_title(f"σ = {float(sigma1):.3g}")
    after = shown_table(student)
    assert [r["learned σ_j"] for r in after] == [r["learned σ_j"] for r in before]
    np.testing.assert_allclose([float(r["fixed σ"]) for r in after], float(sigma1), rtol=5e-4)
    assert student.figures()[0]["data"] != figure0["data"]
    assert float(student.metric(DIFFERENCE)) <= 1e-12
    student.assert_no_problems()


@pytest.mark.parametrize("width,height", [(1366, 768), (1920, 1080)])
def test_presenter_mode_at_projector_sizes(server, student, width, height):
    student.page.set_viewport_size({"width": width, "height": height})
    student.open(f"{server.url}/Gaussian_mixture?{QUERY}&presenter=1")
    student.wait_for_figures()
    assert float(student.metric(DIFFERENCE)) <= 1e-12
    student.assert_no_problems()
    student.keepsake(f"{width}x{height}")
