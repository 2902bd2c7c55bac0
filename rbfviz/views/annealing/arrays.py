"""What the Annealing view draws, computed from one collapse study (no Streamlit, no Plotly).

The study (``rbfviz.collapse.collapse_study``) anneals k centres from the data mean down a σ
grid, runs K-Means from the annealed end point (C*) and measures the collapse error E(σ). This
module turns it into the arrays the figures need:

* ``principal_axis(X)``         – the data mean, its principal direction u₁ and λ_max (1/N covariance):
                                  the first split happens along u₁.
* ``project(points, mean, u)``  – coordinates along u₁, for the bifurcation diagram.
* ``level_colors(X, path)``     – per σ level, each point's colour mixed by its responsibilities at
                                  that level's centres (the animation's point colours).
* ``AnnealingView`` / ``annealing_view(study, X)`` – everything above in one frozen object, with
                                  every split of the path, measured and predicted (``rbfviz.splits``).
* ``split_rows(view)`` / ``splits_in_words(view)`` – the splits as table rows and as one sentence.
* ``free_energy_terms(X, path)`` – F_σ, its distortion term Σ r·d and its entropy term T·H at every level.

Convention: logits z = -||x - c||² / (2σ²); σ and distances in data units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA

from rbfviz.collapse import CollapseStudy
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.maps import responsibilities
from rbfviz.measures import free_energy
from rbfviz.splits import predict_splits
from rbfviz.validate import check_points
from rbfviz.views.common.palette import mix_colors
from rbfviz.views.common.sigma import nearest_index


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
    converged (S,). splits: one ``rbfviz.splits.SplitRecord`` per split of the path, in σ order.
    """

    study: CollapseStudy
    colors: np.ndarray
    mean: np.ndarray
    axis: np.ndarray
    lambda_max: float
    along: np.ndarray
    kmeans_along: np.ndarray
    splits: tuple = ()

    def split_along(self, record) -> float:
        """The splitting stack's coordinate along u₁ at the last level before its split."""
        return float(np.mean(self.along[record.level - 1, list(record.parent)]))

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


def annealing_view(study, X, progress=None) -> AnnealingView:
    """Everything the Annealing view shows, from a ``CollapseStudy`` of the 2-D points X (n, 2).

    X must be the points the study ran on (same dtype), so the colours use the same numbers.
    progress: optional callable(done, total) of the predicted splits (``predict_splits``), the part
    that takes time.
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
        splits=tuple(predict_splits(study.path, X, progress=progress)),
    )


def _error_text(error: float, tr: Translator = ENGLISH) -> str:
    return tr.format("{error:+.1f} %", error=100 * error) if math.isfinite(error) else "–"


def split_rows(view, tr: Translator = ENGLISH) -> list[dict]:
    """One row per split: number, the stack that splits (its size m), predicted σ, the grid interval
    in which it was measured, and the relative error predicted / measured − 1 (also for the √r-weighted
    entmax-1.5 linearisation when the view's map is entmax15). Column names and text in ``tr``'s
    language."""
    rows = []
    for record in view.splits:
        row = {
            tr("split"): record.number,
            tr("stack (m)"): tr(
                "{m} centres → {children}", m=len(record.parent), children=len(record.children)
            ),
            tr("σ predicted"): tr.number(record.sigma_predicted),
            tr("σ measured (between levels)"): tr.format(
                "{low:.3g} – {high:.3g}", low=record.sigma_measured, high=record.sigma_above
            ),
            tr("error"): _error_text(record.relative_error, tr),
        }
        if view.kind == "entmax15":
            row[tr("σ linearised (√r)")] = tr.number(record.sigma_linearised)
            row[tr("error (√r)")] = _error_text(record.linearised_error, tr)
        rows.append(row)
    return rows


def splits_in_words(view, tr: Translator = ENGLISH) -> str:
    """One plain sentence: how many splits, and how close their predictions came."""
    records = view.splits
    if not records:
        return tr("The centres never split on this σ grid, so there is no split to predict.")
    worst = max(records, key=lambda r: abs(r.relative_error))
    inside = sum(r.within_step for r in records)
    error = _error_text(worst.relative_error, tr)
    text = tr.ngettext(
        "{n} split on this path; each diamond marks where the theory predicts that stack to split. {inside} "
        "of {n} predictions fall inside the grid step where the split was seen; the largest error is {error} "
        "(split {worst}).",
        "{n} splits on this path; each diamond marks where the theory predicts that stack to split. {inside} "
        "of {n} predictions fall inside the grid step where the split was seen; the largest error is {error} "
        "(split {worst}).",
        len(records),
        inside=inside,
        error=error,
        worst=worst.number,
    )
    if view.kind == "entmax15" and len(records) > 1:
        best = max(records, key=lambda r: abs(r.linearised_error))
        inside_sqrt = sum(r.sigma_measured <= r.sigma_linearised <= r.sigma_above for r in records)
        text += " " + tr(
            "With √r weights (the exact linearisation for entmax-1.5) {inside} of {n} fall inside "
            "their step; "
            "the largest error is {error}.",
            inside=inside_sqrt,
            n=len(records),
            error=_error_text(best.linearised_error, tr),
        )
    return text


@dataclass(frozen=True)
class FreeEnergyTerms:
    """Along an annealing path, per σ level (S,), float64: sigmas; free_energy F_σ = distortion − entropy
    (``rbfviz.measures.free_energy`` at the level's centres); distortion Σ_i Σ_j r_ij d_ij (L_σ);
    entropy T·H(r) with T = 2σ² and H the map's entropy (Shannon for softmax), summed over the points."""

    sigmas: np.ndarray
    free_energy: np.ndarray
    distortion: np.ndarray
    entropy: np.ndarray


def free_energy_terms(X, path) -> FreeEnergyTerms:
    """F_σ and its two terms at each level of ``path`` (an ``AnnealResult`` on X (n, d)); levels whose
    centres are not finite (a failed naive map) are NaN."""
    X = check_points(X, "X")
    free = np.full(len(path.sigmas), np.nan)
    loss = np.asarray(path.loss, np.float64)
    for s, (sigma, centers) in enumerate(zip(path.sigmas, path.centers)):
        if np.isfinite(centers).all() and np.isfinite(loss[s]):
            free[s] = free_energy(X, centers, float(sigma), path.kind)
    return FreeEnergyTerms(np.asarray(path.sigmas, np.float64), free, loss, loss - free)
