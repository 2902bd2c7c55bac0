"""The app's settings: every ``RBFVIZ_*`` environment variable the app reads, read here and nowhere
else, each checked with a message that says what was wrong and what is allowed.

    from ui import settings
    settings.current().public_url        # a Settings, read from os.environ (once per environment)

``VARIABLES`` lists each variable: its name, meaning, default and allowed values. The operator's page
(docs/deploy/operator.md) has the same table, and tests/unit/test_settings.py keeps the two in step. An
unset variable and an empty one (compose passes ``${NAME:-}``) both mean the default.

A bad value stops the app with one message listing every problem, never a traceback: ``at_start_up()``
(called once by ui/__init__.py) writes it to the server's log, and shows it on the page instead of the
page. ``python -m ui`` prints the settings the app would run with, or the message (exit 2):
deploy/run-local runs it before it starts the replicas.

The library (rbfviz/) reads no environment: this module passes its values as arguments (the process
tuning's torch threads, allocator and collector; the class store's URL and how long rooms live).
Variables that only the tests, the benchmarks, CI or HAProxy read are not here; the operator's page
lists HAProxy's.
"""

from __future__ import annotations

import math
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rbfviz.validate import check_public_url

PREFIX = "RBFVIZ_"


@dataclass(frozen=True)
class Settings:
    """What the app runs with, every value checked (see ``VARIABLES`` for each one's meaning)."""

    database_url: str  # an SQLAlchemy URL: sqlite:///… or postgresql://…
    data_dir: Path  # where the SQLite file goes when no database_url is set
    class_ttl_hours: float  # > 0
    public_url: str | None  # http(s)://host[/path], no trailing "/"; None: the teacher's own address
    replica_name: str  # in the session log lines
    torch_threads: int  # >= 1
    malloc_tuning: bool
    gc_seconds: float  # >= 0; 0: no collector thread
    test_hold_rest: Path | None  # test-only (ui/hold_rest.py)


class SettingsError(ValueError):
    """One or more RBFVIZ_* variables have a value the app cannot run with; the message lists each."""


@dataclass(frozen=True)
class Variable:
    """One environment variable: ``parse(text)`` turns its set value (stripped, not empty) into the
    setting, or raises ValueError; the message then says ``allowed``."""

    name: str
    field: str  # its Settings attribute
    meaning: str
    default: str
    allowed: str
    parse: Callable[[str], object]
    secret: bool = False  # never echo the value back (it may hold a password)


# --- parsers: text -> value, ValueError when the value is not allowed --------------------------------


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _positive_number(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise ValueError(text)
    return value


def _non_negative_number(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise ValueError(text)
    return value


MAX_TORCH_THREADS = 256


def _thread_count(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_TORCH_THREADS:
        raise ValueError(text)
    return value


def _switch(text: str) -> bool:
    if text not in ("0", "1"):
        raise ValueError(text)
    return text == "1"


def _database_url(text: str) -> str:
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        backend = make_url(text).get_backend_name()
    except ArgumentError:
        raise ValueError(text) from None
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(text)
    return text


def _folder(text: str) -> Path:
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise ValueError(text)
    return path


MAX_REPLICA_NAME = 64


def _replica_name(text: str) -> str:
    if len(text) > MAX_REPLICA_NAME or any(ch.isspace() or not ch.isprintable() for ch in text):
        raise ValueError(text)
    return text


def _path(text: str) -> Path:
    return Path(text)


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "RBFVIZ_DATABASE_URL",
        "database_url",
        "the class sessions' store (rooms, questions, answers), shared by every replica",
        "an SQLite file in RBFVIZ_DATA_DIR",
        "an SQLAlchemy URL of SQLite (sqlite:///PATH) or PostgreSQL (postgresql://USER:PASSWORD@HOST:PORT/DB)",
        _database_url,
        secret=True,
    ),
    Variable(
        "RBFVIZ_DATA_DIR",
        "data_dir",
        "the folder of the SQLite file (classroom.sqlite3) when RBFVIZ_DATABASE_URL is not set",
        "the temporary folder's rbfviz/ (/tmp/rbfviz)",
        "a folder path (created if missing; not an existing file)",
        _folder,
    ),
    Variable(
        "RBFVIZ_CLASS_TTL_HOURS",
        "class_ttl_hours",
        "how long a class room and its answers are kept after the room was made",
        "24",
        "a positive number of hours (e.g. 24 or 1.5)",
        _positive_number,
    ),
    Variable(
        "RBFVIZ_PUBLIC_URL",
        "public_url",
        "the address students reach, for the room's join link and QR code, when a proxy hides it from the "
        "app",
        "the address of the teacher's own browser",
        "an http:// or https:// address with a host, optionally a path (no ? or #)",
        check_public_url,
    ),
    Variable(
        "RBFVIZ_REPLICA_NAME",
        "replica_name",
        "this process's name in the session log lines (deploy/run-local sets app1..N)",
        "the host name (a container's or pod's name)",
        f"up to {MAX_REPLICA_NAME} printable characters without spaces",
        _replica_name,
    ),
    Variable(
        "RBFVIZ_TORCH_THREADS",
        "torch_threads",
        "threads of torch's pool and of OpenMP (scikit-learn's K-Means) in each app process (sessions share "
        "the cores); an OMP_NUM_THREADS of the environment stands for OpenMP",
        "1",
        f"an integer from 1 to {MAX_TORCH_THREADS}",
        _thread_count,
    ),
    Variable(
        "RBFVIZ_MALLOC_TUNING",
        "malloc_tuning",
        "whether glibc keeps freed temporaries (up to 64 MB) for reuse instead of returning them to the OS",
        "1",
        "1 (tune) or 0 (leave the allocator alone)",
        _switch,
    ),
    Variable(
        "RBFVIZ_GC_SECONDS",
        "gc_seconds",
        "seconds between the app's full garbage collections (in place of Streamlit's after every run)",
        "60",
        "a number of seconds >= 0 (0: no collection thread)",
        _non_negative_number,
    ),
    Variable(
        "RBFVIZ_TEST_HOLD_REST",
        "test_hold_rest",
        "tests only: while the file it names exists, a new setting's other σ levels wait (ui/hold_rest.py)",
        "unset: nothing waits",
        "a file path",
        _path,
    ),
)

VARIABLE_NAMES = tuple(v.name for v in VARIABLES)


def _defaults() -> dict[str, object]:
    return {
        "data_dir": Path(tempfile.gettempdir()) / "rbfviz",
        "class_ttl_hours": 24.0,
        "public_url": None,
        "replica_name": socket.gethostname(),
        "torch_threads": 1,
        "malloc_tuning": True,
        "gc_seconds": 60.0,
        "test_hold_rest": None,
    }


def read(environ: Mapping[str, str]) -> Settings:
    """The settings from an environment (a mapping of names to values); raises SettingsError naming
    every variable whose value is not allowed."""
    values = _defaults()
    problems = []
    for variable in VARIABLES:
        text = environ.get(variable.name, "").strip()
        if not text:
            continue
        try:
            values[variable.field] = variable.parse(text)
        except ValueError:
            shown = "(not shown: it may hold a password)" if variable.secret else repr(text)
            problems.append(f"{variable.name} must be {variable.allowed}; it is {shown}.")
    if problems:
        count = len(problems)
        which = "an environment variable has" if count == 1 else f"{count} environment variables have"
        raise SettingsError(
            f"The app cannot start: {which} a value it cannot use.\n"
            + "\n".join(f"- {p}" for p in problems)
            + "\nUnset a variable, or leave it empty, for its default (docs/deploy/operator.md lists them)."
        )
    values.setdefault("database_url", f"sqlite:///{values['data_dir'] / 'classroom.sqlite3'}")
    return Settings(**values)


def current() -> Settings:
    """The settings from os.environ, read and checked once per distinct set of RBFVIZ_* values (a
    process's environment does not change; a test that sets a variable sees it at once)."""
    return _read_once(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(PREFIX))))


@lru_cache(maxsize=4)
def _read_once(items: tuple[tuple[str, str], ...]) -> Settings:
    return read(dict(items))


_reported: set[str] = set()


def default_openmp_threads(threads: int) -> None:
    """OMP_NUM_THREADS = threads for OpenMP (scikit-learn's K-Means), unless the environment sets it, as
    the Dockerfile does. OpenMP reads it once, when torch or scikit-learn first loads it: call this before.
    It is the one setting that reaches the threads Streamlit runs each script in (a limit set at run time
    holds only in the thread that set it), and two threads per fit on a busy 2-core machine made a 2 ms
    fit take up to a second."""
    os.environ.setdefault("OMP_NUM_THREADS", str(int(threads)))


def at_start_up() -> Settings:
    """``current()``, or stop with its message: in a Streamlit script run the page shows it (st.error,
    no traceback) and the server's log gets it once; anywhere else the process exits with it (code 2)."""
    try:
        return current()
    except SettingsError as exc:
        message = str(exc)
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        print(message, file=sys.stderr)
        raise SystemExit(2)
    import streamlit as st

    if message not in _reported:
        _reported.add(message)
        print(message, file=sys.stderr, flush=True)
    st.error(message)
    st.stop()
    raise AssertionError("st.stop() returned")  # pragma: no cover - st.stop raises


def describe(settings: Settings) -> str:
    """The settings as lines ``NAME = value`` (the database URL without its password)."""
    from sqlalchemy.engine import make_url

    lines = []
    for variable in VARIABLES:
        value = getattr(settings, variable.field)
        if variable.field == "database_url":
            value = make_url(value).render_as_string(hide_password=True)
        elif isinstance(value, bool):
            value = int(value)
        lines.append(f"{variable.name} = {value if value is not None else '(unset)'}")
    return "\n".join(lines)
