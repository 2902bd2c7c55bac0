"""Fixtures of the deploy tests: podman's environment and the images the container tests run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from podman_tools import (
    APP_IMAGE,
    DEPLOY,
    HAPROXY_BASE,
    HAPROXY_STANDIN,
    POSTGRES_STANDIN,
    PROXY_IMAGE,
    PYTHON_BASE,
    build,
    podman,
)

from harness.settings import ROOT, in_ci


@pytest.fixture(scope="session")
def podman_env() -> dict:
    """The environment podman runs with: container-smoke's containers.conf (runc, cgroupfs)."""
    if shutil.which("podman") is None:
        reason = "no podman (apt-get install podman runc; CI installs it for the container smoke test)"
        if in_ci():
            pytest.fail(f"CI but {reason}")
        pytest.skip(reason)
    state = Path(
        os.environ.get("CONTAINER_SMOKE_STATE")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "container-smoke"
    )
    conf = state / "containers.conf"
    if not conf.is_file():  # the same settings container-smoke writes
        conf = Path(tempfile.mkdtemp(prefix="rbfviz-podman-")) / "containers.conf"
        conf.write_text(
            '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n'
        )
    return {**os.environ, "CONTAINERS_CONF": str(conf)}


@pytest.fixture(scope="session")
def images(podman_env) -> dict:
    """The app image, the HAProxy stand-in base and compose's HAProxy image, built here if needed."""
    env = podman_env
    if podman(env, "image", "exists", PYTHON_BASE, check=False).returncode != 0:
        reason = f"no {PYTHON_BASE} stand-in image: run CI's container smoke test first (.ci/run, step 5)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    # as container-smoke builds it (same options, same wheel folder), so its layers are reused
    wheels = (
        os.environ.get("PIP_FIND_LINKS")
        or subprocess.run(
            [sys.executable, "-m", "pip", "config", "get", "global.find-links"],
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    mount = ["-v", f"{wheels}:/wheels:ro"] if wheels and Path(wheels).is_dir() else []
    build(env, APP_IMAGE, *mount, str(ROOT))
    if podman(env, "image", "exists", HAPROXY_BASE, check=False).returncode != 0:
        context = Path(tempfile.mkdtemp(prefix="rbfviz-haproxy-standin-"))
        (context / "Containerfile").write_text(HAPROXY_STANDIN)
        build(env, HAPROXY_BASE, str(context))
    build(env, PROXY_IMAGE, "-f", str(DEPLOY / "haproxy.Dockerfile"), str(ROOT))
    db_image = yaml.safe_load((DEPLOY / "compose.yaml").read_text())["services"]["db"]["image"]
    if podman(env, "image", "exists", db_image, check=False).returncode != 0:
        build(env, db_image, str(POSTGRES_STANDIN))
    return {"app": APP_IMAGE, "proxy": PROXY_IMAGE, "db": db_image}
