"""The Explorer's receipt: the Python that recomputes the numbers on screen."""

from __future__ import annotations

from rbfviz.views.common.receipt import Receipt, start_lines, view_receipt


def explorer_receipt(params: dict, numbers: dict | None) -> Receipt:
    """The Explorer: the centres at σ and K-Means from the same start, then ``plane_numbers``."""
    p = params
    body = []
    imports = [
        "from rbfviz.measures import kmeans_reference",
        "from rbfviz.views.explorer.arrays import plane_numbers",
    ]
    if p["init"] == "anneal":
        imports += [
            "from rbfviz import anneal, kmeans",
            "from rbfviz.views.explorer.arrays import sigma_scale",
        ]
        body += [
            "# the σ grid of the view: from the data and their k-means++-seeded K-Means centroids",
            "X64 = X.astype(np.float64)",
            "scale = sigma_scale(X64, kmeans(X64, k=k, seed=seed)[0])",
            "path = anneal(X, k, scale.grid, kind=kind, init=None, seed=seed)  # from the data mean",
            "centers = path.centers[scale.index(sigma)]",
            "km_centers, km_labels = kmeans_reference(X, path.centers[-1].astype(np.float64))",
        ]
    else:
        more, start = start_lines(p, p["init"])
        imports += more + ["from rbfviz.views.explorer.arrays import soft_fixed_point"]
        body += start + [
            (
                "centers, iterations, converged = soft_fixed_point(X, C0, sigma, kind=kind)  "
                "# EM to the fixed point"
            ),
            "if not np.isfinite(centers).all():  # the naive map broke: the view shows the start instead",
            "    centers = C0",
            (
                "km_centers, km_labels = kmeans_reference(X, C0.astype(np.float64))  "
                "# K-Means from the same start"
            ),
        ]
    body += ["numbers = plane_numbers(X, centers, sigma, kind, km_labels)  # L_σ, J, agreement, ..."]
    return view_receipt("Explorer", params, numbers, imports, body)
