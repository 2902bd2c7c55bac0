"""The work budget: a computation estimated above rbfviz.cost.BUDGET_S does not start by itself.

One student's heavy setting would hold the single app process for tens of seconds, so the page says
first what it would cost, why, and what fits, and computes only when the student presses
"Compute anyway". A setting already computed (by anyone: the stores are shared) is shown at once.

* ``within_budget(name, what, setting, seconds, advice)`` True if the page may compute now; else it has drawn
  the notice and the button and returns False
"""

from __future__ import annotations

import streamlit as st

from rbfviz import cost

from . import language
from . import session_keys as keys


def within_budget(name: str, what: str, setting: tuple, seconds: float, advice: str) -> bool:
    """True when ``seconds`` (the estimated CPU cost of computing ``what`` for ``setting``) is within the
    budget, or this session has pressed "Compute anyway" for this setting. Otherwise draw a warning that
    says the cost, why it is not started and ``advice`` (what to change), with the button (widget key
    "budget_<name>"), and return False. ``what`` and ``advice``: in the reader's language."""
    confirmed = st.session_state.setdefault(keys.BUDGET_CONFIRMED, set())
    if seconds <= cost.BUDGET_S or setting in confirmed:
        return True
    tr = language.current()
    notice = st.empty()  # emptied on the run that computes, so the warning does not stay above the figures
    with notice.container():
        st.warning(
            tr(
                "**Not started: {what} would take about {seconds:.0f} s of the server's time**, more than "
                "the {budget:.0f} s budget (estimated from n, k and the map). While it runs, the app "
                "answers everyone on this server more slowly.",
                what=what,
                seconds=seconds,
                budget=cost.BUDGET_S,
            )
            + " "
            + advice,
            icon=":material/hourglass_empty:",
        )
        pressed = st.button(
            tr("Compute anyway (about {seconds:.0f} s)", seconds=seconds),
            key=f"budget_{name}",
            type="primary",
        )
    if pressed:
        confirmed.add(setting)
        notice.empty()
    return pressed
