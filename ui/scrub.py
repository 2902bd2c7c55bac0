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

Moving σ costs no script run. When it settles (ui/scrub.js: 0.5 s without input, pointer up),
the component commits the level once: the callback here sets the controls' σ before the rerun,
and the page's usual URL sync writes it into the address.
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from rbfviz.views.common.layout import FIELD_LEGEND
from rbfviz.views.common.palette import INK_COLORS

from . import compute, state
from .exports import DOWNLOAD_JS

_HERE = Path(__file__).resolve().parent


def _plotly_chunk() -> str:
    """File name of Streamlit's own Plotly bundle (it sets window.Plotly when loaded)."""
    static = Path(st.__file__).resolve().parent / "static" / "static" / "js"
    found = sorted(path.name for path in static.glob("PlotlyChart.*.js"))
    if not found:
        raise RuntimeError(f"Streamlit's Plotly bundle (PlotlyChart.*.js) is missing from {static}.")
    return found[0]


# Colours come from the theme Streamlit gives every component (--st-*), so the controls and the
# numbers follow a light or dark theme; muted text is the text colour at 80 %: 6:1 or more on either.
CSS = """
.scrub { font-family: "Source Sans", sans-serif; color: var(--st-text-color, #31333f); }
.scrub-control { display: flex; align-items: center; gap: 0.8rem; margin: 0 0 0.4rem 0; flex-wrap: wrap; }
.scrub-label { font-weight: 600; }
.scrub-play, .scrub-download { font: inherit; padding: 0.25rem 0.8rem; border-radius: 0.5rem; cursor: pointer;
  border: 1px solid var(--st-border-color, #8c8f99); color: var(--st-text-color, #31333f);
  background: var(--st-secondary-background-color, #ffffff); }
.scrub-download { font-size: 0.875rem; padding: 0.15rem 0.6rem; }
.scrub-play:focus-visible, .scrub-range:focus-visible, .scrub-download:focus-visible {
  outline: 2px solid var(--st-primary-color, #0068c9); outline-offset: 2px; }
.scrub-range { flex: 1 1 18rem; min-width: 12rem; accent-color: #0068c9; height: 1.6rem; touch-action: none; }
.scrub-value { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 7rem; }
.scrub-downloads { display: inline-flex; gap: 0.4rem; }
.scrub-downloads[hidden] { display: none; }
.scrub-body { display: flex; gap: 1.5rem; align-items: flex-start; }
.scrub-plot { flex: 3 1 0; min-width: 0; }
.scrub-side { flex: 1.25 1 0; min-width: 12rem; }
.scrub-side:empty { display: none; }
.scrub-metric { margin: 0 0 0.9rem 0; }
.scrub-metric-label { font-size: 0.875rem; }
.scrub-metric-value { font-size: 1.9rem; line-height: 1.25; font-variant-numeric: tabular-nums; }
.scrub-note, .scrub-caption { font-size: 0.875rem; opacity: 0.8; }
.scrub-note { margin: -0.5rem 0 0.9rem 0; }
.scrub-caption { margin: 0.3rem 0 0 0; }
.scrub-error { color: #a4161a; font-weight: 600; }
.scrub-status { font-size: 0.875rem; margin: -0.2rem 0 0.4rem 0; }
.scrub-status[hidden] { display: none; }
.scrub-large .scrub-label { font-size: 1.9rem; }
.scrub-large .scrub-value { font-size: 2.6rem; font-weight: 700; min-width: 12rem; }
.scrub-large .scrub-range { height: 2.4rem; }
.scrub-large .scrub-play { font-size: 1.5rem; padding: 0.35rem 1rem; }
.scrub-large .scrub-metric-label { font-size: 1.35rem; }
.scrub-large .scrub-metric-value { font-size: 3.2rem; font-weight: 600; }
.scrub-large .scrub-note, .scrub-large .scrub-caption, .scrub-large .scrub-status { font-size: 1.2rem; }
.scrub-large .scrub-side { flex: 1 1 0; }
/* A narrow screen stacks the numbers under the figure; the figure takes the whole width (stretch: a
   column's flex-start would size it to Plotly's default 700 px). Tap targets reach 44 px there. */
@media (max-width: 900px) {
  .scrub-body { flex-direction: column; align-items: stretch; }
  .scrub-plot { flex: none; width: 100%; }
  .scrub-side { min-width: 0; }
}
@media (pointer: coarse) {
  .scrub-range { height: 44px; }
  .scrub-play, .scrub-download { min-height: 44px; min-width: 44px; }
  .scrub .js-plotly-plot .plotly .modebar-btn { height: 44px !important; min-width: 44px; }
}
"""


def _script() -> str:
    """ui/scrub.js with Streamlit's Plotly bundle, the ink colours and the figure download function."""
    js = (_HERE / "scrub.js").read_text(encoding="utf-8")
    js = js.replace("__PLOTLY_CHUNK__", _plotly_chunk())
    js = js.replace("__INK_COLORS__", json.dumps(sorted(INK_COLORS)))
    js = js.replace("__FIELD_LEGEND__", json.dumps(FIELD_LEGEND))
    return DOWNLOAD_JS + js


_component = st.components.v2.component(
    "rbfviz_sigma_scrub",
    css=CSS,
    js=_script(),
    isolate_styles=False,  # Plotly's hover and mode-bar styles live in the document, not in a shadow root
)


def _committed(key: str, grid: tuple[float, ...]) -> None:
    """Callback of a settled scrub (runs before the rerun): the controls take the chosen σ."""
    result = st.session_state.get(key) or {}
    level = result.get("level")
    if level is None or not 0 <= int(level) < len(grid):
        return
    ctrl = st.session_state.get(state.STATE_KEY)
    if ctrl is not None:
        st.session_state[state.STATE_KEY] = replace(ctrl, sigma=float(grid[int(level)]))


def scrub_figure(payload: bytes, key: str, grid, on_select=None, slot=None) -> None:
    """Draw a scrubbable figure. payload: rbfviz.views.common.scrub.scrub_payload bytes (the same
    bytes for every σ, so reruns resend nothing). grid: the σ values of its levels, in order.
    on_select(rows): called with the data rows a click, box or lasso selected (payload select=True).
    slot: an st.empty() to draw it in (default: here).

    A settle rerun (of the σ fragment only) sends HELD in place of a payload this session's browser
    was sent already under ``key``: the element there holds it."""
    sent = st.session_state.setdefault(SENT_KEY, {})
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
            on_resend_change=lambda: st.session_state.get(SENT_KEY, {}).pop(key, None),
        )
    sent[key] = fingerprint


# What a settle rerun sends in place of the payload its browser holds. Streamlit hashes an element's
# bytes twice per run (its identity and its message), copies them into the message and serialises them:
# about a millisecond per settle for a payload of a few hundred kB the browser has already.
# ui/scrub.js keeps its payload on HELD, and asks for it again (the "resend" trigger) if it has none.
HELD = {"held": True}
SENT_KEY = "_rbfviz_scrub_sent"  # component key -> _fingerprint of the payload last sent to this session


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
SHOWN_KEY = "_rbfviz_scrub_shown"  # (component key, setting) of the complete payload this session drew last


def scrub_view(view: str, ctrl, extra: tuple, build, key: str, grid, near: int, on_select=None) -> None:
    """Draw a scrubbable view whose payload is ``ui.compute.scrub_payload(view, ctrl, extra, build, near)``.

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
    setting = (key, compute.scrub_key(view, ctrl, extra))
    again = st.session_state.get(SHOWN_KEY) == setting
    payload = compute.scrub_payload(view, ctrl, extra, build, near=near, show=None if again else show)
    scrub_figure(payload, key, grid, on_select, slot)
    st.session_state[SHOWN_KEY] = setting
