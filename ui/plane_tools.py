"""Hands on the plane, on the Explorer and Step by step: what a click or a tap on the plane does, and the
callbacks that turn a placed or dragged centre into the start.

* ``plane_mode()``                  – the "On the plane" control: look (σ and the probe), place centres.
* ``placed_from(centres)``          – a centre list from the editor, rounded as a link writes it.
* ``set_placed(centres)``           – callback: the controls start from these centres (init "placed"),
                                     and the step sequence starts again from them.
* ``centre_inputs(ctrl, centres)``  – the keyboard path: choose a centre, type its x and y.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from rbfviz.views.explorer.placed import MAX_PLACED, round_placed

from . import session_keys as keys
from . import state

MODES = {"look": "Look (σ, probe)", "centres": "Place and drag centres"}


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
        "the start becomes the centres you placed (initialisation “placed”, kept in the link).",
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
