"""The Stability view's receipt: the Python that recomputes the numbers on screen."""

from __future__ import annotations

import math

from rbfviz.views.common.receipt import Receipt, literal, view_receipt

STABILITY_KEYS = ("nan_row_fraction", "hard_row_fraction", "zero_fraction", "grad_norm", "error_to_kmeans")


def stability_numbers(rows, sigma: float) -> dict:
    """The Stability view's table at σ: "kind/dtype/quantity" -> value, from stability_table rows."""
    return {
        f"{r['kind']}/{r['dtype']}/{key}": float(r[key])
        for r in rows
        if math.isclose(r["sigma"], sigma, rel_tol=1e-12)
        for key in STABILITY_KEYS
    }


def stability_receipt(params: dict, numbers: dict) -> Receipt:
    """The Stability view: every map in both dtypes at the K-Means centroids, at σ."""
    imports = [
        "from rbfviz import kmeans",
        "from rbfviz.views.stability.arrays import stability_table",
    ]
    body = [
        "centers, _ = kmeans(X, k=k, seed=seed)  # K-Means, k-means++ seeded: the view's C*",
        "rows = stability_table(X, centers, [sigma])  # every map, float32 and float64",
        "numbers = {f\"{r['kind']}/{r['dtype']}/{key}\": r[key] for r in rows",
        f"           for key in {literal(STABILITY_KEYS)}}}",
    ]
    # the view measures both precisions from float64 points
    return view_receipt("Stability", params, numbers, imports, body, data=dict(params, dtype="float64"))
