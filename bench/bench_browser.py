"""One student in Chromium scrubbing σ on every scrubbed view: how fast the figure follows, what is sent.

    .venv/bin/python bench/bench_browser.py                      # starts its own server
    .venv/bin/python bench/bench_browser.py --port 8501          # against a running server
    .venv/bin/python bench/bench_browser.py --views Stability --no-first-open --json out.json

A benchmark, not a test (its figures and targets: docs/contribute/benchmarks.md). Playwright drives
Debian's Chromium (/usr/bin/chromium, or --chromium / $CHROMIUM_PATH); Playwright's own browser
download is not used.

What is measured, per view (Explorer, Annealing, Stability, Equivalence at the defaults, each in a
fresh browser context after a warm-up visit has built its payload):

1. **press → figure shows the new σ** (targets p50 ≤ 50 ms, max ≤ 150 ms). The σ slider
   (``input.scrub-range``, rbfviz/views/common/web/scrub.js) focused, an arrow key pressed ``--presses``
   times, ``--gap`` ms apart. In the page, the keydown's ``event.timeStamp`` (performance.now() time base:
   when the input event was created) starts the clock; a MutationObserver sees the plot's ``data-sigma``
   change (set right after the level is drawn), then two requestAnimationFrame callbacks later the frame with
   the new figure has been painted: that time is reported ("painted"), with the time spent inside Plotly's own
   drawing calls (react, relayout, animate, restyle). After the settle: whether the σ slider still has the
   keyboard focus.
2. **websocket messages the page sends while scrubbing**: every message the page sends (BackMsgs;
   WebSocket.send wrapped by an init script, timestamped in the page), split at 0.45 s after the
   last input event or pointer release. Expected: nothing before, one settle commit after.
   **Per commit**: the websocket bytes sent and received for one settled scrub's rerun.
3. **drags**: End (the largest σ), then the thumb dragged to the other end of the track in
   ``--drag-seconds``, by mouse and by touch, with Chromium's own synthetic input
   (``chrome.gpuBenchmarking.smoothDrag``, Chromium started with --enable-gpu-benchmarking): real
   input events at the display's 60 Hz, whatever the benchmark's round trips cost. Reported: figure
   updates per second while the pointer moved (targets ≥ 30 on the Explorer, ≥ 20 on the others; at
   most one per frame, 60/s), pointer events per second, frame times, messages sent.
4. **presses after a settle** (``--settled-presses``, 11): after the drags, the slider focused once,
   ArrowRight pressed, each time after the previous press has settled (its σ in the address, its
   rerun finished): how many presses moved σ one level and after how many the slider still had the
   keyboard focus (target: all), and their press → painted times (each the first press after a rerun).
5. **bytes on first open** (unless ``--no-first-open``), per view, each in a fresh browser context
   (empty cache): the sum of the websocket frames received (Streamlit's ForwardMsgs: the page, the
   σ payload) and, separately, of the HTTP response bodies as transferred (the app's static
   JavaScript, fonts, …), with the time until the view has drawn. Views: Explorer at the defaults
   and at n = 5,000, Annealing, Stability and Equivalence at the defaults (targets: ≤ 2 MB at the
   defaults, ≤ 6 MB at n = 5,000, websocket bytes; static files are cached by a browser after the
   first view).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from harness.chromium import CHROMIUM_ARGS as BASE_ARGS  # noqa: E402
from harness.settings import chromium_path  # noqa: E402
from harness.streamlit_server import StreamlitServer  # noqa: E402
from harness.student import NOTE_INPUTS_JS  # noqa: E402

CHROMIUM_ARGS = ["--enable-gpu-benchmarking", *BASE_ARGS]  # chrome.gpuBenchmarking.smoothDrag: 60 Hz drags
VIEWPORT = {"width": 1400, "height": 1000}
TARGETS = {
    "press_p50_ms": 50.0,
    "press_max_ms": 150.0,
    "first_open_ws_defaults_bytes": 2_000_000,
    "first_open_ws_n5000_bytes": 6_000_000,
}
APP = "[data-testid='stApp']"

# In the page: time keydown -> data-sigma changed -> painted; rAF timestamps, σ changes and pointer
# moves during a drag; the synchronous time spent in Plotly's drawing calls (react, animate, relayout).
_INSTRUMENT_JS = """() => {
  if (window.__bench) return;
  const plot = document.querySelector("div.scrub-plot");
  const B = window.__bench = {
    presses: [], pending: null, frames: [], updates: [], moves: [], recording: false, plotly: [],
  };
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.classList && e.target.classList.contains("scrub-range")) {
      B.pending = { t0: e.timeStamp, from: plot.dataset.sigma, key: e.key, input: null, plotly: 0 };
    }
  }, true);
  document.addEventListener("input", (e) => {
    if (B.pending && B.pending.input === null) B.pending.input = performance.now() - B.pending.t0;
  }, true);
  document.addEventListener("pointermove", (e) => { if (B.recording) B.moves.push(e.timeStamp); }, true);
  for (const name of ["react", "animate", "relayout", "restyle"]) {
    const original = window.Plotly[name];
    window.Plotly[name] = function (...args) {
      const t = performance.now();
      const out = original.apply(this, args);
      const ms = performance.now() - t;
      B.plotly.push(ms);
      if (B.pending) B.pending.plotly += ms;
      return out;
    };
  }
  new MutationObserver(() => {
    const now = performance.now();
    if (B.recording) B.updates.push(now);
    const p = B.pending;
    if (!p || plot.dataset.sigma === p.from) return;
    B.pending = null;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      B.presses.push({ drawn: now - p.t0, painted: performance.now() - p.t0, input: p.input, plotly: p.plotly,
                       from: p.from, to: plot.dataset.sigma });
    }));
  }).observe(plot, { attributes: true, attributeFilter: ["data-sigma"] });
  B.startFrames = () => {
    B.frames = []; B.updates = []; B.moves = []; B.plotly = []; B.recording = true;
    const tick = (ts) => { if (!B.recording) return; B.frames.push(ts); requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  };
  B.stopFrames = () => {
    B.recording = false;
    return { frames: B.frames, updates: B.updates, moves: B.moves, plotly: B.plotly };
  };
}"""

# Before any page script: every websocket message the page sends, and every input on the σ slider
# (and pointer release), timestamped in the page (performance.now()), so the benchmark's own delays
# cannot move a message into or out of the scrub.
_SEND_LOG_JS = (
    """(() => {
  const sent = window.__sent = [], inputs = window.__inputs = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const n = typeof data === "string" ? new TextEncoder().encode(data).length
      : (data.byteLength !== undefined ? data.byteLength : (data.size || 0));
    sent.push({ t: performance.now(), n });
    return send.call(this, data);
  };
"""
    + NOTE_INPUTS_JS
    + """
})()"""
)
SETTLE_MIN_MS = 450  # rbfviz/views/common/web/scrub.js commits 500 ms after the last input or pointer release


def pct(values, q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return float(ordered[index])


def summary(values) -> dict:
    values = [float(v) for v in values]
    return {
        "n": len(values),
        "p50": statistics.median(values) if values else None,
        "p95": pct(values, 95),
        "max": max(values) if values else None,
    }


class Traffic:
    """Websocket frames (sent / received) and HTTP bytes of one page, with timestamps."""

    def __init__(self, page):
        self.sent: list[tuple[float, int]] = []
        self.received: list[tuple[float, int]] = []
        self.http: list[tuple[str, int]] = []
        page.on("websocket", self._websocket)
        page.on("requestfinished", self._finished)
        page.add_init_script(_SEND_LOG_JS)

    def _websocket(self, ws):
        if "_stcore/stream" not in ws.url:
            return
        ws.on("framesent", lambda f: self.sent.append((time.monotonic(), _size(f))))
        ws.on("framereceived", lambda f: self.received.append((time.monotonic(), _size(f))))

    def _finished(self, request):
        try:
            sizes = request.sizes()
            self.http.append(
                (
                    request.url,
                    int(sizes.get("responseBodySize", 0)) + int(sizes.get("responseHeadersSize", 0)),
                )
            )
        except Exception:  # noqa: BLE001 — a request of a closed page
            pass

    def ws_received_bytes(self, since: float = 0.0) -> int:
        return sum(n for t, n in self.received if t >= since)

    def ws_sent(self, since: float = 0.0, until: float = float("inf")) -> list[int]:
        return [n for t, n in self.sent if since <= t <= until]


def _size(frame) -> int:
    return len(frame) if isinstance(frame, (bytes, str)) else 0


def wait_for_run(page) -> None:
    page.wait_for_timeout(250)
    page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']")
    page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']")


def open_view(page, url: str, scrub: bool, timeout_ms: int) -> float:
    """Go to url, wait until its figure is drawn and the script has finished; seconds taken."""
    start = time.monotonic()
    page.goto(url, timeout=timeout_ms)
    page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']", timeout=timeout_ms)
    page.locator("h1").first.wait_for(timeout=timeout_ms)
    if scrub:
        page.wait_for_selector("div.scrub-plot.js-plotly-plot[data-sigma]", timeout=timeout_ms)
    else:
        page.wait_for_selector(".js-plotly-plot", timeout=timeout_ms)
    page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']", timeout=timeout_ms)
    elapsed = time.monotonic() - start
    return elapsed


def first_opens(browser, base: str, timeout_ms: int) -> list[dict]:
    """Bytes of each view's first open, in a fresh context (no cache, no session)."""
    views = [
        ("Explorer (defaults)", "Explorer", {}, True, TARGETS["first_open_ws_defaults_bytes"]),
        ("Explorer (n = 5,000)", "Explorer", {"n": "5000"}, True, TARGETS["first_open_ws_n5000_bytes"]),
        ("Annealing", "Annealing", {}, False, TARGETS["first_open_ws_defaults_bytes"]),
        ("Stability", "Stability", {}, False, TARGETS["first_open_ws_defaults_bytes"]),
        ("Equivalence", "Equivalence", {}, False, TARGETS["first_open_ws_defaults_bytes"]),
    ]
    rows = []
    for label, path, query, scrub, target in views:
        url = f"{base}/{path}" + (f"?{urlencode(query)}" if query else "")
        # 1st: the first visitor of this setting on this server (it builds the σ payload, except the
        # Explorer at the defaults, built by the warm-up); 2nd: the next student (everything cached)
        for attempt in ("1st", "2nd"):
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            traffic = Traffic(page)
            try:
                seconds = open_view(page, url, scrub, timeout_ms)
                page.wait_for_timeout(1000)  # late frames (component assets, hover styles)
                has_scrub = page.locator("div.scrub-plot").count() > 0
            except Exception as exc:  # noqa: BLE001 — one view failing must not stop the benchmark
                rows.append({"view": label, "open": attempt, "error": f"{type(exc).__name__}: {exc}"[:300]})
                context.close()
                continue
            ws = traffic.ws_received_bytes()
            http = sum(n for _, n in traffic.http)
            rows.append(
                {
                    "view": label,
                    "open": attempt,
                    "seconds": round(seconds, 2),
                    "ws_received_bytes": ws,
                    "ws_sent_bytes": sum(n for _, n in traffic.sent),
                    "ws_frames_received": len(traffic.received),
                    "http_bytes": http,
                    "http_requests": len(traffic.http),
                    "scrubber": has_scrub,
                    "target_ws_bytes": target,
                    "ratio_to_target": round(ws / target, 3),
                }
            )
            context.close()
    return rows


def _page_log(page, since: float) -> tuple[list[dict], list[dict]]:
    return page.evaluate(
        "(since) => [window.__sent.filter((s) => s.t >= since), window.__inputs.filter((s) => s.t >= since)]",
        since,
    )


def _split(
    sent: list[dict], inputs: list[dict], release_types: tuple[str, ...]
) -> tuple[list[int], list[int]]:
    """Messages sent while σ moved (before the last input / release + the settle time) and after."""
    last = max((e["t"] for e in inputs if e["type"] in release_types), default=float("inf"))
    during = [s["n"] for s in sent if s["t"] < last + SETTLE_MIN_MS]
    after = [s["n"] for s in sent if s["t"] >= last + SETTLE_MIN_MS]
    return during, after


def presses(page, traffic: Traffic, count: int, gap_ms: int, key: str) -> dict:
    page.evaluate(_INSTRUMENT_JS)
    page.locator("input.scrub-range").focus()
    page.wait_for_timeout(300)
    since = page.evaluate("() => performance.now()")
    for i in range(count):
        if i:
            page.wait_for_timeout(gap_ms)
        page.keyboard.press(key)
    page.wait_for_function("(n) => window.__bench.presses.length >= n", arg=count, timeout=30_000)
    results = page.evaluate("() => window.__bench.presses")
    # settle: the one commit and its rerun; the bytes it moves
    page.wait_for_timeout(1500)
    wait_for_run(page)
    page.wait_for_timeout(500)
    sent, inputs = _page_log(page, since)
    during, after = _split(sent, inputs, ("input",))
    commit_time = None
    if after:  # the commit's wall-clock time on the Python side: the first frame sent after the presses
        later = [t for t, _ in traffic.sent]
        commit_time = later[-len(after)] if len(later) >= len(after) else None
    received = traffic.ws_received_bytes(commit_time) if commit_time else 0
    focused = page.evaluate(
        "() => !!document.activeElement && document.activeElement.classList.contains('scrub-range')"
    )
    return {
        "presses": results,
        "key": key,
        "gap_ms": gap_ms,
        "drawn_ms": summary([p["drawn"] for p in results]),
        "painted_ms": summary([p["painted"] for p in results]),
        "input_ms": summary([p["input"] for p in results if p["input"] is not None]),
        "plotly_ms": summary([p["plotly"] for p in results]),
        "ws_sent_while_scrubbing": {"messages": len(during), "bytes": sum(during)},
        "ws_sent_after_last_press": {"messages": len(after), "bytes": sum(after)},
        "commit": {"sent_bytes": sum(after), "received_bytes": received},
        "focus_after_settle": focused,
        "sigma_from": results[0]["from"] if results else None,
        "sigma_to": results[-1]["to"] if results else None,
        "url_sigma": dict(p.split("=", 1) for p in page.url.split("?", 1)[-1].split("&")).get("sigma"),
    }


def drag(page, traffic: Traffic, seconds: float, source: str) -> dict:
    """A drag of the σ thumb from the largest σ (right end) to the smallest (left end) in ``seconds``,
    synthesised by Chromium itself (chrome.gpuBenchmarking.smoothDrag: real input events, one per
    frame at 60 Hz, mouse or touch), so the drag's rate does not depend on the benchmark's round trips."""
    page.evaluate(_INSTRUMENT_JS)
    page.locator("input.scrub-range").focus()
    page.keyboard.press("End")  # the right end: the largest σ
    page.wait_for_timeout(1500)
    wait_for_run(page)
    page.wait_for_timeout(300)
    box = page.locator("input.scrub-range").bounding_box()
    y = box["y"] + box["height"] / 2
    x0, x1 = box["x"] + box["width"] - 8, box["x"] + 8
    since = page.evaluate("() => performance.now()")
    page.evaluate("() => window.__bench.startFrames()")
    page.evaluate(
        """([x0, y, x1, speed, source]) => new Promise((resolve) => chrome.gpuBenchmarking.smoothDrag(
             x0, y, x1, y, resolve, chrome.gpuBenchmarking[source], speed))""",
        [x0, y, x1, abs(x1 - x0) / seconds, "TOUCH_INPUT" if source == "touch" else "MOUSE_INPUT"],
    )
    page.wait_for_timeout(100)
    record = page.evaluate("() => window.__bench.stopFrames()")
    page.wait_for_timeout(1500)
    wait_for_run(page)
    sent, inputs = _page_log(page, since)
    during, after = _split(sent, inputs, ("pointerup", "input"))
    frames = record["frames"]
    frame_ms = [b - a for a, b in zip(frames, frames[1:])]
    moves = record["moves"]
    # figure updates per second while the pointer moved: updates between the first and the last
    # move (+ one frame for the last move's own update), over that time
    span = (moves[-1] - moves[0]) if len(moves) > 1 else 0.0
    inside = [t for t in record["updates"] if moves and moves[0] <= t <= moves[-1] + 17]
    update_ms = [b - a for a, b in zip(inside, inside[1:])]
    return {
        "source": source,
        "seconds": seconds,
        "frames": len(frames),
        "frame_ms": summary(frame_ms),
        "pointer_moves": len(moves),
        "moves_per_s": round(1000 * (len(moves) - 1) / span, 1) if span else None,
        "figure_updates": len(inside),
        "updates_per_s": round(1000 * len(inside) / (span + 16.7), 1) if span else None,
        "update_interval_ms": summary(update_ms),
        "plotly_ms": summary(record["plotly"]),
        "ws_sent_while_dragging": {"messages": len(during), "bytes": sum(during)},
        "ws_sent_after_release": {"messages": len(after), "bytes": sum(after)},
        "sigma_after": page.evaluate("() => document.querySelector('div.scrub-plot').dataset.sigma"),
    }


def settled_presses(page, count: int, key: str) -> dict:
    """``count`` presses of ``key``, each after the previous one has settled (its commit in the address,
    its rerun finished), focusing the slider only once at the start, as a keyboard user would: how many
    moved σ one level, after how many the slider still had the focus, and their press → painted times
    (each the first press after a rerun)."""
    page.evaluate(_INSTRUMENT_JS)
    page.locator("input.scrub-range").focus()
    page.wait_for_timeout(300)
    page.evaluate("() => { window.__bench.presses = []; }")
    step = -1 if key == "ArrowRight" else 1  # the slider's value is the last level minus the level
    moved = focused = 0
    for _ in range(count):
        before = int(page.locator("div.scrub-plot").get_attribute("data-level"))
        page.keyboard.press(key)
        try:
            page.wait_for_function(
                "(want) => Number(document.querySelector('div.scrub-plot')?.dataset.level) === want",
                arg=before + step,
                timeout=5000,
            )
            moved += 1
        except PlaywrightTimeoutError:
            pass
        try:  # the settle: the committed σ in the address, then its rerun
            page.wait_for_function(
                "() => { const p = document.querySelector('div.scrub-plot'); return !!p && "
                "new URLSearchParams(window.location.search).get('sigma') === p.dataset.sigma; }",
                timeout=30_000,
            )
        except PlaywrightTimeoutError:
            pass
        wait_for_run(page)
        page.wait_for_timeout(200)
        focused += page.evaluate(
            "() => !!document.activeElement && document.activeElement.classList.contains('scrub-range')"
        )
    results = page.evaluate("() => window.__bench.presses")
    return {
        "presses": count,
        "key": key,
        "moved": moved,
        "focused": focused,
        "painted_ms": summary([p["painted"] for p in results]),
    }


def scrub_view(browser, base: str, view: str, args, timeout_ms: int) -> dict:
    """One student on one view: presses, then a drag, then the listener count is read."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    traffic = Traffic(page)
    try:
        open_view(page, f"{base}/{view}", True, timeout_ms)
        page.wait_for_timeout(1000)
        out = {"view": view, "load_before": os.getloadavg()[0]}
        out["press"] = presses(page, traffic, args.presses, args.gap, args.key)
        out["drag"] = drag(page, traffic, args.drag_seconds, "mouse")
        out["touch"] = drag(page, traffic, args.drag_seconds, "touch")
        # the drags end at the smallest σ (the left end): these presses go right
        out["settled"] = settled_presses(page, args.settled_presses, "ArrowRight")
        out["load_after"] = os.getloadavg()[0]
        return out
    except Exception as exc:  # noqa: BLE001 — one view failing must not stop the benchmark
        return {"view": view, "error": f"{type(exc).__name__}: {exc}"[:300]}
    finally:
        context.close()


def _fmt(value, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.1f}{unit}"
    return f"{value:,}{unit}"


VIEWS = ("Explorer", "Annealing", "Stability", "Equivalence")
DRAG_TARGET = {"Explorer": 30.0}  # figure updates per second during a 60 Hz drag; 20 on the others
DRAG_TARGET_OTHERS = 20.0


def view_targets(row: dict) -> dict:
    press, d, t = row["press"], row["drag"], row["touch"]
    target = DRAG_TARGET.get(row["view"], DRAG_TARGET_OTHERS)
    return {
        "press_p50": press["painted_ms"]["p50"] <= TARGETS["press_p50_ms"],
        "press_max": press["painted_ms"]["max"] <= TARGETS["press_max_ms"],
        "drag_updates": min(d["updates_per_s"] or 0, t["updates_per_s"] or 0) >= target,
        "only_settle_commits": press["ws_sent_while_scrubbing"]["messages"] == 0
        and press["ws_sent_after_last_press"]["messages"] == 1
        and all(x["ws_sent_while_dragging"]["messages"] == 0 for x in (d, t))
        and all(x["ws_sent_after_release"]["messages"] == 1 for x in (d, t)),
        "focus_after_settle": press["focus_after_settle"],
        "settled_presses_move": row["settled"]["moved"]
        == row["settled"]["focused"]
        == row["settled"]["presses"],
    }


def report(result: dict) -> str:
    out = []
    out.append(
        f"Each view at the defaults: {result['args']['presses']} × {result['args']['key']} on the σ slider "
        f"({result['args']['gap']} ms apart); then End and a drag from the right end to the left end of the "
        f"track in {result['args']['drag_seconds']} s, by mouse and by touch (Chromium's own 60 Hz input). "
        "Load average (1 min) before / after."
    )
    out.append("")
    out.append(
        "| view | press → painted p50 / max | Plotly calls per press p50 | figure updates/s in a drag: "
        "mouse / touch (pointer events/s the page got: mouse / touch) | drag frame p50 / max | "
        "messages while scrubbing / after each "
        "settle | focus kept | presses after a settle: σ moved / focus kept, painted p50 / max | load |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|")
    for row in result["views"]:
        if "error" in row:
            out.append(f"| {row['view']} | error: {row['error']} | | | | | | | |")
            continue
        press, d, t, settled = row["press"], row["drag"], row["touch"], row["settled"]
        painted = press["painted_ms"]
        out.append(
            f"| {row['view']} | {_fmt(painted['p50'], ' ms')} / {_fmt(painted['max'], ' ms')}"
            f" | {_fmt(press['plotly_ms']['p50'], ' ms')}"
            f" | {_fmt(d['updates_per_s'])} / {_fmt(t['updates_per_s'])}"
            f" ({_fmt(d['moves_per_s'])} / {_fmt(t['moves_per_s'])})"
            f" | {_fmt(d['frame_ms']['p50'], ' ms')} / {_fmt(d['frame_ms']['max'], ' ms')}"
            f" | {press['ws_sent_while_scrubbing']['messages'] + d['ws_sent_while_dragging']['messages']}"
            f" / {press['ws_sent_after_last_press']['messages']}, {d['ws_sent_after_release']['messages']}"
            f", {t['ws_sent_after_release']['messages']}"
            f" | {'yes' if press['focus_after_settle'] else 'NO'}"
            f" | {settled['moved']} / {settled['focused']} of {settled['presses']},"
            f" {_fmt(settled['painted_ms']['p50'], ' ms')} / {_fmt(settled['painted_ms']['max'], ' ms')}"
            f" | {row['load_before']:.2f} / {row['load_after']:.2f} |"
        )
    out.append("")
    out.append(
        "Targets: press → painted p50 ≤ 50 ms, max ≤ 150 ms; ≥ 30 figure updates/s on the Explorer, ≥ 20 on "
        "the others; no message while σ moves, one commit per settle; every press after a settle moves σ "
        "with the focus kept."
    )
    for row in result["views"]:
        if "press" in row:
            c = row["press"]["commit"]
            out.append(
                f"{row['view']}: per commit sent {c['sent_bytes']:,} B, received {c['received_bytes']:,} B; "
                f"σ {row['press']['sigma_from']} → {row['press']['sigma_to']} "
                f"(address after the settle: sigma={row['press']['url_sigma']})."
            )
    if not result["first_open"]:
        return "\n".join(out)
    out.append("")
    out.append(
        "First opens, each in a fresh browser context. visit 1st = first visitor of that setting on this "
        "server (the Explorer at the defaults was already built by the warm-up), 2nd = the next one. "
        "Websocket bytes are what the caps are about; HTTP is Streamlit's static JavaScript, "
        "fonts etc., which a browser caches after its first view."
    )
    out.append("")
    out.append(
        "| first open | visit | time | websocket received | target | ratio | "
        "HTTP (static files etc.) | requests |"
    )
    out.append("|---|---|---|---|---|---|---|---|")
    for row in result["first_open"]:
        if "error" in row:
            out.append(f"| {row['view']} | {row['open']} | error: {row['error']} | | | | | |")
            continue
        out.append(
            f"| {row['view']} | {row['open']} | {row['seconds']:.2f} s | {row['ws_received_bytes']:,} B | "
            f"≤ {row['target_ws_bytes'] / 1e6:.0f} MB | {row['ratio_to_target']:.2f} | "
            f"{row['http_bytes']:,} B | {row['http_requests']} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, help="use a server already running on this port (127.0.0.1)")
    parser.add_argument("--presses", type=int, default=12)
    parser.add_argument(
        "--gap", type=int, default=250, help="ms between presses (below the 0.5 s settle time)"
    )
    parser.add_argument("--key", default="ArrowLeft", choices=["ArrowLeft", "ArrowRight"])
    parser.add_argument(
        "--settled-presses", type=int, default=11, help="presses each after a settle (focus kept?)"
    )
    parser.add_argument(
        "--drag-seconds", type=float, default=0.6, help="one drag across the whole track (60 Hz input)"
    )
    parser.add_argument("--views", nargs="+", choices=VIEWS, help="only these views (default: all)")
    parser.add_argument("--no-first-open", action="store_true", help="skip the per-view first-open bytes")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds for a view to draw")
    parser.add_argument("--chromium", default=chromium_path())
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)

    server = None
    if args.port:
        base = f"http://127.0.0.1:{args.port}"
    else:
        (ROOT / "artifacts").mkdir(exist_ok=True)
        server = StreamlitServer(ROOT / "artifacts" / "bench-browser-server.log")
        server.wait_healthy(120)
        base = server.url
    timeout_ms = int(args.timeout * 1000)
    views = args.views or list(VIEWS)
    result: dict = {"url": base, "targets": TARGETS, "args": vars(args) | {"json": None}}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            # warm-up: the first visitor builds each view's payload; measured separately below
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.set_default_timeout(timeout_ms)
            result["warm_up_open_s"] = {
                view: round(open_view(page, f"{base}/{view}", True, timeout_ms), 2) for view in views
            }
            context.close()
            result["views"] = [scrub_view(browser, base, view, args, timeout_ms) for view in views]
            result["first_open"] = [] if args.no_first_open else first_opens(browser, base, timeout_ms)
            browser.close()
    finally:
        if server is not None:
            server.stop()
    result["targets_met"] = {row["view"]: view_targets(row) for row in result["views"] if "press" in row}
    result["targets_met"]["first_open_bytes"] = all(
        row.get("ratio_to_target", 99) <= 1 for row in result["first_open"]
    )
    print(report(result))
    print()
    for name, met in result["targets_met"].items():
        if isinstance(met, dict):
            print(f"targets met, {name}: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in met.items()))
        else:
            print(f"targets met, {name}: {'yes' if met else 'NO'}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
