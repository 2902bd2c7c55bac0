"""Debian's Chromium as the tests, the benchmarks and the screenshot script launch it (never
Playwright's own browser download)."""

from __future__ import annotations

import os

from harness.settings import chromium_path

# headless in a container or on a shared machine: no sandbox (root), no GPU, /tmp instead of a small
# /dev/shm, and none of Chromium's own network traffic (updates, sync, field trials)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing_chromium() -> str | None:
    """Why there is no usable Chromium at CHROMIUM_PATH (a sentence for a skip or a failure), or None."""
    path = chromium_path()
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    return (
        f"no Chromium at {path} (set CHROMIUM_PATH, or `apt-get install -y chromium`); "
        "Playwright's own browser download is not used"
    )
