"""What the "Neural network" view draws, computed from the trainers' results (no Streamlit, no Plotly).

* ``classifier_view(result)``  → ``ClassifierView``: the final decision regions on a fine grid (class
  and confidence per pixel), the Voronoi cells of the centres, the class each centre's cell votes
  for, the Lloyd comparison, and per snapshot a coarse decision grid and the centres (the frames).
* ``deep_view(result)``        → ``DeepView``: the latent codes in a 2-D view with their clusters, the
  centres, exact Voronoi cells when the latent space is 2-D, per snapshot; the baseline table.
* ``train_classifier_view`` / ``train_deep_view`` / ``train_low_sigma_view`` are what the page runs
  in a background thread (``rbfviz.nn.jobs``): training plus the view arrays, so the page's script
  only builds figures.

Grids follow ``rbfviz.field``: an (H, W) array covers extent = (x_min, x_max, y_min, y_max), row 0 at
the top (y_max), column 0 at the left (x_min).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from rbfviz.datasets import DEFAULT_N, NATURAL_K
from rbfviz.field import PLANE_ASPECT, boundary_mask, grid_sq_distances, plane_extent
from rbfviz.i18n import ENGLISH, Invalid, Translator
from rbfviz.nn.classifier import ClassifierResult, decision_grid, split_dataset, train_classifier
from rbfviz.nn.deep import DeepClusterResult, train_deep_clustering
from rbfviz.nn.lowsigma import LowSigmaComparison, compare_low_sigma
from rbfviz.validate import check_sigma, check_sigma_for_dtype

CLASSIFIER_DATASETS = ("moons", "circles", "spiral")
DEEP_VIEW_DATASETS = ("digits", "moons", "circles", "spiral", "blobs")
CONFIDENCE_LEVELS = 8  # confidence bands per class in the animation frames (uint8 codes)
CLASSIFIER_FRAMES = 40  # about this many animation frames (plus the start)
DEEP_FRAMES = 25
FINAL_GRID = 200  # pixels per side of the final decision regions
SNAPSHOT_GRID = 48  # per side of each frame's decision grid: 48² bytes a frame


def snapshot_every(epochs: int, frames: int) -> int:
    """Epochs between snapshots so that a run of ``epochs`` gives about ``frames`` frames."""
    return max(1, math.ceil(epochs / frames))


def confidence_codes(proba, levels: int = CONFIDENCE_LEVELS) -> np.ndarray:
    """(H, W) uint8 codes class · levels + band from class probabilities proba (H, W, C).

    band = floor(levels · t) clipped to levels − 1, t = (max_c p − 1/C) / (1 − 1/C) ∈ [0, 1]: 0 at a
    tie, levels − 1 when certain. One small integer per pixel says both which class wins and how
    surely — what a frame of the animation sends.
    """
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 3 or proba.shape[2] < 2:
        raise ValueError(f"proba must have shape (H, W, C) with C >= 2, got {proba.shape}.")
    n_classes = proba.shape[2]
    if n_classes * levels > 256:
        raise ValueError(f"{n_classes} classes × {levels} levels do not fit in a byte.")
    label = proba.argmax(axis=2)
    t = (proba.max(axis=2) - 1.0 / n_classes) / (1.0 - 1.0 / n_classes)
    band = np.clip(np.floor(levels * np.clip(t, 0.0, 1.0)), 0, levels - 1).astype(np.int64)
    return (label * levels + band).astype(np.uint8)


def nearest_center_grid(extent, centers, size: int) -> np.ndarray:
    """(size, size) int: index of the nearest centre to every pixel centre (``rbfviz.field`` convention)."""
    centers = np.asarray(centers, dtype=np.float64)
    return grid_sq_distances(extent, size, size, centers).argmin(axis=1).reshape(size, size)


def clip_half_plane(polygon: np.ndarray, normal: np.ndarray, offset: float) -> np.ndarray:
    """The part of a convex polygon (m, 2) (vertices in order) where normal · x <= offset
    (Sutherland–Hodgman against one edge). Returns (m', 2), possibly empty (0, 2)."""
    out = []
    m = len(polygon)
    for i in range(m):
        a, b = polygon[i], polygon[(i + 1) % m]
        fa, fb = normal @ a - offset, normal @ b - offset
        if fa <= 0:
            out.append(a)
        if (fa < 0 < fb) or (fb < 0 < fa):
            out.append(a + (b - a) * (fa / (fa - fb)))
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def voronoi_cells(extent, centers) -> list[np.ndarray]:
    """The Voronoi cell of each centre (k, 2) inside the box extent = (x_min, x_max, y_min, y_max), as
    a convex polygon (m_j, 2) in order: the box cut by the half-planes
    ||x − c_j||² <= ||x − c_l||²  ⇔  2 (c_l − c_j) · x <= ||c_l||² − ||c_j||²  for every l ≠ j.
    Exact (no pixels), so cells can be drawn as filled polygons and animated without a redraw."""
    centers = np.asarray(centers, dtype=np.float64)
    x0, x1, y0, y1 = (float(v) for v in extent)
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    sq = (centers**2).sum(axis=1)
    cells = []
    for j, c in enumerate(centers):
        cell = box
        for other_index, other in enumerate(centers):
            if other_index == j or cell.size == 0 or np.array_equal(other, c):
                continue
            cell = clip_half_plane(cell, 2.0 * (other - c), sq[other_index] - sq[j])
        cells.append(cell)
    return cells


def center_classes(model) -> np.ndarray:
    """(k,) the class the read-out gives a point whose responsibilities are one-hot on centre j.

    At σ → 0 every point of centre j's Voronoi cell has r = e_j, so its logits are W[:, j] + b: the
    whole cell is classified as argmax_c (W[c, j] + b[c]). The decision regions then become unions of
    Voronoi cells.
    """
    with torch.no_grad():
        logits = model.readout.weight.double() + model.readout.bias.double()[:, None]  # (classes, k)
    return logits.argmax(dim=0).numpy().astype(np.int64)


@dataclass(frozen=True, eq=False)
class ClassifierView:
    """The classifier panel's arrays. Shapes: k centres, C classes, S snapshots, G = SNAPSHOT_GRID.

    label (uint8), confidence (float32): (FINAL_GRID, FINAL_GRID) the final decision (most probable
    class and its probability) over ``extent``; decision_edges: (same) True on the class boundary;
    voronoi_edges: (2·FINAL_GRID)² True on the Voronoi edges of the final centres. center_class
    (k,): the class of each centre's cell at σ → 0 (``center_classes``). frame_codes (S, G, G) uint8
    ``confidence_codes`` with ``frame_levels`` bands per class over ``frame_extent``; frame_centers
    (S, k, 2); frame_epochs, frame_sigmas, frame_accuracy (S,).
    """

    dataset: str
    kind: str
    k: int
    n_classes: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    test_pred: np.ndarray
    extent: tuple
    label: np.ndarray
    confidence: np.ndarray
    decision_edges: np.ndarray
    voronoi_edges: np.ndarray
    centers: np.ndarray
    center_class: np.ndarray
    lloyd_centers: np.ndarray
    center_distances: np.ndarray
    center_distance_to_lloyd: float
    empty_centers: int
    accuracy: float
    train_accuracy: float
    linear_accuracy: float
    sigma_start: float
    sigma_final: float
    epochs: int
    epochs_run: int
    stopped: bool
    nan_steps: int
    seconds: float
    history: dict
    frame_extent: tuple
    frame_levels: int
    frame_codes: np.ndarray
    frame_centers: np.ndarray
    frame_epochs: np.ndarray
    frame_sigmas: np.ndarray
    frame_accuracy: np.ndarray


def classifier_view(result: ClassifierResult, grid: int = FINAL_GRID) -> ClassifierView:
    """The arrays of the classifier panel from a ``train_classifier`` result with snapshots."""
    if result.model is None:
        raise ValueError("the classifier result carries no model: nothing to draw the decision regions from.")
    if result.X_train.shape[1] != 2:
        raise ValueError("the decision regions need 2-D inputs.")
    X_all = np.vstack([result.X_train, result.X_test])
    extent = plane_extent(X_all, np.vstack([result.centers, result.lloyd_centers]), aspect=PLANE_ASPECT)
    final = decision_grid(result, size=grid, extent=extent)
    voronoi = (
        nearest_center_grid(extent, result.centers, 2 * grid)
        if np.isfinite(result.centers).all()
        else np.zeros((2 * grid, 2 * grid), dtype=np.int64)
    )
    snaps = [s for s in result.snapshots if s.proba is not None]
    codes = np.stack([confidence_codes(s.proba) for s in snaps]) if snaps else np.zeros((0, 1, 1), np.uint8)
    test_pred = result.predict_proba(result.X_test).argmax(axis=1)
    return ClassifierView(
        dataset=result.dataset,
        kind=result.kind,
        k=result.k,
        n_classes=final.proba.shape[2],
        X_train=result.X_train,
        y_train=result.y_train,
        X_test=result.X_test,
        y_test=result.y_test,
        # small dtypes: finished views are kept per setting for every session (≈ 0.5 MB each, pickled)
        test_pred=test_pred,
        extent=extent,
        label=final.label.astype(np.uint8),
        confidence=final.proba.max(axis=2).astype(np.float32),
        decision_edges=boundary_mask(final.label),
        voronoi_edges=boundary_mask(voronoi),
        centers=result.centers,
        center_class=center_classes(result.model),
        lloyd_centers=result.lloyd_centers,
        center_distances=result.center_distances,
        center_distance_to_lloyd=result.center_distance_to_lloyd,
        empty_centers=result.empty_centers,
        accuracy=result.accuracy,
        train_accuracy=result.train_accuracy,
        linear_accuracy=result.linear_accuracy,
        sigma_start=float(result.sigmas[0]),
        sigma_final=result.sigma_final,
        epochs=len(result.sigmas),
        epochs_run=result.epochs_run,
        stopped=result.stopped,
        nan_steps=result.nan_steps,
        seconds=result.seconds,
        history=result.history,
        frame_extent=tuple(result.extent) if result.extent is not None else extent,
        frame_levels=CONFIDENCE_LEVELS,
        frame_codes=codes,
        frame_centers=np.stack([s.centers for s in snaps]) if snaps else np.zeros((0, result.k, 2)),
        frame_epochs=np.array([s.epoch for s in snaps], dtype=np.int64),
        frame_sigmas=np.array([s.sigma for s in snaps], dtype=np.float64),
        frame_accuracy=np.array([s.accuracy for s in snaps], dtype=np.float64),
    )


def check_classifier_settings(
    dataset: str, k: int, n: int | None = None, noise: float | None = None, seed: int = 0
) -> None:
    """Raise ValueError, saying what is wrong, if the classifier cannot train on these settings: an
    unknown data set, a data set too small to split, or more centres than training points."""
    if dataset not in CLASSIFIER_DATASETS:
        raise ValueError(
            f"dataset {dataset!r} is not offered for the classifier; allowed: "
            f"{', '.join(CLASSIFIER_DATASETS)}."
        )
    try:
        X_train = split_dataset(dataset, n=n, noise=noise, seed=seed)[0]
    except ValueError as err:
        raise Invalid(
            "{n} points are too few to split 70/30 into training and test points with every class in "
            "both ({reason}). Use more points.",
            n=str(n),
            reason=str(err),
        ) from err
    if not 1 <= k <= X_train.shape[0]:
        raise Invalid(
            "k = {k} centres need at least {k} training points, but the 70 % training split of {n} points "
            "has only {train}. Use fewer centres or more points.",
            k=k,
            n=n or DEFAULT_N,
            train=X_train.shape[0],
        )


def train_classifier_view(
    dataset: str = "moons",
    k: int = 12,
    seed: int = 0,
    kind: str = "softmax",
    epochs: int = 200,
    lam: float = 2.0,
    n: int | None = None,
    noise: float | None = None,
    progress=None,
    stop=None,
) -> ClassifierView:
    """``train_classifier`` with about ``CLASSIFIER_FRAMES`` snapshots on a SNAPSHOT_GRID² grid, then
    ``classifier_view``. Only the three labelled sets a line cannot separate are offered."""
    if dataset not in CLASSIFIER_DATASETS:
        raise ValueError(
            f"dataset {dataset!r} is not offered for the classifier; allowed: "
            f"{', '.join(CLASSIFIER_DATASETS)}."
        )
    result = train_classifier(
        dataset,
        k=k,
        seed=seed,
        kind=kind,
        epochs=epochs,
        lam=lam,
        n=n,
        noise=noise,
        progress=progress,
        stop=stop,
        snapshot_every=snapshot_every(epochs, CLASSIFIER_FRAMES),
        snapshot_grid=SNAPSHOT_GRID,
    )
    return classifier_view(result)


# --- deep clustering ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DeepView:
    """The deep-clustering panel's arrays. m = snapshot points, S snapshots, k clusters.

    exact_voronoi: the latent space is 2-D, so the 2-D view is the latent space itself and the
    Voronoi cells of the centres are exact: frame_cells[s][j] is centre j's cell (a polygon, see
    ``voronoi_cells``) in ``extent``; otherwise the view is the PCA of the final embedding and no
    cells are drawn (frame_cells None). frame_codes (S, m, 2), frame_labels (S, m), frame_centers (S, k, 2),
    frame_epochs, frame_sigmas, frame_nmi (S,); point_class (m,) true class of each shown point.
    """

    dataset: str
    kind: str
    k: int
    latent_dim: int
    n_points: int
    exact_voronoi: bool
    extent: tuple
    point_class: np.ndarray
    frame_codes: np.ndarray
    frame_labels: np.ndarray
    frame_centers: np.ndarray
    frame_cells: list | None
    frame_epochs: np.ndarray
    frame_sigmas: np.ndarray
    frame_nmi: np.ndarray
    nmi: float
    ari: float
    pretrain_nmi: float
    kmeans_raw_nmi: float | None
    kmeans_pca_nmi: float | None
    cluster_sizes: np.ndarray
    sigma_final: float
    pretrain_epochs: int  # planned (the history may hold fewer if stopped while pretraining)
    joint_epochs: int
    epochs_run: int
    stopped: bool
    nan_steps: int
    seconds: float
    history: dict


def deep_view(result: DeepClusterResult, pretrain_epochs: int | None = None) -> DeepView:
    """The arrays of the deep-clustering panel from a ``train_deep_clustering`` result with snapshots.

    pretrain_epochs: the planned pretraining epochs (default: those the history records, which is the
    plan unless the run was stopped while pretraining)."""
    snaps = result.snapshots
    if not snaps:
        raise ValueError("the deep clustering result has no snapshots (train with snapshot_every > 0).")
    codes = np.stack([s.codes_2d for s in snaps])
    centers = np.stack([s.centers_2d for s in snaps])
    finite = np.vstack([codes.reshape(-1, 2), centers.reshape(-1, 2)])
    finite = finite[np.isfinite(finite).all(axis=1)]
    extent = plane_extent(finite, aspect=PLANE_ASPECT)
    exact = result.latent_dim == 2
    cells = None
    if exact:
        cells = [
            voronoi_cells(extent, s.centers_2d) if np.isfinite(s.centers_2d).all() else [] for s in snaps
        ]
    pretrain = sum(1 for phase in result.history["phase"] if phase == "pretrain")
    pretrain = pretrain if pretrain_epochs is None else int(pretrain_epochs)
    return DeepView(
        dataset=result.dataset,
        kind=result.kind,
        k=result.k,
        latent_dim=result.latent_dim,
        n_points=int(result.y.shape[0]),
        exact_voronoi=exact,
        extent=extent,
        point_class=result.y[result.indices],
        frame_codes=codes,
        frame_labels=np.stack([s.labels for s in snaps]),
        frame_centers=centers,
        frame_cells=cells,
        frame_epochs=np.array([s.epoch for s in snaps], dtype=np.int64),
        frame_sigmas=np.array([s.sigma for s in snaps], dtype=np.float64),
        frame_nmi=np.array([s.nmi for s in snaps], dtype=np.float64),
        nmi=result.nmi,
        ari=result.ari,
        pretrain_nmi=result.pretrain_nmi,
        kmeans_raw_nmi=result.kmeans_raw_nmi,
        kmeans_pca_nmi=result.kmeans_pca_nmi,
        cluster_sizes=result.cluster_sizes,
        sigma_final=result.sigma_final,
        pretrain_epochs=pretrain,
        joint_epochs=len(result.sigmas),
        epochs_run=result.epochs_run,
        stopped=result.stopped,
        nan_steps=result.nan_steps,
        seconds=result.seconds,
        history=result.history,
    )


def deep_table(view: DeepView, tr: Translator = ENGLISH) -> list[dict]:
    """Rows (method, NMI, ARI) comparing the joint model with its baselines; ARI None where not measured.
    The methods are named in ``tr``'s language."""
    h = view.latent_dim
    rows = [
        {"method": tr("joint: AE + RBF layer"), "NMI": view.nmi, "ARI": view.ari},
        {"method": tr("AE alone, then K-Means"), "NMI": view.pretrain_nmi, "ARI": None},
    ]
    if view.kmeans_raw_nmi is not None:
        rows.append({"method": tr("K-Means, raw inputs"), "NMI": view.kmeans_raw_nmi, "ARI": None})
    if view.kmeans_pca_nmi is not None:
        rows.append(
            {"method": tr("K-Means, PCA to {dim} dim.", dim=str(h)), "NMI": view.kmeans_pca_nmi, "ARI": None}
        )
    return rows


def deep_k(dataset: str) -> int:
    """The number of clusters the page uses: 10 digits, else the set's natural k."""
    return 10 if dataset == "digits" else NATURAL_K[dataset]


def train_deep_view(
    dataset: str = "digits",
    seed: int = 0,
    kind: str = "softmax",
    pretrain_epochs: int = 100,
    joint_epochs: int = 50,
    lam: float = 3.0,
    progress=None,
    stop=None,
) -> DeepView:
    """``train_deep_clustering`` (k = ``deep_k``, other settings the library's defaults) with about
    ``DEEP_FRAMES`` snapshots of 500 codes, then ``deep_view``."""
    if dataset not in DEEP_VIEW_DATASETS:
        raise ValueError(
            f"dataset {dataset!r} is not offered for deep clustering; allowed: "
            f"{', '.join(DEEP_VIEW_DATASETS)}."
        )
    result = train_deep_clustering(
        dataset,
        k=deep_k(dataset),
        seed=seed,
        kind=kind,
        pretrain_epochs=pretrain_epochs,
        joint_epochs=joint_epochs,
        lam=lam,
        progress=progress,
        stop=stop,
        snapshot_every=snapshot_every(joint_epochs, DEEP_FRAMES),
    )
    return deep_view(result, pretrain_epochs=pretrain_epochs)


# --- training at low σ ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class LowSigmaView:
    """A ``LowSigmaComparison`` and the number of training rows its one-hot/NaN row counts are out of."""

    comparison: LowSigmaComparison
    n_train: int

    @property
    def stopped(self) -> bool:
        return self.comparison.stopped


def check_low_sigma_settings(dataset: str, k: int, sigma: float, dtype: str, seed: int = 0) -> None:
    """Raise ValueError if ``train_low_sigma_view`` cannot run: the classifier checks, and σ must
    give a normal temperature 2σ² in the dtype."""
    check_classifier_settings(dataset, k, seed=seed)
    check_sigma_for_dtype(check_sigma(sigma), np.dtype(dtype))


def train_low_sigma_view(
    dataset: str = "moons",
    sigma: float = 0.01,
    k: int = 12,
    seed: int = 0,
    epochs: int = 60,
    dtype: str = "float32",
    progress=None,
    stop=None,
) -> LowSigmaView:
    """``compare_low_sigma`` for naive, softmax and entmax15 (same start for each), with the split size."""
    if dataset not in CLASSIFIER_DATASETS:
        raise ValueError(
            f"dataset {dataset!r} is not offered here; allowed: {', '.join(CLASSIFIER_DATASETS)}."
        )
    comparison = compare_low_sigma(
        dataset, sigma=sigma, k=k, seed=seed, epochs=epochs, dtype=dtype, progress=progress, stop=stop
    )
    return LowSigmaView(comparison=comparison, n_train=int(split_dataset(dataset, seed=seed)[0].shape[0]))
