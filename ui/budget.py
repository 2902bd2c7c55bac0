"""The work budget: a computation estimated above rbfviz.cost.BUDGET_S does not start by itself.

One student's heavy setting would hold the single app process for tens of seconds, so the page says
first what it would cost, why, and what fits, and computes only when the student presses
"Compute anyway". While it computes, a Cancel button stands where the notice was: a click ends the
page's run at the progress bar's next redraw (ui.progress.in_stages), the work stops at its next step,
nothing of it is kept, and the page asks again. A setting estimated above rbfviz.cost.CEILING_S is not
offered at all: one student would hold the process for minutes. A setting already computed (by anyone:
the stores are shared) is shown at once.

* ``within_budget(name, what, setting, seconds, advice, ready)`` a ``Decision``: true if the page may
  compute now (then a Cancel button is drawn if it is over budget); else it has drawn the notice and
  the button. ``decision.finished()`` once the computation is done takes the Cancel button away.
* ``smaller_setting(ctrl, estimate)`` what fits instead: fewer points, fewer centres or softmax
* ``COMPUTE_ANYWAY`` the sentence offering "Compute anyway", added to the advice when the button is there
"""

from __future__ import annotations

import time

import streamlit as st

from rbfviz import cost
from rbfviz.i18n import N_

from . import language
from . import session_keys as keys

COMPUTE_ANYWAY = N_("Or compute it anyway: a progress bar shows how far it is, and you can cancel it.")


class Decision:
    """Whether the page may compute (``bool(decision)``), and the Cancel button it drew, if any."""

    def __init__(self, allowed: bool, running=None):
        self.allowed = allowed
        self._running = running

    def __bool__(self) -> bool:
        return self.allowed

    def finished(self) -> None:
        """The computation is done (or was not needed): take the Cancel button away."""
        if self._running is not None:
            self._running.empty()
            self._running = None


def within_budget(
    name: str, what: str, setting: tuple, seconds: float, advice: str, ready: bool = False
) -> Decision:
    """True when ``setting`` is ``ready`` (computed already), or ``seconds`` (the estimated CPU cost of
    computing ``what`` for it) is within the budget, or this session has pressed "Compute anyway" for it
    (then a Cancel button, widget key "budget_<name>", is drawn here while it computes).
    Otherwise draw a warning that says the cost, why it is not started and ``advice`` (what fits
    instead), with the button (widget key "budget_<name>"), and return false; after a Cancel, say so
    above it. Above ``cost.CEILING_S`` there is no button: the warning says the server does not compute
    it. ``what`` and ``advice``: in the reader's language."""
    confirmed = st.session_state.setdefault(keys.BUDGET_CONFIRMED, set())
    if ready or seconds <= cost.BUDGET_S:
        return Decision(True)
    tr = language.current()
    if seconds > cost.CEILING_S:
        st.warning(
            tr(
                "**Not computed on this server: {what} would take about {seconds:.0f} s of its time**, more "
                "than the {ceiling:.0f} s it gives one setting, so that nobody holds it for minutes.",
                what=what,
                seconds=seconds,
                ceiling=cost.CEILING_S,
            )
            + (" " + advice if advice else ""),
            icon=":material/block:",
        )
        return Decision(False)
    notice = st.empty()  # the notice, then the Cancel button on the run that computes
    if setting in confirmed:
        return Decision(True, _running(notice, name, what, setting, seconds))
    with notice.container():
        cancelled = st.session_state.get(keys.BUDGET_CANCELLED)
        if cancelled is not None and cancelled[:2] == (name, setting):
            st.info(
                tr(
                    "**Cancelled after {elapsed:.0f} s:** {what} was stopped and nothing of it was kept. It "
                    "starts again only when you press *Compute anyway*.",
                    elapsed=cancelled[2],
                    what=what,
                ),
                icon=":material/block:",
            )
        st.warning(
            tr(
                "**Not started: {what} would take about {seconds:.0f} s of the server's time**, more than "
                "the {budget:.0f} s budget (estimated from n, k and the map). While it runs, the app "
                "answers everyone on this server more slowly.",
                what=what,
                seconds=seconds,
                budget=cost.BUDGET_S,
            )
            + (" " + advice if advice else "")
            + " "
            + tr(COMPUTE_ANYWAY),
            icon=":material/hourglass_empty:",
        )
        # confirmed in the callback, before the next run: that run draws the Cancel button at once, not
        # this notice first
        st.button(
            tr("Compute anyway (about {seconds:.0f} s)", seconds=seconds),
            key=f"budget_{name}",
            type="primary",
            on_click=_confirm,
            args=(setting,),
        )
    return Decision(False)


def _running(notice, name: str, what: str, setting: tuple, seconds: float):
    """Draw, in ``notice``, what is being computed and its Cancel button; return the placeholder."""
    tr = language.current()
    with notice.container():
        st.info(
            tr(
                "**Computing {what}: about {seconds:.0f} s of the server's time.** The progress bar below "
                "shows how far it is; *Cancel* stops it at once.",
                what=what,
                seconds=seconds,
            ),
            icon=":material/hourglass_empty:",
        )
        st.button(
            tr("Cancel"),
            # the same key as "Compute anyway": the browser then replaces that button at once, where a
            # button of another key would stay beside it, faded, until the run ends
            key=f"budget_{name}",
            on_click=_cancel,
            args=(name, setting, time.monotonic()),
        )
    return notice


def _confirm(setting: tuple) -> None:
    """The "Compute anyway" button's callback, run before the page's next run: compute this setting."""
    st.session_state.setdefault(keys.BUDGET_CONFIRMED, set()).add(setting)
    st.session_state.pop(keys.BUDGET_CANCELLED, None)


def _cancel(name: str, setting: tuple, started: float) -> None:
    """The Cancel button's callback, run before the page's next run: forget "Compute anyway" for the
    setting (so the page asks again) and remember the cancel, to say so."""
    st.session_state.setdefault(keys.BUDGET_CONFIRMED, set()).discard(setting)
    st.session_state[keys.BUDGET_CANCELLED] = (name, setting, time.monotonic() - started)


def smaller_setting(ctrl, estimate) -> str:
    """What to change so that a computation whose CPU seconds are ``estimate(n, k, kind)`` (one of
    rbfviz.cost's models) fits in the budget: fewer points, fewer centres, softmax; in the reader's
    language ("" when nothing smaller fits)."""
    tr = language.current()
    ways = []
    n_fit = cost.largest_within(cost.BUDGET_S, lambda n: estimate(n, ctrl.k, ctrl.kind), ctrl.k + 1, ctrl.n)
    if n_fit is not None and n_fit < ctrl.n:
        ways.append(tr("**n ≤ {n:,}** points", n=n_fit))
    k_fit = cost.largest_within(cost.BUDGET_S, lambda k: estimate(ctrl.n, k, ctrl.kind), 2, ctrl.k)
    if k_fit is not None and k_fit < ctrl.k:
        ways.append(tr("**k ≤ {k}** clusters", k=k_fit))
    softmax = estimate(ctrl.n, ctrl.k, "softmax")
    if ctrl.kind != "softmax" and softmax <= cost.BUDGET_S:
        ways.append(tr("the **softmax** map (about {seconds:.0f} s)", seconds=softmax))
    return tr("Within the budget: {ways} (in the sidebar).", ways=tr(", or ").join(ways)) if ways else ""
