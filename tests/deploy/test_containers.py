"""The container recipes run for real, with podman: compose (replicas + HAProxy) and `podman kube play`.

* **compose**: `podman-compose -f deploy/compose.yaml up -d` starts PostgreSQL (the db service), two
  replicas of the repository's image and HAProxy (deploy/haproxy.Dockerfile); every health check
  goes green, HAProxy finds both replicas through the network's DNS and its stats page wants the
  password; a class-session answer goes through PostgreSQL from one replica to the other; then
  tests/deploy/proxy_scenarios.py's scenarios run through it (an upload, a σ change, a download and a
  shared link; a stopped replica whose neighbour keeps serving), and `down` leaves no container,
  pod or network behind (the database's named volume stays, as it should; the test removes it).
* **Kubernetes**: `podman kube play` of deploy/kubernetes/db-secret.yaml, deployment.yaml and
  service.yaml starts the Deployment's pod with its probes and RBFVIZ_DATABASE_URL from the Secret;
  the app answers through the Service's port; `podman kube down` removes it. (The db StatefulSet,
  Ingress and HorizontalPodAutoscaler have no podman 4.3 equivalent: tests/deploy/test_deploy.py checks
  them against the Kubernetes schemas only.)

No registry is reachable on the project's machines: the images are built locally. The app image is
the Dockerfile built with the same command as CI's container smoke test (.ci/run, step 5: the CI
host's container-smoke tool, outside this repository), so after
CI's smoke test every layer comes from podman's cache; the bases are container-smoke's Debian
stand-in for python:3.11-slim and, for docker.io/library/haproxy:2.8 and compose's
docker.io/library/postgres:17, that stand-in with Debian's haproxy (laid out like the official image)
or Debian's PostgreSQL (tests/deploy/postgres_standin/: the official image's variables, data folder and
port). podman 4.3 here has no systemd to run health checks on
a timer, so the tests run each check themselves (`podman healthcheck run`); Docker runs them itself.

Marked `container` (and `e2e`): .ci/run runs them after the container smoke test. Without podman
they are skipped with the reason, except in CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
import yaml
from podman_tools import ARTIFACTS, DEPLOY, ROOT, podman
from proxy_scenarios import (
    metric_value,
    stopped_replica_leaves_the_others_working,
    upload_sigma_download_shared_link,
    wait_for,
)

from harness.ports import free_port

pytestmark = [pytest.mark.e2e, pytest.mark.container]

HEALTHY_TIMEOUT = 300


# --- compose --------------------------------------------------------------------------------------


class ComposeStack:
    """`podman-compose -f deploy/compose.yaml up -d` under a project name of its own, ports on 127.0.0.1."""

    def __init__(self, env: dict):
        self.project = f"rbfviz-test-{os.getpid()}"
        port, stats_port = free_port(), free_port()
        self.password = secrets.token_urlsafe(12)
        self.env = {
            **env,
            "RBFVIZ_PORT": f"127.0.0.1:{port}",
            "RBFVIZ_STATS_PORT": str(stats_port),
            "RBFVIZ_STATS_PASSWORD": self.password,
            "RBFVIZ_REPLICAS": "2",
        }
        self.url = f"http://127.0.0.1:{port}"
        self.stats_url = f"http://127.0.0.1:{stats_port}/stats"
        self.log = ARTIFACTS / "compose.log"
        ARTIFACTS.mkdir(exist_ok=True)
        self.log.write_text("")
        self.up = self.compose("up", "-d")
        assert self.up.returncode == 0, f"compose up failed (log {self.log})"
        self.containers = self.names("app")
        assert len(self.containers) == 2, self.containers
        (self.db,) = self.names("db")
        self.replicas = [{"name": name} for name in self.containers]

    def compose(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        cmd = [
            sys.executable,
            "-m",
            "podman_compose",
            "-p",
            self.project,
            "-f",
            str(DEPLOY / "compose.yaml"),
            *args,
        ]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=self.env)
        with self.log.open("a") as f:
            f.write(f"$ {' '.join(cmd[2:])}\n{proc.stdout}{proc.stderr}\n")
        return proc

    def names(self, service: str, every: bool = False) -> list[str]:
        args = ["ps", "--format", "{{.Names}}", "--filter", f"label=io.podman.compose.project={self.project}"]
        args += ["--filter", f"label=io.podman.compose.service={service}"] + (["-a"] if every else [])
        return sorted(podman(self.env, *args).stdout.split())

    def exec_python(self, container: str, code: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return podman(self.env, "exec", container, "python", "-c", code, timeout=timeout, check=False)

    def health(self, container: str) -> str:
        return podman(self.env, "inspect", container, "--format", "{{.State.Health.Status}}").stdout.strip()

    def stats(self) -> dict[str, dict]:
        """HAProxy's CSV stats of the backend's servers, by server name (with the password)."""
        login = base64.b64encode(f"admin:{self.password}".encode()).decode()
        request = urllib.request.Request(self.stats_url + ";csv", headers={"Authorization": f"Basic {login}"})
        with urllib.request.urlopen(request, timeout=10) as r:
            lines = r.read().decode().lstrip("# ").splitlines()
        header = lines[0].split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
        return {
            r["svname"]: r
            for r in rows
            if r["pxname"] == "streamlit" and r["svname"] not in ("FRONTEND", "BACKEND")
        }

    # --- what tests/deploy/proxy_scenarios.py needs ---

    def active(self) -> list[int | None]:
        code = (
            "import urllib.request as u; "
            "print(u.urlopen('http://127.0.0.1:8501/_stcore/metrics', timeout=10).read().decode())"
        )
        out = []
        for name in self.containers:
            proc = self.exec_python(name, code)
            out.append(
                metric_value(proc.stdout.splitlines(), "active_sessions") if proc.returncode == 0 else None
            )
        return out

    def put_to(self, index: int, path: str, xsrf: str) -> tuple[int, str]:
        code = (
            "import urllib.request as u, urllib.error as e\n"
            f"r = u.Request('http://127.0.0.1:8501{path}', data=b'', method='PUT', "
            f"headers={{'X-Xsrftoken': {xsrf!r}, 'Cookie': '_streamlit_xsrf=' + {xsrf!r}}})\n"
            "try:\n    x = u.urlopen(r, timeout=10); print(x.status); print(x.read().decode())\n"
            "except e.HTTPError as h:\n    print(h.code); print(h.read().decode())\n"
        )
        proc = self.exec_python(self.containers[index], code)
        assert proc.returncode == 0, proc.stderr
        status, _, body = proc.stdout.partition("\n")
        return int(status), body

    def stop_replica(self, index: int) -> None:
        podman(self.env, "stop", "-t", "10", self.containers[index], timeout=60)
        # HAProxy notices by its checks (the address also leaves the network's DNS)
        wait_for(lambda: self.replicas_up() == 1, "HAProxy to see one replica left", timeout=60)

    def replicas_up(self) -> int:
        return sum(s["status"] == "UP" for s in self.stats().values())

    def wait_healthy(self) -> None:
        """Every replica's health check passed and HAProxy sees every replica up."""

        # podman 4.3 runs no health checks by itself (no systemd): run each until it passes
        def all_healthy():
            for name in [self.db, *self.containers]:
                if self.health(name) != "healthy":
                    podman(self.env, "healthcheck", "run", name, check=False, timeout=60)
            return all(self.health(name) == "healthy" for name in [self.db, *self.containers])

        wait_for(
            all_healthy, "PostgreSQL's and every replica's health check to pass", timeout=HEALTHY_TIMEOUT
        )
        wait_for(
            lambda: self.replicas_up() == len(self.containers),
            "HAProxy to find every replica through DNS",
            timeout=120,
        )

    def restart_stopped(self) -> None:
        for name in self.containers:
            if podman(self.env, "inspect", name, "--format", "{{.State.Running}}").stdout.strip() != "true":
                podman(self.env, "start", name, timeout=120)
        self.wait_healthy()

    def replica_log(self, index: int) -> str:
        proc = podman(self.env, "logs", self.containers[index], check=False)
        return proc.stdout + proc.stderr

    def down(self) -> subprocess.CompletedProcess:
        """Save each container's log to artifacts/, then `down`."""
        for name in (
            self.names("app", every=True) + self.names("haproxy", every=True) + self.names("db", every=True)
        ):
            logs = podman(self.env, "logs", name, check=False)
            (ARTIFACTS / f"compose-{name}.log").write_text(logs.stdout + logs.stderr)
        return self.compose("down", "-t", "10", timeout=300)


@pytest.fixture(scope="module")
def compose(images, podman_env):
    """The stack, up and healthy, for the module; at the end `down` must leave nothing behind (checked
    here, so that it holds whatever order the tests run in)."""
    stack = ComposeStack(podman_env)
    try:
        stack.wait_healthy()
        yield stack
    finally:
        proc = stack.down()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [stack.names(service, every=True) for service in ("app", "haproxy", "db")] == [[], [], []]
    networks = podman(stack.env, "network", "ls", "--format", "{{.Name}}").stdout.split()
    assert not [n for n in networks if n.startswith(stack.project)], networks
    # the class sessions' volume outlives `down` (answers survive the stack), until removed on purpose
    volume = f"{stack.project}_rbfviz-db"
    assert podman(stack.env, "volume", "exists", volume, check=False).returncode == 0, volume
    podman(stack.env, "volume", "rm", volume)


def test_compose_starts_healthy_replicas_behind_haproxy_with_compression_and_stats(compose):
    compose.wait_healthy()
    assert [compose.health(name) for name in compose.containers] == ["healthy", "healthy"]
    with urllib.request.urlopen(compose.url + "/_stcore/health", timeout=10) as r:
        assert r.read() == b"ok"
    # the stats page: refused without the password, both replicas up with it
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(compose.stats_url, timeout=10)
    assert refused.value.code == 401
    assert compose.replicas_up() == 2
    # Streamlit's bundle comes precompressed from HAProxy's image
    index = urllib.request.urlopen(compose.url + "/", timeout=10).read().decode()
    bundle = index[index.index('src="./static/js/index.') + len('src=".') :].split('"')[0]
    request = urllib.request.Request(compose.url + bundle, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as r:
        assert r.headers.get("Content-Encoding") == "gzip"
    proxy_log = podman(compose.env, "logs", compose.names("haproxy")[0]).stderr
    assert "rbfviz static:" in proxy_log


def test_compose_a_class_answer_goes_through_postgresql_from_one_replica_to_the_other(compose):
    """The teacher's replica opens a question, a student on the other replica answers it, the teacher's
    replica counts it, and the row is in the db service's PostgreSQL: the replicas share one store."""

    def in_replica(index: int, code: str) -> list[str]:
        store = (
            "import os; from rbfviz.classroom.store import QuestionSpec, Store, new_student_id\n"
            "store = Store(os.environ['RBFVIZ_DATABASE_URL'])\n"
        )
        proc = compose.exec_python(compose.containers[index], store + code, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout.split()

    def in_postgres(sql: str) -> str:
        psql = ["psql", "-U", "rbfviz", "-d", "rbfviz", "-Atc", sql]
        return podman(compose.env, "exec", compose.db, *psql).stdout.strip()

    dialect, room, secret = in_replica(
        0,
        "room = store.create_room()\n"
        "spec = QuestionSpec('split', 'number', 0.5, low=0.0, high=2.0)\n"
        "store.open_question(room.code, room.secret, spec)\n"
        "print(store.dialect, room.code, room.secret)",
    )
    assert dialect == "postgresql" and room.isalnum()
    (stored,) = in_replica(
        1,
        f"student = new_student_id(); store.join({room!r}, student)\n"
        f"print(store.submit({room!r}, student, 'split', 0.75))",
    )
    assert float(stored) == 0.75
    answered, value = in_replica(0, f"t = store.tally({room!r}, {secret!r}); print(t.answered, *t.values)")
    assert (int(answered), float(value)) == (1, 0.75)
    rows = f"SELECT count(*), min(value) FROM rbfviz_answers WHERE room = '{room}'"
    assert in_postgres(rows) == "1|0.75"
    in_replica(0, f"store.clear_room({room!r}, {secret!r})")
    assert in_postgres(rows) == "0|"
    assert in_postgres(f"SELECT count(*) FROM rbfviz_rooms WHERE code = '{room}'") == "0"


def test_compose_a_student_upload_sigma_download_shared_link(compose, student, browser, browser_context_args):
    upload_sigma_download_shared_link(compose, student, browser, browser_context_args)


def test_compose_a_stopped_replica_leaves_the_other_replicas_students_working(
    compose, browser, browser_context_args
):
    try:
        stopped_replica_leaves_the_others_working(compose, browser, browser_context_args)
    finally:
        compose.restart_stopped()  # the next test finds both replicas again


# --- Kubernetes -----------------------------------------------------------------------------------


def test_kube_play_runs_the_deployment_with_its_probes_behind_the_service_port(images, podman_env, tmp_path):
    """The Deployment and Service of deploy/kubernetes/, with the database Secret, as podman 4.3 plays them.

    podman starts one pod per replica, but publishes a container port on the host at one fixed
    port, so two pods cannot both start; and it gives a Service no address of its own. So the
    played copy differs from the files in two places, both about this machine: one replica, and
    the Service's target port (the container's "http" port) published on a free loopback port,
    where a cluster's Service would answer. The probes, the non-root user, the read-only root and
    the emptyDir /tmp are played as written; the liveness probe becomes the container's health
    check (run here by hand: no systemd). RBFVIZ_DATABASE_URL comes from db-secret.yaml's Secret as
    written, made a podman secret by hand: podman 4.3 plays a Secret but stores it as YAML, which its
    own secretKeyRef then fails to read ("not valid JSON"); it reads a JSON object of the Secret's
    keys with base64 values (the Secret's `data`), so the test stores that. The PostgreSQL
    StatefulSet does not play in podman 4.3; the app connects only when a class session starts, so
    the pod starts and serves without it."""
    db_secret, deployment, service = (
        yaml.safe_load((DEPLOY / "kubernetes" / f"{name}.yaml").read_text())
        for name in ("db-secret", "deployment", "service")
    )
    (service_port,) = service["spec"]["ports"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    (target,) = [p for p in container["ports"] if p["name"] == service_port["targetPort"]]
    port = free_port()
    target["hostPort"], target["hostIP"] = port, "127.0.0.1"
    deployment["spec"]["replicas"] = 1
    played = tmp_path / "rbfviz.yaml"
    played.write_text(yaml.safe_dump_all([deployment, service]))
    env = podman_env
    secret_name = db_secret["metadata"]["name"]
    podman(env, "kube", "down", str(played), check=False)
    podman(env, "secret", "rm", secret_name, check=False)
    secret_data = {
        key: base64.b64encode(value.encode()).decode() for key, value in db_secret["stringData"].items()
    }
    (tmp_path / "db-secret.json").write_text(json.dumps(secret_data))
    podman(env, "secret", "create", secret_name, str(tmp_path / "db-secret.json"))
    up = podman(env, "kube", "play", str(played), timeout=300, check=False)
    pod = f"{deployment['metadata']['name']}-pod-0"
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        name = f"{pod}-{container['name']}"
        inspect = json.loads(podman(env, "inspect", name).stdout)[0]
        health = " ".join(inspect["Config"].get("Healthcheck", {}).get("Test", []))
        assert f"http://localhost:{container['livenessProbe']['httpGet']['port']}/_stcore/health" in health, (
            health
        )
        assert inspect["Config"]["User"] in ("10001", "10001:10001"), inspect["Config"]["User"]
        assert inspect["HostConfig"]["ReadonlyRootfs"] is True
        (url_from,) = [e["valueFrom"] for e in container["env"] if e["name"] == "RBFVIZ_DATABASE_URL"]
        assert url_from["secretKeyRef"]["name"] == secret_name
        url = podman(env, "exec", name, "printenv", "RBFVIZ_DATABASE_URL").stdout.strip()
        assert url == db_secret["stringData"][url_from["secretKeyRef"]["key"]]

        def answers():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5) as r:
                    return r.read() == b"ok"
            except OSError:
                return False

        wait_for(answers, "the app to answer on the Service's target port", timeout=HEALTHY_TIMEOUT)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert '<div id="root">' in r.read().decode()
        wait_for(
            lambda: podman(env, "healthcheck", "run", name, check=False, timeout=60).returncode == 0,
            "the liveness probe's health check to pass",
            timeout=120,
        )
        assert (
            podman(env, "inspect", name, "--format", "{{.State.Health.Status}}").stdout.strip() == "healthy"
        )
        # the app can write where it must (HOME=/tmp, the emptyDir) and nowhere else
        probe = (
            "import pathlib; pathlib.Path('/tmp/x').write_text('x'); pathlib.Path('/app/x').write_text('x')"
        )
        wrote = podman(env, "exec", name, "python", "-c", probe, check=False)
        assert wrote.returncode != 0 and "Read-only file system" in wrote.stderr, wrote.stderr
    finally:
        logs = podman(env, "logs", f"{pod}-{container['name']}", check=False)
        (ARTIFACTS / "kube-play.log").write_text(up.stdout + up.stderr + logs.stdout + logs.stderr)
        down = podman(env, "kube", "down", str(played), check=False, timeout=180)
        removed = podman(env, "secret", "rm", secret_name, check=False)
    assert down.returncode == 0, down.stdout + down.stderr
    assert podman(env, "pod", "exists", pod, check=False).returncode != 0
    assert removed.returncode == 0, removed.stderr
