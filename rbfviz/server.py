"""Process tuning for a server that runs many sessions on few cores: one explicit call, never an
import side effect (a notebook that imports rbfviz keeps its threads and its garbage collector).

    import rbfviz
    rbfviz.tune_for_server()     # the app's ui package and the command line call it once

It does three things, each once per process:

* torch uses one thread (``RBFVIZ_TORCH_THREADS`` to change it): sessions share the cores, and a
  thread pool per session only adds contention;
* glibc keeps freed temporaries (up to 64 MB) for reuse instead of returning them to the OS
  (``RBFVIZ_MALLOC_TUNING=0`` leaves the allocator alone);
* the objects loaded so far (numpy, torch, scikit-learn, plotly, ...) are frozen out of the garbage
  collector's sight, so Streamlit's full collection after every script run has little to walk.
"""

from __future__ import annotations

import ctypes
import gc
import os
import sys
import threading

_lock = threading.Lock()
_tuned = False


def tune_for_server() -> None:
    """Tune this process for serving many sessions (see the module docstring). Idempotent."""
    global _tuned
    with _lock:
        if _tuned:
            return
        import torch

        torch.set_num_threads(int(os.environ.get("RBFVIZ_TORCH_THREADS", "1")))
        keep_freed_memory_for_reuse()
        gc.collect()
        gc.freeze()
        _tuned = True


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
