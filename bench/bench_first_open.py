"""A student's first open of each view: time to the first Plotly figure drawn, and the bytes, against
the floor (bench/floor_page.py: a trivial Streamlit page with one small Plotly chart).

    python bench/bench_first_open.py                       # both sizes, 3 rounds, plus a throttled run
    python bench/bench_first_open.py --rounds 5 --views Explorer Stability --json out.json
    python bench/bench_first_open.py --no-throttled        # skip the 1.25 Mbit/s run
    python bench/bench_first_open.py --bytes --rounds 2    # only the bytes of a first visit of every page
    python bench/bench_first_open.py --before ../wt-main   # also another checkout's app, interleaved

A benchmark, not a test. It starts two servers of the same kind (`python -m streamlit run`, the
repository's .streamlit/config.toml): the app and the floor page. Each view is first visited once
(a warm server: its defaults built), then opened in a fresh Chromium context (empty cache, no
cookie) per round, at 1366 × 768 (laptop) and 390 × 844 (phone: touch, mobile), interleaved with
the floor page in the same round, so the ratio view / floor is measured under the same load.

Per open: navigation → the first Plotly figure drawn (a `.js-plotly-plot` holding its `.main-svg`,
seen by the page itself at its next animation frame, in performance.now() time: 0 is navigation
start), the bytes transferred over HTTP (Chromium's encodedDataLength: headers + body as sent,
compressed where the server compresses) and over the websocket (frames received), and where the
time went: the HTML's response, DOMContentLoaded, the websocket opened, its first and last frame
before the figure, the last JavaScript file received, the main thread's long tasks (JS parse and
run, layout), Plotly's own drawing time (Plotly.newPlot / react, wrapped by an init script), and the
CPU seconds of every Chromium process from navigation to the figure ("CPU ms", its ratio to the
floor's: less sensitive to a loaded machine than the wall time; one open at a time).

The bytes of a visit as the server sent them: every open goes through a byte counter
(harness/byte_counter.py) and, once the figure is drawn, waits until the server has sent nothing for
2 s (the rest of a view's σ levels included): HTTP with its headers, compressed as sent, and the
websocket's frames compressed by permessage-deflate (Chromium's own counts see those decompressed). The
browser asks for gzip only (--accept-encoding), as over plain HTTP. ``--bytes``: only that, for every
page of the menu (Home, Lessons and the Neural network too, which draw no figure on opening: their
visit ends when the page's run has finished and the server is quiet), laptop size, and the floor.

``--before DIR``: a second app server from another checkout (the code before a change), started the
same way; each round opens each view of this checkout then the same view of DIR's ("View@before"),
between the same two floor opens, so before and after are compared under the same load.

Throttled: the phone size again with CDP Network.emulateNetworkConditions at 1.25 Mbit/s each way
and 20 ms latency (forty students sharing a 50 Mbit/s link), one round, views and floor.
Each line carries the load average; the header (harness/machine.py) the CPU model, whether it has AVX-512,
numpy's exp rates and the load; --no-avx512 runs it as a machine without AVX-512.
Target: every view within 1.25 × the floor at both sizes; ≤ 3 MB per first visit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from harness import machine  # noqa: E402  the machine header and --no-avx512
from harness.byte_counter import ByteCounter  # noqa: E402
from harness.chromium import CHROMIUM_ARGS  # noqa: E402
from harness.settings import chromium_path  # noqa: E402
from harness.streamlit_server import StreamlitServer  # noqa: E402

SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 768}},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
}
VIEWS = [
    "Explorer",
    "Annealing",
    "Stability",
    "Equivalence",
    "Step_by_step",
    "How_many_clusters",
    "Gaussian_mixture",
]  # not the Neural network: it opens with no figure, its figures follow a training the student starts
FLOOR = "floor"
TARGET_RATIO = 1.25
TARGET_BYTES = 3_000_000
QUIET_SECONDS = 2.0  # the visit's bytes: everything the server sends until it sends nothing this long
# --accept-encoding: what Chromium asks for over plain HTTP from another machine (to localhost it offers
# Brotli and zstd too, which the image's precompressed files would answer)
PLAIN_HTTP = "gzip, deflate"
THROTTLE = {"offline": False, "latency": 20, "downloadThroughput": 1.25e6 / 8, "uploadThroughput": 1.25e6 / 8}

# In the page, from navigation on: the websocket's open and frames, long tasks, Plotly's drawing.
_TIMELINE_JS = """(() => {
  const T = window.__firstOpen = { wsOpen: null, wsFrames: [], longTasks: [], plotly: [], drawn: null };
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener("open", () => { if (T.wsOpen === null) T.wsOpen = performance.now(); });
    ws.addEventListener("message", (e) => {
      if (T.drawn === null) T.wsFrames.push([performance.now(), e.data.byteLength || e.data.length || 0]);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (T.drawn === null) T.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (e) {}
  // Plotly arrives as a lazily loaded chunk that sets window.Plotly: wrap its drawing calls then.
  let plotly;
  Object.defineProperty(window, "Plotly", {
    configurable: true,
    get() { return plotly; },
    set(value) {
      plotly = value;
      for (const name of ["newPlot", "react"]) {
        const original = value && value[name];
        if (typeof original !== "function" || original.__timed) continue;
        const timed = function (...args) {
          const t0 = performance.now();
          const out = original.apply(this, args);
          Promise.resolve(out).then(() => T.plotly.push([t0, performance.now() - t0]));
          return out;
        };
        timed.__timed = true;
        value[name] = timed;
      }
    },
  });
  const look = () => {
    if (document.querySelector(".js-plotly-plot .main-svg")) { T.drawn = performance.now(); return; }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


class Traffic:
    """Bytes of one page over CDP: HTTP responses as transferred, websocket frames received."""

    def __init__(self, context, page, throttle: dict | None):
        self.http: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.ws = 0
        self.cdp = context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        if throttle:
            self.cdp.send("Network.emulateNetworkConditions", throttle)
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.on("Network.webSocketFrameReceived", self._frame)

    def _response(self, event):
        self.urls[event["requestId"]] = event["response"]["url"]

    def _finished(self, event):
        self.http[event["requestId"]] = int(event["encodedDataLength"])

    def _frame(self, event):
        data = event["response"]["payloadData"]
        self.ws += len(data) * 3 // 4 if event["response"]["opcode"] == 2 else len(data.encode())

    def by_url(self) -> list[tuple[str, int]]:
        return sorted(((self.urls.get(k, k), n) for k, n in self.http.items()), key=lambda r: -r[1])


def wait_quiet(relay: ByteCounter, timeout_ms: int) -> None:
    """Until the server has sent nothing for QUIET_SECONDS (the rest of a view's σ levels included)."""
    deadline = time.monotonic() + timeout_ms / 1000
    last, since = relay.sent, time.monotonic()
    while time.monotonic() - since < QUIET_SECONDS and time.monotonic() < deadline:
        time.sleep(0.25)
        if relay.sent != last:
            last, since = relay.sent, time.monotonic()


def open_once(
    browser,
    base: str,
    path: str,
    size: str,
    throttle: dict | None,
    timeout_ms: int,
    accept_encoding: str | None = None,
) -> dict:
    """One first open in a fresh context, through a byte counter: times (ms from navigation start),
    bytes to the figure (Chromium's counts), and the whole visit's bytes as the server sent them."""
    with counted_visit(browser, base, size, throttle, accept_encoding, _TIMELINE_JS) as visit:
        try:
            return _first_open(*visit, path, size, timeout_ms)
        except Exception as exc:  # noqa: BLE001 - one view failing must not stop the benchmark
            return {
                "path": path,
                "size": size,
                "error": f"{type(exc).__name__}: {exc}"[:300],
                "load": machine.load_text(),
            }


class BrowserCPU:
    """CPU seconds of the Chromium processes Playwright started (every process: browser, renderers, GPU,
    network), read from the operating system; one open at a time, so a difference is that open's."""

    processes: list = []

    @classmethod
    def find(cls) -> None:
        """The Chromium processes below this one (call once the browser is launched)."""
        import psutil

        cls.processes = [p for p in psutil.Process().children(recursive=True) if "chrom" in p.name().lower()]

    @classmethod
    def seconds(cls) -> float | None:
        import psutil

        if not cls.processes:
            return None
        total = 0.0
        for root in {p.pid: p for p in cls.processes}.values():
            try:
                family = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            for process in family:
                try:
                    times = process.cpu_times()
                except psutil.Error:
                    continue
                total += times.user + times.system
        return total


def _first_open(page, traffic, relay, path: str, size: str, timeout_ms: int) -> dict:
    """``open_once``'s measurement, on a page whose traffic goes through ``relay``."""
    cpu_start = BrowserCPU.seconds()
    page.goto(f"{relay.url}/{path}", wait_until="commit", timeout=timeout_ms)
    page.wait_for_function(
        "() => window.__firstOpen && window.__firstOpen.drawn !== null", timeout=timeout_ms, polling=100
    )
    cpu_end = BrowserCPU.seconds()
    page.wait_for_timeout(300)  # the figure's own late requests (fonts) are part of the visit
    t = page.evaluate("""() => {
      const T = window.__firstOpen;
      const nav = performance.getEntriesByType("navigation")[0];
      const js = performance.getEntriesByType("resource").filter((r) => r.name.endsWith(".js")
                                                                   && r.responseEnd < T.drawn);
      const plotlyChunk = js.find((r) => r.name.includes("PlotlyChart"));
      return {
        drawn: T.drawn, html: nav.responseEnd, dom_content_loaded: nav.domContentLoadedEventEnd,
        ws_open: T.wsOpen, ws_first: T.wsFrames.length ? T.wsFrames[0][0] : null,
        ws_last: T.wsFrames.length ? T.wsFrames[T.wsFrames.length - 1][0] : null,
        js_files: js.length, js_last: js.length ? Math.max(...js.map((r) => r.responseEnd)) : null,
        plotly_chunk: plotlyChunk ? plotlyChunk.responseEnd : null,
        long_tasks: T.longTasks.reduce((a, [, d]) => a + d, 0),
        plotly_draw: T.plotly.length ? T.plotly[0][1] : null,
        plotly_start: T.plotly.length ? T.plotly[0][0] : null,
      };
    }""")
    http_bytes, ws_bytes = sum(traffic.http.values()), traffic.ws  # to the figure
    wait_quiet(relay, timeout_ms)
    return {
        "path": path,
        "size": size,
        **{k: (round(v) if isinstance(v, float) else v) for k, v in t.items()},
        "browser_cpu": round((cpu_end - cpu_start) * 1000) if cpu_start is not None else None,
        "http_bytes": http_bytes,
        "ws_bytes": ws_bytes,
        "visit_bytes": relay.sent,
        "visit_http_bytes": sum(traffic.http.values()),
        "visit_ws_decoded_bytes": traffic.ws,
        "requests": len(traffic.http),
        "largest": traffic.by_url()[:3],
        "load": machine.load_text(),
    }


@contextmanager
def counted_visit(
    browser,
    base: str,
    size: str,
    throttle: dict | None,
    accept_encoding: str | None,
    init_script: str | None = None,
):
    """A fresh browser context of ``size`` whose page goes through a byte counter to the server at
    ``base``: yields (page, traffic, relay); open ``relay.url`` + a path. Closed and stopped on exit."""
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding else None
    context = browser.new_context(**SIZES[size], extra_http_headers=headers)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    traffic = Traffic(context, page, throttle)
    host, port = base.removeprefix("http://").rsplit(":", 1)
    relay = ByteCounter(host, int(port))
    relay.start()
    try:
        yield page, traffic, relay
    finally:
        context.close()
        relay.stop()


def visit_bytes(browser, base: str, path: str, timeout_ms: int, accept_encoding: str | None) -> dict:
    """A first visit of any page (no figure needed), through a byte counter: the bytes as sent, and
    Chromium's counts (HTTP as transferred, the websocket's frames decompressed)."""
    with counted_visit(browser, base, "laptop", None, accept_encoding) as (page, traffic, relay):
        page.goto(f"{relay.url}/{path}", timeout=timeout_ms)
        page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout_ms
        )
        wait_quiet(relay, timeout_ms)
        return {
            "path": path or "Home",
            "visit_bytes": relay.sent,
            "http_bytes": sum(traffic.http.values()),
            "ws_decoded_bytes": traffic.ws,
            "requests": len(traffic.http),
            "load": machine.load_text(),
        }


def bytes_of_every_page(browser, app: str, floor: str, rounds: int, timeout_ms: int, accept: str | None):
    """Each page of the menu and the floor, ``rounds`` fresh visits each: the largest of each page."""
    from ui.page import PAGES

    pages = ["", *(script.split("_", 1)[1].removesuffix(".py") for script, _, _ in PAGES)]
    rows = []
    for base, paths in ((app, pages), (floor, [""])):
        for path in paths:
            visits = [visit_bytes(browser, base, path, timeout_ms, accept) for _ in range(rounds)]
            row = max(visits, key=lambda r: r["visit_bytes"])
            row["path"] = FLOOR if base == floor else row["path"]
            row["visits"] = [r["visit_bytes"] for r in visits]
            rows.append(row)
            print(
                f"{row['path']:18} {row['visit_bytes'] / 1e6:6.3f} MB as sent (visits: "
                + ", ".join(f"{v / 1e6:.3f}" for v in row["visits"])
                + f"); Chromium: HTTP {row['http_bytes'] / 1e6:.3f} MB in {row['requests']} answers, "
                f"websocket {row['ws_decoded_bytes'] / 1e6:.3f} MB decompressed; load {row['load']}",
                flush=True,
            )
    return rows


def second_visit_bytes(browser, base: str, path: str, timeout_ms: int) -> int:
    """HTTP bytes of a second visit in the same context (the browser's cache warm)."""
    context = browser.new_context(**SIZES["laptop"])
    context.add_init_script(_TIMELINE_JS)
    page = context.new_page()
    try:
        page.goto(f"{base}/{path}", timeout=timeout_ms)
        page.wait_for_function("() => window.__firstOpen.drawn !== null", timeout=timeout_ms, polling=100)
        page.wait_for_timeout(500)
        traffic = Traffic(context, page, None)
        page.goto(f"{base}/{path}", timeout=timeout_ms)
        page.wait_for_function("() => window.__firstOpen.drawn !== null", timeout=timeout_ms, polling=100)
        page.wait_for_timeout(500)
        return sum(traffic.http.values())
    finally:
        context.close()


def median_rows(rows: list[dict]) -> dict:
    good = [r for r in rows if "error" not in r]
    if not good:
        return rows[0]
    out = dict(good[0])
    for key in (
        "drawn",
        "browser_cpu",
        "html",
        "dom_content_loaded",
        "ws_open",
        "ws_first",
        "ws_last",
        "js_last",
        "plotly_chunk",
        "long_tasks",
        "plotly_draw",
        "plotly_start",
        "http_bytes",
        "ws_bytes",
        "visit_bytes",
        "visit_http_bytes",
        "visit_ws_decoded_bytes",
    ):
        values = [r[key] for r in good if r.get(key) is not None]
        out[key] = round(statistics.median(values)) if values else None
    out["n"] = len(good)
    out["errors"] = len(rows) - len(good)
    return out


def measure(
    browser,
    app: str | dict[str, str],
    floor: str,
    views: list[str],
    sizes: list[str],
    rounds: int,
    throttle: dict | None,
    timeout_ms: int,
    accept_encoding: str | None = None,
) -> list[dict]:
    """Rounds of fresh opens; ``app`` is one server's URL or {suffix: URL} (the suffix labels its views:
    "" for this checkout, "@before" for --before's)."""
    apps = app if isinstance(app, dict) else {"": app}
    labelled = [f"{view}{suffix}" for view in views for suffix in apps]
    samples: dict[tuple[str, str], list[dict]] = {}
    for r in range(rounds):
        for size in sizes:
            # the floor before and after the views of a round: the same load for both
            for path in [FLOOR, *labelled, FLOOR]:
                view, _, suffix = path.partition("@")
                server = apps["@" + suffix if suffix else ""]
                base, url_path = (floor, "") if path == FLOOR else (server, view)
                row = open_once(browser, base, url_path, size, throttle, timeout_ms, accept_encoding)
                row["path"] = path
                samples.setdefault((path, size), []).append(row)
                print(
                    f"  round {r + 1} {size:6} {path:18} "
                    + (
                        f"{row['drawn']:6} ms  {row['http_bytes'] / 1e6:5.2f} MB, visit "
                        f"{row['visit_bytes'] / 1e6:5.3f} MB"
                        if "error" not in row
                        else row["error"]
                    )
                    + f"  load {row['load']}",
                    flush=True,
                )
    results = []
    for size in sizes:
        floor_ms = median_rows(samples[(FLOOR, size)]).get("drawn")
        for path in [FLOOR, *labelled]:
            row = median_rows(samples[(path, size)])
            row["ratio"] = round(row["drawn"] / floor_ms, 2) if row.get("drawn") and floor_ms else None
            floor_cpu = median_rows(samples[(FLOOR, size)]).get("browser_cpu")
            cpu = row.get("browser_cpu")
            row["cpu_ratio"] = round(cpu / floor_cpu, 2) if cpu and floor_cpu else None
            results.append(row)
    return results


def print_table(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    print(
        f"{'view':18} {'size':6} {'first fig':>9} {'ratio':>5} {'CPU ms':>6} {'ratio':>5} "
        f"{'HTTP MB':>7} {'ws KB':>6} {'visit MB':>8} | "
        f"{'html':>5} {'DCL':>5} {'ws open':>7} {'ws 1st':>6} {'ws last':>7} {'js last':>7} "
        f"{'plotly':>6} {'draw@':>6} {'draw':>5} {'long':>5}  load"
    )
    for r in rows:
        if "error" in r:
            print(f"{r['path']:18} {r['size']:6} {r['error']}")
            continue

        def ms(key):
            return f"{r[key]:>5}" if r.get(key) is not None else "    -"

        print(
            f"{r['path']:18} {r['size']:6} {r['drawn']:>7}ms {r['ratio'] or 0:>5.2f} "
            f"{ms('browser_cpu'):>6} {r.get('cpu_ratio') or 0:>5.2f} "
            f"{r['http_bytes'] / 1e6:>7.2f} {r['ws_bytes'] / 1e3:>6.0f} {r['visit_bytes'] / 1e6:>8.3f} | "
            f"{ms('html')} "
            f"{ms('dom_content_loaded')} {ms('ws_open'):>7} {ms('ws_first'):>6} {ms('ws_last'):>7} "
            f"{ms('js_last'):>7} {ms('plotly_chunk'):>6} {ms('plotly_start'):>6} {ms('plotly_draw')} "
            f"{ms('long_tasks')}  {r['load']}"
        )


def main(argv: list[str] | None = None) -> int:
    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", nargs="+", default=VIEWS)
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-throttled", action="store_true")
    parser.add_argument("--throttled-views", nargs="+", default=["Explorer", "Stability"])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per open")
    parser.add_argument("--chromium", default=chromium_path(), help="Chromium (default: CHROMIUM_PATH)")
    parser.add_argument(
        "--accept-encoding",
        default=PLAIN_HTTP,
        help=f"the browser's Accept-Encoding (default {PLAIN_HTTP!r}, a student over plain HTTP; '' for "
        "what Chromium asks of localhost: Brotli and zstd too)",
    )
    parser.add_argument("--bytes", action="store_true", help="only the bytes of every page's first visit")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout whose app is opened too, interleaved (its views: View@before)",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    timeout_ms = int(args.timeout * 1000)
    log_dir = ROOT / "artifacts"
    log_dir.mkdir(exist_ok=True)
    app = StreamlitServer(log_path=log_dir / "first_open_app.log")
    floor = StreamlitServer(log_path=log_dir / "first_open_floor.log", script="bench/floor_page.py")
    before = (
        StreamlitServer(log_path=log_dir / "first_open_before.log", folder=args.before.resolve())
        if args.before
        else None
    )
    apps = {"": app.url, **({"@before": before.url} if before else {})}
    out: dict = {"cpu": machine.cpu_model(), "avx512": machine.has_avx512()}
    try:
        app.wait_healthy(timeout=600)  # a busy machine: the first `import torch` alone can take minutes
        floor.wait_healthy(timeout=600)
        if before:
            before.wait_healthy(timeout=600)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            BrowserCPU.find()
            try:
                if args.bytes:
                    print("first visit of every page: the largest of --rounds visits", flush=True)
                    out["bytes"] = bytes_of_every_page(
                        browser, app.url, floor.url, args.rounds, timeout_ms, args.accept_encoding or None
                    )
                    heaviest = max(r["visit_bytes"] for r in out["bytes"])
                    print(f"heaviest {heaviest / 1e6:.3f} MB (target ≤ {TARGET_BYTES / 1e6:.0f} MB)")
                    if args.json:
                        args.json.write_text(json.dumps(out, indent=1))
                    return 0
                print("warm-up (each view's defaults built once)", flush=True)
                for path in args.views:
                    for url in apps.values():
                        open_once(browser, url, path, "laptop", None, timeout_ms * 3)
                open_once(browser, floor.url, "", "laptop", None, timeout_ms)
                out["open"] = measure(
                    browser,
                    apps,
                    floor.url,
                    args.views,
                    args.sizes,
                    args.rounds,
                    None,
                    timeout_ms,
                    args.accept_encoding or None,
                )
                print_table(f"First open, median of {args.rounds} (ms from navigation start)", out["open"])
                out["second_visit_bytes"] = {
                    p: second_visit_bytes(browser, app.url, p, timeout_ms) for p in args.views[:1]
                }
                print(f"\nsecond visit, same browser: {out['second_visit_bytes']} HTTP bytes")
                if not args.no_throttled:
                    out["throttled"] = measure(
                        browser,
                        app.url,
                        floor.url,
                        args.throttled_views,
                        ["phone"],
                        1,
                        THROTTLE,
                        timeout_ms * 3,
                    )
                    print_table("Throttled: 1.25 Mbit/s, 20 ms, phone", out["throttled"])
            finally:
                browser.close()
    finally:
        app.stop()
        floor.stop()
        if before:
            before.stop()
    mine = [r for r in out["open"] if r["path"] != FLOOR and "@" not in r["path"] and "error" not in r]
    worst = max((r["ratio"] or 0) for r in mine)
    heaviest = max(r["visit_bytes"] for r in out["open"] if "error" not in r)
    print(
        f"\nworst ratio to the floor {worst:.2f} (target ≤ {TARGET_RATIO}); heaviest first visit "
        f"{heaviest / 1e6:.3f} MB as sent (target ≤ {TARGET_BYTES / 1e6:.0f} MB); load {machine.load_text()}"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
