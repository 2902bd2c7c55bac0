"""Hands on the plane, on the Explorer and Step by step: what a click or a tap on the plane does, and the
callbacks that turn a placed or dragged centre into the start.

* ``plane_mode()``                  – the "On the plane" control: look (σ and the probe), place centres,
                                     draw points, erase points.
* ``placed_from(centres)``          – a centre list from the editor, rounded as a link writes it.
* ``set_placed(centres)``           – callback: the controls start from these centres (init "placed"),
                                     and the step sequence starts again from them.
* ``centre_inputs(ctrl, centres)``  – the keyboard path: choose a centre, type its x and y.
* ``set_points(points)``            – callback: the data become these points, drawn by hand (dataset
                                     "drawn", the points in the link, at most MAX_DRAWN).
* ``drawing_panel(ctrl)``           – the plane editor in "draw" or "erase" mode, Clear and the CSV.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from rbfviz.drawn import MAX_DRAWN, decode_points, encode_points
from rbfviz.views.explorer.placed import MAX_PLACED, round_placed

from . import session_keys as keys
from . import state

MODES = {
    "look": "Look (σ, probe)",
    "centres": "Place and drag centres",
    "draw": "Draw points",
    "erase": "Erase points",
}


def plane_mode(modes: dict[str, str] = MODES, forced: str | None = None) -> str:
    """The "On the plane" radio (its choice stays in the session, not the address); ``forced``: a mode
    the page needs now (e.g. fewer than k centres placed), shown selected."""
    if forced is not None:
        st.session_state[keys.PLANE_MODE] = forced
    elif st.session_state.get(keys.PLANE_MODE) not in modes:
        st.session_state[keys.PLANE_MODE] = next(iter(modes))
    return st.radio(
        "On the plane",
        list(modes),
        format_func=modes.get,
        horizontal=True,
        key=keys.PLANE_MODE,
        help="Place and drag centres: a click or a tap puts the next centre there, a drag moves one; "
        "the start becomes the centres you placed (initialisation “placed”, kept in the link). Draw "
        f"points: a click or a tap adds a point (at most {MAX_DRAWN}); Erase points: a click on a point "
        "removes it. Drawn points are a data set of their own (“drawn by hand”), kept in the link.",
    )


def placed_from(centres) -> tuple[tuple[float, float], ...]:
    """The editor's [[x, y], ...] as placed centres (rounded as the link writes them), at most MAX_PLACED.
    ValueError if a coordinate is not a finite number within range."""
    return tuple(round_placed(x, y) for x, y in list(centres)[:MAX_PLACED])


def set_placed(centres) -> None:
    """Callback (runs before the script): start from ``centres``; a step sequence starts again there."""
    ctrl = st.session_state[keys.CONTROLS]
    try:
        placed = placed_from(centres)
    except (TypeError, ValueError) as err:
        state.add_notices(st, [f"That centre could not be placed: {err}"])
        return
    st.session_state[keys.CONTROLS] = replace(ctrl, placed=placed, init="placed", steps="")


def centre_inputs(ctrl, centres) -> None:
    """Keyboard alternative to clicking and dragging: choose centre j, type its x and y (Enter applies)."""
    centres = [tuple(c) for c in centres]
    if not centres:
        return
    choices = list(range(len(centres)))
    if st.session_state.get(keys.CENTRE_CHOICE) not in choices:
        st.session_state[keys.CENTRE_CHOICE] = 0
    row = st.columns([1, 1, 1])
    j = row[0].selectbox("Centre", choices, key=keys.CENTRE_CHOICE)
    # the inputs show the chosen centre's place on every run
    st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y] = (float(v) for v in centres[j])

    def typed() -> None:
        moved = list(centres)
        moved[j] = (st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y])
        set_placed(moved)

    row[1].number_input(f"x of centre {j}", key=keys.CENTRE_X, format="%.4g", on_change=typed, step=0.1)
    row[2].number_input(f"y of centre {j}", key=keys.CENTRE_Y, format="%.4g", on_change=typed, step=0.1)


def start_centres(ctrl) -> list[tuple[float, float]]:
    """The centres a placement edits: the placed ones (init "placed", at most k), else the start of the
    current initialisation (none for annealing, or while a custom start lacks picks)."""
    from . import compute

    if ctrl.init == "placed":
        return [tuple(c) for c in ctrl.placed[: ctrl.k]]
    try:
        start = compute.start(ctrl)
    except ValueError:
        start = None
    return [] if start is None else [tuple(float(v) for v in c) for c in start]


def placing_panel(ctrl, centres, title: str, height: int = 600) -> None:
    """The plane editor in "centres" mode over ctrl's data with ``centres``, and the keyboard inputs."""
    from rbfviz.views.common.editing import editing_extent, editing_figure

    from . import compute
    from .plane_edit import plane_editor

    X, _ = compute.data(ctrl)
    more = ctrl.k - len(centres)
    if more > 0:
        st.info(
            f"**Placed start:** click or tap {more} more place{'s' if more > 1 else ''} on the plane "
            f"({len(centres)} of k = {ctrl.k} placed)."
        )
    fig = editing_figure(X, centres, editing_extent(X, centres), title=title, height=height)
    plane_editor(fig, "centres", ctrl.k, key=keys.EDITOR, on_centres=set_placed)
    centre_inputs(ctrl, centres)


def set_points(points) -> None:
    """Callback (runs before the script): the data become ``points`` ([[x, y], ...]), drawn by hand. Beyond
    MAX_DRAWN the first MAX_DRAWN are kept and a notice says so."""
    ctrl = st.session_state[keys.CONTROLS]
    try:
        X = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        return
    if len(X) > MAX_DRAWN:
        state.add_notices(
            st, [f"At most {MAX_DRAWN} points can be drawn (a link must carry them): the rest were left out."]
        )
        X = X[:MAX_DRAWN]
    try:
        text = encode_points(X[np.isfinite(X).all(axis=1)])
    except ValueError as err:
        state.add_notices(st, [f"Those points could not be drawn: {err}"])
        return
    st.session_state[keys.CONTROLS] = drawn_controls(ctrl, text)


def drawn_controls(ctrl, text: str):
    """ctrl on the drawn points of ``text``: n is their number; picks (rows of other data) and a step
    sequence end; k stays (lowered to n once at least 2 points are drawn)."""
    n = len(decode_points(text))
    k = ctrl.k if n < 2 else min(ctrl.k, state.k_max(n))
    return replace(
        ctrl, dataset=state.DRAWN, drawn=text, n=n, noise=0.0, k=k, upload=None, picks=(), steps=""
    )


def clear_points() -> None:
    """Button callback: an empty plane to draw on."""
    st.session_state[keys.CONTROLS] = drawn_controls(st.session_state[keys.CONTROLS], state.NO_POINTS)


def points_csv(X) -> bytes:
    """The drawn points as CSV (x1, x2), as the upload reads them back."""
    rows = "\n".join(f"{x!r},{y!r}" for x, y in np.asarray(X, dtype=np.float64).tolist())
    return ("x1,x2\n" + rows + ("\n" if rows else "")).encode()


def drawing_panel(ctrl, forced: bool = False, height: int = 600) -> None:
    """The plane editor drawing (or, in "Erase points" mode, erasing) points on ctrl's data, Clear, and the
    drawn points as CSV. Data of more than MAX_DRAWN points cannot be drawn on (a link could not carry
    them): the panel says so and offers an empty plane. forced: the page has too few points to show
    anything else (drawing mode whatever the radio says)."""
    from rbfviz.views.common.editing import editing_extent, editing_figure

    from . import compute
    from . import upload as uploads
    from .plane_edit import plane_editor

    mode = "erase" if st.session_state.get(keys.PLANE_MODE) == "erase" and not forced else "draw"
    if ctrl.dataset != state.DRAWN and ctrl.n > MAX_DRAWN:
        st.info(
            f"Drawing edits data of at most {MAX_DRAWN} points (a link carries every one); these have "
            f"n = {ctrl.n}. Lower n, or start from an empty plane."
        )
        st.button("Start from an empty plane", key="drawn_clear", on_click=clear_points)
        return
    X = decode_points(ctrl.drawn) if ctrl.dataset == state.DRAWN else compute.data(ctrl)[0]
    X = np.asarray(X, dtype=np.float64)
    if len(X) >= MAX_DRAWN and mode == "draw":
        st.warning(f"{len(X)} points: the most a drawing can hold ({MAX_DRAWN}). Erase some to draw more.")
    name = uploads.data_name(ctrl)
    verb = "Erase points" if mode == "erase" else "Draw points"
    fig = editing_figure(X, [], editing_extent(X), title=f"{verb}: {name}, n = {len(X)}", height=height)
    plane_editor(fig, mode, ctrl.k, key=keys.EDITOR, on_points=set_points, max_points=MAX_DRAWN)
    row = st.container(horizontal=True)
    row.button("Clear", key="drawn_clear", on_click=clear_points, disabled=not len(X), help="An empty plane.")
    row.download_button(
        "Download the points (CSV)",
        points_csv(X),
        file_name="rbfviz_drawn_points.csv",
        mime="text/csv",
        key="drawn_csv",
        disabled=not len(X),
    )
    if ctrl.dataset != state.DRAWN:
        st.caption(
            "Your first click turns these points into a drawing of your own (“drawn by hand”, kept in the "
            "link); the data set you started from stays as it was."
        )
