"""rbfviz: K-Means as the σ → 0 limit of a differentiable radial-basis-function network.

Convention, everywhere: logits z_ij = -||x_i - c_j||² / (2σ²), σ the Gaussian RBF width.

Importing rbfviz loads the heavy libraries once per process, limits torch to one thread (many app
sessions share two cores) and freezes what is loaded out of the garbage collector's sight, so that
Streamlit's post-run collection has little to walk.
"""
import gc
import os

import numpy  # noqa: F401
import torch

torch.set_num_threads(int(os.environ.get("RBFVIZ_TORCH_THREADS", "1")))

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
