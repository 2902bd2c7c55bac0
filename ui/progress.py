"""Progress bars of the app's long computations, and a slot that keeps the page's layout still.

* ``with_progress_bar(text, work)``  run ``work(progress)`` under a bar that ``progress(done, total)``
                                     moves, gone afterwards;
* ``progress_bar(text)``             a bar to move by hand (``bar.progress(fraction, text=...)``);
* ``progress_slot()``                a block whose bars all go in one placeholder, drawn on every run;
* ``throttled(move)``                ``move(done, total)`` at most every ``BAR_SECONDS`` (and at its end);
* ``in_stages(stages, work)``         run ``work(*progress)`` in a worker thread under one bar over all its
                                     stages, moved at least every ``TICK_S`` seconds, so that a click
                                     (Cancel) interrupts the page's run at once and stops the work;
* ``in_worker(work, progress, total)`` the same under the caller's own bar (``progress`` redraws it);
* ``while_waiting()``                 a ``waiting`` callable for ``BoundedStore.get_or_compute``: a bar
                                     while another session computes the same setting, redrawn each call.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import threading
import time

import streamlit as st

from . import language

# A bar moves at most this often, and at its end: every move is a message to the browser, and a new
# setting's σ levels stop by the dozen within a fraction of a second.
BAR_SECONDS = 0.1

# The placeholder progress bars are drawn in, when a block has reserved one (``progress_slot``).
_PROGRESS_SLOT: contextvars.ContextVar = contextvars.ContextVar("progress_slot", default=None)


@contextlib.contextmanager
def progress_slot():
    """Reserve one placeholder, here and on every run, for the progress bars drawn inside the block.

    A bar drawn in place takes a position in its container only on the runs that compute, so every
    element after it moves one place down on those runs; Streamlit then mounts a moved element anew
    (a custom component loses its DOM and the keyboard focus). In the slot, the positions stay put."""
    token = _PROGRESS_SLOT.set(st.empty())
    try:
        yield
    finally:
        _PROGRESS_SLOT.reset(token)


def throttled(move):
    """``move(done, total)`` called only where ``BAR_SECONDS`` have passed since the last call it made, and
    always when done >= total unless that call drew this very end already (the first call is always
    made). A caller that reports its end again and again (the Explorer's bar, once per level drawn) so
    moves the bar every ``BAR_SECONDS``, not at every report."""
    last = -math.inf
    drawn = None

    def moved(done: int, total: int) -> None:
        nonlocal last, drawn
        now = time.monotonic()
        end = done >= total and (done, total) != drawn
        if not end and now - last < BAR_SECONDS:
            return
        last, drawn = now, (done, total)
        move(done, total)

    return moved


def progress_bar(text: str):
    """A progress bar at 0 showing ``text``, in the block's ``progress_slot`` if it has one, else in place."""
    slot = _PROGRESS_SLOT.get()
    return (st if slot is None else slot).progress(0.0, text=text)


def with_progress_bar(text: str, work):
    """Run ``work(progress)`` under a progress bar; progress(done, total) moves it. The bar goes away
    afterwards, whether the work succeeded or not. It is drawn in the block's ``progress_slot`` if it
    has one, else in place. ``text``: what is computed, in the reader's language."""
    tr = language.current()
    bar = progress_bar(tr("{what}…", what=text))

    @throttled
    def progress(done: int, total: int) -> None:
        bar.progress(
            min(done / max(total, 1), 1.0),
            text=tr("{what}: {done} of {total}…", what=text, done=done, total=total),
        )

    try:
        return work(progress)
    finally:
        bar.empty()


TICK_S = 0.3  # the bar is redrawn at least this often while a worker computes: each redraw is a point where
# Streamlit ends the page's run if a click (Cancel, or any widget) has asked for a new one


class Stopped(Exception):
    """Raised inside a worker's progress report once the page that started it has stopped waiting."""


class _Worker:
    """``work(*reports)`` in a daemon thread, one report(done, total) per stage; what they last said is
    read by the waiting page. After ``stop()`` the next report raises ``Stopped``, which ends the work at
    its next report (a computation cannot be stopped between two of them)."""

    def __init__(self, work, stages: int):
        self.stage, self.done, self.total = 0, 0, 0
        self.result, self.error = None, None
        self._stop = threading.Event()
        self._finished = threading.Event()
        reports = [self._report(i) for i in range(stages)]
        self._thread = threading.Thread(
            target=self._run, args=(work, reports), name="rbfviz-work", daemon=True
        )
        self._thread.start()

    def _report(self, stage: int):
        def report(done: int, total: int) -> None:
            if self._stop.is_set():
                raise Stopped
            self.stage, self.done, self.total = stage, done, total

        return report

    def _run(self, work, reports) -> None:
        try:
            self.result = work(*reports)
        except BaseException as error:  # handed to the page's thread, which raises it
            self.error = error
        finally:
            self._finished.set()

    def wait(self, seconds: float) -> bool:
        """True once the work has ended (returned or raised), waiting at most ``seconds``."""
        return self._finished.wait(seconds)

    def stop(self) -> None:
        self._stop.set()

    def fraction(self, stages: int) -> float:
        """The share of the whole work done: each stage an equal part of the bar."""
        return min((self.stage + min(self.done / max(self.total, 1), 1.0)) / stages, 1.0)


def in_stages(stages: list[str], work, tick: float = TICK_S):
    """Run ``work(*reports)`` (one ``report(done, total)`` per stage, in order) in a worker thread under
    one progress bar over all the stages, and return its result (or raise its error).

    The page's thread redraws the bar every ``tick`` seconds with the stage's words, its count and the
    seconds so far, whether or not the work has reported: each redraw is a point where Streamlit ends the
    run when a new one was asked for (a Cancel button, any click), so the page answers within ``tick``
    seconds even while a single step of the work takes longer. When the run ends so, or fails, the work is
    told to stop (``Stopped`` at its next report) and nothing it would have returned is kept by the
    caller. The bar is drawn in the block's ``progress_slot`` if it has one and goes away afterwards.
    ``stages``: what each stage computes, in the reader's language; ``work`` must not call Streamlit."""
    tr = language.current()
    count = len(stages)
    bar = progress_bar(tr("{what}…", what=stages[0]))
    started = time.monotonic()

    def redraw(worker: _Worker) -> None:
        stage = min(worker.stage, count - 1)
        bar.progress(
            worker.fraction(count),
            text=tr(
                "Step {stage} of {stages}, {what}: {done} of {total} ({seconds:.0f} s so far)…",
                stage=stage + 1,
                stages=count,
                what=stages[stage],
                done=worker.done,
                total=worker.total or "…",
                seconds=time.monotonic() - started,
            ),
        )

    try:
        return _wait(_Worker(work, count), tick, redraw)
    finally:
        bar.empty()


def in_worker(work, progress, total: int, tick: float = TICK_S):
    """Run ``work(report)`` in a worker thread and return its result (or raise its error), calling the
    caller's ``progress(done, total)`` (which redraws its bar) every ``tick`` seconds with what the work
    last reported (``(0, total)`` until it first does): as in ``in_stages``, each redraw is a point where
    a click ends the page's run, and the work then stops at its next report. ``work`` must not call
    Streamlit."""

    def redraw(worker: _Worker) -> None:
        progress(worker.done, worker.total or total)

    return _wait(_Worker(work, 1), tick, redraw)


def _wait(worker: _Worker, tick: float, redraw):
    """Wait for ``worker``, calling ``redraw(worker)`` every ``tick`` seconds; its result or its error.
    However the wait ends, the worker is told to stop (a no-op once it has ended)."""
    try:
        while not worker.wait(tick):
            redraw(worker)
    finally:
        worker.stop()
    if worker.error is not None:
        raise worker.error
    return worker.result


@contextlib.contextmanager
def while_waiting():
    """Yield a ``waiting()`` for ``rbfviz.bounded_store.BoundedStore.get_or_compute``: while another
    session computes the same setting, a bar (drawn on the first call) says so with the seconds waited,
    redrawn on every call, so that a click ends this page's run there too; gone at the end."""
    tr = language.current()
    bar, started = None, time.monotonic()

    def waiting() -> None:
        nonlocal bar
        text = tr(
            "Another session is computing this setting; it appears here as soon as it is ready "
            "({seconds:.0f} s so far)…",
            seconds=time.monotonic() - started,
        )
        if bar is None:
            bar = progress_bar(text)
        bar.progress(0.0, text=text)

    try:
        yield waiting
    finally:
        if bar is not None:
            bar.empty()
