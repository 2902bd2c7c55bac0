"""What the Annealing view draws, computed from one collapse study (no Streamlit, no Plotly).

The study (``rbfviz.diagnostics.collapse_study``) anneals k centres from the data mean down a σ
grid, runs K-Means from the annealed end point (C*) and measures the collapse error E(σ). This
module turns it into the arrays the figures need:

* ``principal_axis(X)``         – the data mean, its principal direction u₁ and λ_max (1/N covariance):
                                  the first split happens along u₁.
* ``project(points, mean, u)``  – coordinates along u₁, for the bifurcation diagram.
* ``level_colors(X, path)``     – per σ level, each point's colour mixed by its responsibilities at
                                  that level's centres (the animation's point colours).
* ``AnnealingView`` / ``annealing_view(study, X)`` – everything above in one frozen object.

Convention: logits z = -||x - c||² / (2σ²); σ and distances in data units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA

from .._validate import check_points
from ..collapse import CollapseStudy
from ..maps import responsibilities
from .explore import nearest_index
from .figures.palette import mix_colors


def principal_axis(X) -> tuple[np.ndarray, np.ndarray, float]:
    """(mean (d,), u (d,) unit principal direction, λ_max) of X (n, d), from the 1/N covariance.

    scikit-learn's PCA; the sign of u makes its largest-magnitude component positive (a stable
    picture across reruns and dtypes).
    """
    X = check_points(X, "X", dtype=np.float64)
    pca = PCA(n_components=1, svd_solver="full").fit(X)
    n = X.shape[0]
    return pca.mean_, pca.components_[0], float(pca.explained_variance_[0] * (n - 1) / n)


def project(points, mean, u) -> np.ndarray:
    """Coordinates (…,) of points (…, d) along the unit direction u through mean."""
    return (np.asarray(points, dtype=np.float64) - np.asarray(mean, np.float64)) @ np.asarray(u, np.float64)


def level_colors(X, centers, sigmas, kind: str) -> np.ndarray:
    """(S, n, 3) uint8: at each level s, point i's colour mixed by r_i(centers[s], sigmas[s]).

    Computed in X's dtype with the same map as the run, so the naive map's NaN rows come out grey
    (``palette.NAN_RGB``); a level whose centres are NaN makes every point grey.
    """
    X = check_points(X, "X")
    centers = np.asarray(centers)
    S, k = centers.shape[0], centers.shape[1]
    out = np.empty((S, X.shape[0], 3), dtype=np.uint8)
    for s in range(S):
        if np.isfinite(centers[s]).all():
            resp = responsibilities(X, centers[s].astype(X.dtype), float(sigmas[s]), kind)
        else:
            resp = np.full((X.shape[0], k), np.nan)
        out[s] = mix_colors(resp)
    return out


@dataclass(frozen=True, eq=False)
class AnnealingView:
    """The Annealing view's arrays, for S σ levels (decreasing), k centres, n points in 2-D.

    study: the ``rbfviz.collapse.CollapseStudy`` shown; its fields read through the view
    (``view.sigmas``, ``view.kmeans_centers`` C*, ``view.error`` E(σ), ``view.slope``,
    ``view.sigma_critical_predicted``, ...). What the view adds: colors (S, n, 3) uint8 point colours
    per level; mean, axis (2,) and lambda_max: the principal axis; along (S, k) centre coordinates
    along it, kmeans_along (k,). From the annealed path: centers (S, k, 2), nan_rows (S,) and
    converged (S,).
    """

    study: CollapseStudy
    colors: np.ndarray
    mean: np.ndarray
    axis: np.ndarray
    lambda_max: float
    along: np.ndarray
    kmeans_along: np.ndarray

    @property
    def centers(self) -> np.ndarray:
        return self.study.path.centers

    @property
    def nan_rows(self) -> np.ndarray:
        """NaN rows of r along the annealed path (the study's own ``nan_rows`` are at C*)."""
        return self.study.path.nan_rows

    @property
    def converged(self) -> np.ndarray:
        return self.study.path.converged

    def __getattr__(self, name: str):
        if name.startswith("_") or name == "study":  # not during copying/unpickling, before study is set
            raise AttributeError(name)
        return getattr(self.study, name)

    def level(self, sigma: float) -> int:
        """Index of the grid level nearest to σ (log scale)."""
        if not (isinstance(sigma, (int, float, np.floating)) and math.isfinite(sigma) and sigma > 0):
            raise ValueError(f"sigma must be a positive finite number, got {sigma!r}.")
        return nearest_index(self.sigmas, sigma)


def annealing_view(study, X) -> AnnealingView:
    """Everything the Annealing view shows, from a ``CollapseStudy`` of the 2-D points X (n, 2).

    X must be the points the study ran on (same dtype), so the colours use the same numbers.
    """
    X = check_points(X, "X")
    mean, u, lam = principal_axis(X)
    centers = np.asarray(study.path.centers)
    return AnnealingView(
        study=study,
        colors=level_colors(X, centers, study.sigmas, study.kind),
        mean=mean,
        axis=u,
        lambda_max=lam,
        along=project(centers, mean, u),
        kmeans_along=project(study.kmeans_centers, mean, u),
    )
