"""The environment variables of the tests and benchmarks, read in this one place.

The app's own RBFVIZ_* variables are read by ui/settings.py; these only change how tests and benchmarks
run (docs/contribute/tests.md lists them). Each is read when asked for, so a test may set one first.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository
APP = ROOT / "app.py"
ARTIFACTS = ROOT / "artifacts"  # screenshots, server logs and reports of a test run (not committed)
DOCS_SITE = ROOT / "static" / "docs"  # the built documentation (`mkdocs build`), served by the app


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: expected a number of seconds, e.g. {name}={default:g}") from None
    if not value > 0:
        raise ValueError(f"{name}={raw!r}: expected a positive number of seconds")
    return value


def _flag(name: str) -> bool:
    raw = os.environ.get(name, "")
    if raw not in ("", "0", "1"):
        raise ValueError(f"{name}={raw!r}: expected 1 (on) or 0 (off)")
    return raw == "1"


def test_timeout_s() -> float:
    """RBFVIZ_TEST_TIMEOUT (seconds, default 600): the bound of an AppTest script run and of a test's
    subprocess. It only catches a hang: a heavy page on a loaded 2-core machine has taken over 120 s."""
    return _seconds("RBFVIZ_TEST_TIMEOUT", 600.0)


def e2e_timeout_s() -> float:
    """RBFVIZ_E2E_TIMEOUT (seconds, default 300): the bound of every wait in a browser test, of
    Playwright's expect() and of a server's start. It only catches a hang."""
    return _seconds("RBFVIZ_E2E_TIMEOUT", 300.0)


def require_browser() -> bool:
    """RBFVIZ_REQUIRE_BROWSER=1 (CI): a missing Chromium, axe-core or HAProxy fails the tests that need
    it instead of skipping them; a browser test must never pass without a browser."""
    return _flag("RBFVIZ_REQUIRE_BROWSER")


def in_ci() -> bool:
    """CI=true (set by .ci/run and CI services): what a test needs must be there, no skip."""
    return os.environ.get("CI", "") not in ("", "0", "false")


def chromium_path() -> str:
    """CHROMIUM_PATH (default /usr/bin/chromium): Debian's Chromium; Playwright's download is not used."""
    return os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"


def axe_js() -> str | None:
    """RBFVIZ_AXE_JS: the path of axe-core's axe.min.js (.ci/run installs it); unset, the accessibility
    audit installs it with npm on first use."""
    return os.environ.get("RBFVIZ_AXE_JS") or None


def screenshot_every_test() -> bool:
    """RBFVIZ_E2E_SCREENSHOTS=all: a screenshot of every browser test's last state, not only of a failed
    test's (artifacts/screenshots/<test name>.png)."""
    raw = os.environ.get("RBFVIZ_E2E_SCREENSHOTS", "")
    if raw not in ("", "all", "failed"):
        raise ValueError(f"RBFVIZ_E2E_SCREENSHOTS={raw!r}: expected all or failed (the default)")
    return raw == "all"
