"""The container image serves the documentation site it built (Dockerfile's docs stage): the Home page's
link target answers with the site, the tour notebook executed, the reproduce tables computed.

Runs the image the fixture ``images`` (tests/deploy/conftest.py) builds (as CI's container smoke test,
.ci/run step 5, does, so its layers come from podman's cache), read-only with a tmpfs /tmp as deployed,
on a free loopback port."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request

import pytest
from podman_tools import podman

from harness.ports import free_port

pytestmark = [pytest.mark.e2e, pytest.mark.container]

START_TIMEOUT = 300  # s: the first page run imports torch; only a hang detector


def _get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode("utf-8", "replace")


def test_the_image_serves_the_documentation_it_built(images, podman_env):
    port = free_port()
    name = f"rbfviz-docs-{os.getpid()}"
    podman(podman_env, "rm", "-f", name, check=False)
    podman(
        podman_env,
        "run", "-d", "--name", name, "-p", f"127.0.0.1:{port}:8501", "--read-only", "--tmpfs", "/tmp",
        images["app"],
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                if _get(base + "/_stcore/health")[2] == "ok":
                    break
            except (urllib.error.URLError, OSError):
                pass
            assert time.monotonic() < deadline, podman(podman_env, "logs", name, check=False).stderr[-3000:]
            time.sleep(1)

        status, kind, home = _get(base + "/app/static/docs/index.html")
        assert status == 200 and kind.startswith("text/html")
        assert "<title>rbfviz</title>" in home and "Teach with it" in home
        # the notebook was executed while the image was built: its Plotly figures are in the page
        status, kind, tour = _get(base + "/app/static/docs/library/tour.html")
        assert status == 200 and kind.startswith("text/html") and "Plotly.newPlot" in tour
        # and rbfviz reproduce filled the claims' tables
        claims = _get(base + "/app/static/docs/maths/claims.html")[2]
        assert "<td>blobs (4)</td>" in claims and "<!-- reproduce:" not in claims
    finally:
        podman(podman_env, "rm", "-f", name, check=False)
