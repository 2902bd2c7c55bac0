"""Training in the background for a page section (Streamlit glue around ``rbfviz.nn.jobs``).

    status = training.status("classifier", key)       # result, running job, error, or nothing yet
    if pressed: training.start("classifier", key, fn)  # fn(progress=, stop=) runs in a thread
    if status.job: training.progress_panel("classifier", status.job, "Training")   # polls once a second

* One ``JobRegistry`` per process (``st.cache_resource``): one running job per key, the results of
  complete runs in a bounded LRU store (keys are plain tuples of parameters, so revisiting a setting
  is instant and every session shares it), at most two trainings at a time on the two cores.
* A session remembers the job it watches per section (``st.session_state``), so a run it stopped
  early still shows its partial result there (partial results are never shared).
* ``progress_panel`` is an ``st.fragment(run_every=1.0)``: only it reruns while training, once a
  second (not an animation: each tick would be a rerun per student); when the job ends it reruns the
  whole page once.
* Stop leaves the job; the job stops when nobody is left watching it (``JobRegistry.stop``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import streamlit as st

from rbfviz.nn.jobs import JobRegistry, TrainingJob

from . import language
from . import session_keys as keys

MAX_RESULTS = 24
MAX_PARALLEL = 2
STOP_WAIT = 3.0  # seconds the Stop callback waits for the job to end, so the next run shows the result


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    return JobRegistry(max_results=MAX_RESULTS, max_parallel=MAX_PARALLEL)


def _watcher() -> str:
    if keys.TRAINING_WATCHER not in st.session_state:
        st.session_state[keys.TRAINING_WATCHER] = uuid.uuid4().hex
    return st.session_state[keys.TRAINING_WATCHER]


@dataclass
class Status:
    """What a section has for its current settings: exactly one of result / job / error, or none.

    left: the session stopped watching ``job`` but others still watch it, so it goes on.
    """

    result: object = None
    job: TrainingJob | None = None
    error: BaseException | None = None
    left: bool = False


def status(section: str, key) -> Status:
    """The result, the running job or the error for ``key`` as this session sees it."""
    reg = registry()
    result = reg.result(key)
    if result is not None:
        return Status(result=result)
    job = st.session_state.get(keys.training_job(section))
    if job is not None and job.key == key:
        if job.finished:
            return Status(error=job.error) if job.error is not None else Status(result=job.result)
        return Status(job=job)
    running = reg.running(key)
    if running is not None:
        if st.session_state.get(keys.training_left(section)) == key:
            return Status(job=running, left=True)
        # somebody else is training exactly this: watch it instead of starting a second run
        running.watch(_watcher())
        st.session_state[keys.training_job(section)] = running
        return Status(job=running)
    return Status()


def start(section: str, key, fn) -> TrainingJob | None:
    """Start (or join) the training ``fn(progress=, stop=)`` for ``key``; the session watches it.

    If a complete run of ``key`` is already stored, nothing is trained (None): pressing Train on a
    setting somebody has trained shows that result at once."""
    st.session_state.pop(keys.training_left(section), None)
    if registry().result(key) is not None:
        return None
    job = registry().start(key, fn, _watcher())
    st.session_state[keys.training_job(section)] = job
    return job


def stop(section: str) -> None:
    """Button callback: leave the section's job; it stops if nobody else watches it."""
    job = st.session_state.get(keys.training_job(section))
    if job is None or job.finished:
        return
    if not registry().stop(job, _watcher(), wait=STOP_WAIT):
        st.session_state[keys.training_left(section)] = job.key
        st.session_state[keys.training_job(section)] = None


def progress_panel(section: str, job: TrainingJob, what: str, left: bool = False) -> None:
    """A progress bar and a Stop button that update once a second until the job ends; ``what`` (already
    in the reader's language) names the training, the rest is in the session's language."""

    @st.fragment(run_every=1.0)
    def panel() -> None:
        if job.finished:
            st.rerun()  # the whole page, once: it now shows the result
        tr = language.current()
        if job.state == "queued":
            text = tr(
                "{what}: waiting for a free slot (at most {slots} trainings run at once on this server)…",
                what=what,
                slots=MAX_PARALLEL,
            )
        else:
            text = tr(
                "{what}: epoch {done} of {total} · {seconds:.1f} s",
                what=what,
                done=str(job.done),
                total=str(job.total) if job.total else "…",
                seconds=job.seconds,
            )
        st.progress(job.fraction, text=text)
        if left:
            st.info(
                tr.ngettext(
                    "You left this training, but {n} other session still watches it, so it goes on for it; "
                    "its result appears here when it is done.",
                    "You left this training, but {n} other sessions still watch it, so it goes on for them; "
                    "its result appears here when it is done.",
                    job.watchers,
                )
            )
        else:
            st.button(
                tr("■ Stop"),
                key=f"stop_{section}",
                on_click=stop,
                args=(section,),
                help=tr(
                    "Stop after the current epoch and show the model as it is then. If other sessions "
                    "watch the same training, it goes on for them."
                ),
            )
            if job.watchers > 1:
                st.caption(
                    tr(
                        "{count} sessions are watching this same training (same settings).",
                        count=job.watchers,
                    )
                )

    panel()
