"""Test-only: hold back the rest of a new setting's σ levels while a file exists.

A browser test (tests/e2e/test_e2e_scrub_parts.py) must see a first part drawn before the rest
replaces it, whatever the machine's speed. Its servers get ``RBFVIZ_TEST_HOLD_REST`` (``ENV``) naming a
file the test creates; while that file exists, a rest waits before it is built. Unset (everywhere
outside those servers), nothing waits. ui.settings reads the variable.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from . import settings

ENV = "RBFVIZ_TEST_HOLD_REST"
MAX_SECONDS = 600.0  # a test that never deletes its file does not hold a server for ever


def hold_rest_for_a_test(still_waiting: Callable[[], None], every: float) -> None:
    """While the file named by ``RBFVIZ_TEST_HOLD_REST`` exists, wait; ``still_waiting()`` every
    ``every`` seconds is a yield point (a new setting can interrupt the run meanwhile)."""
    path = settings.current().test_hold_rest
    if path is None:
        return
    deadline = time.monotonic() + MAX_SECONDS
    while path.exists() and time.monotonic() < deadline:
        still_waiting()
        time.sleep(every)
