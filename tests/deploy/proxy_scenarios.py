"""What students do through a proxy in front of two replicas, for any way of running them.

tests/deploy/test_proxy.py runs these against `deploy/run-local --processes 2` (processes on this
machine), tests/deploy/test_containers.py against `podman-compose -f deploy/compose.yaml up`
(containers). A *stack* gives what the scenarios need to look behind the proxy:

    stack.url                       the proxy's address
    stack.replicas                  one dict per replica, with at least "name"
    stack.active()                  each replica's active sessions (its /_stcore/metrics), None if gone
    stack.put_to(i, path, xsrf)     an upload PUT sent straight to replica i: (status, body)
    stack.stop_replica(i)           stop replica i and return once the stack has noticed
    stack.replica_log(i)            what replica i has logged so far

Streamlit keeps a session, its uploaded files and its download files in one process, so every
request of a browser tab must reach the replica holding its session; the proxy's cookie does that.
A request that reaches another replica fails (an upload with 400, a download with 404).
Assertions avoid the figure's type (the Explorer's σ control is changing): the page finished
running without exception or error boxes, the address carries the state, the file's name shows,
the downloaded CSV has the file's points.
"""

from __future__ import annotations

import csv
import io
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from playwright.sync_api import expect

from harness.student import HANG_TIMEOUT_MS, Student

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
SECTION = "Your own data (CSV)"
POINTS_BUTTON = "Points and r (CSV)"
COOKIE = "RBFVIZ_REPLICA"


def metric_value(lines: list[str], name: str) -> int:
    """One sample of a /_stcore/metrics text (e.g. 'active_sessions')."""
    for line in lines:
        if line.startswith(name + " "):
            return int(float(line.split()[-1]))
    raise AssertionError(f"{name} not in the replica's /_stcore/metrics")


def wait_for(condition, what: str, timeout: float = HANG_TIMEOUT_MS / 1000):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def home_replica(stack, before: list[int]) -> int:
    """The index of the one replica whose active sessions rose by one since ``before``."""

    def changed():
        now = stack.active()
        rises = [i for i, (a, b) in enumerate(zip(before, now)) if b == a + 1]
        return rises if len(rises) == 1 and sum(now) == sum(before) + 1 else None

    return wait_for(changed, f"one new session on one replica (before {before})")[0]


def replica_cookie(student: Student) -> str:
    values = [c["value"] for c in student.page.context.cookies() if c["name"] == COOKIE]
    assert len(values) == 1, student.page.context.cookies()
    return values[0]


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


def xsrf_token(student: Student) -> str:
    return next(c["value"] for c in student.page.context.cookies() if c["name"] == "_streamlit_xsrf")


def download_points(student: Student) -> list[dict]:
    """Press "Points and r (CSV)" and read the downloaded file's rows."""
    button = student.page.locator("[data-testid='stMain']").get_by_role(
        "button", name=POINTS_BUTTON, exact=True
    )
    expect(button).to_have_count(1)
    with student.page.expect_download() as download:
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
    page.set_default_timeout(HANG_TIMEOUT_MS)
    return Student(page, ARTIFACTS / "screenshots", name)


def session_ids(log: str, event: str) -> set[str]:
    """The session ids of ui/session_log.py's "session <event>" lines in a replica's log."""
    return set(re.findall(rf"rbfviz session {event} replica=\S+ session=(\S+)", log))


# --- the scenarios --------------------------------------------------------------------------------


def upload_sigma_download_shared_link(stack, student: Student, browser, browser_context_args) -> None:
    """A student opens the Explorer, changes σ (a new address), uploads a CSV (it must be accepted;
    the same upload request sent straight to the other replica is refused with 400, "Invalid
    session_id"), downloads the points with their responsibilities (the file must hold the uploaded
    points), and a shared link opens in a second browser (a second context: no cookie, so the
    proxy's leastconn picks the other replica). Each replica logs its session's start, and the
    second browser's end once it is closed."""
    before = stack.active()
    first = open_explorer(student, stack.url, "0.8")
    home = home_replica(stack, before)
    cookie = replica_cookie(student)

    # change σ: a new address (a new page load, so a new session: the cookie keeps it on its replica)
    before = stack.active()
    changed = open_explorer(student, stack.url, "0.2")
    assert changed["sigma"] != first["sigma"], (first, changed)
    assert replica_cookie(student) == cookie
    wait_for(lambda: stack.active()[home] >= 1 and sum(stack.active()) <= sum(before), "the same replica")
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
    status, body = stack.put_to(1 - home, urlsplit(puts[-1]).path, xsrf_token(student))
    assert status == 400 and "Invalid session_id" in body, (status, body)
    # download: generated by that session, served by that replica
    assert_points(download_points(student), points)
    student.keepsake("uploaded")

    # the shared link in a second browser (no cookie yet): leastconn puts it on the other replica
    before = stack.active()
    ended_before = session_ids(stack.replica_log(1 - home), "end")
    friend = new_student(browser, browser_context_args, "proxy_shared_link")
    try:
        friend.open(shared_link)
        friend.assert_no_problems()
        assert friend.query()["sigma"] == changed["sigma"], (friend.page.url, shared_link)
        other = home_replica(stack, before)
        assert other != home, (
            f"the second browser landed on the same replica ({stack.replicas[home]['name']})"
        )
        assert replica_cookie(friend) != cookie
        friend.keepsake()
    finally:
        friend.page.context.close()
    # the operator's view: each replica logged its own sessions; the friend's ended with its tab
    assert session_ids(stack.replica_log(home), "start"), stack.replica_log(home)[-2000:]
    started_there = session_ids(stack.replica_log(other), "start")
    wait_for(
        lambda: (session_ids(stack.replica_log(other), "end") - ended_before) & started_there,
        "the second browser's session end in its replica's log",
    )

    # the first student's session is still alive and still theirs
    assert_points(download_points(student), points)
    student.assert_no_problems()


def stopped_replica_leaves_the_others_working(stack, browser, browser_context_args) -> None:
    """With a student on each replica, one replica is stopped: the other student's session keeps
    working (its uploaded file, a new upload, downloads, another σ), and the stopped replica's
    student is reconnected to the remaining one."""
    stayer = leaver = None
    try:
        before = stack.active()
        stayer = new_student(browser, browser_context_args, "proxy_failover_stayer")
        open_explorer(stayer, stack.url, "0.5")
        stay_home = home_replica(stack, before)
        before = stack.active()
        leaver = new_student(browser, browser_context_args, "proxy_failover_leaver")
        open_explorer(leaver, stack.url, "0.5")
        leave_home = home_replica(stack, before)
        assert leave_home != stay_home
        cookie = replica_cookie(stayer)

        data, points = class_csv(23)
        upload_and_check(stayer, "before.csv", data)

        stack.stop_replica(leave_home)

        # the stayer's session goes on: its uploaded file is still there, a new one uploads, downloads work
        assert_points(download_points(stayer), points)
        data2, points2 = class_csv(29, rows=31)
        upload_and_check(stayer, "after.csv", data2)
        assert_points(download_points(stayer), points2)
        open_explorer(stayer, stack.url, "0.3")
        assert replica_cookie(stayer) == cookie
        stayer.keepsake()

        # the leaver's browser reconnects by itself, to the remaining replica, in a new session
        wait_for(
            lambda: stack.active()[stay_home] == 2,
            "the leaver's browser to reconnect to the other replica",
        )
        leaver.wait_for_run()
        leaver.assert_no_problems()
        leaver.keepsake()
    finally:
        for who in (stayer, leaver):
            if who is not None:
                who.page.context.close()
