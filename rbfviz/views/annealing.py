"""What the Annealing view draws, computed from one collapse study (no Streamlit, no Plotly).

The study (``rbfviz.diagnostics.collapse_study``) anneals k centres from the data mean down a σ
grid, runs K-Means from the annealed end point (C*) and measures the collapse error E(σ). This
module turns it into the arrays the figures need:

* ``principal_axis(X)``         – the data mean, its principal direction u₁ and λ_max (1/N covariance):
                                  the first split happens along u₁ (theory notes §7).
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

from .. import diagnostics
from .._validate import check_points
from ..maps import responsibilities
from .explore import nearest_index
from .figures.palette import mix_colors


def principal_axis(X) -> tuple[np.ndarray, np.ndarray, float]:
    """(mean (d,), u (d,) unit principal direction, λ_max) of X (n, d), from the 1/N covariance.

    The sign of u is fixed so that its largest-magnitude component is positive (a stable picture
    across reruns and dtypes).
    """
    X = check_points(X, "X", dtype=np.float64)
    mean = X.mean(axis=0)
    centred = X - mean
    values, vectors = np.linalg.eigh(centred.T @ centred / X.shape[0])
    u = vectors[:, -1]
    if u[np.argmax(np.abs(u))] < 0:
        u = -u
    return mean, u, float(values[-1])


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

    sigmas (S,); centers (S, k, 2) annealed path; kmeans_centers (k, 2) C* (K-Means from the
    annealed end point, so centre j and centroid j are cluster j whenever the path ends finite);
    colors (S, n, 3) uint8 point colours per level; mean, axis (2,), lambda_max: principal axis;
    along (S, k) centre coordinates along it, kmeans_along (k,);
    sigma_critical_predicted / _measured: first split (measured None if the centres never split);
    error (S,) E(σ) from C* (NaN above σ_c), error_path (S,) annealed centres vs C*, slope fit,
    error_floor, sigma_exact_predicted √g_min/2, sigma_softmax_exact √(g_min/73.4),
    sigma_exact_measured (None if E never reaches 0), kmeans_start, kind, dtype.
    """
    kind: str
    dtype: str
    sigmas: np.ndarray
    centers: np.ndarray
    kmeans_centers: np.ndarray
    colors: np.ndarray
    mean: np.ndarray
    axis: np.ndarray
    lambda_max: float
    along: np.ndarray
    kmeans_along: np.ndarray
    sigma_critical_predicted: float
    sigma_critical_measured: float | None
    error: np.ndarray
    error_path: np.ndarray
    error_floor: float
    slope: diagnostics.SlopeFit
    sigma_exact_predicted: float
    sigma_softmax_exact: float
    sigma_exact_measured: float | None
    kmeans_start: str
    nan_rows: np.ndarray
    converged: np.ndarray

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
    path = study.path
    mean, u, lam = principal_axis(X)
    centers = np.asarray(path.centers)
    return AnnealingView(
        kind=study.kind, dtype=study.dtype, sigmas=np.asarray(study.sigmas, np.float64), centers=centers,
        kmeans_centers=np.asarray(study.kmeans_centers), colors=level_colors(X, centers, study.sigmas, study.kind),
        mean=mean, axis=u, lambda_max=lam, along=project(centers, mean, u),
        kmeans_along=project(study.kmeans_centers, mean, u),
        sigma_critical_predicted=float(study.sigma_critical_predicted),
        sigma_critical_measured=study.sigma_critical_measured,
        error=np.asarray(study.error, np.float64), error_path=np.asarray(study.error_path, np.float64),
        error_floor=float(study.error_floor), slope=study.slope,
        sigma_exact_predicted=float(study.sigma_exact_predicted),
        sigma_softmax_exact=float(study.sigma_softmax_exact),
        sigma_exact_measured=study.sigma_exact_measured, kmeans_start=study.kmeans_start,
        nan_rows=np.asarray(path.nan_rows), converged=np.asarray(path.converged),
    )
