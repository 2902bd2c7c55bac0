"""The plane editor on the page: a Streamlit component (st.components.v2) on which a student places and
drags centres, or draws and erases points, by mouse, pen or finger (rbfviz/views/common/web/plane_edit.js).

    plane_editor(fig, mode, k, key, on_centres=None, on_points=None)

fig: ``rbfviz.views.common.editing.editing_figure`` (trace 0 the points, trace 1 the centres). mode:
"centres" (a click puts the next centre there, a drag moves one), "draw" (a click adds a point) or
"erase" (a click on a point removes it). The browser draws every change at once and sends the whole
list, numbered: on_centres(centres) or on_points(points) runs (before the rerun) with a list of [x, y] in
data units, and the page tells the browser the number of the last list it applied, so the browser keeps
changes made since. A change made before the page answered the last list waits for that answer, then goes
with every other change since in one list (sent earlier, its rerun would carry the other widgets' values
from before the answer).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.views.common.palette import CLUSTER_COLORS
from rbfviz.views.common.web import editor_script

from . import session_keys as keys
from .scrub import _plotly_chunk

MODES = ("centres", "draw", "erase")

_component = st.components.v2.component(
    "rbfviz_plane_editor",
    css=".plane-edit-plot { touch-action: none; } .plane-edit-hint { margin: 0 0 0.3rem 0; }",
    js=editor_script(_plotly_chunk()),
    isolate_styles=False,  # Plotly's hover styles live in the document, not in a shadow root
)


def plane_editor(
    fig,
    mode: str,
    k: int,
    key: str,
    on_centres=None,
    on_points=None,
    max_points: int | None = None,
    tr: Translator = ENGLISH,
) -> None:
    """Draw the editor for ``fig`` in ``mode`` (one of MODES); k: the centres a placement fills up to;
    max_points: the most points a drawing holds (a click beyond it adds nothing and says so); tr: the
    language of the browser's hints (``editor_texts``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}.")

    def changed(what: str, callback) -> None:
        value = (st.session_state.get(key) or {}).get(what)
        if callback is None or not isinstance(value, dict) or not isinstance(value.get("list"), list):
            return
        st.session_state[_seq_key(key)] = int(value.get("seq") or 0)
        callback(value["list"])

    _component(
        key=key,
        data={
            "figure": fig.to_json(),
            "points": _xy(fig.data[0]),
            "centres": _xy(fig.data[1]),
            "mode": mode,
            "k": int(k),
            "colors": list(CLUSTER_COLORS),
            "max_points": max_points,
            "seq": st.session_state.get(_seq_key(key), 0),  # the last change of the browser's applied here
            "texts": editor_texts(tr),
        },
        default={"centres": None, "points": None},
        on_centres_change=lambda: changed("centres", on_centres),
        on_points_change=lambda: changed("points", on_points),
    )


def editor_texts(tr: Translator) -> dict[str, str]:
    """The words of the browser's side (rbfviz/views/common/web/plane_edit.js) in ``tr``'s language; the
    browser fills in each {name}."""
    return {
        "centres": tr(
            "Click or tap the plane to put centre {next} there; drag any centre to move it; click a centre "
            "to choose it."
        ),
        "draw": tr("Click or tap the plane to add a point ({count} now)."),
        "erase": tr("Click or tap a point to remove it ({count} now)."),
        "full": tr("{count} points: the most a drawing holds. Erase some to draw more."),
        "error": tr("The plane could not be drawn ({error})."),
    }


def _seq_key(key: str) -> str:
    return keys.editor_seq(key)


def _xy(trace) -> list[list[float]]:
    """A trace's points as [[x, y], ...] (the editor edits these lists)."""
    if trace.x is None or trace.y is None:
        return []
    x, y = (np.asarray(values, dtype=np.float64) for values in (trace.x, trace.y))
    return np.column_stack([x, y]).tolist()
