"""rbfviz: K-Means as the σ → 0 limit of a differentiable radial-basis-function network.

Convention, everywhere: logits z_ij = -||x_i - c_j||² / (2σ²), σ the Gaussian RBF width.

Importing rbfviz loads the heavy libraries once per process, limits torch to one thread (many app
sessions share two cores) and freezes what is loaded out of the garbage collector's sight, so that
Streamlit's post-run collection has little to walk.
"""
import ctypes
import gc
import os
import sys

import numpy  # noqa: F401
import torch

torch.set_num_threads(int(os.environ.get("RBFVIZ_TORCH_THREADS", "1")))


def _keep_freed_memory_for_reuse() -> None:
    """Let glibc keep freed temporaries (up to 64 MB) for reuse instead of returning them to the OS.

    Why: a soft step allocates several (k, n) temporaries of ~1 MB. glibc often hands such blocks
    back to the OS (mmap / heap trim), and the next step touches fresh pages again; on a virtual
    machine each first touch is a ~2.5 µs page fault. Measured at n = 1e4, k = 10: sq_distances took
    0.18 ms or 2.5 ms (945 faults) depending on the allocator's state. Linux/glibc only; set
    RBFVIZ_MALLOC_TUNING=0 to leave the allocator alone.
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


_keep_freed_memory_for_reuse()

from ._validate import KINDS  # noqa: E402
from .datasets import DATASETS, DEFAULT_NOISE, NATURAL_K, make_dataset  # noqa: E402
from .layer import RBFClusterLayer  # noqa: E402
from .maps import logits, responsibilities, sq_distances, temperature  # noqa: E402
from .steps import gradient_step, kmeans, lloyd_step, soft_centroid_step  # noqa: E402
from .annealing import AnnealResult, anneal, default_sigmas  # noqa: E402
from .diagnostics import CollapseStudy, collapse_study, collapse_error, stability_report  # noqa: E402
from .loader import MAX_BYTES, MAX_ROWS, DataError, LoadedPoints, csv_safe, load_points, points_to_csv  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "DataError", "LoadedPoints", "MAX_BYTES", "MAX_ROWS", "csv_safe", "load_points", "points_to_csv",
    "AnnealResult", "CollapseStudy", "anneal", "collapse_error", "collapse_study", "default_sigmas",
    "stability_report",
    "DATASETS", "DEFAULT_NOISE", "KINDS", "NATURAL_K", "RBFClusterLayer", "gradient_step", "kmeans",
    "lloyd_step", "logits", "make_dataset", "responsibilities", "soft_centroid_step", "sq_distances",
    "temperature",
]

gc.collect()
gc.freeze()
