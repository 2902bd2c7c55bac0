"""rbfviz: K-Means as the σ → 0 limit of a differentiable radial-basis-function network.

Convention, everywhere: logits z_ij = -||x_i - c_j||² / (2σ²), σ the Gaussian RBF width.

Importing rbfviz changes nothing in the process: a server that runs many sessions calls
``rbfviz.tune_process()`` once (one torch thread, allocator tuning, a frozen collector).
"""

from ._validate import KINDS, entmax_kind
from .annealing import AnnealResult, anneal, default_sigmas
from .datasets import DATASETS, DEFAULT_NOISE, NATURAL_K, make_dataset
from .diagnostics import CollapseStudy, collapse_error, collapse_study, stability_report
from .layer import RBFClusterLayer
from .loader import MAX_BYTES, MAX_ROWS, DataError, LoadedPoints, csv_safe, load_points, points_to_csv
from .maps import logits, responsibilities, sq_distances, temperature
from .process_tuning import tune_process
from .steps import e_step, gradient_step, kmeans, lloyd_step, m_step, soft_centroid_step

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "LoadedPoints",
    "MAX_BYTES",
    "MAX_ROWS",
    "csv_safe",
    "load_points",
    "points_to_csv",
    "AnnealResult",
    "CollapseStudy",
    "anneal",
    "collapse_error",
    "collapse_study",
    "default_sigmas",
    "stability_report",
    "DATASETS",
    "DEFAULT_NOISE",
    "KINDS",
    "NATURAL_K",
    "RBFClusterLayer",
    "e_step",
    "entmax_kind",
    "gradient_step",
    "kmeans",
    "lloyd_step",
    "logits",
    "m_step",
    "make_dataset",
    "responsibilities",
    "soft_centroid_step",
    "sq_distances",
    "temperature",
    "tune_process",
]
