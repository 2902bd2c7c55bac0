"""The σ scrubber on the page: a Streamlit component (st.components.v2) that owns the σ slider and
redraws the figure in the browser from a precomputed payload (rbfviz.views.figures.scrub).

Why a component and not Plotly's own slider and frames: the σ control must be a real, labelled
range input (arrow keys, screen readers, touch), the numbers beside the plot must follow it, and
the settled σ must come back to the page (address, downloads, receipts). A component does all
three with one small script; Plotly sliders have no keyboard support and no way to report back.

    scrub_figure(payload, key="explorer", grid=scale.grid, on_select=None)

Moving σ costs no script run. When it settles (ui/scrub.js: 0.5 s without input, pointer up),
the component commits the level once: the callback here sets the controls' σ before the rerun,
and the page's usual URL sync writes it into the address.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import streamlit as st

from . import state

_HERE = Path(__file__).resolve().parent


def _plotly_chunk() -> str:
    """File name of Streamlit's own Plotly bundle (it sets window.Plotly when loaded)."""
    static = Path(st.__file__).resolve().parent / "static" / "static" / "js"
    found = sorted(path.name for path in static.glob("PlotlyChart.*.js"))
    if not found:
        raise RuntimeError(f"Streamlit's Plotly bundle (PlotlyChart.*.js) is missing from {static}.")
    return found[0]


# Contrast: text colours are at least 4.5:1 on white (WCAG AA).
CSS = (
    """
.scrub { font-family: "Source Sans", sans-serif; }
.scrub-control { display: flex; align-items: center; gap: 0.8rem; margin: 0 0 0.4rem 0; flex-wrap: wrap; }
.scrub-label { font-weight: 600; }
.scrub-play { font: inherit; padding: 0.25rem 0.8rem; border: 1px solid #8c8f99; border-radius: 0.5rem;
  background: #ffffff; color: #31333f; cursor: pointer; }
.scrub-play:focus-visible, .scrub-range:focus-visible { outline: 2px solid #0068c9; outline-offset: 2px; }
.scrub-range { flex: 1 1 18rem; min-width: 12rem; accent-color: #0068c9; height: 1.6rem; touch-action: none; }
.scrub-value { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 7rem; }
.scrub-body { display: flex; gap: 1.5rem; align-items: flex-start; }
.scrub-plot { flex: 3 1 0; min-width: 0; }
.scrub-side { flex: 1.25 1 0; min-width: 12rem; }
.scrub-side:empty { display: none; }
.scrub-metric { margin: 0 0 0.9rem 0; }
.scrub-metric-label { font-size: 0.875rem; color: #31333f; }
.scrub-metric-value { font-size: 1.9rem; line-height: 1.25; color: #31333f; """
    """font-variant-numeric: tabular-nums; }
.scrub-note { font-size: 0.875rem; color: #555867; margin: -0.5rem 0 0.9rem 0; }
.scrub-caption { font-size: 0.875rem; color: #555867; margin: 0.3rem 0 0 0; }
.scrub-error { color: #a4161a; font-weight: 600; }
.scrub-large .scrub-label, .scrub-large .scrub-value { font-size: 1.6rem; }
.scrub-large .scrub-metric-label { font-size: 1.2rem; }
.scrub-large .scrub-metric-value { font-size: 2.8rem; }
.scrub-large .scrub-note, .scrub-large .scrub-caption { font-size: 1.15rem; }
@media (max-width: 900px) { .scrub-body { flex-direction: column; } .scrub-side { min-width: 0; } }
"""
)

_component = st.components.v2.component(
    "rbfviz_sigma_scrub",
    css=CSS,
    js=(_HERE / "scrub.js").read_text(encoding="utf-8").replace("__PLOTLY_CHUNK__", _plotly_chunk()),
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


def scrub_figure(payload: bytes, key: str, grid, on_select=None) -> None:
    """Draw a scrubbable figure. payload: rbfviz.views.figures.scrub.scrub_payload bytes (the same
    bytes for every σ, so reruns resend nothing). grid: the σ values of its levels, in order.
    on_select(rows): called with the data rows a click, box or lasso selected (payload select=True)."""
    _component(
        key=key,
        data=payload,
        default={"level": None},
        on_level_change=lambda: _committed(key, tuple(float(s) for s in grid)),
        on_selected_change=(lambda: on_select(list((st.session_state.get(key) or {}).get("selected") or [])))
        if on_select
        else (lambda: None),
    )
