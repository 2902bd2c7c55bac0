"""The code is formatted and linted as pyproject.toml's [tool.ruff] says (line length 110)."""

import subprocess
import sys
from pathlib import Path

from hang import HANG_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
    )


def test_ruff_lint_is_clean():
    proc = ruff("check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def test_ruff_format_is_applied():
    proc = ruff("format", "--check", ".")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
