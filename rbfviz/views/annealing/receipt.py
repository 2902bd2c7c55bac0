"""The Annealing view's receipt: the Python that recomputes the numbers on screen."""

from __future__ import annotations

from rbfviz.views.common.receipt import Receipt, view_receipt


def annealing_numbers(view, sigma: float) -> dict:
    """The Annealing view's numbers (``rbfviz.views.annealing.arrays.AnnealingView``) at the level nearest
    σ."""
    s = view.level(sigma)
    return {
        "sigma_critical_predicted": float(view.sigma_critical_predicted),
        "sigma_critical_measured": view.sigma_critical_measured,
        "slope": float(view.slope.slope),
        "sigma_exact_predicted": float(view.sigma_exact_predicted),
        "sigma_exact_measured": view.sigma_exact_measured,
        "error_at_sigma": float(view.error[s]),
        "centers_at_sigma": [[float(v) for v in c] for c in view.centers[s]],
    }


def annealing_receipt(params: dict, numbers: dict) -> Receipt:
    """The Annealing view: the collapse study on the view's σ grid."""
    p = params
    imports = [
        "from rbfviz import collapse_study, kmeans",
        "from rbfviz.views.explorer.arrays import sigma_scale",
    ]
    body = [
        f"dtype = {p['dtype']!r}",
        "# the σ grid of the view: from the data and their k-means++-seeded K-Means centroids",
        "X64 = X.astype(np.float64)",
        "grid = sigma_scale(X64, kmeans(X64, k=k, seed=seed)[0]).grid",
        "study = collapse_study(X, k, kind=kind, dtype=dtype, sigmas=grid, seed=seed)",
        "level = int(np.argmin(np.abs(np.log(study.sigmas) - math.log(sigma))))",
        "numbers = {",
        '    "sigma_critical_predicted": study.sigma_critical_predicted,',
        '    "sigma_critical_measured": study.sigma_critical_measured,  # first split on the grid',
        '    "slope": study.slope.slope,  # log-log slope of E(σ) on its window',
        '    "sigma_exact_predicted": study.sigma_exact_predicted,  # √g_min / 2',
        '    "sigma_exact_measured": study.sigma_exact_measured,  # E == 0 from here down',
        '    "error_at_sigma": float(study.error[level]),',
        '    "centers_at_sigma": study.path.centers[level].tolist(),',
        "}",
    ]
    return view_receipt("Annealing", params, numbers, imports, body)
