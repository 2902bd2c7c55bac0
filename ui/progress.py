"""Progress bars of the app's long computations, and a slot that keeps the page's layout still.

* ``with_progress_bar(text, work)``  run ``work(progress)`` under a bar that ``progress(done, total)``
                                     moves, gone afterwards;
* ``progress_bar(text)``             a bar to move by hand (``bar.progress(fraction, text=...)``);
* ``progress_slot()``                a block whose bars all go in one placeholder, drawn on every run.
"""

from __future__ import annotations

import contextlib
import contextvars

import streamlit as st

from . import language

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

    def progress(done: int, total: int) -> None:
        bar.progress(
            min(done / max(total, 1), 1.0),
            text=tr("{what}: {done} of {total}…", what=text, done=done, total=total),
        )

    try:
        return work(progress)
    finally:
        bar.empty()
