"""AppTests of the shared sidebar drawn first (ui.page.setup_page): every page sends the sidebar's
widgets before anything of its own page, and the sidebar is the whole sidebar, in its order.

Why first: a page can change a sidebar control itself (a drawn point makes the data set "drawn by hand",
an upload makes it "your file"), and the browser holds the widget's old value until the new one
arrives. Sent first, the new values arrive before anything of the page's answer that a student can see
and press next. Drawn after the page, they came after the plane's answer, and a press on "Look (σ,
probe)" right after it sent the old values back, which undid the page's change (k went from 3 to 2: the
five-point drawing test in tests/e2e/test_e2e_plane_edit.py failed that way under load). A press made
before any of the answer arrived is caught by the sidebar's mark (ui.sidebar_mark,
tests/app/test_app_sidebar_mark.py); this order keeps that window as short as it can be."""

import pytest
from app_page import APP, PAGE_PATHS, app, page_path
from test_app_fragments import SIDEBAR, elements, recorded_run

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


def assert_sidebar_first(sent: list, page: str) -> None:
    where = [msg.metadata.delta_path[0] for msg in sent]
    assert SIDEBAR in where and MAIN in where
    last_sidebar = max(i for i, root in enumerate(where) if root == SIDEBAR)
    first_main = where.index(MAIN)
    assert last_sidebar < first_main, f"{page}: a sidebar element after the page's first ({sent[first_main]})"


@pytest.mark.parametrize("page", [APP, *PAGE_PATHS])
def test_every_page_sends_its_whole_sidebar_before_its_page(page):
    sent = run(page)
    assert_sidebar_first(sent, page)
    assert sidebar_landmarks(sent) == list(LANDMARKS), sidebar_landmarks(sent)
    menu = [msg for msg in sent if kind(msg) == "page_link" and msg.metadata.delta_path[0] == SIDEBAR]
    assert len(menu) == 10  # Home and every view


@pytest.mark.parametrize(
    "page, query",
    [
        (page_path("Explorer"), {"dataset": "drawn", "k": "3"}),
        (page_path("Step by step"), {"init": "placed", "k": "3"}),
    ],
)
def test_a_page_that_stops_early_sends_its_sidebar_first(page, query):
    sent = run(page, query)
    assert_sidebar_first(sent, page)
    assert "Dataset" in sidebar_landmarks(sent)
