"""AppTests of the shared sidebar drawn last (ui.page.finish_page): every page sends its page first and
its sidebar after it, so the browser draws a view's figure before the sidebar's widgets; the sidebar is
the whole sidebar, in its own order; and a page that stops early (ui.page.stop) still draws it."""

from unittest import mock

import pytest
from app_page import APP, PAGE_PATHS, app, page_path
from test_app_fragments import SIDEBAR, elements, recorded_run

from ui import compute
from ui.language import SWITCH_LABEL

MAIN = 0  # RootContainer.MAIN: the first index of a main-area element's delta path
# landmarks of the sidebar, in the order it shows them: the menu, language, presenter mode, data, the
# upload, the model, σ
LANDMARKS = (
    "Home",
    SWITCH_LABEL,
    "Presenter mode",
    "Dataset",
    "Points as a CSV file",
    "Clusters k",
    "Temperature",
)
FIGURES = ("plotly_chart", "bidi_component")  # a Plotly figure, or the σ scrubber's


def kind(msg) -> str:
    return msg.delta.new_element.WhichOneof("type")


def label(msg) -> str:
    element = getattr(msg.delta.new_element, kind(msg))
    return str(getattr(element, "label", "") or getattr(element, "body", ""))


def run(page: str, query: dict | None = None) -> list:
    at = app(query)
    if page != APP:
        at.switch_page(page)
    return elements(recorded_run(at))


def sidebar_landmarks(sent: list) -> list[str]:
    """The LANDMARKS the sidebar's elements show, in their order on screen (each once)."""
    found = []
    shown = sorted((list(msg.metadata.delta_path), i) for i, msg in enumerate(sent))
    for _, i in shown:
        msg = sent[i]
        if msg.metadata.delta_path[0] != SIDEBAR:
            continue
        text = label(msg)
        for mark in LANDMARKS:
            if mark not in found and (text == mark or text.startswith(("**" + mark, mark + " ("))):
                found.append(mark)
    return found


@pytest.mark.parametrize("page", [APP, *PAGE_PATHS])
def test_every_page_sends_its_sidebar_after_the_page(page):
    sent = run(page)
    where = [msg.metadata.delta_path[0] for msg in sent]
    assert SIDEBAR in where and MAIN in where
    last_main = max(i for i, root in enumerate(where) if root == MAIN)
    first_sidebar = where.index(SIDEBAR)
    assert last_main < first_sidebar, f"{page}: a main-area element after the sidebar's first"
    assert sidebar_landmarks(sent) == list(LANDMARKS), sidebar_landmarks(sent)
    menu = [msg for msg in sent if kind(msg) == "page_link" and msg.metadata.delta_path[0] == SIDEBAR]
    assert len(menu) == 10  # Home and every view


@pytest.mark.parametrize(
    "page",
    [page_path("Explorer"), page_path("Annealing"), page_path("Stability"), page_path("How many clusters")],
)
def test_a_view_sends_its_first_figure_before_any_of_the_sidebar(page):
    sent = run(page)
    first_figure = next(i for i, msg in enumerate(sent) if kind(msg) in FIGURES)
    assert all(msg.metadata.delta_path[0] != SIDEBAR for msg in sent[:first_figure])


@pytest.mark.parametrize(
    "page, query, says",
    [
        (page_path("Explorer"), {"dataset": "drawn", "k": "3"}, "0 points so far"),
        (page_path("Annealing"), {"dataset": "drawn", "k": "3"}, "draw 3 more for k = 3 on the Explorer"),
        (page_path("Step by step"), {"init": "placed", "k": "3"}, "Place 3 starting centres"),
    ],
)
def test_a_page_that_stops_early_draws_its_sidebar(page, query, says):
    sent = run(page, query)
    assert any(says in label(msg) or says in str(msg.delta.new_element) for msg in sent), says
    marks = sidebar_landmarks(sent)
    # the σ range is not computed before a drawing has enough points: no σ line then
    assert marks == list(LANDMARKS if "placed" in query.values() else LANDMARKS[:-1]), marks


def test_a_page_whose_sigma_range_fails_shows_the_error_and_its_sidebar():
    with mock.patch.object(compute, "scale", side_effect=RuntimeError("boom")):
        sent = run(page_path("Explorer"))
    assert any("could not be computed (RuntimeError)" in str(msg.delta.new_element) for msg in sent)
    assert sidebar_landmarks(sent) == list(LANDMARKS[:-1])
    assert not [msg for msg in sent if kind(msg) in FIGURES]
