"""rbfviz.nn.jobs: training in background threads — progress, results stored per key (only complete
runs, bounded), one job per key shared by its watchers, Stop (only when nobody else watches), errors
kept, at most max_parallel trainings at once and Stop while queued; and a real trainer stopped early."""

import threading
import time

import pytest
from hang import HANG_TIMEOUT_S

from rbfviz.nn.jobs import FAILED, FINISHED, QUEUED, JobRegistry, TrainingJob
from rbfviz.views.neural_network.arrays import train_classifier_view

WAIT = HANG_TIMEOUT_S  # a hang bound: each wait ends as soon as its state is reached


class Result:
    def __init__(self, value, stopped=False):
        self.value, self.stopped = value, stopped


def counting(steps=5, release: threading.Event | None = None, calls: list | None = None):
    """A fake trainer: `steps` epochs, each reported; waits for `release` before the last one;
    honours stop."""

    def fn(progress, stop):
        if calls is not None:
            calls.append(1)
        for epoch in range(1, steps + 1):
            if release is not None and epoch == steps:
                while not release.wait(0.01):
                    if stop():
                        return Result(epoch - 1, stopped=True)
            progress(epoch, steps)
            if stop() and epoch < steps:
                return Result(epoch, stopped=True)
        return Result(steps)

    return fn


def test_job_reports_progress_and_stores_a_complete_result():
    reg = JobRegistry()
    job = reg.start("a", counting(4), "w1")
    assert job.wait(WAIT) and job.state == FINISHED
    assert (job.done, job.total, job.fraction) == (4, 4, 1.0)
    assert reg.result("a") is job.result and job.result.value == 4
    assert reg.running("a") is None
    assert job.seconds >= 0


def test_same_key_is_one_job_and_stop_waits_for_the_last_watcher():
    reg = JobRegistry()
    release, calls = threading.Event(), []
    first = reg.start("k", counting(3, release, calls), "alice")
    second = reg.start("k", counting(3, release, calls), "bob")
    assert second is first and first.watchers == 2
    assert reg.stop(first, "alice") is False  # bob still watches: it goes on
    assert not first.stop_event.is_set()
    assert reg.stop(first, "bob", wait=WAIT) is True  # nobody left: it stops and ends
    assert first.finished and first.result.stopped
    assert len(calls) == 1
    assert reg.result("k") is None  # a stopped run is never stored under the key


def test_failure_is_kept_not_stored():
    reg = JobRegistry()

    def broken(progress, stop):
        raise ValueError("k must be at most n")

    job = reg.start("bad", broken, "w")
    assert job.wait(WAIT)
    assert job.state == FAILED and isinstance(job.error, ValueError) and "at most n" in str(job.error)
    assert reg.result("bad") is None and reg.running("bad") is None


def test_parallel_limit_queues_and_stop_while_queued_never_trains():
    reg = JobRegistry(max_parallel=1)
    release, calls = threading.Event(), []
    busy = reg.start("one", counting(2, release, calls), "w")
    deadline = time.perf_counter() + WAIT
    while busy.state == QUEUED and time.perf_counter() < deadline:
        time.sleep(0.01)
    waiting = reg.start("two", counting(2, calls=calls), "w")
    time.sleep(0.3)
    assert waiting.state == QUEUED and waiting.fraction == 0.0 and waiting.seconds == 0.0
    reg.stop(waiting, "w", wait=WAIT)
    assert waiting.finished and waiting.state == FAILED and "nothing was trained" in str(waiting.error)
    release.set()
    assert busy.wait(WAIT) and busy.state == FINISHED
    assert len(calls) == 1  # only the first job ever called its trainer


def test_results_store_is_bounded_lru():
    reg = JobRegistry(max_results=2)
    for key in ("a", "b"):
        reg.start(key, counting(1), "w").wait(WAIT)
    assert reg.result("a") is not None  # touch a: b is now the oldest
    reg.start("c", counting(1), "w").wait(WAIT)
    assert reg.result("b") is None and reg.result("a") is not None and reg.result("c") is not None


def test_a_new_start_after_stop_runs_again():
    reg = JobRegistry()
    release = threading.Event()
    job = reg.start("k", counting(3, release), "w")
    reg.stop(job, "w", wait=WAIT)
    again = reg.start("k", counting(3), "w")
    assert again is not job and again.wait(WAIT) and not again.result.stopped
    assert reg.result("k") is again.result


def test_registry_rejects_bad_bounds():
    with pytest.raises(ValueError, match="at least 1"):
        JobRegistry(max_parallel=0)


def test_real_classifier_stops_early_and_says_so():
    stop_at = 5

    def fn(progress, stop):
        def progress_then_stop(done, total):
            progress(done, total)
            if done == stop_at:
                job.stop_event.set()

        return train_classifier_view("moons", k=4, epochs=200, n=120, progress=progress_then_stop, stop=stop)

    job = TrainingJob("clf", fn)
    job.watch("w")
    job.start()
    assert job.wait(WAIT) and job.state == FINISHED, job.error
    view = job.result
    assert view.stopped and view.epochs_run == stop_at and view.epochs == 200
    assert len(view.history["epoch"]) == stop_at
    assert view.frame_epochs[-1] == stop_at  # the last frame is the state at Stop
