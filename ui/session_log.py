"""One log line when a browser session starts on this app process and one when it ends, with the
replica's name, so whoever runs the class can see how the students spread over the replicas.

    2026-12-01 14:05:09 rbfviz session start replica=app2 session=5d0c… sessions=17
    2026-12-01 14:52:40 rbfviz session end replica=app2 session=5d0c… seconds=2851 sessions=16

The replica's name is RBFVIZ_REPLICA_NAME (ui.settings; deploy/run-local sets app1..N, HAProxy's names
for them), else the host name (a container's or a pod's name). "End" is when the browser's websocket
goes (tab closed, network gone, replica stopping): Streamlit then releases the session's
session-scoped resources, and this module's one resource logs as it goes. A browser that
reconnects later logs a new start.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import settings

log = logging.getLogger("rbfviz.sessions")
if not log.handlers:  # Streamlit configures only its own loggers: this one writes to stderr itself
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("%(asctime)s rbfviz %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(_handler)
    log.setLevel(logging.INFO)
    log.propagate = False

_open = 0
_lock = threading.Lock()


@dataclass(frozen=True)
class _Session:
    session_id: str
    replica: str
    started: float  # time.monotonic() at the session's first script run


def _count(change: int) -> int:
    global _open
    with _lock:
        _open += change
        return _open


def _end(session: _Session) -> None:
    log.info(
        "session end replica=%s session=%s seconds=%.0f sessions=%d",
        session.replica,
        session.session_id,
        time.monotonic() - session.started,
        _count(-1),
    )


@st.cache_resource(scope="session", on_release=_end, show_spinner=False)
def _start() -> _Session:
    ctx = get_script_run_ctx()
    session_id = ctx.session_id if ctx is not None else "-"
    session = _Session(session_id, settings.current().replica_name, time.monotonic())
    log.info("session start replica=%s session=%s sessions=%d", session.replica, session_id, _count(+1))
    return session


def track_session() -> None:
    """Log this session's start (once per session; its end is logged when it goes)."""
    _start()
