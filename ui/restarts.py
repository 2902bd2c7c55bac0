"""The Annealing view's race of restarts against annealing (rbfviz.restarts), cached and run on request.

``race(ctrl, n)`` is cached per (data, k, N, seed) and shared between sessions (about half a second for
N = 50 on 500 points, a few seconds for N = 200). The panel runs it only when asked (a button), so opening
the Annealing view never pays for it; the session remembers the N it asked for (``keys.RACE``) until the
data or k change.
"""

from __future__ import annotations

import streamlit as st

from rbfviz import restarts

from . import compute, language
from . import session_keys as keys

N_DEFAULT = 50


@st.cache_data(max_entries=32, ttl=compute.TTL, show_spinner=False)
def _race(key: compute.DataKey, k: int, n_restarts: int):
    X, _ = key.points("float64")
    return restarts.race(X, k, n_restarts, seed=key.seed)


def race(ctrl, n_restarts: int) -> restarts.Race:
    """The race on ctrl's data and k, in float64 (the restarts' J are scikit-learn's float64 inertia)."""
    tr = language.current()
    with st.spinner(tr("Running the restarts and one annealing run…")):
        return _race(compute._key(ctrl), ctrl.k, int(n_restarts))


def requested(ctrl) -> int | None:
    """The N this session asked for on these data and k, or None."""
    asked = st.session_state.get(keys.RACE)
    return asked[1] if asked and asked[0] == (ctrl.data_key(), ctrl.k) else None


def request(ctrl, n_restarts: int) -> None:
    st.session_state[keys.RACE] = ((ctrl.data_key(), ctrl.k), int(n_restarts))
