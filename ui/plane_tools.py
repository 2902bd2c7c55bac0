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
from rbfviz.i18n import N_, explain, translator
from rbfviz.views.explorer.placed import MAX_PLACED, round_placed

from . import language, state
from . import session_keys as keys

MODES = {  # shown as tr(MODES[mode])
    "look": N_("Look (σ, probe)"),
    "centres": N_("Place and drag centres"),
    "draw": N_("Draw points"),
    "erase": N_("Erase points"),
}


def plane_mode(modes: dict[str, str] = MODES, forced: str | None = None) -> str:
    """The "On the plane" radio (its choice stays in the session, not the address); ``forced``: a mode
    the page needs now (e.g. fewer than k centres placed), shown selected."""
    if forced is not None:
        st.session_state[keys.PLANE_MODE] = forced
    elif st.session_state.get(keys.PLANE_MODE) not in modes:
        st.session_state[keys.PLANE_MODE] = next(iter(modes))
    tr = language.current()
    return st.radio(
        tr("On the plane"),
        list(modes),
        format_func=lambda mode: tr(modes[mode]),
        horizontal=True,
        key=keys.PLANE_MODE,
        help=tr(
            "Place and drag centres: a click or a tap puts the next centre there, a drag moves one; the "
            "start becomes the centres you placed (initialisation “placed”, kept in the link). Draw points: "
            "a click or a tap adds a point (at most {most}); Erase points: a click on a point removes it. "
            "Drawn points are a data set of their own (“drawn by hand”), kept in the link.",
            most=MAX_DRAWN,
        ),
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
        tr = translator(ctrl.lang)
        state.add_notices(st, [tr("That centre could not be placed: {reason}", reason=explain(err, tr))])
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
    tr = translator(ctrl.lang)
    row = st.columns([1, 1, 1])
    j = row[0].selectbox(tr("Centre"), choices, key=keys.CENTRE_CHOICE)
    labels = (tr("x of centre {j}", j=j), tr("y of centre {j}", j=j))
    if tr.decimal_comma:  # Chromium's number input drops a typed comma: a text read by tr.parse_number
        _typed_centre(tr, centres, j, labels, row)
        return
    # the inputs show the chosen centre's place on every run
    st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y] = (float(v) for v in centres[j])

    def typed() -> None:
        moved = list(centres)
        moved[j] = (st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y])
        set_placed(moved)

    row[1].number_input(labels[0], key=keys.CENTRE_X, format="%.4g", on_change=typed, step=0.1)
    row[2].number_input(labels[1], key=keys.CENTRE_Y, format="%.4g", on_change=typed, step=0.1)


def _typed_centre(tr, centres, j: int, labels: tuple[str, str], row) -> None:
    """Centre j's x and y as texts in a decimal-comma language ("0,529" or "0.529"), same keys."""
    x, y = centres[j]
    st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y] = (
        tr.number(x, ".4g"),
        tr.number(y, ".4g"),
    )

    def typed() -> None:
        texts = (st.session_state[keys.CENTRE_X], st.session_state[keys.CENTRE_Y])
        try:
            x, y = (tr.parse_number(text) for text in texts)
        except ValueError:
            bad = next(text for text in texts if not _is_number(tr, text))
            notice = tr("That centre could not be placed: “{text}” is not a number.", text=bad)
            state.add_notices(st, [notice])
            return
        moved = list(centres)
        moved[j] = (x, y)
        set_placed(moved)

    row[1].text_input(labels[0], key=keys.CENTRE_X, on_change=typed)
    row[2].text_input(labels[1], key=keys.CENTRE_Y, on_change=typed)


def _is_number(tr, text: str) -> bool:
    try:
        tr.parse_number(text)
    except ValueError:
        return False
    return True


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
    tr = translator(ctrl.lang)
    more = ctrl.k - len(centres)
    if more > 0:
        st.info(
            tr.ngettext(
                "**Placed start:** click or tap {n} more place on the plane ({count} of k = {k} placed).",
                "**Placed start:** click or tap {n} more places on the plane ({count} of k = {k} placed).",
                more,
                count=len(centres),
                k=ctrl.k,
            )
        )
    fig = editing_figure(X, centres, editing_extent(X, centres), title=title, height=height, tr=tr)
    plane_editor(fig, "centres", ctrl.k, key=keys.EDITOR, on_centres=set_placed, tr=tr)
    centre_inputs(ctrl, centres)


def set_points(points) -> None:
    """Callback (runs before the script): the data become ``points`` ([[x, y], ...]), drawn by hand. Beyond
    MAX_DRAWN the first MAX_DRAWN are kept and a notice says so."""
    ctrl = st.session_state[keys.CONTROLS]
    tr = translator(ctrl.lang)
    try:
        X = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    except (TypeError, ValueError):
        return
    if len(X) > MAX_DRAWN:
        state.add_notices(
            st,
            [
                tr(
                    "At most {most} points can be drawn (a link must carry them): the rest were left out.",
                    most=MAX_DRAWN,
                )
            ],
        )
        X = X[:MAX_DRAWN]
    try:
        text = encode_points(X[np.isfinite(X).all(axis=1)])
    except ValueError as err:
        state.add_notices(st, [tr("Those points could not be drawn: {reason}", reason=explain(err, tr))])
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
    tr = translator(ctrl.lang)
    if ctrl.dataset != state.DRAWN and ctrl.n > MAX_DRAWN:
        st.info(
            tr(
                "Drawing edits data of at most {most} points (a link carries every one); these have n = {n}. "
                "Lower n, or start from an empty plane.",
                most=MAX_DRAWN,
                n=ctrl.n,
            )
        )
        st.button(tr("Start from an empty plane"), key="drawn_clear", on_click=clear_points)
        return
    X = decode_points(ctrl.drawn) if ctrl.dataset == state.DRAWN else compute.data(ctrl)[0]
    X = np.asarray(X, dtype=np.float64)
    if len(X) >= MAX_DRAWN and mode == "draw":
        st.warning(
            tr(
                "{count} points: the most a drawing can hold ({most}). Erase some to draw more.",
                count=len(X),
                most=MAX_DRAWN,
            )
        )
    name = uploads.data_name(ctrl)
    title = tr("{verb}: {name}, n = {n}", verb=tr(MODES[mode]), name=name, n=len(X))
    fig = editing_figure(X, [], editing_extent(X), title=title, height=height, tr=tr)
    plane_editor(fig, mode, ctrl.k, key=keys.EDITOR, on_points=set_points, max_points=MAX_DRAWN, tr=tr)
    row = st.container(horizontal=True)
    row.button(
        tr("Clear"), key="drawn_clear", on_click=clear_points, disabled=not len(X), help=tr("An empty plane.")
    )
    row.download_button(
        tr("Download the points (CSV)"),
        points_csv(X),
        file_name="rbfviz_drawn_points.csv",
        mime="text/csv",
        key="drawn_csv",
        disabled=not len(X),
    )
    if ctrl.dataset != state.DRAWN:
        st.caption(
            tr(
                "Your first click turns these points into a drawing of your own (“drawn by hand”, kept in "
                "the link); the data set you started from stays as it was."
            )
        )
