"""A classroom's load: N students, each in a real Streamlit session, open the Explorer and commit σ.

    .venv/bin/python bench/load.py --mode lecture                 # 120 students over 30 s
    .venv/bin/python bench/load.py --mode classroom               # 40 students within 5 s
    .venv/bin/python bench/load.py --mode exploring               # 40 over 20 s, each their own data and k
    .venv/bin/python bench/load.py --sessions 40 --port 8501      # against a running server
    .venv/bin/python bench/load.py --sessions 5 --settle 5 --json out.json

Modes (every flag given explicitly overrides the mode's value):

| mode | students | arrive within | commits each | think | targets |
|---|---|---|---|---|---|
| lecture | 120 | 30 s | 3 | 2–6 s | first open p95 ≤ 3 s, commit → page p95 ≤ 1 s, 0 errors, RSS ≤ +20 % |
| classroom | 40 | 5 s | 5 | 0.5–2 s | commit → updated page p95 ≤ 0.5 s (and 0 errors, RSS ≤ +20 %) |
| exploring | 40 (own data seed and k) | 20 s | 2 | 2–6 s | first figure p95 ≤ 2 s, 0 errors, RSS ≤ +15 % |
| default | 40 | 10 s | 5 | 0.5–2 s | the first classroom targets: commit p95 ≤ 2 s, 0 errors, RSS ≤ +20 % |

Each simulated student speaks Streamlit's own protocol, as the browser does (streamlit 1.67,
frontend `connectToWebSocket`, `WebsocketConnection`, `ForwardMsgCache`; server
`starlette_websocket.py`):

1. GET /_stcore/health and /_stcore/host-config (the frontend's pings); the health response sets
   the `_streamlit_xsrf` cookie.
2. Open ws://HOST:PORT/_stcore/stream with subprotocols ["streamlit", <xsrf cookie value>], the
   cookie and a same-origin Origin header.
3. **First open**: BackMsg `rerun_script` with `page_name="Explorer"` (pages/1_Explorer.py) and the
   page's query string; read ForwardMsgs until `script_finished`. This runs the real page script.
   The page mounts the σ scrubber, a Streamlit v2 component (ui/scrub.py): a `bidi_component`
   element whose `bytes` are the gzip payload of every σ (rbfviz/views/common/scrub.py). On a setting
   the server has not built yet, the same run first sends the scrubber with the levels near the σ on
   screen only (its own key; the payload's header has a "part"), then the complete payload in the same
   place under the view's key: the commits below go to that one. The σ grid is
   read from that payload (`rbfviz.views.common.scrub.read_payload(...)["sigmas"]`, loaded without running
   `rbfviz/__init__.py`, so this client does not import torch).
4. **Commits**: in the browser, moving σ runs nothing on the server; when the scrub settles the
   component calls `setStateValue("level", i)`, which sends one `rerun_script` whose `widget_states`
   hold, for the component's widget id (the element's `bidi_component.id`), `json_value`
   = `{"level": i}`, and the id of the fragment the component lives in (`fragment_id`, from its
   delta: the σ panels are one st.fragment, so the server reruns them alone), with the address the
   server last wrote (`page_info_changed`, still carrying
   the previous σ) as `query_string`. The callback in ui/scrub.py then sets σ = grid[i]. That is
   what is sent here, `--changes` times per student, to a level 1–3 grid steps from the current one
   (seeded per student), after a think time. Only the component's widget state is sent: the browser
   also resends the other widgets' unchanged values, which the server keeps anyway when absent.
5. **Message cache, as the browser's**: every received ForwardMsg marked `metadata.cacheable` is kept
   by its hash; each `rerun_script` lists the kept hashes in `cached_message_hashes`, and the server
   then sends a `ref_hash` reference instead of an unchanged big element (the payload). A reference
   is resolved from the cache (a miss is an error, as in the browser). Entries unused for more than
   `max_cached_message_age` finished runs (from `new_session`, 2) are dropped, as the frontend does.

What is timed:
* **first figure**: connect (pings + websocket) → the first delta carrying a σ scrubber with its
  payload: what a student sees first. On a setting the server has not built yet, that is the scrubber
  with the levels near the σ on screen only (its payload's header has a "part"; pages/1_Explorer.py);
  on a built setting, the complete payload;
* **all levels**: connect → the delta carrying the complete payload (every σ level: the slider spans
  the whole grid). The same as the first figure when the setting was built already;
* **first open**: connect → `script_finished` of the first run (the whole page, the complete σ
  payload included);
* **commit → updated page**, the target: from sending the commit to receiving the page's markdown
  "**Downloads at σ = <σ:.3g>**" for the committed σ. It comes after the scrubber in the σ fragment's
  order, so the figure's panel above it is already updated; also reported
  up to `script_finished` (the explanation panel below included).
* **server script time of a first open on a warm server** (target ≤ 60 ms): before the
  class, `--probe-opens` fresh sessions open the Explorer one after another on the idle server with
  the payload already cached (the warm-up student built it). Streamlit writes no per-run timing to
  its log, so this is measured from the client: `new_session` (sent when the script starts) →
  `script_finished` (sent when the script has ended, before the post-run GC); it includes
  serialising and sending the page's messages over loopback. send → `script_finished` is reported
  too (adds the request's queueing and session set-up).
* **bytes**: the sum of the sizes of the websocket messages (serialised ForwardMsgs) received, per
  first open and per commit.
* **server CPU per action on the idle warm server**: during the probe, CPU time (/proc/PID/stat) of
  each fresh first open and of each settle commit (one session committing --probe-opens times);
* **server CPU per run**: the server process's user + system CPU time (/proc/PID/stat) during a
  wave divided by its script runs (first opens + commits), post-run GC and websocket work included;
  with the machine's load average at the wave's start and end, to tell a slow server from a busy
  machine.

An error is any of: connection failure, a run that does not finish within --timeout, a run that
ends other than FINISHED_SUCCESSFULLY, an exception or error box in the page, a first open without
the scrubber, its payload, the sidebar or the σ in the address, a `ref_hash` this client does not
hold, a commit after which the downloads markdown or the address (`sigma=`) does not show the
committed σ, and a commit that sends the sidebar again.

Memory: the server's resident set size (VmRSS in /proc/PID/status), sampled every 0.25 s:
baseline after a warm-up student (imports done, caches warm for the default data) once the server is
quiet (no session, no CPU for a second, at most 2 s; `until_quiet`), peak during the
load, and --settle seconds (default 60) after every session has closed. Python rarely returns freed
memory to the OS, so "after" bounds what the sessions left behind (session state, cache entries).

`--check` makes the exit code say whether the mode's targets were met.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import signal
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository's harness

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from harness.proc import cpu_seconds, pid_listening_on, rss_mb  # noqa: E402
from harness.settings import ARTIFACTS  # noqa: E402
from harness.streamlit_client import SCRUB, SIDEBAR, ScriptRun, StreamlitSession  # noqa: E402
from harness.streamlit_server import StreamlitServer  # noqa: E402

PAGE = "Explorer"  # url path of pages/1_Explorer.py
DOWNLOADS_PREFIX = "**Downloads at σ = "  # pages/1_Explorer.py, written after the scrubber
SIDEBAR_MARK = "σ: move it with the σ slider"  # ui/page.py _sigma_control(on_figure=True)
TARGET_MEMORY = 1.20  # RSS after / warm baseline (a mode's targets may set its own memory_ratio)
OWN_KS = (3, 4, 5, 6, 7)  # --distinct-data: student i's k is OWN_KS[i % 5]
TARGET_SCRIPT_SECONDS = 0.060  # a first open's script time on a warm server
OPEN_MEASURES = {"open": "first open", "first_figure": "first figure"}  # what a mode's open target times

MODES = {
    "default": dict(
        sessions=40,
        arrival_seconds=10.0,
        changes=5,
        think=(0.5, 2.0),
        targets=dict(commit_p95=2.0, open_p95=None),
    ),
    "lecture": dict(
        sessions=120,
        arrival_seconds=30.0,
        changes=3,
        think=(2.0, 6.0),
        targets=dict(commit_p95=1.0, open_p95=3.0),
    ),
    "classroom": dict(
        sessions=40,
        arrival_seconds=5.0,
        changes=5,
        think=(0.5, 2.0),
        targets=dict(commit_p95=0.5, open_p95=None),
    ),
    # a class exploring on its own: every student on their own data seed and k, so every first open builds
    # a new setting's payload (a cache miss for everything)
    "exploring": dict(
        sessions=40,
        arrival_seconds=20.0,
        changes=2,
        think=(2.0, 6.0),
        distinct_data=True,
        # what a student waits for on a new setting is the figure: the levels near the σ on screen
        targets=dict(commit_p95=None, open_p95=2.0, open_measure="first_figure", memory_ratio=1.15),
    ),
}


_GRIDS: dict[str, tuple] = {}  # payload's message hash → (σ levels, part) (decoded once per distinct payload)


def payload_grid(key: str, payload: bytes) -> tuple[list[float], dict | None]:
    """The σ values of a scrubber payload's levels, in level order (header["sigmas"]), and its header's
    "part" ({"levels": grid positions, "of": grid size} when it holds only the levels near the σ on
    screen; None for a complete payload)."""
    if key not in _GRIDS:
        header = SCRUB.read_payload(payload)
        _GRIDS[key] = ([float(s) for s in header["sigmas"]], header.get("part"))
    return _GRIDS[key]


# --- the server's memory ----------------------------------------------------------------------------


class RssMonitor:
    """Samples the server's RSS in the background; keeps the time series and the peak."""

    def __init__(self, pid: int | None, every: float = 0.25):
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, float]] = []
        self._t0 = time.monotonic()
        self._task: asyncio.Task | None = None

    def now(self) -> float | None:
        if self.pid is None:
            return None
        value = rss_mb(self.pid)
        if value is not None:
            self.samples.append((round(time.monotonic() - self._t0, 2), round(value, 1)))
        return value

    def peak_since(self, t: float) -> float | None:
        values = [v for s, v in self.samples if s >= t]
        return max(values) if values else None

    def elapsed(self) -> float:
        return time.monotonic() - self._t0

    async def _run(self) -> None:
        while True:
            self.now()
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass


# --- one session ----------------------------------------------------------------------------------


@dataclass
class Run(ScriptRun):
    """What one script run sent back (times in seconds from sending the rerun request)."""

    to_sidebar: float | None = None  # the sidebar's "σ: move it with the σ slider" markdown
    to_downloads: float | None = None  # "**Downloads at σ = …**": the updated page
    to_component: float | None = None  # the first scrubber element (a first part or the complete payload)
    to_complete: float | None = None  # the scrubber element with the complete payload (every σ level)
    fragment_id: str = ""  # the fragment the scrubber lives in (a settle reruns it alone)
    sidebar_elements: int = 0  # elements sent to the sidebar (a settle should send none)
    sidebar_text: str = ""
    downloads_text: str = ""
    component_id: str = ""
    grid: list[float] = field(default_factory=list)


class Session(StreamlitSession):
    """A student's tab on a σ view (harness.streamlit_client): reads the sidebar, the downloads heading
    and the scrubber's payload of each run."""

    async def run(
        self,
        query: dict,
        level: int | None = None,
        component_id: str = "",
        page: str = PAGE,
        fragment_id: str = "",
    ) -> Run:
        """Rerun ``page`` with this address query (and, for a commit, the scrubber's widget state and
        the fragment it lives in, as the browser sends them); read until script_finished."""
        widgets = () if level is None else ((component_id, "json_value", json.dumps({"level": level})),)
        return await super().run(
            page, query, widgets=widgets, fragment_id=fragment_id if level is not None else "", result=Run()
        )

    def on_element(self, fwd: ForwardMsg, result: Run, now: float, sent: bool) -> None:
        super().on_element(fwd, result, now, sent)
        element = fwd.delta.new_element
        kind = element.WhichOneof("type")
        if fwd.metadata.delta_path and fwd.metadata.delta_path[0] == SIDEBAR:
            result.sidebar_elements += 1
        if kind == "markdown":
            body = element.markdown.body
            if body.startswith(DOWNLOADS_PREFIX) and result.to_downloads is None:
                result.to_downloads, result.downloads_text = now, body
            elif body.startswith(SIDEBAR_MARK) and result.to_sidebar is None:
                result.to_sidebar, result.sidebar_text = now, body
        elif kind == "bidi_component" and result.to_complete is None:
            # a first part (levels near the σ on screen) may come first; the complete payload follows in
            # the same place, under the view's own key: its id is the one a settle commits to
            if result.to_component is None:
                result.to_component = now
            if element.bidi_component.WhichOneof("data") != "bytes":
                return
            try:
                sigmas, part = payload_grid(
                    fwd.hash or str(hash(element.bidi_component.bytes)), element.bidi_component.bytes
                )
            except Exception as exc:  # noqa: BLE001
                result.problems.append(f"unreadable scrubber payload: {type(exc).__name__}: {exc}")
                return
            if part is None:
                result.to_complete = now
                result.component_id = element.bidi_component.id
                result.fragment_id = fwd.delta.fragment_id
                result.grid = sigmas


def shows_sigma(run: Run, sigma: float) -> list[str]:
    """What the page does not show of the committed σ (downloads markdown, address), and a sidebar
    sent again (a settle reruns the σ panels alone)."""
    text = f"σ = {sigma:.3g}"
    missing = []
    if run.sidebar_elements:
        missing.append(f"the sidebar was sent again ({run.sidebar_elements} elements)")
    if not run.downloads_text.startswith(f"**Downloads at {text}**"):
        missing.append(f"downloads heading shows {run.downloads_text[:40]!r}")
    try:
        if f"{float(run.query.get('sigma', 'nan')):.3g}" != f"{sigma:.3g}":
            missing.append(f"address has sigma={run.query.get('sigma')}")
    except ValueError:
        missing.append(f"address has sigma={run.query.get('sigma')!r}")
    return missing


# --- one student ----------------------------------------------------------------------------------


@dataclass
class StudentResult:
    index: int
    open_seconds: float | None = None  # connect + first run until script_finished
    first_figure_seconds: float | None = None  # connect → the first scrubber element with a payload
    all_levels_seconds: float | None = None  # connect → the scrubber element with the complete payload
    open_bytes: int | None = None
    commit_to_page: list[float] = field(default_factory=list)  # → downloads markdown at the new σ
    commit_to_finished: list[float] = field(default_factory=list)
    commit_bytes: list[int] = field(default_factory=list)
    commit_refs: list[int] = field(default_factory=list)
    commits_ok: int = 0  # commits answered by a page showing the new σ
    errors: list[str] = field(default_factory=list)


def nearest_level(grid: list[float], sigma: float) -> int:
    return min(range(len(grid)), key=lambda i: abs(math.log(grid[i] / sigma)))


def next_level(count: int, current: int, rng: random.Random) -> int:
    """Another level of the σ grid, 1–3 steps from the current one (kept inside the grid)."""
    steps = [s for s in (-3, -2, -1, 1, 2, 3) if 0 <= current + s < count]
    return current + rng.choice(steps)


async def student(
    index: int,
    base_url: str,
    start_query: dict,
    changes: int,
    think: tuple[float, float],
    delay: float,
    timeout: float,
    seed: int = 0,
) -> StudentResult:
    """Arrive after ``delay`` s, open the Explorer, commit σ ``changes`` times, leave."""
    await asyncio.sleep(delay)
    result = StudentResult(index)
    rng = random.Random(seed * 100_003 + index)
    session = Session(base_url, timeout)
    try:
        t0 = time.perf_counter()
        await session.connect()
        t_send = time.perf_counter()
        first = await session.run(start_query)
        result.open_seconds = time.perf_counter() - t0
        if first.to_component is not None:
            result.first_figure_seconds = t_send - t0 + first.to_component
        if first.to_complete is not None:
            result.all_levels_seconds = t_send - t0 + first.to_complete
        result.open_bytes = first.ws_bytes
        result.errors += first.problems
        if not first.component_id or not first.grid or "sigma" not in first.query:
            result.errors.append(
                "the Explorer opened without its σ scrubber, its payload or σ in the address"
            )
            return result
        if first.to_sidebar is None:
            result.errors.append("the Explorer opened without its sidebar")
        query, grid = first.query, first.grid
        level = nearest_level(grid, float(query["sigma"]))
        for _ in range(changes):
            await asyncio.sleep(rng.uniform(*think))
            level = next_level(len(grid), level, rng)
            run = await session.run(
                query, level=level, component_id=first.component_id, fragment_id=first.fragment_id
            )
            result.errors += run.problems
            missing = shows_sigma(run, grid[level])
            if missing:
                result.errors.append(f"after committing σ = {grid[level]:.3g}: " + "; ".join(missing))
            else:
                result.commits_ok += 1
                result.commit_to_page.append(run.to_downloads)
            if run.seconds is not None:
                result.commit_to_finished.append(run.seconds)
            result.commit_bytes.append(run.ws_bytes)
            result.commit_refs.append(run.refs)
            query = run.query or query
    except TimeoutError:
        result.errors.append(f"no script_finished within {timeout:.0f} s")
    except Exception as exc:  # noqa: BLE001 — every failure of a session is counted and reported
        result.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        try:
            await session.close()
        except Exception as exc:  # noqa: BLE001
            result.errors.append(f"closing: {type(exc).__name__}: {exc}")
    return result


async def probe_script_time(base_url: str, opens: int, timeout: float, pid: int | None = None) -> dict:
    """On the idle, warm server (payload cached): fresh sessions open the Explorer one after another,
    then the last one commits σ ``opens`` times. Each action's time, and the server's CPU per action
    from /proc (post-run GC and websocket work included)."""
    script, total, problems = [], [], []
    cpu_open = 0.0
    session = None
    # a teacher's tab stays open meanwhile: Streamlit drops its compiled page scripts whenever no
    # session is connected, which in a class does not happen
    anchor = Session(base_url, timeout)
    await anchor.connect()
    for i in range(opens):
        session = Session(base_url, timeout)
        try:
            await session.connect()
            before = cpu_seconds(pid)
            run = await session.run({})
            after = cpu_seconds(pid)
            if before is not None and after is not None:
                cpu_open += after - before
            problems += run.problems
            if run.to_new_session is not None and run.seconds is not None:
                script.append(run.seconds - run.to_new_session)
                total.append(run.seconds)
        finally:
            if i < opens - 1:
                await session.close()
        await asyncio.sleep(0.3)
    commit_seconds, cpu_commit, commits = [], 0.0, 0
    if session is not None and run.component_id and run.grid and "sigma" in run.query:
        try:
            query, level = run.query, nearest_level(run.grid, float(run.query["sigma"]))
            rng = random.Random(0)
            for _ in range(opens):
                level = next_level(len(run.grid), level, rng)
                before = cpu_seconds(pid)
                commit = await session.run(
                    query, level=level, component_id=run.component_id, fragment_id=run.fragment_id
                )
                after = cpu_seconds(pid)
                problems += commit.problems + shows_sigma(commit, run.grid[level])
                if before is not None and after is not None:
                    cpu_commit += after - before
                    commits += 1
                if commit.seconds is not None:
                    commit_seconds.append(commit.seconds)
                query = commit.query or query
                await asyncio.sleep(0.3)
        finally:
            await session.close()
    await anchor.close()
    return {
        "opens": opens,
        "new_session_to_finished": summary(script),
        "send_to_finished": summary(total),
        "commit_to_finished": summary(commit_seconds),
        # the server's CPU per action on the idle warm server (None without the server's pid)
        "server_cpu_per_open": cpu_open / opens if pid and opens else None,
        "server_cpu_per_commit": cpu_commit / commits if pid and commits else None,
        "loadavg_1min": round(os.getloadavg()[0], 2),
        "problems": problems,
    }


# --- the classroom --------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0–100) with linear interpolation, None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "max": max(values) if values else None,
    }


QUIET_WINDOW = 0.5  # seconds: the server is quiet after two such windows in a row ...
QUIET_CPU = 0.02  # ... with less than this much CPU (seconds) used in each


async def until_quiet(pid: int | None, base_url: str, longest: float) -> None:
    """Wait until the server holds no open session and is quiet (``QUIET_CPU`` in each of two
    ``QUIET_WINDOW``s), at most ``longest`` seconds: what a memory sample after some work waits for (the
    server's post-run work and the sessions' clean-up done). Without the pid: ``longest`` seconds."""
    deadline = time.monotonic() + longest
    last, quiet = cpu_seconds(pid), 0
    while (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(QUIET_WINDOW, left))
        now = cpu_seconds(pid)
        quiet = quiet + 1 if now is not None and last is not None and now - last < QUIET_CPU else 0
        last = now
        if quiet >= 2 and await asyncio.to_thread(active_sessions, base_url) in (0, None):
            return


async def classroom(args, base_url: str, pid: int | None) -> dict:
    """Warm up with one student, probe a warm first open's script time, take the baseline, then run
    ``args.waves`` waves of students (each wave: arrive, work, leave, ``args.settle`` s of quiet).
    A per-session leak shows as RSS that keeps rising from wave to wave; bounded caches level off."""
    monitor = RssMonitor(pid)
    monitor.start()
    warm = await student(-1, base_url, {}, args.changes, (0.0, 0.0), 0.0, args.timeout, args.seed)
    if warm.errors:
        raise RuntimeError(f"the warm-up student failed: {warm.errors}")
    probe = (
        await probe_script_time(base_url, args.probe_opens, args.timeout, pid) if args.probe_opens else None
    )
    await until_quiet(pid, base_url, 2.0)
    baseline = monitor.now()
    cache_baseline = cache_mb(base_url)
    t_first = monitor.elapsed()

    waves, results = [], []
    for wave in range(args.waves):
        t_load = monitor.elapsed()
        t0 = time.perf_counter()
        tasks = []
        for i in range(args.sessions):
            number = wave * args.sessions + i
            query = (
                {"seed": str(1000 + number), "k": str(OWN_KS[number % len(OWN_KS)])}
                if args.distinct_data
                else {}
            )
            delay = args.arrival_seconds * i / max(args.sessions - 1, 1)
            tasks.append(
                student(
                    number, base_url, query, args.changes, tuple(args.think), delay, args.timeout, args.seed
                )
            )
        load_before, cpu_before = os.getloadavg(), cpu_seconds(pid)
        wave_results = await asyncio.gather(*tasks)
        wall = time.perf_counter() - t0
        load_after, cpu_after = os.getloadavg(), cpu_seconds(pid)
        runs = sum((r.open_seconds is not None) + len(r.commit_to_finished) for r in wave_results)
        at_close = monitor.now()
        peak = monitor.peak_since(t_load)
        await asyncio.sleep(args.settle)
        waves.append(
            {
                "wall_seconds": wall,
                "peak": peak,
                "at_close": at_close,
                "after_settle": monitor.now(),
                "cache_after": cache_mb(base_url),
                "errors": sum(len(r.errors) for r in wave_results),
                # the machine's 1-minute load average as the wave began and ended (2 cores: > 2 is
                # other work competing with the server and these clients)
                "loadavg_1min": [round(load_before[0], 2), round(load_after[0], 2)],
                # the server's CPU time during the wave per script run (opens + commits), with
                # its post-run GC and websocket work: what a run costs, whatever the machine's noise
                "server_cpu_seconds": None
                if cpu_before is None or cpu_after is None
                else cpu_after - cpu_before,
                "runs": runs,
                "server_cpu_per_run": None
                if cpu_before is None or cpu_after is None or not runs
                else (cpu_after - cpu_before) / runs,
            }
        )
        results += wave_results
    # Streamlit keeps a closed tab's session for server.disconnectedSessionTTL seconds (60 in our
    # config) and reaps expired ones lazily, on the next write to its session store. One more short
    # visit triggers that; the last sample shows what remains once the sessions are really gone.
    reaper = await student(-2, base_url, {}, 0, (0.0, 0.0), 0.0, args.timeout, args.seed)
    await until_quiet(pid, base_url, 5.0)
    after_reap = monitor.now()
    await monitor.stop()

    commit = [t for r in results for t in r.commit_to_page]
    finished = [t for r in results for t in r.commit_to_finished]
    opens = [r.open_seconds for r in results if r.open_seconds is not None]
    figures = [r.first_figure_seconds for r in results if r.first_figure_seconds is not None]
    complete = [r.all_levels_seconds for r in results if r.all_levels_seconds is not None]
    open_measure = MODES[args.mode]["targets"].get("open_measure", "open")
    errors = [f"student {r.index}: {e}" for r in results for e in r.errors]
    after = waves[-1]["after_settle"]
    targets = MODES[args.mode]["targets"]
    memory_ratio = targets.get("memory_ratio", TARGET_MEMORY)
    report = {
        "mode": args.mode,
        "sessions": args.sessions,
        "waves": args.waves,
        "changes": args.changes,
        "arrival_seconds": args.arrival_seconds,
        "think": list(args.think),
        "distinct_data": args.distinct_data,
        "warmup_open_seconds": warm.open_seconds,
        "warm_first_open_script": probe,
        "open": summary(opens),
        "first_figure": summary(figures),
        "all_levels": summary(complete),
        "commit_to_page": summary(commit),
        "commit_to_finished": summary(finished),
        "bytes": {
            "first_open": summary([float(r.open_bytes) for r in results if r.open_bytes is not None]),
            "commit": summary([float(b) for r in results for b in r.commit_bytes]),
            "commit_refs": summary([float(n) for r in results for n in r.commit_refs]),
            "warmup_first_open": warm.open_bytes,
        },
        "errors": errors,
        "sessions_with_all_commits": sum(r.commits_ok == args.changes for r in results),
        "commits_per_session": [r.commits_ok for r in results],
        "rss_mb": {
            "pid": pid,
            "baseline": baseline,
            "peak": max((w["peak"] for w in waves if w["peak"]), default=None),
            "after_settle": after,
            "settle_seconds": args.settle,
            "waves": waves,
            "cache_baseline": cache_baseline,
            "cache_after": waves[-1]["cache_after"],
            "after_reap": after_reap,
            "reap_probe_errors": reaper.errors,
        },
        "rss_samples": [(t, v) for t, v in monitor.samples if t >= t_first],
        "active_sessions_after": active_sessions(base_url),
        "target_values": {
            "commit_p95": targets["commit_p95"],
            "open_p95": targets["open_p95"],
            "open_measure": open_measure,
            "memory_ratio": memory_ratio,
            "script_seconds": TARGET_SCRIPT_SECONDS,
        },
    }
    report["targets"] = {
        "zero_errors": not errors,
        "commit_p95": None
        if targets["commit_p95"] is None
        else (commit != [] and report["commit_to_page"]["p95"] <= targets["commit_p95"]),
        "open_p95": None
        if targets["open_p95"] is None
        else (report[open_measure]["n"] > 0 and report[open_measure]["p95"] <= targets["open_p95"]),
        "memory_within_target": (
            None if baseline is None or after is None else after <= memory_ratio * baseline
        ),
        "warm_open_script": (
            None
            if not probe or probe["new_session_to_finished"]["p50"] is None
            else probe["new_session_to_finished"]["p50"] <= TARGET_SCRIPT_SECONDS
        ),
    }
    return report


def metrics(base_url: str) -> list[str]:
    """The lines of /_stcore/metrics (OpenMetrics text), [] if unavailable."""
    try:
        with urllib.request.urlopen(f"{base_url}/_stcore/metrics", timeout=5) as r:
            return r.read().decode().splitlines()
    except OSError:
        return []


def active_sessions(base_url: str) -> int | None:
    """Sessions the server still holds (metrics' active_sessions; None if unavailable)."""
    values = [line.split()[1] for line in metrics(base_url) if line.startswith("active_sessions ")]
    return int(float(values[0])) if values else None


def cache_mb(base_url: str) -> float | None:
    """Memory held by st.cache_data/st.cache_resource entries, MB (sum of cache_memory_bytes)."""
    values = [float(line.split()[-1]) for line in metrics(base_url) if line.startswith("cache_memory_bytes{")]
    return sum(values) / 2**20 if values else None


def _fmt(x, unit="s", digits=3) -> str:
    return "n/a" if x is None else f"{x:.{digits}g} {unit}"


def _kb(x) -> str:
    return "n/a" if x is None else f"{x / 1e3:.1f} kB"


def print_report(r: dict) -> None:
    total = r["sessions"] * r["waves"]
    print(
        f"\nmode {r['mode']}: {r['sessions']} sessions arriving over {r['arrival_seconds']:g} s"
        + (f", {r['waves']} waves" if r["waves"] > 1 else "")
        + f", {r['changes']} σ commits each, think {r['think'][0]:g}–{r['think'][1]:g} s"
        + (", every student on their own data set and k" if r["distinct_data"] else ", the default data set")
        + f" (warm-up student's open {_fmt(r['warmup_open_seconds'])})"
    )
    p = r["warm_first_open_script"]
    if p:
        a, b = p["new_session_to_finished"], p["send_to_finished"]
        print(
            f"  warm server, a first open's script time ({p['opens']} opens, payload cached): new_session → "
            f"script_finished p50 {_fmt(a['p50'])} max {_fmt(a['max'])}; send → script_finished p50 "
            f"{_fmt(b['p50'])} max {_fmt(b['max'])}"
        )
        c = p.get("commit_to_finished") or summary([])

        def ms(x):
            return _fmt(None if x is None else 1000 * x, "ms")

        print(
            f"  idle warm server, server CPU per action: first open {ms(p.get('server_cpu_per_open'))}, "
            f"settle commit {ms(p.get('server_cpu_per_commit'))} ({c['n']} commits, send → script_finished "
            f"p50 {_fmt(c['p50'])}); machine load average {p.get('loadavg_1min')}"
        )
    for key, what in (
        ("first_figure", "first figure (connect → first scrubber payload)"),
        ("all_levels", "all σ levels (connect → complete payload)"),
        ("open", "first open (connect → script_finished)"),
        ("commit_to_page", "σ commit → updated page (downloads markdown)"),
        ("commit_to_finished", "σ commit → script_finished"),
    ):
        s = r[key]
        print(f"  {what:<46} n={s['n']:<4} p50 {_fmt(s['p50'])}  p95 {_fmt(s['p95'])}  max {_fmt(s['max'])}")
    by = r["bytes"]
    print(
        f"  bytes received: first open p50 {_kb(by['first_open']['p50'])} (max "
        f"{_kb(by['first_open']['max'])}), "
        f"commit p50 {_kb(by['commit']['p50'])} (max {_kb(by['commit']['max'])}); "
        f"ref_hash references per commit p50 {by['commit_refs']['p50']}"
    )
    print(f"  sessions with all {r['changes']} commits shown: {r['sessions_with_all_commits']} of {total}")
    print(f"  errors: {len(r['errors'])}")
    for e in r["errors"][:20]:
        print(f"    {e}")
    m = r["rss_mb"]
    base = m["baseline"]

    def mb(v):
        return (
            "n/a" if v is None else f"{v:.1f} MB" + ("" if not base else f" ({100 * (v / base - 1):+.1f} %)")
        )

    print(f"  server RSS (pid {m['pid']}): warm baseline {'n/a' if base is None else f'{base:.1f} MB'}")
    for n, w in enumerate(m["waves"], 1):
        print(
            f"    wave {n}: wall {w['wall_seconds']:.1f} s, peak {mb(w['peak'])}, at close "
            f"{mb(w['at_close'])}, "
            f"{m['settle_seconds']:g} s after close {mb(w['after_settle'])}; st.cache entries hold "
            f"{_fmt(w['cache_after'], 'MB', 3)} (baseline {_fmt(m['cache_baseline'], 'MB', 3)}); machine "
            "load "
            f"average {w['loadavg_1min'][0]:g} → {w['loadavg_1min'][1]:g}; server CPU "
            f"{_fmt(w['server_cpu_seconds'])} "
            f"for {w['runs']} runs = "
            f"{_fmt(None if w['server_cpu_per_run'] is None else 1000 * w['server_cpu_per_run'], 'ms')} "
            "per run"
        )
    print(f"  after one more short visit (Streamlit reaps sessions closed > TTL ago): {mb(m['after_reap'])}")
    print(f"  active sessions after: {r['active_sessions_after']}")
    t, v = r["targets"], r["target_values"]

    def mark(x):
        return "n/a" if x is None else "✓" if x else "✗"

    print(
        f"  targets: zero errors {mark(t['zero_errors'])}"
        + (
            ""
            if v["commit_p95"] is None
            else f" · commit p95 ≤ {v['commit_p95']:g} s {mark(t['commit_p95'])}"
        )
        + (
            ""
            if v["open_p95"] is None
            else f" · {OPEN_MEASURES[v['open_measure']]} p95 ≤ {v['open_p95']:g} s {mark(t['open_p95'])}"
        )
        + f" · memory within +{100 * (v['memory_ratio'] - 1):.0f} % {mark(t['memory_within_target'])}"
        + f" · warm first open script p50 ≤ {1000 * v['script_seconds']:.0f} ms {mark(t['warm_open_script'])}"
    )


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--mode",
        choices=sorted(MODES),
        default="default",
        help="lecture (120 over 30 s, 3 commits, think 2–6 s), classroom (40 within 5 s, 5 commits), "
        "exploring (40 over 20 s, each on their own data seed and k, 2 commits) or default (40 over 10 s, "
        "5 commits); the flags below override its values",
    )
    p.add_argument("--sessions", type=int, help="concurrent students")
    p.add_argument("--port", type=int, help="a running server's port on 127.0.0.1 (default: start one)")
    p.add_argument("--pid", type=int, help="the running server's pid (default: found from --port)")
    p.add_argument("--arrival-seconds", type=float, help="students arrive evenly over this many seconds")
    p.add_argument("--changes", type=int, help="σ commits per student")
    p.add_argument(
        "--think",
        type=float,
        nargs=2,
        metavar=("MIN", "MAX"),
        help="think time before each commit, uniform in seconds",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=60.0,
        help="seconds after all sessions closed before the last memory sample (default 60)",
    )
    p.add_argument(
        "--waves",
        type=int,
        default=1,
        help="repeat the whole class this many times on the same server (a leak grows per wave)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per run (default 60)")
    p.add_argument(
        "--probe-opens",
        type=int,
        default=10,
        help="fresh first opens on the idle warm server before the class, for the script time (default 10)",
    )
    p.add_argument(
        "--distinct-data",
        action="store_true",
        default=None,
        help="each student uses their own data seed and k (every computation a cache miss)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the students' σ choices")
    p.add_argument("--json", type=Path, help="also write the full report here")
    p.add_argument("--check", action="store_true", help="exit 1 unless every target is met")
    args = p.parse_args(argv)
    for name, value in MODES[args.mode].items():
        if name != "targets" and getattr(args, name) is None:
            setattr(args, name, value)
    args.distinct_data = bool(args.distinct_data)

    # a plain `kill` of this script still stops the server it started (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = None
    if args.port is None:
        log = ARTIFACTS / f"load-server-{os.getpid()}.log"
        log.parent.mkdir(exist_ok=True)
        server = StreamlitServer(log)
        t0 = time.perf_counter()
        server.wait_healthy()
        print(
            f"started streamlit (pid {server.pid}) on port {server.port}, healthy after "
            f"{time.perf_counter() - t0:.1f} s; log {log}"
        )
        base_url, pid = server.url, server.pid
    else:
        base_url = f"http://127.0.0.1:{args.port}"
        pid = args.pid or pid_listening_on(args.port)
        print(f"server at {base_url}, pid {pid if pid else 'unknown (no memory figures)'}")
    try:
        report = asyncio.run(classroom(args, base_url, pid))
    finally:
        if server is not None:
            server.stop()
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if args.check and not all(v is not False for v in report["targets"].values()):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
