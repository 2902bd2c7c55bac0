"""Training runs in background threads: one job per setting, stoppable, shared by whoever watches it.

A web page must not hold its script thread for the seconds a training takes (the page could not
show progress, and a Stop button would never be read), and thirty students pressing "Train" on the
same default setting should cause one training, not thirty. So:

* ``TrainingJob`` runs ``fn(progress=..., stop=...)`` in a daemon thread. ``progress(done, total)``
  updates ``done``/``total``; ``stop`` is ``stop_event.is_set``, which the trainers of ``rbfviz.nn``
  check after every epoch. The job ends with ``result`` (whatever fn returned) or ``error`` (the
  exception, kept for the page to show; never swallowed).
* ``JobRegistry`` (one per process) holds at most one running job per key and a bounded LRU store
  (rbfviz.bounded_store) of the results of finished, *complete* runs, so revisiting a setting is
  instant. A run cut short by Stop is not stored: the same key means "the full training", and a
  partial result stays with the watcher who stopped it. At most ``max_parallel`` jobs train at once
  (the machine has two cores); the others wait in the queue, and Stop works there too.
* Watchers: every session that starts or joins a job is a watcher. ``stop(key, watcher)`` removes
  the watcher; the job is stopped only when nobody is left watching it, so one student cannot stop
  a training thirty others are watching (the stopping student simply leaves it).

Nothing here imports Streamlit; ``ui.training`` is the page glue.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Hashable

from ..bounded_store import BoundedStore

log = logging.getLogger("rbfviz.jobs")

QUEUED, RUNNING, FINISHED, FAILED = "queued", "running", "finished", "failed"
_ids = itertools.count(1)


class TrainingJob:
    """One call of ``fn(progress=, stop=)`` in a daemon thread (see the module docstring).

    state: "queued" (waiting for a free slot), "running", "finished" (``result`` set; it may describe
    a run that was stopped early), "failed" (``error`` set). done/total: the last progress report.
    """

    def __init__(
        self,
        key: Hashable,
        fn: Callable,
        slots: threading.Semaphore | None = None,
        on_finish: Callable[["TrainingJob"], None] | None = None,
    ):
        self.key = key
        self.id = next(_ids)
        self.stop_event = threading.Event()
        self.state = QUEUED
        self.done = 0
        self.total = 0
        self.result = None
        self.error: BaseException | None = None
        self.created = time.perf_counter()
        self.started: float | None = None
        self.finished_at: float | None = None
        self._fn = fn
        self._slots = slots
        self._on_finish = on_finish
        self._finished = threading.Event()
        self._watchers: set = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"rbfviz-train-{self.id}", daemon=True)

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> "TrainingJob":
        self._thread.start()
        return self

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = int(done), int(total)

    def _run(self) -> None:
        acquired = False
        try:
            if self._slots is not None:
                # poll, so that a job stopped while it waits in the queue ends without training
                while not (acquired := self._slots.acquire(timeout=0.1)):
                    if self.stop_event.is_set():
                        raise _StoppedInQueue
            self.started = time.perf_counter()
            self.state = RUNNING
            self.result = self._fn(progress=self._progress, stop=self.stop_event.is_set)
            self.state = FINISHED
        except _StoppedInQueue:
            self.state = FAILED
            self.error = _StoppedInQueue(
                "stopped while waiting for a free training slot; nothing was trained."
            )
        except Exception as exc:  # noqa: BLE001 — kept for the page to show, and logged
            log.exception("training job %s failed", self.key)
            self.error = exc
            self.state = FAILED
        finally:
            if acquired:
                self._slots.release()
            self.finished_at = time.perf_counter()
            try:
                if (
                    self._on_finish is not None
                ):  # first, so whoever sees `finished` also finds the stored result
                    self._on_finish(self)
            finally:
                self._finished.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended (or timeout seconds passed); True if it has ended."""
        return self._finished.wait(timeout)

    # --- what a page reads ----------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    @property
    def fraction(self) -> float:
        """Progress in [0, 1] (0 until the first report)."""
        return min(self.done / self.total, 1.0) if self.total > 0 else 0.0

    @property
    def seconds(self) -> float:
        """Seconds spent training so far (0 while queued)."""
        if self.started is None:
            return 0.0
        return (self.finished_at or time.perf_counter()) - self.started

    # --- watchers -------------------------------------------------------------------------------
    def watch(self, watcher: Hashable) -> None:
        with self._lock:
            self._watchers.add(watcher)

    def unwatch(self, watcher: Hashable) -> bool:
        """Remove a watcher; stop the job if nobody is left. Returns True if the job was told to stop."""
        with self._lock:
            self._watchers.discard(watcher)
            if not self._watchers:
                self.stop_event.set()
                return True
            return False

    @property
    def watchers(self) -> int:
        with self._lock:
            return len(self._watchers)


class _StoppedInQueue(Exception):
    pass


class JobRegistry:
    """Process-wide: running jobs by key, and the results of finished complete runs (bounded LRU)."""

    def __init__(self, max_results: int = 16, max_parallel: int = 2):
        if max_results < 1 or max_parallel < 1:
            raise ValueError("max_results and max_parallel must be at least 1.")
        self.max_results = max_results
        self._slots = threading.Semaphore(max_parallel)
        self._results = BoundedStore(max_entries=max_results)
        self._running: dict = {}
        self._lock = threading.Lock()

    def result(self, key: Hashable):
        """The stored result of a complete run of ``key``, or None."""
        return self._results.get(key)

    def running(self, key: Hashable) -> TrainingJob | None:
        with self._lock:
            return self._running.get(key)

    def start(self, key: Hashable, fn: Callable, watcher: Hashable) -> TrainingJob:
        """Start ``fn`` for ``key``, or join the job already running for it; ``watcher`` watches it."""
        with self._lock:
            job = self._running.get(key)
            if job is None or job.stop_event.is_set():
                job = TrainingJob(key, fn, self._slots, on_finish=self._finish)
                self._running[key] = job
                job.watch(watcher)
                return job.start()
        job.watch(watcher)
        return job

    def stop(self, job: TrainingJob, watcher: Hashable, wait: float = 0.0) -> bool:
        """``watcher`` stops watching ``job``; the job stops if nobody else watches it. If it does
        stop, wait up to ``wait`` seconds for it to end. Returns True if the job was told to stop."""
        stopped = job.unwatch(watcher)
        if stopped and wait > 0:
            job.wait(wait)
        return stopped

    def _finish(self, job: TrainingJob) -> None:
        with self._lock:
            if self._running.get(job.key) is job:
                del self._running[job.key]
            if job.state == FINISHED and not _was_stopped(job.result):
                self._results.put(job.key, job.result)


def _was_stopped(result) -> bool:
    """A result that says it was stopped early (the rbfviz.nn results and views carry ``stopped``)."""
    return bool(getattr(result, "stopped", False))
