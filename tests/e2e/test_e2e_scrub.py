"""A student scrubs σ on the Explorer's figure (rbfviz/views/common/web/scrub.js): by keyboard, by mouse drag
and by touch.

After each scrub the test checks, in the browser:
* the drawn σ: the plot's data-sigma, its title and the slider's text all name the same grid σ;
* the numbers beside the plot, against rbfviz recomputed here at that σ. The shown strings are
  compared exactly (the page's formats: L_σ and J ``.5g``, L_σ − J ``.3g`` …), and full-precision
  values that the figure carries (the RBF centres and the K-Means centroids: float64 in the figure)
  to 1e-9 relative; the "In words" sentence against rbfviz.views.common.words at that σ; the
  responsibilities in the hover are r rounded to 3 decimals (float32);
* that no script runs while σ moves: the page sends no websocket message (a BackMsg) during the
  scrub, and exactly one, a rerun_script, when it settles (0.5 s after the last key, or after the
  pointer is released). Messages and input events are timestamped in the page itself
  (student.py's init script wraps WebSocket.send), so a slow CI machine cannot blur the order;
* that the address then names the new σ and that opening it in a fresh browser context shows the
  same σ and the same numbers.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from urllib.parse import urlencode

import numpy as np
import pytest

from harness.student import HANG_TIMEOUT_MS, Student
from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.explorer import words as explorer_words
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers, soft_fixed_point
from ui import compute
from ui.state import parse_query

pytestmark = pytest.mark.e2e

DEFAULTS = dict(
    dataset="blobs", n="500", noise="1.5", seed="0", k="4", init="kmeanspp", kind="softmax", dtype="float64"
)
SETTLE_WAIT_MS = 900  # > the scrubber's 0.5 s settle time: long enough for a commit to have been sent
SETTLE_MIN_MS = 450  # the commit comes 0.5 s after the last input (timer granularity allowed for)


# --- rbfviz at one σ ----------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def grid(kind: str = "softmax", dtype: str = "float64") -> tuple[float, ...]:
    """The σ grid of the default data (decreasing; level 0 = largest σ), as the app computes it."""
    ctrl, notices = parse_query({**DEFAULTS, "kind": kind, "dtype": dtype})
    assert notices == []
    return tuple(float(s) for s in compute.scale(ctrl).grid)


@lru_cache(maxsize=None)
def expected(level: int, kind: str = "softmax", dtype: str = "float64") -> dict:
    """What the Explorer must show at grid level ``level`` for the default data with this map and
    precision, recomputed with the library as the page's computation is documented."""
    sigma = grid(kind, dtype)[level]
    X, _ = make_dataset("blobs", 500, 1.5, 0)
    X = np.ascontiguousarray(X, dtype=dtype)
    C0 = initial_centers(X, 4, "kmeans++", 0)
    C, iterations, converged = soft_fixed_point(X, C0, sigma, kind=kind)
    km_centers, labels = measures.kmeans_reference(X, np.asarray(C0, dtype=np.float64))
    numbers = plane_numbers(X, C, sigma, kind, labels)
    metrics = [
        ("L_σ  (soft loss)", f"{numbers['loss']:.5g}"),
        ("J  (K-Means distortion at these centres)", f"{numbers['distortion']:.5g}"),
        ("L_σ − J", f"{numbers['gap']:.3g}"),
        ("argmax r = K-Means label", f"{100 * numbers['agreement']:.1f} %"),
        ("mean entropy of r", f"{numbers['mean_entropy'] + 0.0:.3g} nats"),
        ("exactly-zero r_ij", f"{numbers['exact_zeros']:,} of {numbers['entries']:,}"),
    ]
    if numbers["nan_rows"]:
        metrics.append(("NaN rows of r", f"{numbers['nan_rows']:,}"))
    resp = responsibilities(X, C, sigma, kind)
    return dict(
        sigma=sigma,
        text=f"{sigma:.3g}",
        numbers=numbers,
        metrics=metrics,
        bound=f"bound for {kind}: {numbers['bound']:.3g} — "
        + ("within the bound ✓" if numbers["within_bound"] else "outside the bound"),
        caption="In words: " + explorer_words.plane(resp, numbers, sigma, kind, dtype),
        centres=f"({iterations} EM iteration{'' if iterations == 1 else 's'}, "
        + ("converged" if converged else "NOT converged"),
        C=np.asarray(C, dtype=np.float64),
        km=np.asarray(km_centers, dtype=np.float64),
        r_shown=np.round(np.asarray(resp, dtype=np.float64), 3).astype(np.float32).astype(np.float64),
    )


def _rel(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def _trace(traces: list[dict], name: str) -> dict:
    found = [t for t in traces if t["name"] == name]
    assert len(found) == 1, (name, [t["name"] for t in traces])
    return found[0]


def check_drawn(student: Student, kind: str = "softmax", dtype: str = "float64", full: bool = True) -> dict:
    """The scrubber's drawn σ, title, slider text and numbers agree with each other and with rbfviz.
    full: also compare the figure's centres (1e-9) and hover r (3 decimals) with rbfviz."""
    shown = student.wait_for_scrub()
    level = shown["level"]
    want = expected(level, kind, dtype)
    s = want["text"]
    assert shown["sigma"] == s, (shown["sigma"], want["sigma"])
    assert shown["title"].endswith(f", σ = {s}"), shown["title"]
    assert shown["title"].startswith(f"blobs, n = 500, k = 4, {kind}, {dtype}"), shown["title"]
    assert shown["output"] == f"σ = {s}" == shown["valuetext"], shown
    assert shown["value"] == shown["max"] - level, "small σ is on the left: slider value = last level - level"
    assert shown["label"] == "σ (log scale)"

    # the numbers beside the plot: the strings exactly, and each parsed back within half a unit of
    # its last shown digit of rbfviz's float (the strings carry 3-5 significant digits)
    assert [(" ".join(label.split()), value) for label, value in shown["metrics"]] == [
        (" ".join(label.split()), value) for label, value in want["metrics"]
    ], shown["metrics"]
    numbers, metrics = want["numbers"], dict(want["metrics"])
    for key, label, digits in (
        ("loss", "L_σ  (soft loss)", 5),
        ("distortion", "J  (K-Means distortion at these centres)", 5),
        ("gap", "L_σ − J", 3),
    ):
        value = float(metrics[label])
        assert value == float(f"{numbers[key]:.{digits}g}")
        assert abs(value - numbers[key]) <= 0.5 * 10 ** (
            math.floor(math.log10(abs(numbers[key]) or 1)) - digits + 1
        ) * (1 + 1e-9), (key, value, numbers[key])
    assert shown["notes"][0] == want["bound"], shown["notes"]
    assert shown["notes"][-1].startswith(
        "Centres shown: EM from the kmeans++ start to the soft fixed point"
    ), shown["notes"]
    assert want["centres"] in shown["notes"][-1], (shown["notes"][-1], want["centres"])
    assert shown["caption"] == want["caption"], (shown["caption"], want["caption"])
    assert f"σ = {s} ({kind}, {dtype})" in shown["caption"]

    if full:  # what the figure draws, to full precision
        traces = student.scrub_traces()
        centres, km = _trace(traces, "RBF centres c_j"), _trace(traces, "K-Means centroids")
        assert _rel(np.column_stack([centres["x"], centres["y"]]), want["C"]) <= 1e-9
        assert _rel(np.column_stack([km["x"], km["y"]]), want["km"]) <= 1e-9
        points = traces[0]
        assert points["name"].startswith("points")
        r = np.asarray(points["customdata"], dtype=np.float64)
        assert r.shape == want["r_shown"].shape, r.shape
        assert np.max(np.abs(r - want["r_shown"])) <= 1e-7, "hover r is not rbfviz's r rounded to 3 decimals"
    return shown


def reopen_in_fresh_context(browser, browser_context_args, url: str, shown: dict) -> None:
    """The address after a scrub opens the same σ with the same numbers for somebody else."""
    context = browser.new_context(**browser_context_args)
    try:
        other = Student(context.new_page())
        other.page.set_default_timeout(HANG_TIMEOUT_MS)
        other.open(url)
        again = other.wait_for_scrub(shown["sigma"])
        for key in ("level", "sigma", "title", "output", "metrics", "notes", "caption"):
            assert again[key] == shown[key], (key, again[key], shown[key])
        other.assert_no_problems()
    finally:
        context.close()


def settle(student: Student, since: float, sigma: str) -> None:
    """A scrub that started at page time ``since`` (Student.now()) has settled at ``sigma``: the page
    sent no websocket message while σ moved and exactly one, the commit, when it settled (at least
    the 0.5 s settle time after the last input event or pointer release); σ is then in the address
    and the downloads' heading (the σ panels' fragment reran), and the sidebar still says how to move
    σ. The times are the page's own (Student.sent_log, inputs_log)."""
    student.wait_for_settle(sigma)
    student.wait_page_time(SETTLE_WAIT_MS)  # on the page's clock: a second commit would have come by now
    sent, inputs = student.sent_log(since), student.inputs_log(since)
    assert inputs, "no input event reached the σ slider"
    moves = sorted(event["t"] for event in inputs if event["type"] in ("input", "pointerup"))
    # At most one commit per pause of the input as long as the settle time. The test's keys and moves
    # come 40-120 ms apart (one commit), but a loaded machine can stretch a gap past 0.5 s; the
    # timestamps are the page's own.
    gaps = [b - a for a, b in zip(moves, moves[1:])]
    most = 1 + sum(gap >= SETTLE_MIN_MS for gap in gaps)
    assert 1 <= len(sent) <= most, f"expected 1-{most} commit(s) for input gaps {gaps}, the page sent {sent}"
    assert all(message["type"] == "rerun_script" for message in sent), sent
    for message in sent:
        before = max(t for t in moves if t <= message["t"])
        assert message["t"] >= before + SETTLE_MIN_MS, (
            f"a commit was sent {message['t'] - before:.0f} ms after an input: while σ was still moving"
        )
    assert student.query()["sigma"] == sigma, student.page.url
    sidebar = student.page.locator("[data-testid='stSidebar']").inner_text()
    assert "σ: move it with the σ slider above the figure" in sidebar, sidebar
    heading = f"Downloads at σ = {float(sigma):.3g}"
    student.page.get_by_text(heading).first.wait_for()


# --- the tests -------------------------------------------------------------------------------------


def test_keyboard_scrub(server, student, browser, browser_context_args):
    student.open(f"{server.url}/Explorer")
    start = check_drawn(student)
    assert start["level"] == grid().index(float(student.query()["sigma"])), (start, student.page.url)

    # three steps left (smaller σ), 120 ms apart: one scrub, drawn at once, no script run
    since = student.now()
    student.press_scrub("ArrowLeft", times=3)
    moved = student.wait_for_scrub(expected(start["level"] + 3)["text"])
    shown = check_drawn(student)
    assert shown["level"] == start["level"] + 3 and float(moved["sigma"]) < float(start["sigma"])
    settle(student, since, shown["sigma"])
    assert check_drawn(student, full=False) == shown, "the settle rerun changed what the scrubber shows"

    # one step right raises σ again; a second settle, a second single commit
    since = student.now()
    student.press_scrub("ArrowRight")
    up = student.wait_for_scrub(expected(shown["level"] - 1)["text"])
    up = check_drawn(student)
    assert up["level"] == shown["level"] - 1, (up, shown)
    settle(student, since, up["sigma"])
    reopen_in_fresh_context(browser, browser_context_args, student.page.url, up)
    student.assert_no_problems()
    student.keepsake("1400x1000")
    student.page.set_viewport_size({"width": 1920, "height": 1080})
    student.keepsake("1920x1080")


def test_mouse_drag_scrub(server, student, browser, browser_context_args):
    student.open(f"{server.url}/Explorer")
    start = check_drawn(student, full=False)
    since = student.now()

    # drag the thumb most of the way left in 30 moves: σ follows continuously, never up
    seen = student.drag_scrub(0.15, steps=30, release=False)
    values = [float(s) for s in seen]
    assert all(b <= a for a, b in zip(values, values[1:])), seen
    assert len(set(seen)) >= 8, f"σ did not follow the drag continuously: {seen}"
    assert values[-1] < float(start["sigma"])
    # holding the button: nothing is committed however long the pointer stays down
    student.wait_page_time(SETTLE_WAIT_MS)
    assert student.sent_log(since) == [], "a message was sent while the mouse button was still down"
    shown = check_drawn(student)
    student.page.mouse.up()
    settle(student, since, shown["sigma"])
    reopen_in_fresh_context(browser, browser_context_args, student.page.url, shown)
    student.assert_no_problems()


def test_touch_drag_scrub(server, browser, browser_context_args):
    """A finger on the slider (real touch input through the DevTools protocol, as a phone sends it)."""
    context = browser.new_context(**{**browser_context_args, "has_touch": True})
    try:
        student = Student(context.new_page())
        student.page.set_default_timeout(HANG_TIMEOUT_MS)
        student.open(f"{server.url}/Explorer")
        start = check_drawn(student, full=False)
        cdp = context.new_cdp_session(student.page)
        x0, y = student.scrub_thumb()
        box = student.page.locator("input.scrub-range").bounding_box()
        x1 = box["x"] + box["width"] - 12  # towards the right end: larger σ
        since = student.now()
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]})
        seen = []
        for i in range(1, 16):
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchMove", "touchPoints": [{"x": x0 + (x1 - x0) * i / 15, "y": y}]},
            )
            student.page.wait_for_timeout(40)
            seen.append(student.scrub()["sigma"])
        student.wait_page_time(SETTLE_WAIT_MS)
        assert student.sent_log(since) == [], "a message was sent while the finger was still down"
        values = [float(s) for s in seen]
        assert all(b >= a for a, b in zip(values, values[1:])) and values[-1] > float(start["sigma"]), seen
        assert len(set(seen)) >= 5, f"σ did not follow the finger: {seen}"
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        shown = check_drawn(student)
        settle(student, since, shown["sigma"])
        student.assert_no_problems()
    finally:
        context.close()


@pytest.mark.parametrize("kind, dtype", [("entmax15", "float32")])
def test_scrub_from_a_link_with_entmax_in_float32(server, student, kind, dtype):
    """A link with another map and precision: its own payload, numbers and exact zeros."""
    sigmas = grid(kind, dtype)
    level = len(sigmas) * 2 // 3  # below the first split, where entmax has exact zeros
    query = {**DEFAULTS, "kind": kind, "dtype": dtype, "sigma": f"{sigmas[level]:.3g}"}
    student.open(f"{server.url}/Explorer?{urlencode(query)}")
    shown = check_drawn(student, kind, dtype)
    assert shown["level"] == level, (shown["level"], level)
    zeros = dict(shown["metrics"])["exactly-zero r_ij"]
    assert int(re.sub(r"\D", "", zeros.split(" of ")[0])) > 0, zeros

    since = student.now()
    student.press_scrub("ArrowLeft", times=2)
    student.wait_for_scrub(expected(level + 2, kind, dtype)["text"])
    moved = check_drawn(student, kind, dtype)
    settle(student, since, moved["sigma"])
    assert {key: student.query()[key] for key in ("kind", "dtype")} == {"kind": kind, "dtype": dtype}
    student.assert_no_problems()
