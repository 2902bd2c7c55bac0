"""The σ scrubber on the page: a Streamlit component (st.components.v2) that owns the σ slider and
redraws the figure in the browser from a precomputed payload (rbfviz.views.common.scrub).

Why a component and not Plotly's own slider and frames: the σ control must be a real, labelled
range input (arrow keys, screen readers, touch), the numbers beside the plot must follow it, and
the settled σ must come back to the page (address, downloads, receipts). A component does all
three with one small script; Plotly sliders have no keyboard support and no way to report back.

    scrub_figure(payload, key="explorer", grid=scale.grid, on_select=None)

The component also draws the figure in the page's light or dark theme (the same rule as
ui.page.chart's figures, see rbfviz.views.common.layout.themed_spec), offers it as PNG and SVG
(file name: view, data set, σ), and in presenter mode makes it fill the window's height.

Moving σ costs no script run. When it settles (rbfviz/views/common/web/scrub.js: 0.5 s without input, pointer
up), the component commits the level once: the callback here sets the controls' σ before the rerun, and the
page's usual URL sync writes it into the address.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from rbfviz.views.common.web import scrubber_css, scrubber_script

from . import scrub_parts
from . import session_keys as keys
from .preload import PLOTLY, chunk_of


def _plotly_chunk() -> str:
    """File name of Streamlit's own Plotly bundle (it sets window.Plotly when loaded)."""
    return chunk_of(PLOTLY)


_component = st.components.v2.component(
    "rbfviz_sigma_scrub",
    css=scrubber_css(),  # rbfviz/views/common/web/scrub.css
    js=scrubber_script(_plotly_chunk()),  # rbfviz/views/common/web/scrub.js: the offline page runs it too
    isolate_styles=False,  # Plotly's hover and mode-bar styles live in the document, not in a shadow root
)


def _committed(key: str, grid: tuple[float, ...]) -> None:
    """Callback of a settled scrub (runs before the rerun): the controls take the chosen σ."""
    result = st.session_state.get(key) or {}
    level = result.get("level")
    if level is None or not 0 <= int(level) < len(grid):
        return
    ctrl = st.session_state.get(keys.CONTROLS)
    if ctrl is not None:
        st.session_state[keys.CONTROLS] = replace(ctrl, sigma=float(grid[int(level)]))


def scrub_figure(payload: bytes, key: str, grid, on_select=None, slot=None) -> None:
    """Draw a scrubbable figure. payload: rbfviz.views.common.scrub.scrub_payload bytes (the same
    bytes for every σ, so reruns resend nothing). grid: the σ values of its levels, in order.
    on_select(rows): called with the data rows a click, box or lasso selected (payload select=True).
    slot: an st.empty() to draw it in (default: here).

    A settle rerun (of the σ fragment only) sends HELD in place of a payload this session's browser
    was sent already under ``key``: the element there holds it."""
    sent = st.session_state.setdefault(keys.SCRUB_SENT, {})
    fingerprint = _fingerprint(payload)
    held = sent.get(key) == fingerprint and _fragment_rerun()
    with slot if slot is not None else nullcontext():
        _component(
            key=key,
            data=HELD if held else payload,
            default={"level": None},
            on_level_change=lambda: _committed(key, tuple(float(s) for s in grid)),
            on_selected_change=(
                lambda: on_select(list((st.session_state.get(key) or {}).get("selected") or []))
            )
            if on_select
            else (lambda: None),
            on_resend_change=lambda: st.session_state.get(keys.SCRUB_SENT, {}).pop(key, None),
        )
    sent[key] = fingerprint


# What a settle rerun sends in place of the payload its browser holds. Streamlit hashes an element's
# bytes twice per run (its identity and its message), copies them into the message and serialises them:
# about a millisecond per settle for a payload of a few hundred kB the browser has already.
# rbfviz/views/common/web/scrub.js keeps its payload on HELD, and asks for it again (the "resend" trigger) if
# it has none.
HELD = {"held": True}


def _fingerprint(payload: bytes) -> tuple[int, bytes]:
    """A payload's length and gzip trailer (the CRC-32 and size of what it compresses): tells the
    payloads of one component key apart without hashing hundreds of kB."""
    return len(payload), payload[-8:]


def _fragment_rerun() -> bool:
    """This script run reruns fragments only (a widget inside one changed), not the whole page."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


# The key of a first part's scrubber. Streamlit allows one element per key in a run, and the complete
# payload, drawn in the same place later in the same run, takes the view's own key, so the runs after it
# find the same element (no new mount) as on every warm run.
FIRST_PART = "_first_part"


def scrub_view(view: str, ctrl, extra: tuple, build, key: str, grid, near: int, on_select=None) -> bytes:
    """Draw a scrubbable view whose payload is
    ``scrub_parts.scrub_payload(view, ctrl, extra, build, near)``; returns that (complete) payload.

    On a setting not yet built, the levels near grid position ``near`` (the σ on screen) appear first,
    under the key ``key + FIRST_PART``, with the slider limited to them and a line saying the others are
    coming; the complete payload then replaces them in the same place, in the same run, under ``key``."""
    slot = None  # made only for a first part: a warm run draws the scrubber in place, as before

    def show(partial: bytes) -> None:
        nonlocal slot
        slot = st.empty()
        scrub_figure(partial, key + FIRST_PART, grid, on_select, slot)

    # a session that showed this setting's complete payload already (its setting was dropped from the
    # server's store since) waits for the complete one again: a first part would shrink its slider
    setting = (key, scrub_parts.scrub_key(view, ctrl, extra))
    again = st.session_state.get(keys.SCRUB_SHOWN) == setting
    payload = scrub_parts.scrub_payload(view, ctrl, extra, build, near=near, show=None if again else show)
    scrub_figure(payload, key, grid, on_select, slot)
    st.session_state[keys.SCRUB_SHOWN] = setting
    return payload
