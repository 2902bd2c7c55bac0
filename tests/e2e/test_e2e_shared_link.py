"""A teacher shares a link with every control in the address; a student opens it as the first visitor
of a freshly started server (the multipage set-up must not depend on somebody having opened the home
page first: see ui/page.py on st.navigation) and lands on the right view in the right state."""

from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from ui import compute
from ui.state import parse_query

pytestmark = pytest.mark.e2e

SHARED = dict(
    dataset="moons", n="300", noise="0.1", seed="3", k="3", init="kmeanspp", kind="entmax15", dtype="float32"
)
VIEWS = [
    p.stem.split("_", 1)[1]
    for p in sorted((Path(__file__).resolve().parents[2] / "pages").glob("[0-9]*_*.py"))
]


def shared_sigma() -> str:
    """A σ of this data set's slider grid, a third of the way down from the top (not the default)."""
    ctrl, notices = parse_query(SHARED)
    assert notices == []
    grid = compute.scale(ctrl).grid
    sigma = float(grid[len(grid) // 3])
    assert sigma != compute.scale(ctrl).default
    return f"{sigma:.3g}"


def test_shared_link_opens_the_right_view_on_a_fresh_server(fresh_server, student):
    sigma = shared_sigma()
    query = {**SHARED, "sigma": sigma, "lang": "en"}  # a link as the app writes it: with its language
    student.open(f"{fresh_server.url}/Explorer?{urlencode(query)}")

    # the Explorer page, run through its own page set-up (title, sidebar), with every view listed
    expect(student.page).to_have_title("Explorer · rbfviz")
    assert "Explorer" in student.heading()
    nav = student.nav_labels()
    assert all(view.replace("_", " ") in nav for view in VIEWS), nav

    # the state of the link, in the sidebar, in the figure and still in the address
    sidebar = student.page.locator("[data-testid='stSidebar']")
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("moons")
    expect(sidebar.get_by_role("combobox", name="Map")).to_have_value("entmax-1.5 (sparse)")
    expect(sidebar.get_by_role("radio", name="float32")).to_be_checked()
    assert student.slider_value("Clusters k") == "3"
    student.wait_for_figures()
    assert student.wait_for_scrub(sigma)["output"] == f"σ = {sigma}"  # the σ slider on the Explorer's figure
    student.wait_for_title("moons, n = 300, k = 3, entmax15, float32", f"σ = {sigma}")
    assert student.query() == query, student.page.url
    assert student.page.locator("[data-testid='stAlertContentWarning']").count() == 0, (
        "notices for a valid link"
    )
    student.assert_no_problems()
    student.keepsake("explorer")

    # moving on to another view keeps the shared state
    student.go_to("Stability")
    expect(student.page).to_have_title("Stability · rbfviz")
    assert student.query() == query, student.page.url
    student.assert_no_problems()
