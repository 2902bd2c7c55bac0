"""deploy/: the HAProxy config, the compose file and the Kubernetes manifests, checked offline.

* `haproxy -c -f deploy/haproxy.cfg` in each way it is used: run-local (one or several replicas
  from RBFVIZ_APP1..N, with the stats page) and compose (replicas from DNS). Plus the settings the
  classroom needs: cookie affinity, health checks on /_stcore/health, a websocket timeout longer
  than a 90-minute lesson, a connection cap per replica.
* deploy/compose.yaml against the Compose Specification's JSON schema (check-jsonschema's vendored
  copy), both as written and as podman-compose resolves it (`podman-compose --dry-run config`,
  variables filled in); and the read-only app service scaled to N replicas behind HAProxy.
* deploy/kubernetes/*.yaml against the Kubernetes 1.37 schemas (kubernetes-validate --strict,
  offline), and what they must say: probes, non-root, read-only root, cookie affinity, timeouts.

No container engine or cluster is involved: these are static checks (the browser and load tests
through a real HAProxy are in tests/deploy/test_proxy.py). A validator that accepts a broken file
would make them worthless, so each is also shown one broken file that it must refuse.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hang import HANG_TIMEOUT_S

from harness.settings import in_ci

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
HAPROXY_CFG = DEPLOY / "haproxy.cfg"
COMPOSE = DEPLOY / "compose.yaml"
KUBERNETES = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
INGRESS_NGINX_CONFIG = DEPLOY / "kubernetes" / "ingress-nginx" / "controller-configmap.yaml"
LESSON_SECONDS = 90 * 60


def run(*cmd: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
        env=None if env is None else {**os.environ, **env},
    )


# --- HAProxy --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def haproxy() -> str:
    path = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None
    )
    if path is None:
        if in_ci():
            pytest.fail("CI but no haproxy on PATH (.ci/run installs Debian's haproxy)")
        pytest.skip("no haproxy on PATH (apt-get install haproxy)")
    return path


def _clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("RBFVIZ_")}


def haproxy_check(haproxy: str, config: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """``haproxy -c`` (check the configuration, start nothing) of ``config`` with ``env`` set."""
    return subprocess.run(
        [haproxy, "-c", "-f", str(config)],
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
        env={**_clean_env(), **(env or {})},
    )


@pytest.mark.parametrize(
    "env",
    [
        {},  # the defaults alone
        {
            "RBFVIZ_BIND": "127.0.0.1:18080",
            "RBFVIZ_APP1": "127.0.0.1:18501",
            "RBFVIZ_APP2": "127.0.0.1:18502",
            "RBFVIZ_STATS_BIND": "127.0.0.1:18404",
            "RBFVIZ_STATS_PASSWORD": "a password",
            "RBFVIZ_MAXCONN": "60",
            "RBFVIZ_STATIC_DIR": "PRECOMPRESSED",
        },  # run-local, 2 processes
        {
            "RBFVIZ_BIND": ":8080",
            "RBFVIZ_APP_DNS": "app:8501",
            "RBFVIZ_STATS_BIND": ":8404",
            "RBFVIZ_STATS_PASSWORD": "a password",
            "RBFVIZ_STATIC_DIR": "PRECOMPRESSED",
        },  # compose
    ],
    ids=["defaults", "run-local", "compose"],
)
def test_haproxy_accepts_the_config(haproxy, env, precompressed):
    env = {k: str(precompressed) if v == "PRECOMPRESSED" else v for k, v in env.items()}
    proc = haproxy_check(haproxy, HAPROXY_CFG, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Configuration file is valid" in proc.stdout + proc.stderr
    assert "WARNING" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def precompressed(tmp_path_factory) -> Path:
    """deploy/precompress's output for two small files (the real run takes a minute of CPU)."""
    source = tmp_path_factory.mktemp("static")
    (source / "js").mkdir()
    (source / "js" / "index.abc123.js").write_text("const a = 1;\n" * 200)
    (source / "css").mkdir()
    (source / "css" / "index.def456.css").write_text("body { margin: 0 }\n" * 100)
    (source / "media").mkdir()
    (source / "media" / "font.woff2").write_bytes(bytes(range(256)) * 20)  # never compressed again
    out = tmp_path_factory.mktemp("precompressed")
    proc = run(sys.executable, str(DEPLOY / "precompress"), str(out), "--source", str(source))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_precompress_writes_smaller_files_and_a_manifest(precompressed):
    import gzip

    rows = [line.split("\t") for line in (precompressed / "manifest.tsv").read_text().splitlines()]
    assert {r[0] for r in rows} == {"/static/js/index.abc123.js", "/static/css/index.def456.css"}
    for path, kind, size, encodings in rows:
        assert kind in ("application/javascript", "text/css")
        assert encodings.split(",") == ["gzip", "br"]
        packed = (precompressed / (path.lstrip("/") + ".gz")).read_bytes()
        assert len(gzip.decompress(packed)) == int(size) and len(packed) < int(size) / 10


def test_precompress_keeps_what_it_made_from_the_same_bytes(tmp_path):
    """A fresh virtualenv installs Streamlit's files with new modification times but the same bytes:
    their compressed files are kept (not made again, a minute of CPU for Streamlit's); a file whose
    bytes changed is compressed again."""
    import gzip

    source, out = tmp_path / "static", tmp_path / "out"
    (source / "js").mkdir(parents=True)
    same, changed = source / "js" / "same.js", source / "js" / "changed.js"
    same.write_text("const same = 1;\n" * 200)
    changed.write_text("const before = 1;\n" * 200)
    command = (sys.executable, str(DEPLOY / "precompress"), str(out), "--source", str(source), "--quiet")
    first = run(*command)
    assert first.returncode == 0, first.stdout + first.stderr
    packed = {p.name: p.stat() for p in (out / "static" / "js").iterdir()}
    assert set(packed) == {"same.js.gz", "same.js.br", "changed.js.gz", "changed.js.br"}

    os.utime(same, (1_000_000_000, 1_000_000_000))  # as a new install: another time, the same bytes
    changed.write_text("const after = 2;\n" * 300)
    second = run(*command)
    assert second.returncode == 0, second.stdout + second.stderr
    for name in ("same.js.gz", "same.js.br"):
        now = (out / "static" / "js" / name).stat()
        assert (now.st_ino, now.st_mtime_ns) == (packed[name].st_ino, packed[name].st_mtime_ns), name
    for name in ("changed.js.gz", "changed.js.br"):
        now = (out / "static" / "js" / name).stat()
        assert (now.st_ino, now.st_mtime_ns) != (packed[name].st_ino, packed[name].st_mtime_ns), name
    assert gzip.decompress((out / "static" / "js" / "changed.js.gz").read_bytes()) == changed.read_bytes()
    rows = {r.split("\t")[0]: r.split("\t")[2] for r in (out / "manifest.tsv").read_text().splitlines()}
    assert rows == {
        "/static/js/changed.js": str(changed.stat().st_size),
        "/static/js/same.js": str(same.stat().st_size),
    }


def test_haproxy_stats_page_has_no_default_password(haproxy):
    env = {"RBFVIZ_STATS_BIND": "127.0.0.1:18404"}
    proc = haproxy_check(haproxy, HAPROXY_CFG, env)
    assert proc.returncode != 0 and "RBFVIZ_STATS_PASSWORD" in proc.stdout + proc.stderr, (
        proc.stdout + proc.stderr
    )


def test_haproxy_refuses_a_broken_config(haproxy, tmp_path):
    broken = tmp_path / "broken.cfg"
    broken.write_text(HAPROXY_CFG.read_text().replace("balance leastconn", "balance fewest"))
    proc = haproxy_check(haproxy, broken)
    assert proc.returncode != 0, proc.stdout + proc.stderr


def _seconds(value: str) -> float:
    number, unit = re.fullmatch(r"(\d+)(ms|s|m|h|d)?", value).groups()
    return int(number) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, None: 0.001}[unit]


def test_haproxy_config_has_what_a_classroom_needs():
    lines = [line.split("#")[0].strip() for line in HAPROXY_CFG.read_text().splitlines()]
    lines = [line for line in lines if line]
    # affinity by an inserted cookie (not by source address)
    cookie = [line for line in lines if line.startswith("cookie ")]
    assert len(cookie) == 1 and " insert" in cookie[0] and "indirect" in cookie[0], cookie
    assert not any(line.startswith("balance source") for line in lines)
    # health checks on Streamlit's health endpoint, on every server
    assert "option httpchk" in lines
    assert any(line.startswith("http-check send") and "/_stcore/health" in line for line in lines)
    default_server = next(line for line in lines if line.startswith("default-server "))
    assert " check" in default_server
    # a cap per replica
    assert re.search(r"\bmaxconn \"\$\{RBFVIZ_MAXCONN-(\d+)\}\"", default_server), default_server
    # websockets outlive a lesson
    tunnel = [line.split()[-1] for line in lines if line.startswith("timeout tunnel")]
    assert tunnel and _seconds(tunnel[0]) >= LESSON_SECONDS, tunnel
    # a dead replica's students are sent elsewhere
    assert "option redispatch" in lines
    # text answers compressed; the stats page behind a password from the environment
    assert "compression algo gzip" in lines
    types = next(line for line in lines if line.startswith("compression type ")).split()[2:]
    assert {"application/javascript", "text/css", "text/html", "application/json", "image/svg+xml"} <= set(
        types
    )
    assert any(line.startswith("stats auth ") and "${RBFVIZ_STATS_PASSWORD}" in line for line in lines)
    # as many server slots as run-local allows processes
    slots = {int(n) for n in re.findall(r"server app(\d+) ", "\n".join(lines))}
    assert slots == set(range(1, 17)), slots
    assert any(line.startswith("server-template app 1-16 ") for line in lines)


def test_run_local_refuses_bad_arguments():
    for args in (["--processes", "0"], ["--processes", "17"]):
        proc = run(sys.executable, str(DEPLOY / "run-local"), *args, "--port", "1")
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "--processes must be" in proc.stderr


# --- compose --------------------------------------------------------------------------------------


def check_compose_schema(path: Path) -> subprocess.CompletedProcess:
    return run(sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", str(path))


def resolved_compose(env: dict | None = None) -> dict:
    """The compose file as podman-compose resolves it (variables and defaults filled in)."""
    env = {"RBFVIZ_STATS_PASSWORD": "a password", **(env or {})}
    proc = run(sys.executable, "-m", "podman_compose", "--dry-run", "-f", str(COMPOSE), "config", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return yaml.safe_load(proc.stdout)


def test_compose_file_matches_the_compose_specification(tmp_path):
    proc = check_compose_schema(COMPOSE)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    resolved = tmp_path / "resolved.yaml"
    resolved.write_text(yaml.safe_dump(resolved_compose()))
    proc = check_compose_schema(resolved)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_compose_schema_check_refuses_a_broken_file(tmp_path):
    spec = yaml.safe_load(COMPOSE.read_text())
    spec["services"]["app"]["read_only"] = "sometimes"
    spec["services"]["app"]["replicas_per_room"] = 3
    broken = tmp_path / "compose.yaml"
    broken.write_text(yaml.safe_dump(spec))
    assert check_compose_schema(broken).returncode != 0


def test_compose_runs_read_only_replicas_behind_haproxy():
    spec = resolved_compose({"RBFVIZ_REPLICAS": "4"})
    app, proxy = spec["services"]["app"], spec["services"]["haproxy"]
    assert app["build"]["dockerfile"] == "Dockerfile" and Path(app["build"]["context"]).resolve() == ROOT
    assert app["read_only"] is True and app["tmpfs"] == ["/tmp"]
    assert int(app["deploy"]["replicas"]) == 4
    assert int(resolved_compose()["services"]["app"]["deploy"]["replicas"]) == 2  # the default
    no_password = subprocess.run(
        [sys.executable, "-m", "podman_compose", "--dry-run", "-f", str(COMPOSE), "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
        env=_clean_env(),
    )
    assert no_password.returncode != 0 and "RBFVIZ_STATS_PASSWORD" in no_password.stdout + no_password.stderr
    assert "8501" in [str(p) for p in app["expose"]]
    # HAProxy runs the same config file and finds the replicas by the service's DNS name
    mounts = [v.split(":") for v in proxy["volumes"]]
    assert any(
        (COMPOSE.parent / src).resolve() == HAPROXY_CFG and dst == "/usr/local/etc/haproxy/haproxy.cfg"
        for src, dst, *_ in mounts
    ), mounts
    assert proxy["environment"]["RBFVIZ_APP_DNS"] == "app:8501"
    # HAProxy's image carries the precompressed front-end files; the stats page has no default password
    assert proxy["build"]["dockerfile"] == "deploy/haproxy.Dockerfile"
    assert proxy["environment"]["RBFVIZ_STATS_PASSWORD"] == "a password"
    assert app["deploy"]["mode"] == "replicated"  # podman-compose starts the replicas only then
    assert proxy["read_only"] is True
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"


# --- Kubernetes -----------------------------------------------------------------------------------


def kubernetes_validate(*paths: Path) -> subprocess.CompletedProcess:
    return run(
        sys.executable,
        "-m",
        "kubernetes_validate",
        "--strict",
        "--kubernetes-version",
        "1.37.0",
        *map(str, paths),
    )


def test_kubernetes_manifests_match_the_schemas():
    assert {p.name for p in KUBERNETES} >= {"deployment.yaml", "service.yaml", "ingress.yaml", "hpa.yaml"}
    proc = kubernetes_validate(*KUBERNETES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("passed") == len(KUBERNETES), proc.stdout + proc.stderr


def test_ingress_nginx_compresses_text_with_gzip_and_brotli():
    proc = kubernetes_validate(INGRESS_NGINX_CONFIG)
    assert proc.returncode == 0 and "passed" in proc.stdout, proc.stdout + proc.stderr
    config = yaml.safe_load(INGRESS_NGINX_CONFIG.read_text())
    assert config["kind"] == "ConfigMap"
    data = config["data"]
    assert data["use-gzip"] == "true" and data["enable-brotli"] == "true"
    assert 1 <= int(data["gzip-level"]) <= 9 and 0 <= int(data["brotli-level"]) <= 11
    wanted = {"application/javascript", "text/css", "text/html", "application/json", "image/svg+xml"}
    assert wanted <= set(data["gzip-types"].split()) and wanted <= set(data["brotli-types"].split())


def test_kubernetes_validate_refuses_a_broken_manifest(tmp_path):
    deployment = yaml.safe_load((DEPLOY / "kubernetes" / "deployment.yaml").read_text())
    deployment["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["port"] = [8501]
    broken = tmp_path / "deployment.yaml"
    broken.write_text(yaml.safe_dump(deployment))
    assert kubernetes_validate(broken).returncode != 0


def _manifests() -> dict[str, dict]:
    docs = [d for p in KUBERNETES for d in yaml.safe_load_all(p.read_text()) if d]
    return {d["kind"]: d for d in docs}


def test_kubernetes_deployment_is_probed_read_only_and_non_root():
    m = _manifests()
    deployment, service = m["Deployment"], m["Service"]
    pod = deployment["spec"]["template"]["spec"]
    (app,) = pod["containers"]
    assert deployment["spec"]["replicas"] >= 2
    for probe in ("readinessProbe", "livenessProbe"):
        assert app[probe]["httpGet"]["path"] == "/_stcore/health", probe
    assert app["resources"]["requests"]["cpu"] and app["resources"]["limits"]["memory"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 10001
    assert app["securityContext"]["readOnlyRootFilesystem"] is True
    assert app["securityContext"]["allowPrivilegeEscalation"] is False
    tmp = next(v for v in app["volumeMounts"] if v["mountPath"] == "/tmp")
    assert "emptyDir" in next(v for v in pod["volumes"] if v["name"] == tmp["name"])
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert app["ports"][0]["containerPort"] == 8501


def test_kubernetes_ingress_is_sticky_by_cookie_with_websocket_timeouts():
    m = _manifests()
    ingress, hpa = m["Ingress"], m["HorizontalPodAutoscaler"]
    notes = ingress["metadata"]["annotations"]
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    assert notes["nginx.ingress.kubernetes.io/affinity-mode"] == "persistent"
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(notes[f"nginx.ingress.kubernetes.io/{timeout}"]) >= LESSON_SECONDS, timeout
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == m["Service"]["metadata"]["name"]
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": m["Deployment"]["metadata"]["name"],
    }
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert 2 <= hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
