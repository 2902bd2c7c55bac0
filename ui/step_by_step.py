"""Step by step's Play: Play/Pause at a chosen speed, step back, and a scrubber over the iterations taken.

The steps and the iteration shown live in the controls (ui.state: ``steps``, ``at``, ``speed``, ``play``),
so the address follows every tick. Whether Play is running is this session's alone (a link opens
paused). The view's buttons and panels are one fragment (``play_view``): a button reruns it alone, and
while Play runs it reruns by itself every 1/speed seconds (``run_every``), each tick advancing the
controls (rbfviz.views.step_by_step.arrays.advance). Play pauses by itself when the sequence is full or
a step would no longer move the centres (``settled``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import streamlit as st

from rbfviz.views.step_by_step.arrays import MAX_STEPS, PLAY_STEPS, SPEEDS, advance, settled

from . import language, state
from . import session_keys as keys
from .state import Controls

# A tick counts as due a little before its full interval: the browser's timer and the run are not exact.
DUE = 0.9


def playing() -> bool:
    return bool(st.session_state.get(keys.STEP_PLAYING))


def pause(reason: str | None = None) -> None:
    """Stop Play; ``reason`` is said once on the next run."""
    st.session_state[keys.STEP_PLAYING] = False
    if reason:
        st.session_state[keys.STEP_PLAY_NOTE] = reason


def _toggle() -> None:
    """Play/Pause button callback."""
    # While Play runs the browser's address trails the session by a tick, and the run this press starts
    # carries it: marking the controls as unsaved makes that run keep the session's (ui.state.load_controls)
    st.session_state[keys.SAVED_CONTROLS] = None
    if playing():
        pause()
    else:
        st.session_state[keys.STEP_PLAYING] = True
        st.session_state[keys.STEP_PLAYED_AT] = time.monotonic()  # the first step one interval from now


def _set(**changes) -> None:
    st.session_state[keys.CONTROLS] = replace(st.session_state[keys.CONTROLS], **changes)


def _step_back() -> None:
    """Step back button callback: show the iteration before the one shown (the later ones are kept)."""
    ctrl = st.session_state[keys.CONTROLS]
    pause()
    _set(at=max(ctrl.shown_step() - 1, 0))


def _scrubbed() -> None:
    ctrl = st.session_state[keys.CONTROLS]
    shown = int(st.session_state[keys.STEP_SCRUBBER])
    if shown != ctrl.shown_step():  # a redrawn slider may report the value it was given
        pause()
        _set(at=None if shown == len(ctrl.steps) else shown)


def _speed() -> None:
    _set(speed=float(st.session_state[keys.STEP_SPEED]))


def _play_steps() -> None:
    _set(play=st.session_state[keys.STEP_PLAY_STEPS])


def play_controls(ctrl: Controls) -> None:
    """The row under the step buttons: Step back, Play/Pause, speed, what Play takes; then the scrubber
    over the iterations taken (once there is one), and a note when Play paused by itself."""
    tr = language.current()
    shown = ctrl.shown_step()
    back, play, speed, what = st.columns([1, 1, 1.6, 2.2], vertical_alignment="bottom")
    back.button(
        tr("◀ Step back"),
        key="step_back",
        on_click=_step_back,
        disabled=shown == 0,
        help=tr(
            "Show the iteration before this one. The later steps stay: scrub forward or press Play to see "
            "them again; a step button from here replaces them."
        ),
    )
    play.button(
        tr("❚❚ Pause") if playing() else tr("▶ Play"),
        key="step_play",
        on_click=_toggle,
        type="primary",
        help=tr(
            "Take steps by themselves at the chosen speed: first through the iterations already taken, then "
            "new ones, until the centres stop moving or the sequence is full."
        ),
    )
    st.session_state[keys.STEP_SPEED] = ctrl.speed
    speed.select_slider(
        tr("Speed (steps per second)"),
        options=list(SPEEDS),
        key=keys.STEP_SPEED,
        on_change=_speed,
        format_func=lambda v: tr.number(v, "g"),
    )
    st.session_state[keys.STEP_PLAY_STEPS] = ctrl.play
    what.radio(
        tr("Play takes"),
        options=list(PLAY_STEPS),
        format_func=lambda value: tr(PLAY_STEPS[value]),
        key=keys.STEP_PLAY_STEPS,
        on_change=_play_steps,
        horizontal=True,
    )
    if ctrl.steps:
        st.session_state[keys.STEP_SCRUBBER] = shown
        st.slider(
            tr("Iteration shown"),
            min_value=0,
            max_value=len(ctrl.steps),
            key=keys.STEP_SCRUBBER,
            on_change=_scrubbed,
            disabled=playing(),  # it follows Play; Pause to scrub
            help=tr(
                "Go back to any iteration taken so far (0 is the start); the steps after it are kept. It "
                "follows Play while Play runs: press Pause to scrub."
            ),
        )
    note = st.session_state.pop(keys.STEP_PLAY_NOTE, None)
    if note:
        st.info(note)


# The controls the fragment follows by itself; a change of any other reruns the whole page.
_OWN = ("steps", "at", "speed", "play")


def play_view(ctx, draw: Callable[[Controls], None]) -> None:
    """Draw ``draw(ctrl)`` (the buttons and panels that follow the steps) as one fragment; while Play
    runs, the fragment reruns every 1/speed seconds and each due run takes Play's next step."""
    clock = (playing(), ctx.ctrl.speed)
    st.fragment(_play_fragment, run_every=1.0 / clock[1] if clock[0] else None)(ctx, draw, clock)


def _play_fragment(ctx, draw: Callable[[Controls], None], clock: tuple[bool, float]) -> None:
    now = st.session_state.get(keys.CONTROLS)
    own = {field: getattr(now, field) for field in _OWN} if now is not None else {}
    if now is None or replace(now, **{f: getattr(ctx.ctrl, f) for f in _OWN}) != ctx.ctrl:
        st.rerun(scope="app")  # the sidebar changed something: the whole page follows
    if (playing(), now.speed) != clock and (playing() or clock[0]):
        st.rerun(scope="app")  # Play pressed, paused or a new speed: the clock is set by a full run
    ctrl = replace(ctx.ctrl, **own)
    if playing() and time.monotonic() - st.session_state.get(keys.STEP_PLAYED_AT, 0.0) >= DUE / ctrl.speed:
        st.session_state[keys.STEP_PLAYED_AT] = time.monotonic()
        tick(ctrl)
        ctrl = replace(ctx.ctrl, **{f: getattr(st.session_state[keys.CONTROLS], f) for f in _OWN})
    state.save_controls(st, ctrl)
    draw(ctrl)


def tick(ctrl: Controls) -> None:
    """One tick of Play on the session's controls, or a pause when the sequence is full."""
    nxt = advance(ctrl.steps, ctrl.shown_step(), ctrl.play)
    if nxt is None:
        tr = language.current()
        pause(tr("Play paused: {most} steps is the most a link can replay.", most=MAX_STEPS))
        return
    steps, shown = nxt
    _set(steps=steps, at=None if shown == len(steps) else shown)


def pause_when_settled(ctrl: Controls, run, X) -> None:
    """If Play runs, ``run`` (the whole sequence's replay) is shown at its end and its last step moved
    the centres by less than a pixel: pause, and rerun so the controls say so."""
    if not playing() or ctrl.shown_step() < len(ctrl.steps):
        return
    if settled(run, float(np.ptp(X, axis=0).max()), ctrl.play):
        tr = language.current()
        if ctrl.play == "em":
            pause(tr("Play paused: the M-step no longer moves the centres (they have settled at this σ)."))
        else:
            pause(
                tr("Play paused: the Lloyd step no longer moves the centres (they have settled at this σ).")
            )
        st.rerun(scope="app")  # the clock stops with a full run
