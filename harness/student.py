"""A student at a browser: the few things the browser tests do with the app, in Streamlit's terms.

Waiting is on state, never on time. An init script (``_SEND_LOG_JS``) watches the page's websocket in
the page itself: every ``rerun_script`` request the page sends, every run the server starts
(``new_session``) and every run it finishes (``script_finished``, not counting a run cut short by a
newer request). The page is idle when the last request sent has been followed by a run that started
after it and finished, the app shows ``CONNECTED`` and ``notRunning``, no element is still a skeleton
(its code loading) and the document has stopped changing. ``Student.rerun()`` marks the moment before
an action, so a rerun whose request leaves the page late (an upload, a debounced widget) is still
waited for; ``wait_for_layout`` waits for the sizes of the figures and the page to stop changing. A
test then polls for the change it expects (a figure title, a metric). Every wait is bounded only by
HANG_TIMEOUT_MS, a hang detector, not a speed limit.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Locator, Page

from harness.settings import e2e_timeout_s, screenshot_every_test

APP = "[data-testid='stApp']"
# The bound of every wait: it only catches a hang, it is never a speed limit (on a loaded 2-core
# machine a heavy page may take minutes). RBFVIZ_E2E_TIMEOUT (seconds) changes it.
HANG_TIMEOUT_MS = int(e2e_timeout_s() * 1000)
# Plotly figures: st.plotly_chart's, and the σ scrubber's (rbfviz/views/common/web/scrub.js draws into
# div.scrub-plot)
PLOT = "[data-testid='stPlotlyChart'] .js-plotly-plot, div.scrub-plot.js-plotly-plot"
SCRUB_RANGE = "input.scrub-range"
SCRUB_PLOT = "div.scrub-plot"
# A page has drawn when no spinner or skeleton is left, every Plotly chart has been laid out and the
# σ scrubber (rbfviz/views/common/web/scrub.js) has drawn its level (page.wait_for_function(DRAWN_JS)).
DRAWN_JS = """() => {
  if (document.querySelector("[data-testid='stSpinner'], [data-testid='stSkeleton']")) return false;
  const charts = Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']"));
  if (!charts.every((c) => { const p = c.querySelector(".js-plotly-plot"); return p && p._fullLayout; }))
    return false;
  const scrub = document.querySelector("div.scrub-plot");
  return !scrub || (scrub._fullLayout !== undefined && scrub.dataset.level !== undefined);
}"""

# What the σ scrubber shows now (rbfviz/views/common/web/scrub.js; light DOM): the drawn level and σ, the
# title, the slider's text, the numbers beside the plot (label -> value, in order) and the notes and caption.
_SCRUB_JS = """() => {
  const plot = document.querySelector("div.scrub-plot"), range = document.querySelector("input.scrub-range");
  if (!plot || !range) return null;
  const L = plot._fullLayout || {};
  const metrics = Array.from(document.querySelectorAll("div.scrub-side .scrub-metric")).map((m) => [
    m.querySelector(".scrub-metric-label").textContent, m.querySelector(".scrub-metric-value").textContent]);
  return {
    level: plot.dataset.level === undefined ? null : Number(plot.dataset.level),
    sigma: plot.dataset.sigma === undefined ? null : plot.dataset.sigma,
    title: (L.title && L.title.text) || "",
    output: (document.querySelector("output.scrub-value") || {}).textContent || "",
    value: Number(range.value), max: Number(range.max), label: range.getAttribute("aria-label"),
    valuetext: range.getAttribute("aria-valuetext"),
    metrics,
    notes: Array.from(document.querySelectorAll("div.scrub-side .scrub-note")).map((n) => n.textContent),
    caption: (document.querySelector("p.scrub-caption") || {}).textContent || "",
    part: !(document.querySelector("p.scrub-status") || { hidden: true }).hidden,  // a first part only
  };
}"""

# In an init script that has an array ``inputs``: every keydown, input and pointerdown on the σ slider and
# every pointer release anywhere, timestamped in the page (performance.now()).
NOTE_INPUTS_JS = """  const note = (e) => { const el = e.target;
    if (e.type === "pointerup" || (el && el.classList && el.classList.contains("scrub-range")))
      inputs.push({ t: performance.now(), type: e.type }); };
  for (const type of ["keydown", "input", "pointerdown"]) document.addEventListener(type, note, true);
  window.addEventListener("pointerup", note, true);"""

# Installed before any page script (Page.add_init_script): every websocket message the page sends
# (Streamlit's BackMsgs: a rerun request, widget or component values) and every input on the σ
# slider, with performance.now() timestamps taken in the page itself, so a busy test machine's
# delays in reporting them to Python cannot blur the order. It also keeps window.__rbfvizRun, the
# order of the run requests sent and of the runs the server started and finished: the top-level
# fields of each protobuf message (BackMsg 11 = rerun_script; ForwardMsg 4 = new_session,
# 6 = script_finished, whose value 2 = FINISHED_EARLY_FOR_RERUN, a run cut short by a newer request).
_SEND_LOG_JS = (
    """(() => {
  if (window.__rbfvizSent) return;
  const sent = window.__rbfvizSent = [], inputs = window.__rbfvizInputs = [];
  const run = window.__rbfvizRun = { clock: 0, requested: 0, started: 0, finished: 0, runs: 0 };
  window.__rbfvizMutations = 0;
  new MutationObserver(() => { window.__rbfvizMutations += 1; }).observe(document,
    { subtree: true, childList: true, attributes: true, characterData: true });
  const asBytes = (data) => typeof data === "string" ? new TextEncoder().encode(data)
    : data instanceof ArrayBuffer ? new Uint8Array(data) : ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(0);
  const fields = (bytes) => {  // top-level protobuf fields: [[number, varint value or null], ...]
    const out = []; let i = 0;
    const varint = () => { let v = 0, m = 1, b; do { b = bytes[i++]; v += (b & 127) * m; m *= 128; }
      while (b & 128 && i < bytes.length); return v; };
    while (i < bytes.length) {
      const tag = varint(), wire = tag & 7, field = Math.floor(tag / 8);
      if (wire === 0) out.push([field, varint()]);
      else if (wire === 2) { const n = varint(); out.push([field, null]); i += n; }
      else if (wire === 1) { out.push([field, null]); i += 8; }
      else if (wire === 5) { out.push([field, null]); i += 4; }
      else break;
    }
    return out;
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    const bytes = asBytes(data);
    sent.push({ t: performance.now(), n: bytes.length, head: Array.from(bytes.subarray(0, 4096)) });
    if (fields(bytes.subarray(0, 16)).some(([f]) => f === 11)) run.requested = ++run.clock;
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        if (!(event.data instanceof ArrayBuffer)) return;
        for (const [f, value] of fields(new Uint8Array(event.data))) {
          if (f === 4) run.started = ++run.clock;
          if (f === 6 && value !== 2) { run.finished = ++run.clock; run.runs += 1; }
        }
      });
    }
  };
"""
    + NOTE_INPUTS_JS
    + """
})()"""
)

# True when the page is idle: connected, not running, the last run request sent was followed by a run
# that started after it and finished, no element is still a skeleton (Streamlit loads an element's code
# the first time the page draws one, often after the run that sent it has finished) and the document has
# not changed for three animation frames in a row (evaluated once per frame). ``since``
# (Student.mark(): this document's time origin and its run clock then; null: none) also asks for a
# request sent after that mark; a new document (a full navigation) has a new time origin and counts
# from its first request.
_IDLE_JS = """(since) => {
  const quiet = window.__rbfvizQuiet = window.__rbfvizQuiet || { seen: -1, frames: 0 };
  const app = document.querySelector("[data-testid='stApp']"), run = window.__rbfvizRun;
  const idle = (() => {
    if (!app || !run || app.dataset.testConnectionState !== "CONNECTED") return false;
    if (app.dataset.testScriptState !== "notRunning") return false;
    if (document.querySelector("[data-testid='stSkeleton'], [data-testid='stAppSkeleton']")) return false;
    if (since !== null) {
      const after = since.origin === performance.timeOrigin ? since.clock : 0;
      if (run.requested <= after) return false;
    }
    return run.started > run.requested && run.finished > run.started;
  })();
  if (!idle || quiet.seen !== window.__rbfvizMutations) {
    quiet.seen = window.__rbfvizMutations; quiet.frames = 0; return false;
  }
  quiet.frames += 1;
  return quiet.frames >= 3;
}"""
_MARK_JS = (
    "() => ({ origin: performance.timeOrigin, clock: window.__rbfvizRun ? window.__rbfvizRun.clock : 0 })"
)

# Resolves once the page's layout has stopped changing: the place and size of every figure and the size
# and scroll of the main area and the sidebar the same in three animation frames in a row (after a
# viewport change, a scroll, a rerun or a tab switch).
_LAYOUT_JS = """() => new Promise((resolve) => {
  const shape = () => JSON.stringify([
    ...Array.from(document.querySelectorAll(".js-plotly-plot"), (el) => {
      const r = el.getBoundingClientRect(), L = el._fullLayout || {};
      return [r.x, r.y, r.width, r.height, L.width, L.height]; }),
    ...Array.from(document.querySelectorAll("[data-testid='stMain'], [data-testid='stSidebarContent']"),
      (el) => [el.scrollHeight, el.clientHeight, el.scrollTop]),
  ]);
  let last = null, same = 0;
  const tick = () => { const now = shape(); same = now === last ? same + 1 : 0; last = now;
    if (same >= 3) resolve(true); else requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})"""

# Full-precision arrays of the scrubber's drawn figure: each trace's name, x, y and customdata rows
# (Plotly's decoded _fullData: typed arrays, so float64 values arrive unrounded).
_SCRUB_TRACES_JS = """() => {
  const plot = document.querySelector("div.scrub-plot");
  const arr = (a) => (a == null ? null
    : Array.from(a, (v) => (v != null && typeof v === "object" ? Array.from(v) : v)));
  return (plot._fullData || []).map((t) => ({
    name: t.name || "", x: arr(t.x), y: arr(t.y), customdata: arr(t.customdata),
  }));
}"""

# Everything the browser knows about each Plotly figure on the page: the drawn title, a fingerprint
# of its data, and its animation controls (frames, Play buttons, the frame slider's active step).
_FIGURES_JS = """(sel) => Array.from(document.querySelectorAll(sel)).map((el) => {
  const L = el._fullLayout || {};
  const menus = (L.updatemenus || []).flatMap((m) => (m.buttons || []).map((b) => b.label));
  return {
    title: (L.title && L.title.text) || "",
    data: JSON.stringify(el.data || []),
    traces: (el.data || []).length,
    frames: ((el._transitionData || {})._frames || []).length,
    buttons: menus,
    slider_active: (L.sliders && L.sliders.length) ? L.sliders[0].active : null,
    slider_steps: (L.sliders && L.sliders.length) ? L.sliders[0].steps.length : 0,
  };
})"""


def plain(html: str) -> str:
    """Plotly title text without its <b>…</b> markup."""
    return re.sub(r"<[^>]+>", "", html)


class Student:
    def __init__(self, page: Page, screenshots: Path | None = None, name: str = "student"):
        self.page = page
        self.screenshots = screenshots
        self.name = name
        self.page_errors: list[str] = []
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        # every websocket frame the page sends (a BackMsg: a rerun request, a widget or component value)
        self.sent_frames: list[int] = []
        page.on(
            "websocket",
            lambda ws: ws.on(
                "framesent", lambda frame: self.sent_frames.append(len(frame) if frame is not None else 0)
            ),
        )
        Student.prepare(page)
        # requests that failed in the network (not HTTP errors), reported with the page's problems
        self.failed_requests: list[str] = []
        page.on("requestfailed", lambda r: self.failed_requests.append(f"{r.method} {r.url}: {r.failure}"))

    @staticmethod
    def prepare(page: Page) -> None:
        """Install the send log's init script (``_SEND_LOG_JS``) on ``page``, once: a tab kept across
        tests (tests/browser.py) has it from its first Student on."""
        if not getattr(page, "_rbfviz_send_log", False):
            page.add_init_script(_SEND_LOG_JS)
            page._rbfviz_send_log = True

    # --- waiting --------------------------------------------------------------------------------
    def mark(self) -> dict:
        """The page's run clock now: pass it to wait_for_run(since=) to wait for a rerun requested later."""
        return self.page.evaluate(_MARK_JS)

    def wait_for_run(self, since: dict | None = None) -> None:
        """Wait until the page is idle: every run requested so far has finished, every element is
        drawn (no skeleton left) and the document has stopped changing (see the module's docstring).
        With ``since`` (a mark()), also wait for a run requested after that mark, for an action whose
        request may leave the page after the action returns."""
        self.page.evaluate("() => { window.__rbfvizQuiet = null; }")
        self.page.wait_for_function(_IDLE_JS, arg=since)

    @contextmanager
    def rerun(self):
        """``with student.rerun(): <an action that reruns the script>``: waits for that rerun."""
        since = self.mark()
        yield
        self.wait_for_run(since)

    def wait_for_layout(self) -> None:
        """Wait until the layout (figure and page sizes) stays the same for three animation frames."""
        self.page.evaluate(_LAYOUT_JS)

    def wait_page_time(self, ms: float) -> None:
        """Let ``ms`` pass on the page's own clock (performance.now()). Only for asserting that
        something does NOT happen within the app's own delay (e.g. no second commit after the σ
        scrubber's settle time): the page's timers and this wait slow down together under load."""
        until = self.now() + ms
        self.page.wait_for_function("(t) => performance.now() >= t", arg=until)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its first run to finish (a fresh document: its run clock starts
        at 0, so any finished run is this page's)."""
        self.page.goto(url)
        self.wait_for_run(since={"origin": None, "clock": 0})

    # --- reading the page -----------------------------------------------------------------------
    def figures(self) -> list[dict]:
        return self.page.evaluate(_FIGURES_JS, PLOT)

    def wait_for_figures(self, count: int = 1) -> list[dict]:
        self.page.wait_for_function(f"(sel) => document.querySelectorAll(sel).length >= {count}", arg=PLOT)
        return self.figures()

    def wait_for_title(self, *parts: str, index: int = 0) -> str:
        """Wait until figure ``index``'s title contains every one of ``parts``; return the title."""
        self.page.wait_for_function(
            """([sel, i, parts]) => { const el = document.querySelectorAll(sel)[i];
                 const t = el && el._fullLayout && el._fullLayout.title ? el._fullLayout.title.text : "";
                 return parts.every((p) => t.includes(p)); }""",
            arg=[PLOT, index, list(parts)],
        )
        return plain(self.figures()[index]["title"])

    def points(self, index: int = 0) -> list[tuple[float, float]]:
        """The (x, y) of every data point drawn in figure ``index`` (its traces named "points…"),
        read from Plotly's decoded data."""
        return [
            tuple(p)
            for p in self.page.evaluate(
                """([sel, i]) => { const el = document.querySelectorAll(sel)[i];
                 return (el._fullData || []).filter((t) => (t.name || "").startsWith("points"))
                   .flatMap((t) => Array.from(t.x).map((x, j) => [x, t.y[j]])); }""",
                [PLOT, index],
            )
        ]

    def path(self) -> str:
        return urlsplit(self.page.url).path

    def text(self) -> str:
        return self.page.locator(APP).inner_text()

    def heading(self) -> str:
        return self.page.locator("h1").first.inner_text()

    def query(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.page.url).query))

    def metrics(self) -> dict[str, str]:
        labels = self.page.locator("[data-testid='stMetricLabel']").all_inner_texts()
        values = self.page.locator("[data-testid='stMetricValue']").all_inner_texts()
        return {" ".join(label.split()): value.strip() for label, value in zip(labels, values)}

    def metric(self, label_start: str) -> str:
        """The value of the one metric whose label starts with ``label_start``."""
        found = [v for label, v in self.metrics().items() if label.startswith(label_start)]
        assert len(found) == 1, f"expected one metric labelled {label_start!r}…, metrics: {self.metrics()}"
        return found[0]

    def nav_labels(self) -> list[str]:
        return [
            t.strip()
            for t in self.page.locator(
                "[data-testid='stSidebar'] [data-testid='stPageLink']"
            ).all_inner_texts()
        ]

    def problems(self) -> list[str]:
        """Exception boxes, error boxes and uncaught JavaScript errors on the page (empty = fine)."""
        found = [
            f"exception box: {t}" for t in self.page.locator("[data-testid='stException']").all_inner_texts()
        ]
        found += [
            f"error box: {t}"
            for t in self.page.locator("[data-testid='stAlertContentError']").all_inner_texts()
        ]
        found += [f"JavaScript error: {e}" for e in self.page_errors]
        return found

    def assert_no_problems(self) -> None:
        problems = self.problems()
        failed = "".join(f"\nfailed request: {r}" for r in self.failed_requests)
        assert not problems, "the page shows problems:\n" + "\n".join(problems) + failed

    # --- sidebar controls -----------------------------------------------------------------------
    def _sidebar_widget(self, testid: str, label: str) -> Locator:
        widget = self.page.locator(f"[data-testid='stSidebar'] [data-testid='{testid}']").filter(
            has=self.page.locator("[data-testid='stWidgetLabel']", has_text=label)
        )
        assert widget.count() == 1, (
            f"expected one sidebar {testid} labelled {label!r}, found {widget.count()}"
        )
        return widget

    def select(self, label: str, option: str) -> None:
        """Pick ``option`` (its shown text) in the sidebar selectbox ``label``."""
        box = self._sidebar_widget("stSelectbox", label)
        # a click that has to scroll the sidebar first opens the menu and the scroll closes it again
        box.scroll_into_view_if_needed()
        box.click()
        with self.rerun():
            self.page.locator("[role='option']").filter(
                has_text=re.compile(rf"^{re.escape(option)}$")
            ).click()

    def slider_value(self, label: str) -> str:
        thumb = self._sidebar_widget("stSlider", label).locator("input[type='range']")
        return thumb.get_attribute("aria-valuetext") or thumb.input_value()

    def press_slider(self, label: str, key: str, times: int = 1) -> None:
        """Focus the slider's thumb and press ``key`` (ArrowLeft/ArrowRight/Home/End) ``times``,
        waiting for the rerun after each press, as a student watching the figure would."""
        thumb = self._sidebar_widget("stSlider", label).locator("input[type='range']")
        for _ in range(times):
            thumb.focus()
            with self.rerun():
                self.page.keyboard.press(key)

    def upload(self, section: str, name: str, data: bytes, mime: str = "text/csv") -> None:
        """Open the sidebar expander ``section`` (if closed) and choose a file ``name`` with content
        ``data`` in its file uploader, as if picked in the file dialog; wait for the rerun."""
        expander = self.page.locator("[data-testid='stSidebar'] [data-testid='stExpander']").filter(
            has_text=section
        )
        assert expander.count() == 1, f"expected one sidebar section {section!r}, found {expander.count()}"
        if expander.locator("details").get_attribute("open") is None:
            expander.locator("summary").click()
        with self.rerun():  # the file is sent first, then the rerun is requested
            expander.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
                {"name": name, "mimeType": mime, "buffer": data}
            )

    # --- the σ scrubber (ui/scrub.py, rbfviz/views/common/web/scrub.js) ---------------------------------
    def scrub(self) -> dict | None:
        """What the σ scrubber shows now (see _SCRUB_JS), or None if the page has none."""
        return self.page.evaluate(_SCRUB_JS)

    def wait_for_scrub(self, sigma: str | None = None, complete: bool = True) -> dict:
        """Wait until the scrubber has drawn (at ``sigma``, its 3-digit text, if given); return scrub().

        complete: wait for the complete payload (every σ level). A new setting's first part (some
        levels, ui/scrub_parts.py) is drawn first and replaced when the rest arrives; complete=False
        returns whichever is drawn (scrub()["part"] says which)."""
        # read in the same call that finds it drawn: a rerun may replace the element in between
        handle = self.page.wait_for_function(
            f"""([sigma, complete]) => {{ const s = ({_SCRUB_JS})();
                 const p = document.querySelector("div.scrub-plot");
                 return s && s.sigma !== null && p._fullLayout && !(complete && s.part)
                   && (sigma === null || s.sigma === sigma) ? s : null; }}""",
            arg=[sigma, complete],
        )
        return handle.json_value()

    def scrub_sigma(self) -> str:
        """The σ the scrubber draws now (3 significant digits, as on screen)."""
        return self.wait_for_scrub()["sigma"]

    def now(self) -> float:
        """The page's performance.now() (ms), the time base of sent_log() and inputs_log()."""
        return self.page.evaluate("() => performance.now()")

    def sent_log(self, since: float = 0.0) -> list[dict]:
        """Websocket messages the page sent at or after page time ``since``: {t, n (bytes), type}
        where type is the BackMsg's field (rerun_script, app_heartbeat, …) decoded by Streamlit's proto."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        out = []
        for item in self.page.evaluate(
            "(since) => (window.__rbfvizSent || []).filter((s) => s.t >= since)", since
        ):
            kind = "?"
            if item["n"] <= 4096:
                try:
                    kind = BackMsg.FromString(bytes(item["head"])).WhichOneof("type") or "?"
                except Exception:  # noqa: BLE001 — not a BackMsg
                    pass
            out.append({"t": item["t"], "n": item["n"], "type": kind})
        return out

    def inputs_log(self, since: float = 0.0) -> list[dict]:
        """keydown / input / pointerdown events on the σ slider and pointerup anywhere, since ``since``."""
        return self.page.evaluate(
            "(since) => (window.__rbfvizInputs || []).filter((s) => s.t >= since)", since
        )

    def scrub_traces(self) -> list[dict]:
        return self.page.evaluate(_SCRUB_TRACES_JS)

    def press_scrub(self, key: str, times: int = 1, gap_ms: int = 120) -> None:
        """Focus the σ scrubber and press ``key`` ``times``, ``gap_ms`` apart (less than the 0.5 s
        settle time, so the presses are one scrub). Returns at once: no rerun is waited for."""
        self.page.locator(SCRUB_RANGE).focus()
        for i in range(times):
            if i:
                self.page.wait_for_timeout(gap_ms)
            self.page.keyboard.press(key)

    def scrub_thumb(self) -> tuple[float, float]:
        """Viewport (x, y) of the centre of the σ slider's thumb."""
        box = self.page.locator(SCRUB_RANGE).bounding_box()
        state = self.scrub()
        thumb = 16.0  # Chromium's range thumb width (px); its centre travels between the two ends
        x = box["x"] + thumb / 2 + (box["width"] - thumb) * state["value"] / max(state["max"], 1)
        return x, box["y"] + box["height"] / 2

    def drag_scrub(
        self, to_fraction: float, steps: int = 30, step_ms: int = 30, release: bool = True
    ) -> list[str]:
        """Drag the σ slider's thumb with the mouse to ``to_fraction`` of the track (0 = left end,
        smallest σ) in ``steps`` moves ``step_ms`` apart; return the drawn σ after each move.
        With release=False the button stays down (the caller calls page.mouse.up())."""
        x0, y = self.scrub_thumb()
        box = self.page.locator(SCRUB_RANGE).bounding_box()
        x1 = box["x"] + 8 + (box["width"] - 16) * to_fraction
        self.page.mouse.move(x0, y)
        self.page.mouse.down()
        seen = []
        for i in range(1, steps + 1):
            self.page.mouse.move(x0 + (x1 - x0) * i / steps, y)
            self.page.wait_for_timeout(step_ms)
            seen.append(self.scrub()["sigma"])
        if release:
            self.page.mouse.up()
        return seen

    def wait_for_settle(self, sigma: str) -> None:
        """After a scrub: wait until the committed σ is in the address and its rerun has finished."""
        self.page.wait_for_function(
            "(s) => new URLSearchParams(window.location.search).get('sigma') === s", arg=sigma
        )
        self.wait_for_run()

    def go_to(self, view: str) -> None:
        """Click the sidebar's link to ``view``; wait for the view's run."""
        with self.rerun():
            self.page.locator("[data-testid='stSidebar'] [data-testid='stPageLink']").filter(
                has_text=re.compile(rf"^\s*{re.escape(view)}\s*$")
            ).click()

    def screenshot(self, label: str | None = None) -> Path | None:
        """Save the whole view as <screenshots>/<test name>[-<label>].png (None if no folder is set)."""
        if self.screenshots is None:
            return None
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / (f"{self.name}-{label}.png" if label else f"{self.name}.png")
        # Streamlit scrolls inside its main container, so a "full page" shot is one viewport: grow
        # the viewport to the content's height (capped) to capture the whole view, then restore it.
        size = self.page.viewport_size
        height = self.page.evaluate(
            "() => (document.querySelector(\"[data-testid='stMain']\") || document.body).scrollHeight"
        )
        self.page.set_viewport_size(
            {"width": size["width"], "height": max(size["height"], min(int(height) + 40, 4000))}
        )
        self.wait_for_layout()
        self.page.screenshot(path=str(path), full_page=True)
        self.page.set_viewport_size(size)
        self.wait_for_layout()  # what a test reads next is laid out at its own size again
        return path

    def keepsake(self, label: str | None = None) -> Path | None:
        """``screenshot``, for a person to look at later, taken only with RBFVIZ_E2E_SCREENSHOTS=all: it
        lays out every figure again at a tall viewport and back, a cost a passing test need not pay (a
        failed test's last state is saved anyway: tests/browser.py)."""
        return self.screenshot(label) if screenshot_every_test() else None
