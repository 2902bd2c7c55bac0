"""The α-entmax control in a real browser: a link with kind=entmax&alpha=… sets the Map menu and the α
slider, the slider moves α (address and figure follow), and bad α values in a link (1, 3, NaN, text)
give one notice each and fall back to α = 1.5."""

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

BASE = dict(dataset="moons", n="200", noise="0.1", seed="0", k="2", init="kmeanspp", dtype="float64")
ALPHA = "α of entmax"
MAP_LABEL = "α-entmax (family)"
WARNING = "[data-testid='stAlertContentWarning']"


def alpha_slider(student):
    """The sidebar's α slider, once drawn (on a busy machine the sidebar fills in after the first run)."""
    slider = student.page.locator("[data-testid='stSidebar'] [data-testid='stSlider']").filter(has_text=ALPHA)
    slider.wait_for()
    return slider


def test_alpha_control_follows_the_link_and_moves_alpha(server, student):
    student.open(f"{server.url}/Explorer?{urlencode({**BASE, 'kind': 'entmax', 'alpha': '1.25'})}")
    sidebar = student.page.locator("[data-testid='stSidebar']")
    expect(sidebar.get_by_role("combobox", name="Map")).to_have_value(MAP_LABEL)
    alpha_slider(student)
    assert student.slider_value(ALPHA) == "1.25"
    assert student.page.locator(WARNING).count() == 0
    student.wait_for_figures()
    student.wait_for_title("moons, n = 200, k = 2, entmax:1.25, float64")
    assert student.query()["kind"] == "entmax" and student.query()["alpha"] == "1.25"

    student.press_slider(ALPHA, "ArrowRight")
    assert student.slider_value(ALPHA) == "1.26"
    student.wait_for_title("entmax:1.26")
    assert student.query()["alpha"] == "1.26"

    student.select("Map", "softmax (stable)")
    expect(sidebar.locator("[data-testid='stSlider']").filter(has_text=ALPHA)).to_have_count(0)
    assert "alpha" not in student.query()
    student.assert_no_problems()
    student.keepsake("alpha-control")


@pytest.mark.parametrize("bad", ["1", "3", "NaN", "abc"])
def test_bad_alpha_in_a_link_gives_a_notice_and_alpha_one_and_a_half(server, student, bad):
    student.open(f"{server.url}/Explorer?{urlencode({**BASE, 'kind': 'entmax', 'alpha': bad})}")
    warnings = student.page.locator(WARNING).all_inner_texts()
    notes = [w for w in warnings if f"alpha={bad}" in w]
    assert len(notes) == 1 and "from 1.05 to 2" in notes[0], warnings
    alpha_slider(student)
    assert student.slider_value(ALPHA) == "1.50"
    student.wait_for_figures()
    student.wait_for_title("entmax:1.5,")
    assert student.query()["alpha"] == "1.5"
    student.assert_no_problems()
