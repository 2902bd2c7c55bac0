"""ui.progress.in_stages: the work runs in a worker thread under one bar over its stages; the bar is redrawn
every tick whether or not the work reports; a run that ends while waiting (Streamlit's rerun on a
Cancel click, raised at a redraw) stops the work at its next report, and the result is never returned."""

import threading
import time

import pytest

from ui import progress as progress_module


class Interrupted(BaseException):
    """Stands for Streamlit's RerunException, raised at a redraw when a click asked for a new run."""


class FakeBar:
    def __init__(self, interrupt_after: int | None = None):
        self.drawn: list[tuple[float, str]] = []
        self.emptied = False
        self.interrupt_after = interrupt_after

    def progress(self, fraction, text=""):
        self.drawn.append((fraction, text))
        if self.interrupt_after is not None and len(self.drawn) >= self.interrupt_after:
            raise Interrupted

    def empty(self):
        self.emptied = True


@pytest.fixture
def bar(monkeypatch):
    made = FakeBar()
    monkeypatch.setattr(progress_module, "progress_bar", lambda text: made)
    return made


def test_the_result_and_one_bar_over_every_stage(bar):
    def work(first, second):
        for i in range(3):
            first(i + 1, 3)
            time.sleep(0.03)
        for i in range(2):
            second(i + 1, 2)
            time.sleep(0.03)
        return "done"

    assert progress_module.in_stages(["one", "two"], work, tick=0.01) == "done"
    assert bar.emptied and bar.drawn
    fractions = [f for f, _ in bar.drawn]
    assert fractions == sorted(fractions) and 0.0 <= fractions[0] and fractions[-1] <= 1.0
    # the second stage's reports fill the bar's second half
    assert any(f > 0.5 for f in fractions) and any("Step 2 of 2, two" in t for _, t in bar.drawn)


def test_the_bar_moves_while_one_step_of_the_work_lasts(bar):
    """A single report-free step of 0.3 s still gets a redraw every tick: the points where a click lands."""
    progress_module.in_stages(["slow"], lambda report: time.sleep(0.3), tick=0.02)
    assert len(bar.drawn) >= 5
    seconds = {text for _, text in bar.drawn}
    assert any("0 s so far" in t for t in seconds)


def test_the_works_error_reaches_the_page(bar):
    def work(report):
        report(1, 2)
        raise ValueError("bad setting")

    with pytest.raises(ValueError, match="bad setting"):
        progress_module.in_stages(["x"], work, tick=0.01)
    assert bar.emptied


def test_an_interrupted_run_stops_the_work_at_its_next_report(monkeypatch):
    made = FakeBar(interrupt_after=2)
    monkeypatch.setattr(progress_module, "progress_bar", lambda text: made)
    reports, ended, result = [], threading.Event(), []

    def work(report):
        try:
            for i in range(10_000):
                report(i, 10_000)
                reports.append(i)
                time.sleep(0.005)
            result.append("finished")
        finally:
            ended.set()

    with pytest.raises(Interrupted):
        progress_module.in_stages(["long"], work, tick=0.01)
    assert made.emptied
    assert ended.wait(2.0), "the work did not stop after the run that waited for it ended"
    assert not result and len(reports) < 10_000


def test_a_stopped_report_raises_stopped():
    worker = progress_module._Worker(lambda report: time.sleep(0.05) or report(1, 1), 1)
    worker.stop()
    assert worker.wait(2.0)
    assert isinstance(worker.error, progress_module.Stopped)


def test_in_worker_redraws_the_callers_bar_with_what_the_work_last_said():
    seen = []

    def work(report):
        time.sleep(0.1)
        report(3, 7)
        time.sleep(0.1)
        return 42

    assert progress_module.in_worker(work, lambda done, total: seen.append((done, total)), 9, tick=0.01) == 42
    assert seen[0] == (0, 9) and (3, 7) in seen  # (0, total) until the work first reports


def test_in_worker_stops_the_work_when_the_callers_redraw_ends_the_run():
    ended, calls = threading.Event(), []

    def work(report):
        try:
            for i in range(10_000):
                report(i, 10_000)
                time.sleep(0.005)
        finally:
            ended.set()

    def redraw(done, total):
        calls.append(done)
        if len(calls) == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        progress_module.in_worker(work, redraw, 10_000, tick=0.01)
    assert ended.wait(2.0)
