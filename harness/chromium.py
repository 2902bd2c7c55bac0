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

# The browser contexts the browser tests look at a page in: a phone (touch, 390 × 844) and a laptop.
BROWSER_SIZES = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    "laptop": {"viewport": {"width": 1366, "height": 768}},
}


def missing_chromium() -> str | None:
    """Why there is no usable Chromium at CHROMIUM_PATH (a sentence for a skip or a failure), or None."""
    path = chromium_path()
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return None
    return (
        f"no Chromium at {path} (set CHROMIUM_PATH, or `apt-get install -y chromium`); "
        "Playwright's own browser download is not used"
    )
