"""Tuning a process that runs many sessions on few cores: one explicit call, never an import side
effect (a notebook that imports rbfviz keeps its threads and its garbage collector).

    import rbfviz
    rbfviz.tune_process()                                     # the command line: once
    rbfviz.tune_process(torch_threads=1, collect_every=60.0)  # the app (ui/__init__.py, from ui.settings)

It does three things, each once per process, and a fourth if asked:

* torch uses ``torch_threads`` threads (default 1): sessions share the cores, and a thread pool per
  session only adds contention;
* glibc keeps freed temporaries (up to 64 MB) for reuse instead of returning them to the OS
  (``malloc_tuning=False`` leaves the allocator alone);
* the objects loaded so far (numpy, torch, scikit-learn, plotly, ...) are frozen out of the garbage
  collector's sight, so a full collection has little to walk;
* ``collect_every=s``: a daemon thread runs a full collection every s seconds (0 or None: no thread),
  then hands the memory glibc holds free back to the OS (``return_freed_memory``).
  It replaces Streamlit's collection after every script run (``runner.postScriptGC = false`` in
  .streamlit/config.toml): with many sessions a full collection walks every session's live objects, a
  cost paid on each run while the others wait for the GIL. Once every few seconds it returns the same
  cyclic garbage, so memory does not grow.

The library reads no environment variables: the app's ui.settings reads ``RBFVIZ_TORCH_THREADS``,
``RBFVIZ_MALLOC_TUNING`` and ``RBFVIZ_GC_SECONDS`` and passes them here.
"""

from __future__ import annotations

import ctypes
import gc
import math
import sys
import threading
import time
from numbers import Integral, Real

_lock = threading.Lock()
_tuned = False
_collector: threading.Thread | None = None


def tune_process(
    torch_threads: int = 1, malloc_tuning: bool = True, collect_every: float | None = None
) -> None:
    """Tune this process for serving many sessions (see the module docstring). Idempotent: the first
    call's ``torch_threads`` and ``malloc_tuning`` hold; the first ``collect_every`` that starts a
    collector holds.

    torch_threads: threads of torch's intra-op pool, an integer >= 1.
    malloc_tuning: whether to let glibc keep freed temporaries (``keep_freed_memory_for_reuse``).
    collect_every: seconds between the collector thread's full garbage collections (None or 0: no thread).
    """
    if isinstance(torch_threads, bool) or not isinstance(torch_threads, Integral) or torch_threads < 1:
        raise ValueError(f"torch_threads must be an integer >= 1, got {torch_threads!r}.")
    if collect_every is not None and (
        isinstance(collect_every, bool)
        or not isinstance(collect_every, Real)
        or not math.isfinite(collect_every)
        or collect_every < 0
    ):
        raise ValueError(f"collect_every must be a number of seconds >= 0 or None, got {collect_every!r}.")
    global _tuned
    with _lock:
        if not _tuned:
            import torch

            torch.set_num_threads(int(torch_threads))
            if malloc_tuning:
                keep_freed_memory_for_reuse()
            gc.collect()
            gc.freeze()
            _tuned = True
        if collect_every:
            _start_collector(float(collect_every))


def _start_collector(seconds: float) -> None:
    """Start the collector thread once (caller holds _lock)."""
    global _collector
    if _collector is not None:
        return

    def collect_forever() -> None:
        while True:
            time.sleep(seconds)
            gc.collect()
            return_freed_memory()

    _collector = threading.Thread(target=collect_forever, name="rbfviz-gc", daemon=True)
    _collector.start()


def return_freed_memory() -> bool:
    """Hand the memory glibc holds free (in every arena, at the top of each heap and whole pages inside
    it) back to the OS (``malloc_trim(0)``). Returns whether glibc released any.

    The collector thread calls it after each collection: the freed temporaries kept for reuse
    (``keep_freed_memory_for_reuse``, up to 64 MB per arena) would otherwise stay resident after a
    class has left. Once a collection period, the next steps touch those pages again only once.
    Linux/glibc only (False elsewhere)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return False
    return bool(malloc_trim(0))


def keep_freed_memory_for_reuse() -> None:
    """Let glibc keep freed temporaries (up to 64 MB) for reuse instead of returning them to the OS.

    Why: a soft step allocates several (k, n) temporaries of ~1 MB. glibc often hands such blocks
    back to the OS (mmap / heap trim), and the next step touches fresh pages again; on a virtual
    machine each first touch is a page fault. Linux/glibc only.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to tune
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's mallopt parameter numbers
    mallopt(m_mmap_threshold, 16 << 20)
    mallopt(m_trim_threshold, 64 << 20)
