"""AppTests of a settled σ: it reruns only the page's σ fragment (ui.page.follows_sigma), which sends the
scrubber, the address and the downloads again, and nothing of the sidebar or the menu.

AppTest has no public way to rerun one fragment, so ``fragment_rerun`` does what the browser's rerun
request after a settled scrub does (the component's widget lives in the fragment, so Streamlit puts
the fragment's id in ``fragment_id_queue``) and records every message the run sends.
"""

import json
from dataclasses import replace
from unittest import mock
from urllib.parse import parse_qsl

import pytest
import streamlit.testing.v1.local_script_runner as local_runner
from app_page import app, page_path
from scrub_view import STATE_KEY, as_json, grid
from streamlit.testing.v1 import AppTest

from rbfviz.views.common.scrub import figure_at, read_payload
from ui import compute
from ui.compute import NEAR
from ui.scrub import FIRST_PART, HELD, SENT_KEY

SIDEBAR = 1  # RootContainer.SIDEBAR: the first index of a sidebar element's delta path
SCRUB_PAGES = {
    page_path("Explorer"): "Downloads at σ = ",
    page_path("Annealing"): None,
    page_path("Stability"): "At the current σ = ",
    page_path("Equivalence"): None,
}


def recorded_run(at: AppTest, fragment_id: str | None = None) -> list:
    """Run ``at`` (only ``fragment_id`` if given, as a widget inside it does); the messages it sent."""
    sent = []
    make_rerun_data = local_runner.RerunData
    enqueue = local_runner.ForwardMsgQueue.enqueue

    def rerun_data(**kwargs):
        return make_rerun_data(fragment_id_queue=[fragment_id] if fragment_id else [], **kwargs)

    def record(queue, msg):
        sent.append(msg)
        return enqueue(queue, msg)

    with (
        mock.patch.object(local_runner, "RerunData", rerun_data),
        mock.patch.object(local_runner.ForwardMsgQueue, "enqueue", record),
    ):
        at.run()
    assert not at.exception, at.exception
    return sent


def elements(sent: list) -> list:
    return [m for m in sent if m.HasField("delta") and m.delta.HasField("new_element")]


def text_of(msg) -> str:
    element = msg.delta.new_element
    return str(getattr(element, element.WhichOneof("type")))


def open_page(page: str) -> tuple[AppTest, list]:
    at = app()
    at.switch_page(page)
    return at, recorded_run(at)


def settle(at: AppTest, steps: int = 3) -> float:
    """What ui.scrub's callback does when the scrub settles: the controls take a grid σ."""
    sigmas = grid(at)
    ctrl = at.session_state[STATE_KEY]
    sigma = float(next(s for s in sigmas if s < ctrl.sigma and sigmas.index(s) >= steps))
    at.session_state[STATE_KEY] = replace(ctrl, sigma=sigma)
    return sigma


@pytest.mark.parametrize("page", sorted(SCRUB_PAGES))
def test_a_settled_sigma_reruns_the_fragment_only(page):
    at, full = open_page(page)
    fragment_ids = {m.delta.fragment_id for m in elements(full) if m.delta.fragment_id}
    assert len(fragment_ids) == 1, fragment_ids  # the page's σ panels: one fragment
    assert [m for m in elements(full) if m.metadata.delta_path[0] == SIDEBAR]
    assert any(m.delta.new_element.HasField("page_link") for m in elements(full))

    sigma = settle(at)
    sent = recorded_run(at, fragment_ids.pop())
    new = elements(sent)
    # nothing of the sidebar (controls, menu) and no other part of the page is sent again
    assert new and all(m.delta.fragment_id for m in new)
    assert not [m for m in new if m.metadata.delta_path[0] == SIDEBAR]
    assert not [m for m in new if m.delta.new_element.HasField("page_link")]
    # the scrubber is drawn again without its payload, which its element in the browser holds (the full
    # run sent it); the address follows
    drawn = [
        m.delta.new_element.bidi_component for m in new if m.delta.new_element.HasField("bidi_component")
    ]
    assert len(drawn) == 1 and drawn[0].WhichOneof("data") == "json" and json.loads(drawn[0].json) == HELD
    complete = [
        m.delta.new_element.bidi_component
        for m in elements(full)
        if m.delta.new_element.HasField("bidi_component")
    ]
    assert drawn[0].id == complete[-1].id and complete[-1].WhichOneof("data") == "bytes"  # the same element
    addresses = [m.page_info_changed.query_string for m in sent if m.HasField("page_info_changed")]
    assert addresses and f"sigma={sigma:.4g}" in addresses[-1]
    assert at.query_params["sigma"] == f"{sigma:.4g}"
    # the downloads follow (every scrubbing page has a row of them, hidden only in presenter mode)
    assert any(m.delta.new_element.HasField("download_button") for m in new)
    marker = SCRUB_PAGES[page]
    if marker:
        assert any(f"{marker}{sigma:.3g}" in text_of(m) for m in new), marker


def test_explorer_downloads_after_a_settle_hold_the_numbers_of_the_levels_shown():
    """The receipt's numbers at the settled σ are the payload level's (the same computation), and a full
    rerun at that σ (a shared link) shows the same address and downloads."""
    at, full = open_page(page_path("Explorer"))
    fragment_id = next(m.delta.fragment_id for m in elements(full) if m.delta.fragment_id)
    sigma = settle(at, steps=5)
    recorded_run(at, fragment_id)
    address = dict(at.query_params)

    link = app()
    link.query_params.update(address)
    link.switch_page(page_path("Explorer"))
    sent = recorded_run(link)
    assert dict(link.query_params) == address
    assert any(f"Downloads at σ = {sigma:.3g}" in text_of(m) for m in elements(sent))


def test_a_pick_inside_the_fragment_reruns_the_whole_page():
    """Anything but σ changing inside the fragment (here the picks) reruns the app, sidebar included."""
    at, full = open_page(page_path("Explorer"))
    fragment_id = next(m.delta.fragment_id for m in elements(full) if m.delta.fragment_id)
    ctrl = at.session_state[STATE_KEY]
    at.session_state[STATE_KEY] = replace(ctrl, picks=(3, 7))
    sent = recorded_run(at, fragment_id)
    assert [m for m in elements(sent) if m.metadata.delta_path[0] == SIDEBAR]
    assert at.query_params["picks"] == "3,7"


def test_the_menu_keeps_the_settled_sigma_when_switching_views():
    """The menu's links leave σ out; following one in the same session keeps the session's σ."""
    at, full = open_page(page_path("Explorer"))
    menu = [
        m.delta.new_element.page_link for m in elements(full) if m.delta.new_element.HasField("page_link")
    ]
    assert menu and all("sigma=" not in link.query_string for link in menu)
    fragment_id = next(m.delta.fragment_id for m in elements(full) if m.delta.fragment_id)
    sigma = settle(at)
    recorded_run(at, fragment_id)
    stability = next(link for link in menu if link.page == "Stability")
    at.query_params.clear()
    at.query_params.update(dict(parse_qsl(stability.query_string)))
    at.switch_page(page_path("Stability"))
    recorded_run(at)
    assert at.session_state[STATE_KEY].sigma == pytest.approx(sigma)
    assert at.query_params["sigma"] == f"{sigma:.4g}"


def scrubbers(sent: list) -> list:
    """(component id, delta path, payload header) of every scrubber element sent, in order."""
    return [
        (m.delta.new_element.bidi_component.id, list(m.metadata.delta_path), read_payload(bidi.bytes))
        for m in elements(sent)
        if (bidi := m.delta.new_element.bidi_component) and m.delta.new_element.HasField("bidi_component")
    ]


def test_a_new_setting_shows_the_levels_near_sigma_first_then_every_level_in_the_same_place():
    """A cold Explorer run sends the scrubber twice at one place: first with the levels within NEAR grid
    steps of the σ on screen (header "part"), under a key of its own, while a progress bar in the σ
    panels' reserved slot says the other levels are being computed; then with every level under the
    view's key, whose levels at those positions are the first part's. A warm run sends the complete
    payload alone."""
    at, cold = open_page(page_path("Explorer"))
    sent = scrubbers(cold)
    assert len(sent) == 2
    (first_id, first_path, first), (full_id, full_path, full) = sent
    assert first_path == full_path
    assert first_id.endswith("scrub_explorer_0" + FIRST_PART) and full_id.endswith("scrub_explorer_0")
    size = len(full["sigmas"])
    near = full["sigmas"].index(min(full["sigmas"], key=lambda s: abs(s - at.session_state[STATE_KEY].sigma)))
    window = list(range(max(0, near - NEAR), min(size, near + NEAR + 1)))
    assert "part" not in full and first["part"] == {"levels": window, "of": size}
    for level, position in enumerate(window):
        assert as_json(figure_at(first, level)) == as_json(figure_at(full, position))
        assert first["frames"][level]["side"] == full["frames"][position]["side"]
    # between the two, the reserved slot's bar says the rest is coming, then goes away
    order = [m for m in elements(cold) if m.delta.new_element.HasField("bidi_component")]
    start, end = cold.index(order[0]), cold.index(order[1])
    bars = [m for m in cold[start:end] if m.HasField("delta") and m.delta.new_element.HasField("progress")]
    assert bars and all("other σ levels" in m.delta.new_element.progress.text for m in bars)
    paths = {tuple(m.metadata.delta_path) for m in bars}
    assert len(paths) == 1 and list(paths.pop()) < full_path  # one place, above the figure
    assert not at.get("progress")  # gone once every level is there

    again = app()
    again.switch_page(page_path("Explorer"))
    warm = scrubbers(recorded_run(again))
    assert [(i, p) for i, p, _ in warm] == [(full_id, full_path)] and "part" not in warm[0][2]
    assert as_json(figure_at(warm[0][2], near)) == as_json(figure_at(full, near))


def test_a_setting_dropped_from_the_store_comes_back_whole_to_a_session_that_showed_it():
    """A settle on a setting the server's store has dropped since (a busy class) builds it again in
    one go and sends no part of it: the browser holds every level already, and a first part would shrink
    its slider. A browser that has lost the payload (its "resend" trigger drops the session's record of
    it) gets the complete payload, again in one go."""
    at, cold = open_page(page_path("Explorer"))
    fragment_id = next(m.delta.fragment_id for m in elements(cold) if m.delta.fragment_id)
    (_, _, complete), *_ = [s for s in scrubbers(cold) if "part" not in s[2]]
    dropped = compute._scrub_store()
    assert dropped._items, "the payload should be in the store after the first run"
    dropped._items.clear()
    settle(at)
    held = [
        m for m in elements(recorded_run(at, fragment_id)) if m.delta.new_element.HasField("bidi_component")
    ]
    assert len(held) == 1 and json.loads(held[0].delta.new_element.bidi_component.json) == HELD
    assert dropped._items, "the settle should have built the setting again"

    dropped._items.clear()
    at.session_state[SENT_KEY] = {}  # what the resend trigger's callback does
    ctrl = at.session_state[STATE_KEY]  # (the page's scrubber holds no payload to read the grid from)
    at.session_state[STATE_KEY] = replace(ctrl, sigma=float(complete["sigmas"][4]))
    again = scrubbers(recorded_run(at, fragment_id))
    assert len(again) == 1 and "part" not in again[0][2]
    assert as_json(figure_at(again[0][2], 0)) == as_json(figure_at(complete, 0))
