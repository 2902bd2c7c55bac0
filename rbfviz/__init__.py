"""rbfviz: K-Means as the σ → 0 limit of a differentiable radial-basis-function network.

Convention, everywhere: logits z_ij = -||x_i - c_j||² / (2σ²), σ the Gaussian RBF width.

Importing rbfviz changes nothing in the process: a server that runs many sessions calls
``rbfviz.tune_for_server()`` once (one torch thread, allocator tuning, a frozen collector).

The names below load on first use (PEP 562), so ``import rbfviz.views.common.scrub`` (the σ payload
codec a load test reads) does not pull in torch; ``from rbfviz import kmeans`` works as usual.
"""

from importlib import import_module

# public name -> the module that owns it
_HOMES = {
    "KINDS": ".validate",
    "entmax_kind": ".validate",
    "AnnealResult": ".annealing",
    "anneal": ".annealing",
    "default_sigmas": ".annealing",
    "DATASETS": ".datasets",
    "DEFAULT_NOISE": ".datasets",
    "NATURAL_K": ".datasets",
    "make_dataset": ".datasets",
    "CollapseStudy": ".collapse",
    "collapse_study": ".collapse",
    "collapse_error": ".measures",
    "stability_report": ".measures",
    "RBFClusterLayer": ".layer",
    "MAX_BYTES": ".loader",
    "MAX_ROWS": ".loader",
    "DataError": ".loader",
    "LoadedPoints": ".loader",
    "csv_safe": ".loader",
    "load_points": ".loader",
    "points_to_csv": ".loader",
    "logits": ".maps",
    "responsibilities": ".maps",
    "sq_distances": ".maps",
    "temperature": ".maps",
    "tune_for_server": ".server",
    "e_step": ".steps",
    "gradient_step": ".steps",
    "kmeans": ".steps",
    "lloyd_step": ".steps",
    "m_step": ".steps",
    "soft_centroid_step": ".steps",
}

__version__ = "0.1.0"

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'rbfviz' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name], __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
