"""A classroom's load: N students, each in a real Streamlit session, open the Explorer and change σ.

    .venv/bin/python bench/load.py --sessions 40                  # starts its own server
    .venv/bin/python bench/load.py --sessions 40 --port 8501      # against a running server
    .venv/bin/python bench/load.py --sessions 5 --settle 5 --json out.json

Each simulated student speaks Streamlit's own protocol, as the browser does (streamlit 1.67,
frontend `connectToWebSocket` and server `starlette_websocket.py`):

1. GET /_stcore/health and /_stcore/host-config (the frontend's pings); the health response sets
   the `_streamlit_xsrf` cookie.
2. Open ws://HOST:PORT/_stcore/stream with subprotocols ["streamlit", <xsrf cookie value>], the
   cookie and a same-origin Origin header.
3. Send a BackMsg `rerun_script` with `page_name="Explorer"` (pages/1_Explorer.py) and the page's
   query string; read ForwardMsgs until `script_finished`. This runs the real page script: a plain
   GET of `/` runs nothing.
4. Change σ five times: the same rerun with the query string the server last wrote (the browser's
   address) and `sigma=` set to another value of the σ slider's grid (random neighbours, 1–3 grid
   steps away, seeded per student), with a think time between changes.

What is timed: from sending the change to receiving the delta that carries the new plotly chart
(checked: its title shows the new σ) — "change → updated figure", the target; and to
`script_finished` (the page's numbers and text below the figure included).

An error is any of: connection failure, a run that does not finish within --timeout, a run that
ends other than FINISHED_SUCCESSFULLY, an exception or error box in the page, or a figure missing or
showing the wrong σ.

Memory: the server's resident set size (VmRSS in /proc/PID/status), sampled every 0.25 s:
baseline after a warm-up student (imports done, caches warm for the default data), peak during the
load, and --settle seconds (default 60) after every session has closed. Python rarely returns freed
memory to the OS, so "after" bounds what the sessions left behind (session state, cache entries).

Targets on the 2-core machine (issue 4): 40 sessions, zero errors, p95 ≤ 2 s, RSS after within 20 %
of the baseline. `--check` makes the exit code say whether they were met.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROOT = Path(__file__).resolve().parents[1]
PAGE = "Explorer"                 # url path of pages/1_Explorer.py
SIGMA_LABEL = "σ (log scale)"     # the sidebar's σ select_slider (ui/page.py)
FINISHED_OK = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
TARGET_P95 = 2.0                  # seconds, change → updated figure
TARGET_MEMORY = 1.20              # RSS after / warm baseline


# --- the server -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`python -m streamlit run app.py` from the repository root on a free loopback port.

    Runs like the container: .streamlit/config.toml (post-run GC on, XSRF on, session TTL) and the
    Dockerfile's MALLOC_ARENA_MAX=2 unless the environment sets it."""

    def __init__(self, log_path: Path | None = None, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = open(log_path, "w") if log_path else subprocess.DEVNULL
        self.log_path = log_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
             f"--server.port={self.port}", "--server.address=127.0.0.1", "--server.fileWatcherType=none"],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT,
            env={"MALLOC_ARENA_MAX": "2", **os.environ})

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_healthy(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {self.proc.returncode}; log: {self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.read() == b"ok":
                        return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"streamlit not healthy after {timeout:.0f} s; log: {self.log_tail()}")

    def log_tail(self, chars: int = 4000) -> str:
        if self.log_path is None:
            return "(not logged)"
        self._log.flush()
        return self.log_path.read_text()[-chars:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not subprocess.DEVNULL:
            self._log.close()


def rss_mb(pid: int) -> float | None:
    """Resident set size of ``pid`` in MB (VmRSS in /proc/PID/status), None if unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def pid_listening_on(port: int) -> int | None:
    """The pid of the process listening on TCP ``port`` (from /proc/net/tcp and /proc/*/fd)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if int(cols[1].rsplit(":", 1)[1], 16) == port and cols[3] == "0A":  # 0A = LISTEN
                inodes.add(f"socket:[{cols[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    return None


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
class Run:
    """What one script run sent back."""

    seconds_to_figure: float | None = None      # send → the plotly chart delta
    seconds_to_finished: float | None = None    # send → script_finished
    figure_title: str = ""
    status: int | None = None
    query: dict = field(default_factory=dict)   # the address the server wrote last
    sigma_options: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _figure_title(spec: str) -> str:
    title = json.loads(spec).get("layout", {}).get("title", "")
    return title.get("text", "") if isinstance(title, dict) else str(title)


class Session:
    """One browser tab's worth of Streamlit protocol over one websocket."""

    def __init__(self, base_url: str, timeout: float):
        self.base_url = base_url
        self.timeout = timeout
        self.ws = None

    async def connect(self) -> None:
        def pings() -> str:
            with urllib.request.urlopen(f"{self.base_url}/_stcore/health", timeout=self.timeout) as r:
                cookie = r.headers.get("set-cookie", "").split(";")[0]
            with urllib.request.urlopen(f"{self.base_url}/_stcore/host-config", timeout=self.timeout) as r:
                r.read()
            return cookie

        cookie = await asyncio.to_thread(pings)
        xsrf = cookie.split("=", 1)[1] if cookie.startswith("_streamlit_xsrf=") else "PLACEHOLDER_AUTH_TOKEN"
        ws_url = self.base_url.replace("http://", "ws://") + "/_stcore/stream"
        self.ws = await websockets.connect(
            ws_url, subprotocols=["streamlit", xsrf], max_size=None, open_timeout=self.timeout,
            additional_headers={"Cookie": cookie, "Origin": self.base_url})

    async def run(self, query: dict, page: str = PAGE) -> Run:
        """Rerun ``page`` with this address query; read until script_finished."""
        msg = BackMsg()
        msg.rerun_script.query_string = urlencode(query)
        msg.rerun_script.page_name = page
        result = Run()
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        async with asyncio.timeout(self.timeout):
            while True:
                fwd = ForwardMsg()
                fwd.ParseFromString(await self.ws.recv())
                kind = fwd.WhichOneof("type")
                if kind == "page_info_changed":
                    result.query = dict(parse_qsl(fwd.page_info_changed.query_string))
                elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    self._read_element(fwd.delta.new_element, result, t0)
                elif kind == "script_finished":
                    result.seconds_to_finished = time.perf_counter() - t0
                    result.status = fwd.script_finished
                    if fwd.script_finished != FINISHED_OK:
                        result.problems.append(
                            f"run ended {ForwardMsg.ScriptFinishedStatus.Name(fwd.script_finished)}")
                    return result

    @staticmethod
    def _read_element(element, result: Run, t0: float) -> None:
        kind = element.WhichOneof("type")
        if kind == "plotly_chart" and result.seconds_to_figure is None:
            result.seconds_to_figure = time.perf_counter() - t0
            result.figure_title = _figure_title(element.plotly_chart.spec)
        elif kind == "slider" and element.slider.label == SIGMA_LABEL:
            result.sigma_options = list(element.slider.options)
        elif kind == "exception":
            result.problems.append(f"exception box: {element.exception.type}: {element.exception.message}")
        elif kind == "alert" and element.alert.format == Alert.ERROR:
            result.problems.append(f"error box: {element.alert.body}")

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


# --- one student ----------------------------------------------------------------------------------

@dataclass
class StudentResult:
    index: int
    open_seconds: float | None = None           # connect + first run until the figure
    change_to_figure: list[float] = field(default_factory=list)
    change_to_finished: list[float] = field(default_factory=list)
    figures_ok: int = 0                          # changes answered with a figure at the new σ
    errors: list[str] = field(default_factory=list)


def next_sigma(options: list[str], current: str, rng: random.Random) -> str:
    """Another value of the σ grid, 1–3 steps from the current one (kept inside the grid)."""
    i = options.index(current) if current in options else len(options) // 2
    steps = [s for s in (-3, -2, -1, 1, 2, 3) if 0 <= i + s < len(options)]
    return options[i + rng.choice(steps)]


async def student(index: int, base_url: str, start_query: dict, changes: int, think: tuple[float, float],
                  delay: float, timeout: float, seed: int = 0) -> StudentResult:
    """Arrive after ``delay`` s, open the Explorer, change σ ``changes`` times, leave."""
    await asyncio.sleep(delay)
    result = StudentResult(index)
    rng = random.Random(seed * 100_003 + index)
    session = Session(base_url, timeout)
    try:
        t0 = time.perf_counter()
        await session.connect()
        first = await session.run(start_query)
        result.open_seconds = time.perf_counter() - t0
        result.errors += first.problems
        if first.seconds_to_figure is None or not first.sigma_options or "sigma" not in first.query:
            result.errors.append(f"the Explorer opened without its figure or σ slider ({first.figure_title!r})")
            return result
        query = first.query
        for _ in range(changes):
            await asyncio.sleep(rng.uniform(*think))
            sigma = next_sigma(first.sigma_options, query["sigma"], rng)
            run = await session.run({**query, "sigma": sigma})
            result.errors += run.problems
            expected = f"σ = {float(sigma):.3g}"
            if run.seconds_to_figure is None:
                result.errors.append(f"no figure after changing σ to {sigma}")
            elif expected not in run.figure_title:
                result.errors.append(f"figure shows {run.figure_title!r} after changing σ to {sigma}")
            else:
                result.figures_ok += 1
                result.change_to_figure.append(run.seconds_to_figure)
            if run.seconds_to_finished is not None:
                result.change_to_finished.append(run.seconds_to_finished)
            query = run.query or {**query, "sigma": sigma}
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
    return {"n": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
            "max": max(values) if values else None}


async def classroom(args, base_url: str, pid: int | None) -> dict:
    """Warm up with one student, take the baseline, then run ``args.waves`` waves of students (each
    wave: arrive, work, leave, ``args.settle`` s of quiet). A per-session leak shows as RSS that
    keeps rising from wave to wave; bounded caches level off."""
    monitor = RssMonitor(pid)
    monitor.start()
    warm = await student(-1, base_url, {}, args.changes, (0.0, 0.0), 0.0, args.timeout, args.seed)
    if warm.errors:
        raise RuntimeError(f"the warm-up student failed: {warm.errors}")
    await asyncio.sleep(2.0)
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
            query = {"seed": str(1000 + number)} if args.distinct_data else {}
            delay = args.arrival_seconds * i / max(args.sessions - 1, 1)
            tasks.append(student(number, base_url, query, args.changes, tuple(args.think), delay, args.timeout,
                                 args.seed))
        wave_results = await asyncio.gather(*tasks)
        wall = time.perf_counter() - t0
        at_close = monitor.now()
        peak = monitor.peak_since(t_load)
        await asyncio.sleep(args.settle)
        waves.append({"wall_seconds": wall, "peak": peak, "at_close": at_close, "after_settle": monitor.now(),
                      "cache_after": cache_mb(base_url), "errors": sum(len(r.errors) for r in wave_results)})
        results += wave_results
    # Streamlit keeps a closed tab's session for server.disconnectedSessionTTL seconds (60 in our
    # config) and reaps expired ones lazily, on the next write to its session store. One more short
    # visit triggers that; the last sample shows what remains once the sessions are really gone.
    probe = await student(-2, base_url, {}, 0, (0.0, 0.0), 0.0, args.timeout, args.seed)
    await asyncio.sleep(5.0)
    after_reap = monitor.now()
    await monitor.stop()

    figure = [t for r in results for t in r.change_to_figure]
    finished = [t for r in results for t in r.change_to_finished]
    errors = [f"student {r.index}: {e}" for r in results for e in r.errors]
    after = waves[-1]["after_settle"]
    report = {
        "sessions": args.sessions, "waves": args.waves, "changes": args.changes,
        "arrival_seconds": args.arrival_seconds, "think": list(args.think), "distinct_data": args.distinct_data,
        "warmup_open_seconds": warm.open_seconds,
        "open": summary([r.open_seconds for r in results if r.open_seconds is not None]),
        "change_to_figure": summary(figure),
        "change_to_finished": summary(finished),
        "errors": errors,
        "sessions_with_all_figures": sum(r.figures_ok == args.changes for r in results),
        "figures_per_session": [r.figures_ok for r in results],
        "rss_mb": {"pid": pid, "baseline": baseline, "peak": max((w["peak"] for w in waves if w["peak"]), default=None),
                   "after_settle": after, "settle_seconds": args.settle, "waves": waves,
                   "cache_baseline": cache_baseline, "cache_after": waves[-1]["cache_after"],
                   "after_reap": after_reap, "reap_probe_errors": probe.errors},
        "rss_samples": [(t, v) for t, v in monitor.samples if t >= t_first],
        "active_sessions_after": active_sessions(base_url),
    }
    report["targets"] = {
        "zero_errors": not errors,
        "p95_figure_le_2s": figure != [] and report["change_to_figure"]["p95"] <= TARGET_P95,
        "memory_within_20pct": (None if baseline is None or after is None else after <= TARGET_MEMORY * baseline),
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


def print_report(r: dict) -> None:
    total = r["sessions"] * r["waves"]
    print(f"\n{r['sessions']} sessions arriving over {r['arrival_seconds']:g} s"
          + (f", {r['waves']} waves" if r["waves"] > 1 else "")
          + f", {r['changes']} σ changes each, think {r['think'][0]:g}–{r['think'][1]:g} s"
          + (", every student on their own data set" if r["distinct_data"] else ", the default data set")
          + f" (warm-up student's open {_fmt(r['warmup_open_seconds'])})")
    for key, what in (("open", "open the Explorer (connect → first run done)"),
                      ("change_to_figure", "σ change → updated figure delta"),
                      ("change_to_finished", "σ change → script_finished")):
        s = r[key]
        print(f"  {what:<46} n={s['n']:<4} p50 {_fmt(s['p50'])}  p95 {_fmt(s['p95'])}  max {_fmt(s['max'])}")
    print(f"  sessions with all {r['changes']} updated figures: {r['sessions_with_all_figures']} of {total}")
    print(f"  errors: {len(r['errors'])}")
    for e in r["errors"][:20]:
        print(f"    {e}")
    m = r["rss_mb"]
    base = m["baseline"]

    def mb(v):
        return "n/a" if v is None else f"{v:.1f} MB" + ("" if not base else f" ({100 * (v / base - 1):+.1f} %)")
    print(f"  server RSS (pid {m['pid']}): warm baseline {'n/a' if base is None else f'{base:.1f} MB'}")
    for n, w in enumerate(m["waves"], 1):
        print(f"    wave {n}: wall {w['wall_seconds']:.1f} s, peak {mb(w['peak'])}, at close {mb(w['at_close'])}, "
              f"{m['settle_seconds']:g} s after close {mb(w['after_settle'])}; st.cache entries hold "
              f"{_fmt(w['cache_after'], 'MB', 3)} (baseline {_fmt(m['cache_baseline'], 'MB', 3)})")
    print(f"  after one more short visit (Streamlit reaps sessions closed > TTL ago): {mb(m['after_reap'])}")
    print(f"  active sessions after: {r['active_sessions_after']}")
    t = r["targets"]
    print(f"  targets: zero errors {'✓' if t['zero_errors'] else '✗'} · p95 ≤ {TARGET_P95:g} s "
          f"{'✓' if t['p95_figure_le_2s'] else '✗'} · memory within 20 % "
          f"{'n/a' if t['memory_within_20pct'] is None else '✓' if t['memory_within_20pct'] else '✗'}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=40, help="concurrent students (default 40)")
    p.add_argument("--port", type=int, help="a running server's port on 127.0.0.1 (default: start one)")
    p.add_argument("--pid", type=int, help="the running server's pid (default: found from --port)")
    p.add_argument("--arrival-seconds", type=float, default=10.0,
                   help="students arrive evenly over this many seconds (default 10)")
    p.add_argument("--changes", type=int, default=5, help="σ changes per student (default 5)")
    p.add_argument("--think", type=float, nargs=2, default=(0.5, 2.0), metavar=("MIN", "MAX"),
                   help="think time between changes, uniform in seconds (default 0.5 2.0)")
    p.add_argument("--settle", type=float, default=60.0,
                   help="seconds after all sessions closed before the last memory sample (default 60)")
    p.add_argument("--waves", type=int, default=1,
                   help="repeat the whole class this many times on the same server (a leak grows per wave)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per run (default 60)")
    p.add_argument("--distinct-data", action="store_true",
                   help="each student uses their own data seed (every computation a cache miss)")
    p.add_argument("--seed", type=int, default=0, help="seed of the students' σ choices")
    p.add_argument("--json", type=Path, help="also write the full report here")
    p.add_argument("--check", action="store_true", help="exit 1 unless every target is met")
    args = p.parse_args(argv)

    # a plain `kill` of this script still stops the server it started (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = None
    if args.port is None:
        log = ROOT / "artifacts" / f"load-server-{os.getpid()}.log"
        log.parent.mkdir(exist_ok=True)
        server = ServerProcess(log)
        t0 = time.perf_counter()
        server.wait_healthy()
        print(f"started streamlit (pid {server.pid}) on port {server.port}, healthy after "
              f"{time.perf_counter() - t0:.1f} s; log {log}")
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
