"""A student opens the app and every view from the sidebar: each loads with its own title, keeps
the controls in the address, draws its figures, and shows no exception or error box."""

from pathlib import Path

import pytest
from menu import walk_the_menu
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

# Streamlit's pages/ mode: pages/<n>_<Some_name>.py is the view at /Some_name, labelled "Some name" in
# the sidebar, in file-name order; every page calls ui.page.setup_page("<label>"), whose browser
# title is "<label> · rbfviz".
PAGES = Path(__file__).resolve().parents[2] / "pages"
VIEWS = [p.stem.split("_", 1)[1] for p in sorted(PAGES.glob("[0-9]*_*.py"))]


def label(view: str) -> str:
    return view.replace("_", " ")


# the views whose job is a figure (the others, e.g. Lessons, are text and links)
FIGURE_VIEWS = {"Explorer", "Annealing", "Stability", "Equivalence"}


def test_the_views_are_the_expected_ones():
    assert FIGURE_VIEWS <= set(VIEWS), VIEWS


def test_home_page_links_to_every_view(server, student):
    student.open(server.url)
    expect(student.page).to_have_title("K-Means is the σ → 0 limit of an RBF network · rbfviz")
    assert "σ → 0 limit" in student.heading()
    nav = student.nav_labels()
    assert all(label(view) in nav for view in VIEWS), nav
    links = student.page.locator(
        "[data-testid='stMainBlockContainer'] [data-testid='stPageLink']"
    ).all_inner_texts()
    for view in FIGURE_VIEWS:
        assert any(view in link for link in links), (view, links)
    student.assert_no_problems()


def test_every_view_opens_from_the_sidebar(server, student):
    """From the home page, every view in turn by its sidebar link (one page load for all)."""
    student.open(server.url)
    for view in walk_the_menu(student):  # each link's address checked on the way
        if not view:
            continue  # the home page: test_home_page_links_to_every_view
        expect(student.page).to_have_title(f"{label(view)} · rbfviz")
        assert student.heading().strip(), view
        # the shared controls travel in the address, so the link can be copied
        assert {"dataset", "k", "kind", "sigma"} <= set(student.query()), student.page.url
        if view in FIGURE_VIEWS:
            figures = student.wait_for_figures()
            assert all(fig["traces"] > 0 for fig in figures), (view, [fig["title"] for fig in figures])
        student.assert_no_problems()
