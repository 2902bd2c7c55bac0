"""Progress bars of the app's long computations, and a slot that keeps the page's layout still.

* ``with_progress_bar(text, work)``  run ``work(progress)`` under a bar that ``progress(done, total)``
                                     moves, gone afterwards;
* ``progress_bar(text)``             a bar to move by hand (``bar.progress(fraction, text=...)``);
* ``progress_slot()``                a block whose bars all go in one placeholder, drawn on every run;
* ``throttled(move)``                ``move(done, total)`` at most every ``BAR_SECONDS`` (and at the end).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
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
    always when done >= total (the first call is always made)."""
    last = -math.inf

    def moved(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done < total and now - last < BAR_SECONDS:
            return
        last = now
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
