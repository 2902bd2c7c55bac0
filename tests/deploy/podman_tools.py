"""podman for the container tests (tests/deploy/test_containers.py, test_container_docs.py): the images
they run, built as CI's container smoke test builds them (.ci/run, step 5: the CI host's
container-smoke tool, outside this repository) so that its layers are reused."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from harness.settings import ARTIFACTS, ROOT

DEPLOY = ROOT / "deploy"
APP_IMAGE = "localhost/rbfviz:latest"  # compose's and the manifests' "rbfviz:latest", found locally
PROXY_IMAGE = "localhost/rbfviz-haproxy:latest"
PYTHON_BASE = "docker.io/library/python:3.11-slim"  # container-smoke's stand-in
HAPROXY_BASE = "docker.io/library/haproxy:2.8"
HAPROXY_STANDIN = f"""\
FROM {PYTHON_BASE}
RUN apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy \\
 && apt-get clean && rm -rf /var/lib/apt/lists/* && mkdir -p /usr/local/etc/haproxy
WORKDIR /var/lib/haproxy
USER haproxy
STOPSIGNAL SIGUSR1
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
"""
POSTGRES_STANDIN = Path(__file__).with_name("postgres_standin")  # a Debian stand-in for postgres:17
BUILD_TIMEOUT = 1800  # seconds: a first build of the app image on a busy 2-core machine


def podman(env: dict, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["podman", "--runtime", "runc", *args], capture_output=True, text=True, timeout=timeout, env=env
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"podman {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
        )
    return proc


def build(env: dict, tag: str, *args: str) -> None:
    log = ARTIFACTS / f"podman-build-{tag.split('/')[-1].replace(':', '-')}.log"
    ARTIFACTS.mkdir(exist_ok=True)
    t0 = time.monotonic()
    proc = podman(
        env,
        "build",
        "--network",
        "host",
        "--pull=never",
        "-t",
        tag,
        *args,
        timeout=BUILD_TIMEOUT,
        check=False,
    )
    log.write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, f"podman build {tag} failed (log {log}):\n{proc.stderr[-3000:]}"
    print(f"\nbuilt {tag} in {time.monotonic() - t0:.0f} s")
