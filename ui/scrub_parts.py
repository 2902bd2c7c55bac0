"""A scrubbable view's σ payload: every level in one payload, built once per setting and shared by every
session on it (``scrub_payload``), a new setting's levels near the σ on screen first (a ``LevelBuilder``,
the part-by-part scheduler below).

* ``scrub_payload(view, ctrl, extra, build, near, show)``  the complete payload (bytes), stored
* ``grid_payload(view, ctrl, scale, levels_of)``          the same for a view drawn at every σ of the
                                                         scale's grid, opening at its default σ
* ``scrub_key(view, ctrl, extra)``                       what it is stored under
* ``LevelBuilder(size, levels, payload)``                how a view builds a few levels at a time
* ``NEAR``, ``REST_TURNS``                               the first part's reach; rests one at a time
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from rbfviz.bounded_store import BoundedStore
from rbfviz.i18n import N_, translator
from rbfviz.views.common import scrub as codec
from rbfviz.views.common.scrub import ScrubLevel

from . import language
from .compute import TTL, StartKey
from .hold_rest import hold_rest_for_a_test
from .page import CHART_CONFIG
from .progress import progress_bar, throttled, with_progress_bar


@st.cache_resource(ttl=TTL, show_spinner=False)
def _scrub_store() -> BoundedStore:
    # Bounded by bytes: a class exploring on its own holds one setting per student, and a setting dropped
    # here is built again on that student's next settle. 40 default payloads are ~18 MB.
    return BoundedStore(max_entries=96, max_bytes=32 << 20)


def scrub_payload(view: str, ctrl, extra: tuple, build, near: int | None = None, show=None) -> bytes:
    """The payload of a scrubbable view (rbfviz.views.common.scrub) for ctrl's setting at every σ, built
    once per (view, data, k, init, picks, kind, dtype, presenter, language, extra) with a progress bar, and
    shared read-only by every session on that setting (and language: the payload holds words). ``extra``:
    whatever else the figure depends on (a field quantity, titles).

    build: ``build(progress) -> bytes``, or a ``LevelBuilder`` (built in one go without ``near`` and
    ``show``). With a LevelBuilder, ``near`` (the grid
    position of the σ on screen) and ``show(partial_payload)``, a setting not yet stored comes in two
    parts: the levels within ``NEAR`` grid steps of ``near`` first, handed to ``show`` at once, then the
    rest (the first part's levels are reused, never built again). A session whose setting another
    session is building shows that session's first part if it holds ``near``, and waits for the rest
    under a progress bar. Returns the complete payload."""
    key = scrub_key(view, ctrl, extra)
    tr = translator(ctrl.lang)
    if isinstance(build, LevelBuilder):
        if near is not None and show is not None:
            return _payload_in_parts(key, build, near, show)
        build = _in_one_go(build)
    return _scrub_store().get_or_compute(
        key,
        lambda: with_progress_bar(
            tr("Drawing the figure at every σ of the slider, once per setting: σ level"),
            build,
        ),
    )


def grid_payload(view: str, ctrl, scale, levels_of) -> bytes:
    """``scrub_payload(view, ctrl, (), build)`` of a view with one level at each σ of ``scale.grid``
    (rbfviz.views.explorer.arrays.SigmaScale), opening at ``scale.default``, with the pages' chart
    config. levels_of(progress) gives the levels, in grid order."""

    def build(progress) -> bytes:
        return codec.scrub_payload(
            levels_of(progress),
            scale.grid,
            config=CHART_CONFIG,
            initial=scale.index(scale.default),
            large=ctrl.presenter,
            tr=translator(ctrl.lang),
        )

    return scrub_payload(view, ctrl, (), build)


def scrub_key(view: str, ctrl, extra: tuple) -> tuple:
    """What a scrubbable view's payload is stored under (``scrub_payload``)."""
    return (view, StartKey.of(ctrl), ctrl.kind, ctrl.presenter, ctrl.lang, extra)


def payload_ready(view: str, ctrl, extra: tuple) -> bool:
    """``scrub_payload(view, ctrl, extra, ...)`` is stored complete (by any session): shown at once."""
    return _scrub_store().get(scrub_key(view, ctrl, extra)) is not None


# --- σ scrubbing, the levels near the σ on screen first ---------------------------------------------
#
# A new setting's payload costs a few tenths of a second of one core, and a class exploring on its own
# asks for one per student: their first opens would queue behind each other's whole payloads. The
# levels around the σ on screen come first (a figure at once, and the first arrow presses work), then
# the rest, one setting's rest at a time in order of arrival (REST_TURNS), so that first parts are not
# slowed by everybody's rest (the GIL runs one Python thread at a time anyway).

NEAR = 2  # grid steps on each side of the σ on screen in the first part
_WAIT_SECONDS = 0.25  # how often a waiting session moves its progress bar (and can be interrupted)


class _Turns:
    """At most ``slots`` holders at a time, let in in order of arrival: a waiter that stops waiting for a
    moment (to move its progress bar) keeps its place, so the rest of a setting opened first is built
    first."""

    def __init__(self, slots: int):
        self._slots = slots
        self._active = 0
        self._queue: deque = deque()
        self._changed = threading.Condition()

    def take(self) -> object:
        """A place at the end of the queue."""
        ticket = object()
        with self._changed:
            self._queue.append(ticket)
        return ticket

    def wait(self, ticket, timeout: float) -> bool:
        """Whether ``ticket``'s turn came within ``timeout`` seconds; then it holds a slot until ``done``."""
        with self._changed:
            ready = self._changed.wait_for(
                lambda: self._queue[0] is ticket and self._active < self._slots, timeout
            )
            if ready:
                self._queue.popleft()
                self._active += 1
                self._changed.notify_all()
            return ready

    def leave(self, ticket) -> None:
        """Give up a place not yet served (the run was interrupted while it waited)."""
        with self._changed:
            if ticket in self._queue:
                self._queue.remove(ticket)
                self._changed.notify_all()

    def done(self) -> None:
        with self._changed:
            self._active -= 1
            self._changed.notify_all()


REST_TURNS = _Turns(slots=1)  # rests of first parts, one at a time (per process)


@dataclass(frozen=True)
class LevelBuilder:
    """How a scrubbed view builds its payload a few σ levels at a time (``scrub_payload``).

    size: the number of σ levels of the grid.
    levels(positions, progress) -> list: the view's levels (rbfviz.views.common.scrub ScrubLevel or
    ScrubPatch) at these increasing grid positions, in that order, the first a ScrubLevel and every
    ScrubPatch a patch of it; progress(done, total) as they are computed.
    payload(levels, positions) -> bytes: scrub_payload of levels at every grid position in order
    (positions None: the complete payload) or at these positions (a partial payload, ``part=``).
    """

    size: int
    levels: Callable
    payload: Callable


@dataclass
class _Parts:
    """A setting's levels built so far: grid position -> (level, the structure its patches apply to);
    the first part's positions and payload; the rest's progress (done, total)."""

    levels: dict
    first: tuple = ()
    first_payload: bytes | None = None
    done: int = 0
    total: int = 0


@st.cache_resource(ttl=TTL, show_spinner=False)
def _parts_store() -> BoundedStore:
    return BoundedStore(max_entries=16)


def _structure(level) -> tuple:
    """What a patch of this ScrubLevel relies on: its traces' types and how many images it has."""
    layout = level.figure.layout
    return tuple(trace.type for trace in level.figure.data), len(layout.images or ())


def _add_levels(parts: _Parts, builder: LevelBuilder, positions: list, progress=None) -> None:
    """Build the levels at these grid positions and keep them (each with its patches' base structure)."""
    if not positions:
        return
    built = builder.levels(positions, progress)
    if len(built) != len(positions) or not isinstance(built[0], ScrubLevel):
        raise ValueError(f"{len(positions)} levels asked, {len(built)} built, the first not a full figure.")
    base = _structure(built[0])
    for position, level in zip(positions, built):
        parts.levels[position] = (level, _structure(level) if isinstance(level, ScrubLevel) else base)


def _levels_at(parts: _Parts, builder: LevelBuilder, positions: list) -> list:
    """The kept levels at these positions as one scrub_payload list: the first a full figure, every
    patch one of a figure of the same structure. A level that does not fit (rare: a σ where the view
    has other traces than at the first position) is built again as a full figure."""
    out = []
    for index, position in enumerate(positions):
        level, base = parts.levels[position]
        if index == 0:
            if not isinstance(level, ScrubLevel):
                _add_levels(parts, builder, [position])
                level, base = parts.levels[position]
            first = base
        elif not isinstance(level, ScrubLevel) and base != first:
            _add_levels(parts, builder, [position])
            level, _ = parts.levels[position]
        out.append(level)
    return out


def _in_one_go(builder: LevelBuilder):
    """``build(progress) -> bytes`` of every level at once, as one part."""
    return lambda progress: builder.payload(builder.levels(list(range(builder.size)), progress), None)


def _payload_in_parts(key, builder: LevelBuilder, near: int, show) -> bytes:
    store = _scrub_store()
    shown = False
    while True:
        payload = store.get(key)
        if payload is not None:
            return payload
        lock = store.key_lock(key)
        if lock.acquire(blocking=False):
            try:
                payload = store.get(key)
                if payload is None:
                    payload = _build_in_parts(key, builder, near, show, shown)
                    store.put(key, payload)
                    _parts_store().discard(key)
                return payload
            finally:
                lock.release()
        shown = _wait_for_builder(key, lock, near, show, shown)


def _build_in_parts(key, builder: LevelBuilder, near: int, show, shown: bool) -> bytes:
    """The complete payload, its first part shown first (unless this session shows one already)."""
    parts = _parts_store().get(key)
    if parts is None:
        parts = _Parts(levels={})
        _parts_store().put(key, parts)
    if not shown:
        if near not in parts.first or parts.first_payload is None:
            first = list(range(max(0, near - NEAR), min(builder.size, near + NEAR + 1)))
            _add_levels(parts, builder, [i for i in first if i not in parts.levels])
            parts.first_payload = builder.payload(_levels_at(parts, builder, first), first)
            parts.first = tuple(first)
        show(parts.first_payload)
    rest = [i for i in range(builder.size) if i not in parts.levels]
    if rest:
        parts.done, parts.total = 0, len(rest)

        def progress(done: int, total: int) -> None:
            parts.done, parts.total = done, total
            bar_moved(done, total)

        tr = language.current()
        bar = progress_bar(tr(_REST_TEXT, done=0, total=len(rest)))

        def moved(done: int, total: int) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=tr(_REST_TEXT, done=done, total=total))

        bar_moved = throttled(moved)

        try:
            hold_rest_for_a_test(lambda: moved(0, len(rest)), _WAIT_SECONDS)
            ticket, queued = REST_TURNS.take(), False
            try:
                while not REST_TURNS.wait(ticket, _WAIT_SECONDS):
                    queued = True
                    bar.progress(0.0, text=tr(_QUEUED_TEXT))  # a yield point: a new setting can interrupt
            except BaseException:
                REST_TURNS.leave(ticket)
                raise
            try:
                if queued:
                    moved(0, len(rest))
                _add_levels(parts, builder, rest, progress)
            finally:
                REST_TURNS.done()
        finally:
            bar.empty()
    return builder.payload(_levels_at(parts, builder, list(range(builder.size))), None)


# the progress bars' words, shown as tr(...)
_REST_TEXT = N_(
    "Computing the slider's other σ levels, once per setting (the figure is ready): {done} of {total}…"
)
_QUEUED_TEXT = N_("The slider's other σ levels are next in line on the server (the figure is ready)…")
_WAITING_TEXT = N_("This setting's σ levels are being computed, once for everybody…")
_WAIT_TEXT = N_("This setting's σ levels are being computed, once for everybody: {done} of {total}…")


def _wait_for_builder(key, lock, near: int, show, shown: bool) -> bool:
    """Wait while another session builds this setting, under a progress bar that follows its progress;
    show its first part as soon as it holds ``near``. Returns whether a first part was shown."""
    tr = language.current()
    bar = progress_bar(tr(_WAITING_TEXT))
    try:
        while not lock.acquire(timeout=_WAIT_SECONDS):
            parts = _parts_store().get(key)
            if parts is None:
                continue
            if not shown and parts.first_payload is not None and near in parts.first:
                show(parts.first_payload)
                shown = True
            if parts.total:
                bar.progress(
                    min(parts.done / parts.total, 1.0),
                    text=tr(_WAIT_TEXT, done=parts.done, total=parts.total),
                )
        lock.release()
    finally:
        bar.empty()
    return shown
