"""Process tuning for a server that runs many sessions on few cores: one explicit call, never an
import side effect (a notebook that imports rbfviz keeps its threads and its garbage collector).

    import rbfviz
    rbfviz.tune_for_server()                      # the command line: once
    rbfviz.tune_for_server(collect_every=60.0)    # the app's ui package: once, with a collector

It does three things, each once per process, and a fourth if asked:

* torch uses one thread (``RBFVIZ_TORCH_THREADS`` to change it): sessions share the cores, and a
  thread pool per session only adds contention;
* glibc keeps freed temporaries (up to 64 MB) for reuse instead of returning them to the OS
  (``RBFVIZ_MALLOC_TUNING=0`` leaves the allocator alone);
* the objects loaded so far (numpy, torch, scikit-learn, plotly, ...) are frozen out of the garbage
  collector's sight, so a full collection has little to walk;
* ``collect_every=s``: a daemon thread runs a full collection every s seconds (``RBFVIZ_GC_SECONDS``
  overrides it, 0 turns it off). It replaces Streamlit's collection after every script run
  (``runner.postScriptGC = false`` in .streamlit/config.toml): with many sessions a full collection
  walks every session's live objects, a cost paid on each run while the others wait for the GIL.
  Once every few seconds it returns the same cyclic garbage, so memory does not grow.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading
import time

_lock = threading.Lock()
_tuned = False
_collector: threading.Thread | None = None


def tune_for_server(collect_every: float | None = None) -> None:
    """Tune this process for serving many sessions (see the module docstring). Idempotent.

    collect_every: seconds between the collector thread's full garbage collections (None: no thread).
    """
    global _tuned
    with _lock:
        if not _tuned:
            import torch

            torch.set_num_threads(int(os.environ.get("RBFVIZ_TORCH_THREADS", "1")))
            keep_freed_memory_for_reuse()
            gc.collect()
            gc.freeze()
            _tuned = True
        if collect_every is not None:
            _start_collector(float(os.environ.get("RBFVIZ_GC_SECONDS", collect_every)))


def _start_collector(seconds: float) -> None:
    """Start the collector thread once (caller holds _lock); seconds <= 0: none."""
    global _collector
    if _collector is not None or seconds <= 0:
        return

    def collect_forever() -> None:
        while True:
            time.sleep(seconds)
            gc.collect()

    _collector = threading.Thread(target=collect_forever, name="rbfviz-gc", daemon=True)
    _collector.start()


def keep_freed_memory_for_reuse() -> None:
    """Let glibc keep freed temporaries (up to 64 MB) for reuse instead of returning them to the OS.

    Why: a soft step allocates several (k, n) temporaries of ~1 MB. glibc often hands such blocks
    back to the OS (mmap / heap trim), and the next step touches fresh pages again; on a virtual
    machine each first touch is a page fault. Linux/glibc only.
    """
    if os.environ.get("RBFVIZ_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to tune
        return
    m_trim_threshold, m_mmap_threshold = -1, -3  # glibc's mallopt parameter numbers
    mallopt(m_mmap_threshold, 16 << 20)
    mallopt(m_trim_threshold, 64 << 20)
