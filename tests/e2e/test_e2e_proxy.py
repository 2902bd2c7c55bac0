"""Through HAProxy to two app processes: `deploy/run-local --processes 2`, then real browsers and a
class of 80 simulated students.

Streamlit keeps a session, its uploaded files and its download files in one process, so every
request of a browser tab must reach the replica holding its session; the proxy's cookie does that.
A request that reaches another replica fails (an upload with 400, a download with 404). So:

* a student opens the Explorer, changes σ (a new address), uploads a CSV (it must be accepted; the
  same upload request sent straight to the other replica is refused with 400, "Invalid session_id"),
  downloads the points with their responsibilities (the file must hold the uploaded points), and a
  shared link opens in a second browser (a second context: no cookie, so HAProxy's leastconn picks
  the other replica);
* with a student on each replica, one replica is stopped: the other student's session keeps
  working (upload, download, another σ), and the stopped replica's student is reconnected to the
  remaining one; then run-local stops cleanly on SIGTERM;
* 80 students (bench/load.py, Streamlit's websocket protocol) through the proxy: zero errors, and
  both replicas get a share of the sessions (counted by each replica's own /_stcore/metrics).

Assertions avoid the figure's type (the Explorer's σ control is changing): the page finished
running without exception or error boxes, the address carries the state, the file's name shows,
the downloaded CSV has the file's points.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from playwright.sync_api import expect
from student import Student

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SECTION = "Your own data (CSV)"
POINTS_BUTTON = "Points and r (CSV)"
COOKIE = "RBFVIZ_REPLICA"
STARTUP_TIMEOUT = 240  # seconds: two first imports of torch on a busy 2-core machine


# --- run-local ------------------------------------------------------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RunLocal:
    """`deploy/run-local --processes N` in the background, ready (its --info file written)."""

    def __init__(self, name: str, processes: int = 2):
        ARTIFACTS.mkdir(exist_ok=True)
        self.log_dir = ARTIFACTS / f"run-local-{name}"
        info_path = self.log_dir / "info.json"
        self.log_dir.mkdir(exist_ok=True)
        info_path.unlink(missing_ok=True)
        self.out = open(self.log_dir / "run-local.out", "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "deploy" / "run-local"),
                "--processes",
                str(processes),
                "--port",
                str(_free_port()),
                "--log-dir",
                str(self.log_dir),
                "--info",
                str(info_path),
            ],
            cwd=ROOT,
            stdout=self.out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not info_path.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"run-local not ready: {self.output()}")
            time.sleep(0.5)
        self.info = json.loads(info_path.read_text())
        self.url = self.info["url"]
        self.replicas = self.info["replicas"]

    def output(self) -> str:
        self.out.flush()
        return (self.log_dir / "run-local.out").read_text()[-4000:]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()
        return self.proc.returncode


@pytest.fixture(scope="module")
def haproxy_path() -> str:
    """Debian's haproxy (run-local needs it); missing: skipped, or an error in CI."""
    path = shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None
    )
    if path is None:
        if os.environ.get("CI") or os.environ.get("RBFVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail("no haproxy (apt-get install haproxy; .ci/run installs it)")
        pytest.skip("no haproxy on PATH (apt-get install haproxy)")
    return path


@pytest.fixture(scope="module")
def proxy(haproxy_path):
    """One run-local with two processes for the module (the load test needs no browser)."""
    rl = RunLocal("proxy")
    yield rl
    rl.stop()


def metric(replica_url: str, name: str) -> int | None:
    """One sample of the replica's /_stcore/metrics (e.g. 'active_sessions',
    'session_events_total{type="connect"}'); None for a replica that is gone."""
    try:
        with urllib.request.urlopen(f"{replica_url}/_stcore/metrics", timeout=10) as r:
            lines = r.read().decode().splitlines()
    except ConnectionRefusedError:
        return None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, ConnectionRefusedError):
            return None
        raise
    for line in lines:
        if line.startswith(name + " "):
            return int(float(line.split()[-1]))
    raise AssertionError(f"{name} not in {replica_url}/_stcore/metrics")


def active(rl: RunLocal) -> list[int]:
    return [metric(r["url"], "active_sessions") for r in rl.replicas]


def connects(rl: RunLocal) -> list[int]:
    return [metric(r["url"], 'session_events_total{type="connect"}') for r in rl.replicas]


def wait_for(condition, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def home_replica(rl: RunLocal, before: list[int]) -> int:
    """The index of the one replica whose active sessions rose by one since ``before``."""

    def changed():
        now = active(rl)
        rises = [i for i, (a, b) in enumerate(zip(before, now)) if b == a + 1]
        return rises if len(rises) == 1 and sum(now) == sum(before) + 1 else None

    return wait_for(changed, f"one new session on one replica (before {before})")[0]


def replica_cookie(student: Student) -> str:
    values = [c["value"] for c in student.page.context.cookies() if c["name"] == COOKIE]
    assert len(values) == 1, student.page.context.cookies()
    return values[0]


# --- what a student does --------------------------------------------------------------------------


def class_csv(name_seed: int, rows: int = 29) -> tuple[bytes, set[tuple[float, float]]]:
    """A small x,y file: three loose groups (4 decimals), different per seed."""
    rng = np.random.default_rng(name_seed)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [1.0, 3.0]])
    X = np.round(centres[np.arange(rows) % 3] + rng.normal(scale=0.4, size=(rows, 2)), 4)
    text = "x,y\n" + "".join(f"{x:.4f},{y:.4f}\n" for x, y in X)
    return text.encode(), {(float(x), float(y)) for x, y in X}


def upload_and_check(student: Student, name: str, data: bytes) -> None:
    """Upload the file; it must be accepted by the replica that holds the session."""
    student.upload(SECTION, name, data)
    sidebar = student.page.locator("[data-testid='stSidebar']")
    expect(sidebar).to_contain_text(name)
    expect(student.page.locator("[data-testid='stAlertContentSuccess']")).to_contain_text(f"Loaded {name}")
    student.assert_no_problems()


def put_elsewhere(url: str, student: Student) -> tuple[int, str]:
    """The browser's upload PUT (same path, same XSRF cookie and header) sent straight to ``url``."""
    xsrf = next(c["value"] for c in student.page.context.cookies() if c["name"] == "_streamlit_xsrf")
    request = urllib.request.Request(
        url, data=b"", method="PUT", headers={"X-Xsrftoken": xsrf, "Cookie": f"_streamlit_xsrf={xsrf}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def download_points(student: Student) -> list[dict]:
    """Press "Points and r (CSV)" and read the downloaded file's rows."""
    button = student.page.locator("[data-testid='stMain']").get_by_role(
        "button", name=POINTS_BUTTON, exact=True
    )
    expect(button).to_have_count(1)
    with student.page.expect_download(timeout=60_000) as download:
        button.click()
    path = download.value.path()
    assert download.value.failure() is None, download.value.failure()
    return list(csv.DictReader(io.StringIO(Path(path).read_text(encoding="utf-8"))))


def assert_points(rows: list[dict], points: set[tuple[float, float]]) -> None:
    assert rows and {"x", "y", "r_0"} <= rows[0].keys(), rows[:1]
    got = {(float(r["x"]), float(r["y"])) for r in rows}
    assert len(rows) == len(points) and got == points, "the downloaded points are not the uploaded file's"


def open_explorer(student: Student, base: str, sigma: str) -> dict[str, str]:
    student.open(f"{base}/Explorer?sigma={sigma}")
    student.assert_no_problems()
    query = student.query()
    assert "sigma" in query, student.page.url
    return query


def new_student(browser, browser_context_args, name: str) -> Student:
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    page.set_default_timeout(60_000)
    return Student(page, ARTIFACTS / "screenshots", name)


# --- the tests ------------------------------------------------------------------------------------


def test_a_student_through_the_proxy_upload_sigma_download_shared_link(
    proxy, student, browser, browser_context_args
):
    before = active(proxy)
    first = open_explorer(student, proxy.url, "0.8")
    home = home_replica(proxy, before)
    cookie = replica_cookie(student)

    # change σ: a new address (a new page load, so a new session: the cookie keeps it on its replica)
    before = active(proxy)
    changed = open_explorer(student, proxy.url, "0.2")
    assert changed["sigma"] != first["sigma"], (first, changed)
    assert replica_cookie(student) == cookie
    wait_for(lambda: active(proxy)[home] >= 1 and sum(active(proxy)) <= sum(before), "the same replica")
    shared_link = student.page.url

    # upload: a plain HTTP PUT that must reach the replica holding this session's websocket
    puts = []
    student.page.on(
        "request",
        lambda r: puts.append(r.url) if r.method == "PUT" and "/_stcore/upload_file/" in r.url else None,
    )
    data, points = class_csv(11)
    upload_and_check(student, "through-proxy.csv", data)
    # the same PUT sent to the other replica is refused: without the cookie's affinity it would fail
    assert puts, "the browser sent no upload request"
    other_replica = proxy.replicas[1 - home]["url"]
    status, body = put_elsewhere(other_replica + urlsplit(puts[-1]).path, student)
    assert status == 400 and "Invalid session_id" in body, (status, body)
    # download: generated by that session, served by that replica
    assert_points(download_points(student), points)
    student.screenshot("uploaded")

    # the shared link in a second browser (no cookie yet): leastconn puts it on the other replica
    before = active(proxy)
    friend = new_student(browser, browser_context_args, "proxy_shared_link")
    try:
        friend.open(shared_link)
        friend.assert_no_problems()
        assert friend.query()["sigma"] == changed["sigma"], (friend.page.url, shared_link)
        other = home_replica(proxy, before)
        assert other != home, (
            f"the second browser landed on the same replica ({proxy.replicas[home]['name']})"
        )
        assert replica_cookie(friend) != cookie
        friend.screenshot()
    finally:
        friend.page.context.close()

    # the first student's session is still alive and still theirs
    assert_points(download_points(student), points)
    student.assert_no_problems()


def test_eighty_students_through_the_proxy_share_both_replicas(proxy, tmp_path):
    sessions = 80
    before = connects(proxy)
    report_path = tmp_path / "load.json"
    port = proxy.url.rsplit(":", 1)[1]
    t0 = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            "--sessions",
            str(sessions),
            "--port",
            port,
            "--pid",
            str(proxy.replicas[0]["pid"]),
            "--arrival-seconds",
            "20",
            "--changes",
            "3",
            "--think",
            "0.5",
            "1.5",
            "--settle",
            "1",
            "--timeout",
            "120",
            "--json",
            str(report_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.monotonic() - t0
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(report_path.read_text())
    per_replica = [b - a for a, b in zip(before, connects(proxy))]
    # bench/load.py's names: "commit_to_page" (σ committed → page updated) since the σ scrubber,
    # "change_to_figure" before it
    latency = report.get("commit_to_page") or report.get("change_to_figure")
    complete = report.get("sessions_with_all_commits", report.get("sessions_with_all_figures"))
    print(
        f"\n{sessions} students through HAProxy in {wall:.0f} s: sessions per replica {per_replica} "
        f"(warm-up and probe students included), σ change → updated page {latency}, first open "
        f"{report['open']}"
    )
    (ARTIFACTS / "proxy-load-80.json").write_text(
        json.dumps({**report, "sessions_per_replica": per_replica}, indent=1)
    )

    assert report["errors"] == [], report["errors"][:20]
    assert complete == sessions, report
    total = sum(per_replica)
    assert total >= sessions, per_replica
    # leastconn over one long websocket per student: an even split, give or take the arrivals' timing
    assert min(per_replica) >= 0.35 * total, f"uneven: {per_replica}"


def test_a_stopped_replica_leaves_the_other_replicas_students_working(
    haproxy_path, browser, browser_context_args
):
    rl = RunLocal("failover")
    stayer = leaver = None
    try:
        before = active(rl)
        stayer = new_student(browser, browser_context_args, "proxy_failover_stayer")
        open_explorer(stayer, rl.url, "0.5")
        stay_home = home_replica(rl, before)
        before = active(rl)
        leaver = new_student(browser, browser_context_args, "proxy_failover_leaver")
        open_explorer(leaver, rl.url, "0.5")
        leave_home = home_replica(rl, before)
        assert leave_home != stay_home
        cookie = replica_cookie(stayer)

        data, points = class_csv(23)
        upload_and_check(stayer, "before.csv", data)

        # stop the leaver's replica
        gone = rl.replicas[leave_home]
        os.kill(gone["pid"], signal.SIGTERM)
        wait_for(lambda: f"{gone['name']} (pid {gone['pid']}) exited" in rl.output(), "run-local to notice")
        assert rl.proc.poll() is None, "run-local stopped with one replica left"

        # the stayer's session goes on: its uploaded file is still there, a new one uploads, downloads work
        assert_points(download_points(stayer), points)
        data2, points2 = class_csv(29, rows=31)
        upload_and_check(stayer, "after.csv", data2)
        assert_points(download_points(stayer), points2)
        open_explorer(stayer, rl.url, "0.3")
        assert replica_cookie(stayer) == cookie
        stayer.screenshot()

        # the leaver's browser reconnects by itself, to the remaining replica, in a new session
        wait_for(
            lambda: active(rl)[stay_home] == 2,
            "the leaver's browser to reconnect to the other replica",
            timeout=60,
        )
        leaver.wait_for_run()
        leaver.assert_no_problems()
        leaver.screenshot()
    finally:
        for who in (stayer, leaver):
            if who is not None:
                who.page.context.close()
        code = rl.stop()
    assert code == 0, rl.output()
    for r in rl.replicas:
        assert (
            not Path(f"/proc/{r['pid']}").exists() or "zombie" in Path(f"/proc/{r['pid']}/status").read_text()
        ), r
    assert not Path(f"/proc/{rl.info['haproxy_pid']}").exists()
