"""What one user's interaction costs on each view of the app, measured on a real Streamlit server.

    .venv/bin/python bench/bench_app.py                 # starts its own server on a free port
    .venv/bin/python bench/bench_app.py --reruns 20 --json bench_app.json
    .venv/bin/python bench/bench_app.py --port 8501     # against a server that is already running

Method (streamlit 1.67; the browser's own protocol over loopback, as bench/load.py explains):
one session opens ws://127.0.0.1:PORT/_stcore/stream and sends BackMsg ``rerun_script`` with the
page's URL path (``page_name``: Explorer, Annealing, Stability, Equivalence) and a query string,
then reads ForwardMsgs until ``script_finished``.

* **warm-up**: the home page runs once, so the process has imported torch, scikit-learn, plotly.
* **first load (cold cache)**: BackMsg ``clear_cache`` (st.cache_data and st.cache_resource, the
  annealing store included), then a new session opens the view at the default settings (blobs,
  n = 500, k = 4, softmax, float64, the default σ): everything the view needs is computed, the
  annealing path and collapse study included.
* **σ change**: ``--reruns`` changes in the same session, walking the σ grid outward from the
  default (a new σ every time: σ-keyed caches miss, setting-keyed caches hit).
  - A view whose σ lives on the figure (ui/scrub.py, a Streamlit v2 ``bidi_component`` scrubbed in
    the browser without the server; the Explorer, and any other view once it has one): a change is
    the scrubber's settle commit, as the browser sends it: a ``rerun_script`` with the address the
    server last wrote and, for the (first) component's widget id, ``json_value`` = ``{"level": i}``.
    The σ grid comes from the component's payload (``header["sigmas"]``). Checked: the address the
    server writes back carries the committed σ (and, on the Explorer, "**Downloads at σ = …**").
    Scrubbing between commits costs the server nothing and is not measured here.
  - A view with the sidebar σ slider: a change is the rerun with the address the server wrote and
    ``sigma=`` set to the new value (the URL path; the slider's own widget state reruns the same
    script).
  Time = send → the ``script_finished`` message: the server's whole rerun, serialisation and
  loopback included.
* **message cache, as the browser's**: cacheable ForwardMsgs (≥ 10 kB ``new_element`` deltas) are
  kept by hash and listed in each rerun's ``cached_message_hashes``; the server answers an unchanged
  one with a ``ref_hash`` reference, resolved here from the cache (so the Explorer's payload, the
  same bytes for every σ, is sent once per session).
* **bytes**: per run, the figure data actually sent (``plotly_chart.spec`` JSON, and the scrubber's
  gzip payload, ``bidi_component.bytes``; a reference counts 0), and all websocket bytes received
  (the sum of the ForwardMsg sizes). Reported for a first open with cold caches, a first open of a
  new session on the warm server (what a student's first open costs on the wire), and per σ change.

**A new setting, whole page** (``--new-setting``): per view, BackMsg ``clear_cache``, the view opened at the
defaults (``--set key=value`` changes them, e.g. ``--set n=5000 k=10``), then in the same session one
rerun per value of ``--ks`` (default 5 6 7) with that ``k`` in the address, as a student typing a new k:
nothing of it is cached, so the whole page is computed (every σ level of a scrubbed view). Time = send →
``script_finished``; server CPU = the server process's user + system time across the rerun (/proc);
the median of the values is compared with the target, 0.25 s per view. Also shown, not compared with
the target: "first figure", send → the run's first figure element (a Plotly chart, or a scrubber's
payload: on a scrubbed view the levels near the σ on screen, ui/scrub_parts.py, while the rest is built).

**The heaviest legal settings** (``--heavy``): per view, the caches cleared and a new session opening the
view at its heaviest settings in the address (``HEAVY``: n = 5,000 and k = 10, the largest the sidebar
allows, with the dearest maps; Step by step with its longest sequence of steps): send → ``script_finished``
and the server's CPU. Target: the page answers within 5 s of the server's CPU. A page over the work
budget answers with its notice and "Compute anyway" (ui/budget.py); with ``--press`` that button is then
pressed and the computation timed too, with the longest gap between two messages of that run: every
message is a point where a Cancel click ends the run (target ≤ 1 s apart).

Targets: rerun after a σ change p50 ≤ 150 ms for the Explorer, ≤ 1 MB of figure data per
rerun on every view; a view's first open sends at most 2 MB at the defaults, all σ
included. The machine is shared (2 cores, several engineers): numbers vary by ±30 % or more between
runs; read them as orders of magnitude and compare views within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: the repository's harness

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from harness.ports import free_port  # noqa: E402
from harness.proc import cpu_seconds, pid_listening_on  # noqa: E402
from harness.streamlit_client import SCRUB, ScriptRun, StreamlitSession  # noqa: E402
from harness.streamlit_server import StreamlitServer  # noqa: E402

VIEWS = ("Explorer", "Annealing", "Stability", "Equivalence")
HOME = "app"
SIGMA_LABEL = "σ (log scale)"
DEFAULTS = {"dataset": "blobs", "n": "500", "k": "4", "kind": "softmax", "dtype": "float64"}
TARGET_EXPLORER_MS = 150.0
TARGET_BYTES = 1_000_000
TARGET_FIRST_OPEN_BYTES = 2_000_000  # a view's first open at the defaults, all σ included


@dataclass
class Run(ScriptRun):
    figure_bytes: int = 0  # Σ len(plotly_chart.spec) + len(bidi_component.bytes) actually sent in this run
    charts_sent: int = 0
    sigma_options: list[str] = field(default_factory=list)
    component_id: str = ""  # the σ scrubber (Explorer)
    grid: list[float] = field(default_factory=list)
    downloads_text: str = ""  # the Explorer's "**Downloads at σ = …**"
    first_figure: float | None = None  # seconds from sending to the run's first figure element


class Session(StreamlitSession):
    """One browser tab (harness.streamlit_client), counting the figure bytes each run sends."""

    async def run(self, page: str, query: dict, widget: tuple[str, dict] | None = None) -> Run:
        """Rerun ``page`` with ``query`` (and one widget's JSON state, e.g. the scrubber's commit)."""
        widgets = () if widget is None else ((widget[0], "json_value", json.dumps(widget[1])),)
        return await super().run(page, query, widgets=widgets, result=Run())

    def on_element(self, fwd: ForwardMsg, result: Run, now: float, sent: bool) -> None:
        super().on_element(fwd, result, now, sent)
        element = fwd.delta.new_element
        which = element.WhichOneof("type")
        if result.first_figure is None and (
            which == "plotly_chart"
            or (which == "bidi_component" and element.bidi_component.WhichOneof("data") == "bytes")
        ):
            result.first_figure = now
        if which == "plotly_chart":
            result.figure_bytes += len(element.plotly_chart.spec.encode()) if sent else 0
            result.charts_sent += sent
        elif which == "bidi_component":
            component = element.bidi_component
            result.component_id = component.id
            if component.WhichOneof("data") == "bytes":
                result.figure_bytes += len(component.bytes) if sent else 0
                result.charts_sent += sent
                result.grid = [float(x) for x in SCRUB.read_payload(component.bytes)["sigmas"]]
        elif which == "slider" and element.slider.label == SIGMA_LABEL:
            result.sigma_options = list(element.slider.options)
        elif which == "markdown" and element.markdown.body.startswith("**Downloads at σ = "):
            result.downloads_text = element.markdown.body


def sigma_walk(options: list[str], start: str, count: int) -> list[str]:
    """``count`` distinct σ values of the grid, alternating outward from ``start`` (cycling if short)."""
    i = options.index(start) if start in options else len(options) // 2
    order = [i]
    for step in range(1, len(options)):
        for j in (i + step, i - step):
            if 0 <= j < len(options):
                order.append(j)
    order = order[1:] or order
    return [options[order[n % len(order)]] for n in range(count)]


@dataclass
class ViewResult:
    view: str
    first_load_s: float
    first_load_figure_bytes: int
    first_load_ws_bytes: int
    warm_open_s: float  # a new session's first open on the warm server (caches hit)
    warm_open_figure_bytes: int
    warm_open_ws_bytes: int
    rerun_ms: list[float]
    rerun_figure_bytes: list[int]
    rerun_ws_bytes: list[int]
    charts_per_rerun: list[int]
    problems: list[str]
    change: str = ""  # how σ was changed: "scrubber commit" or "address"

    def p(self, q: float) -> float:
        values = sorted(self.rerun_ms)
        return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def clear_caches(base: str, timeout: float) -> None:
    """BackMsg ``clear_cache`` from a session of its own: st.cache_data and st.cache_resource emptied."""
    control = Session(base, timeout)
    await control.connect()
    await control.clear_cache()
    await asyncio.sleep(0.5)
    await control.close()


async def measure_view(base: str, view: str, reruns: int, timeout: float) -> ViewResult:
    await clear_caches(base, timeout)

    session = Session(base, timeout)
    await session.connect()
    first = await session.run(view, DEFAULTS)
    problems = list(first.problems)
    other = Session(base, timeout)  # a second student opening the same view: everything cached
    await other.connect()
    warm = await other.run(view, DEFAULTS)
    await other.close()
    problems += warm.problems
    query = first.query or DEFAULTS
    times, fig_bytes, ws_bytes, charts = [], [], [], []
    scrubbed = bool(first.component_id and first.grid)
    if "sigma" not in query or not (scrubbed or first.sigma_options):
        problems.append("the view opened without a σ control (slider or scrubber) or a σ in its address")
    else:
        if scrubbed:  # the Explorer: the scrubber's settle commits, levels walked outward from the default
            start = min(
                range(len(first.grid)), key=lambda i: abs(math.log(first.grid[i] / float(query["sigma"])))
            )
            changes = sigma_walk(list(range(len(first.grid))), start, reruns)
        else:
            changes = sigma_walk(first.sigma_options, query["sigma"], reruns)
        for change in changes:
            if scrubbed:
                run = await session.run(view, query, widget=(first.component_id, {"level": change}))
                text = f"{first.grid[change]:.3g}"
                try:
                    in_address = f"{float(run.query.get('sigma', 'nan')):.3g}"
                except ValueError:
                    in_address = run.query.get("sigma")
                if in_address != text:
                    problems.append(f"commit of σ = {text}: the address has sigma={run.query.get('sigma')}")
                if view == "Explorer" and not run.downloads_text.startswith(f"**Downloads at σ = {text}**"):
                    problems.append(f"commit of σ = {text}: the page shows {run.downloads_text[:40]!r}")
            else:
                run = await session.run(view, {**query, "sigma": change})
            problems += run.problems
            times.append(1000.0 * run.seconds)
            fig_bytes.append(run.figure_bytes)
            ws_bytes.append(run.ws_bytes)
            charts.append(run.charts_sent)
            query = run.query or query
    await session.close()
    return ViewResult(
        view,
        first.seconds,
        first.figure_bytes,
        first.ws_bytes,
        warm.seconds,
        warm.figure_bytes,
        warm.ws_bytes,
        times,
        fig_bytes,
        ws_bytes,
        charts,
        problems,
        "scrubber commit" if scrubbed else "address",
    )


TARGET_NEW_SETTING_S = 0.25

# --- the heaviest legal settings ------------------------------------------------------------------------

LARGEST = {"dataset": "blobs", "n": "5000", "k": "10", "dtype": "float64", "seed": "0"}
ALPHA = {"kind": "entmax", "alpha": "1.3"}  # α-entmax: the dearest map measured (α = 1.05 costs the same)
HEAVY = (
    ("Explorer", {**LARGEST, **ALPHA}),
    ("Explorer", {**LARGEST, "kind": "entmax15"}),
    ("Explorer", {**LARGEST, "kind": "softmax"}),
    ("Step_by_step", {**LARGEST, **ALPHA, "steps": "EM" * 100}),  # the longest sequence, MAX_STEPS = 200
    ("Annealing", {**LARGEST, **ALPHA}),
    ("Annealing", {**LARGEST, "kind": "entmax15"}),
    ("Annealing", {**LARGEST, "kind": "softmax"}),
    ("How_many_clusters", {**LARGEST}),  # k = 10 suggests the largest k_max, 16
    ("Stability", {**LARGEST, **ALPHA}),
    ("Equivalence", {**LARGEST, **ALPHA}),
    ("Equivalence", {**LARGEST, "kind": "entmax15"}),
    ("Gaussian_mixture", {**LARGEST}),
    ("Lessons", {**LARGEST, **ALPHA}),
    (
        "Neural_network",
        {**LARGEST},
    ),  # training starts only on its own button, in a bounded pool (rbfviz.nn.jobs)
)
TARGET_HEAVY_S = 5.0
TARGET_GAP_S = 1.0
COMPUTE_ANYWAY = "Compute anyway"


@dataclass
class HeavyRun(Run):
    budget_button: str = ""  # the widget id of "Compute anyway", if the page asked first
    budget_label: str = ""
    stamps: list[float] = field(default_factory=list)  # when each message of the run arrived


class HeavySession(Session):
    async def press(self, page: str, query: dict, widget_id: str) -> HeavyRun:
        """Rerun ``page`` with the button ``widget_id`` pressed (its trigger, as the browser sends it)."""
        return await StreamlitSession.run(
            self, page, query, widgets=((widget_id, "trigger_value", True),), result=HeavyRun()
        )

    async def open_heavy(self, page: str, query: dict) -> HeavyRun:
        return await StreamlitSession.run(self, page, query, result=HeavyRun())

    def on_element(self, fwd: ForwardMsg, result, now: float, sent: bool) -> None:
        super().on_element(fwd, result, now, sent)
        element = fwd.delta.new_element
        if isinstance(result, HeavyRun):
            result.stamps.append(now)
            if element.WhichOneof("type") == "button" and element.button.label.startswith(COMPUTE_ANYWAY):
                result.budget_button, result.budget_label = element.button.id, element.button.label

    def on_message(self, fwd: ForwardMsg, result, now: float) -> None:
        super().on_message(fwd, result, now)
        if isinstance(result, HeavyRun):
            result.stamps.append(now)


@dataclass
class HeavyResult:
    view: str
    query: dict
    open_seconds: float
    open_cpu: float | None
    asked: str  # the "Compute anyway" button's label, or "" if the page computed at once
    pressed_seconds: float | None = None
    pressed_cpu: float | None = None
    longest_gap: float | None = None  # the longest wait between two messages of the computing run
    problems: list[str] = field(default_factory=list)


def _longest_gap(stamps: list[float], end: float) -> float:
    times = [0.0, *sorted(stamps), end]
    return max(b - a for a, b in zip(times, times[1:]))


async def measure_heavy(base: str, cases, pid: int | None, timeout: float, press: bool) -> list[HeavyResult]:
    """Each (view, query) case of HEAVY from cold caches in a new session; with ``press``, "Compute
    anyway" too."""
    warm = Session(base, timeout)
    await warm.connect()
    await warm.run(HOME, DEFAULTS)  # imports and server start-up out of the way
    await warm.close()
    results = []
    for view, query in cases:
        await clear_caches(base, timeout)
        session = HeavySession(base, timeout)
        await session.connect()
        before = cpu_seconds(pid)
        opened = await session.open_heavy(view, query)
        after = cpu_seconds(pid)
        result = HeavyResult(
            view,
            query,
            opened.seconds,
            None if before is None or after is None else after - before,
            opened.budget_label,
            problems=list(opened.problems),
        )
        if press and opened.budget_button:
            before = cpu_seconds(pid)
            pressed = await session.press(view, opened.query or query, opened.budget_button)
            after = cpu_seconds(pid)
            result.pressed_seconds = pressed.seconds
            result.pressed_cpu = None if before is None or after is None else after - before
            result.longest_gap = _longest_gap(pressed.stamps, pressed.seconds)
            result.problems += pressed.problems
            if pressed.budget_button:
                result.problems.append("after Compute anyway the page still asks")
        await session.close()
        results.append(result)
        print(heavy_line(result), flush=True)
    return results


def heavy_line(r: HeavyResult) -> str:
    q = r.query
    setting = f"{q.get('kind', 'softmax')}{' α=' + q['alpha'] if 'alpha' in q else ''}"
    setting += " steps=200" if "steps" in q else ""
    cpu = "?" if r.open_cpu is None else f"{r.open_cpu:.2f}"
    # the server's CPU, not the wall time: on this shared machine the wall time is mostly waiting
    met = "met" if (r.open_seconds if r.open_cpu is None else r.open_cpu) <= TARGET_HEAVY_S else "NOT met"
    line = f"{r.view:<18} {setting:<18} {r.open_seconds:>7.2f} s {cpu:>7} s  {met:<8}"
    if r.asked:
        line += f" asks: {r.asked!r}"
    if r.pressed_seconds is not None:
        pcpu = "?" if r.pressed_cpu is None else f"{r.pressed_cpu:.2f}"
        gap = "met" if r.longest_gap <= TARGET_GAP_S else "NOT met"
        line += (
            f"; pressed: {r.pressed_seconds:.2f} s wall, {pcpu} s server CPU, "
            f"longest gap {r.longest_gap:.2f} s ({gap})"
        )
    return line


HEAVY_HEAD = (
    f"{'view':<18} {'map':<18} {'open':>9} {'CPU':>9}  target {TARGET_HEAVY_S:.0f} s "
    f"(n = 5,000, k = 10; 'pressed': Compute anyway, gap target {TARGET_GAP_S:.0f} s)"
)


@dataclass
class NewSettingResult:
    view: str
    ks: list[int]
    seconds: list[float]  # send → script_finished, one per k
    first_figure: list[float | None]  # send → the first figure element (a scrubbed view's first part)
    server_cpu: list[float | None]  # the server's CPU seconds across that rerun (/proc), None if unknown
    problems: list[str]


async def measure_new_settings(base: str, view: str, ks, pid: int | None, timeout: float) -> NewSettingResult:
    """Per k of ks, the whole page at that new k (see the module docstring)."""
    await clear_caches(base, timeout)
    session = Session(base, timeout)
    await session.connect()
    opened = await session.run(view, DEFAULTS)
    result = NewSettingResult(view, list(ks), [], [], [], list(opened.problems))
    for k in ks:
        before = cpu_seconds(pid)
        run = await session.run(view, {**DEFAULTS, "k": str(k)})
        after = cpu_seconds(pid)
        result.seconds.append(run.seconds)
        result.first_figure.append(run.first_figure)
        result.server_cpu.append(None if before is None or after is None else after - before)
        result.problems += run.problems
        if run.query.get("k") != str(k):
            result.problems.append(f"k={k}: the address the server wrote has k={run.query.get('k')}")
    await session.close()
    return result


async def measure_all_new_settings(base: str, views, ks, pid, timeout: float) -> list[NewSettingResult]:
    warm = Session(base, timeout)
    await warm.connect()
    await warm.run(HOME, DEFAULTS)  # imports and server start-up out of the way
    await warm.close()
    return [await measure_new_settings(base, view, ks, pid, timeout) for view in views]


def new_setting_table(results: list[NewSettingResult]) -> str:
    ks = results[0].ks if results else []
    head = (
        f"{'view':<13} "
        + " ".join(f"{'k=' + str(k):>7}" for k in ks)
        + f" {'median':>8} {'server CPU (median)':>20} {'first figure':>13} {'target':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        cpu = [c for c in r.server_cpu if c is not None]
        median = statistics.median(r.seconds)
        met = "met" if median <= TARGET_NEW_SETTING_S else "NOT met"
        shown = [s for s in r.first_figure if s is not None]
        lines.append(
            f"{r.view:<13} " + " ".join(f"{s:>6.2f}s" for s in r.seconds) + f" {median:>7.2f}s "
            f"{(f'{statistics.median(cpu):.2f} s') if cpu else 'unknown':>20} "
            f"{(f'{statistics.median(shown):.2f} s') if shown else 'none':>13} "
            f"{TARGET_NEW_SETTING_S:.2f} s ({met}, ratio {median / TARGET_NEW_SETTING_S:.1f})"
        )
    return "\n".join(lines)


async def measure(base: str, views, reruns: int, timeout: float) -> list[ViewResult]:
    warm = Session(base, timeout)
    await warm.connect()
    await warm.run(HOME, DEFAULTS)  # imports and server start-up out of the way
    await warm.close()
    return [await measure_view(base, view, reruns, timeout) for view in views]


def table(results: list[ViewResult]) -> str:
    head = (
        f"{'view':<13} {'first load (cold)':>17} {'warm open':>10} {'σ change p50':>13} {'p95':>7} "
        f"{'max':>7} "
        f"{'first open ws / figure kB':>26} {'per change ws / figure kB (median, max)':>40}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        name = r.view + (" *" if r.change == "scrubber commit" else "")
        opened = f"{name:<13} {r.first_load_s:>16.2f} s {r.warm_open_s:>8.2f} s "
        sizes = f"{r.warm_open_ws_bytes / 1e3:>12.0f} / {r.warm_open_figure_bytes / 1e3:>6.0f} kB"
        if r.rerun_ms:
            lines.append(
                opened + f"{r.p(0.5):>10.0f} ms {r.p(0.95):>4.0f} ms {max(r.rerun_ms):>4.0f} ms {sizes:>26} "
                f"{statistics.median(r.rerun_ws_bytes) / 1e3:>14.1f} / "
                f"{statistics.median(r.rerun_figure_bytes) / 1e3:.1f} kB "
                f"({max(r.rerun_ws_bytes) / 1e3:.1f} / {max(r.rerun_figure_bytes) / 1e3:.1f} kB)"
            )
        else:
            lines.append(opened + "  (no σ changes)")
    lines.append(
        "* σ on the figure: a σ change is the scrubber's settle commit (widget state {level: i}); "
        "others: the sidebar σ via the address"
    )
    return "\n".join(lines)


def _close(results, json_path) -> int:
    """Print each result's problems and the load average, write ``json_path`` if given; the exit code
    (1 if any result has a problem)."""
    for r in results:
        for problem in sorted(set(r.problems)):
            print(f"  problem on {r.view}: {problem}")
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if json_path:
        json_path.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 1 if any(r.problems for r in results) else 0


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    machine.start()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, help="measure a running server instead of starting one")
    parser.add_argument("--reruns", type=int, default=20)
    parser.add_argument("--views", nargs="+", help=f"default {' '.join(VIEWS)}; with --heavy, every view")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--kind",
        choices=("softmax", "entmax15", "naive"),
        default="softmax",
        help="the map of the default settings (entmax15's first annealing costs most)",
    )
    parser.add_argument("--json", type=Path, help="also write the raw numbers here")
    parser.add_argument(
        "--new-setting", action="store_true", help="time a new setting's whole page instead of σ changes"
    )
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 6, 7], help="the new settings' k")
    parser.add_argument(
        "--set", nargs="+", default=[], metavar="KEY=VALUE", help="change the default settings, e.g. n=5000"
    )
    parser.add_argument(
        "--heavy", action="store_true", help="open every view at its heaviest legal settings (HEAVY)"
    )
    parser.add_argument(
        "--press",
        action="store_true",
        help="with --heavy: press Compute anyway where asked, and time it",
    )
    args = parser.parse_args()
    heavy_cases = [case for case in HEAVY if args.views is None or case[0] in args.views]
    args.views = args.views or list(VIEWS)
    DEFAULTS["kind"] = args.kind
    DEFAULTS.update(item.split("=", 1) for item in args.set)

    server = None
    port = args.port or free_port()
    if args.port is None:
        server = StreamlitServer(Path("/tmp") / f"bench_app_server_{port}.log", port=port)
        try:
            server.wait_healthy(120)
        except Exception:
            server.stop()
            raise
    try:
        if args.heavy:
            pid = server.proc.pid if server is not None else pid_listening_on(port)
            print(HEAVY_HEAD + "\n" + "-" * len(HEAVY_HEAD), flush=True)
            heavy = asyncio.run(
                measure_heavy(f"http://127.0.0.1:{port}", heavy_cases, pid, args.timeout, args.press)
            )
        elif args.new_setting:
            pid = server.proc.pid if server is not None else pid_listening_on(port)
            found = asyncio.run(
                measure_all_new_settings(f"http://127.0.0.1:{port}", args.views, args.ks, pid, args.timeout)
            )
        else:
            results = asyncio.run(measure(f"http://127.0.0.1:{port}", args.views, args.reruns, args.timeout))
    finally:
        if server is not None:
            server.stop()
    if args.heavy:
        return _close(heavy, args.json)
    if args.new_setting:
        print(f"rbfviz app, real server on loopback: a new setting, whole page, from {urlencode(DEFAULTS)}\n")
        print(new_setting_table(found))
        return _close(found, args.json)

    print(
        f"rbfviz app, real server on loopback (streamlit 1.67), defaults {urlencode(DEFAULTS)}, "
        f"{args.reruns} σ changes per view\n"
    )
    print(table(results))
    print()
    for r in results:
        if r.view == "Explorer" and r.rerun_ms:
            print(
                f"Explorer rerun p50 {r.p(0.5):.0f} ms vs target {TARGET_EXPLORER_MS:.0f} ms: "
                f"ratio {r.p(0.5) / TARGET_EXPLORER_MS:.2f}"
            )
        print(
            f"{r.view}: first open sends {r.warm_open_ws_bytes / 1e6:.3f} MB (cold caches "
            f"{r.first_load_ws_bytes / 1e6:.3f}"
            f" MB) vs {TARGET_FIRST_OPEN_BYTES / 1e6:.0f} MB: ratio "
            f"{r.warm_open_ws_bytes / TARGET_FIRST_OPEN_BYTES:.2f}"
        )
        if r.rerun_figure_bytes:
            print(
                f"{r.view}: largest figure payload of a rerun {max(r.rerun_figure_bytes) / 1e6:.3f} MB vs "
                f"{TARGET_BYTES / 1e6:.0f} MB budget: ratio {max(r.rerun_figure_bytes) / TARGET_BYTES:.2f}"
            )
        for problem in sorted(set(r.problems)):
            print(f"  problem on {r.view}: {problem}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 1 if any(r.problems for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
