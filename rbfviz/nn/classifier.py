"""The RBF network as a classifier: K-Means inside a network, trained end to end.

Model (``RBFNetwork``): x (n, 2) → responsibilities r = RBFClusterLayer(x; σ, kind) (n, k) → a linear
read-out W r + b (n, classes) → softmax over classes.

Why the read-out sees the responsibilities, not the raw Gaussian activations φ_j = exp(−d_j/(2σ²)):
r is what the clustering layer outputs, every row is on the simplex at every σ, and its σ → 0 limit
is the one-hot Voronoi label, so the trained classifier becomes a nearest-centre (K-Means cell)
classifier. Raw φ all underflow to 0 far from every centre once σ is small (exactly the naive map's
0/0 failure, minus the division), so the read-out would see an all-zero input there.

Objective, minimised by full-batch Adam on the training split:

    loss = CE(read-out(r), y) + λ · L_σ / n_train,    L_σ = Σ_i Σ_j r_ij ||x_i − c_j||²  (r detached)

CE is the mean cross-entropy; L_σ is divided by n so both terms are per-point averages. The
cross-entropy reaches the centres through r (∂r/∂c), the clustering term pulls each centre to its
soft centroid, as in the EM / K-Means update.

σ schedule (``sigma_schedule``): σ_start = √λ_max(Cov X_train), the first critical σ of softmax
annealing (data units), σ_end = σ_start / 10, geometric over the first 70 % of the epochs,
then held at σ_end. The centres start at a k-means++ seeding of the training points (scikit-learn's
``kmeans_plusplus``, the seeding only, no Lloyd iterations).

Reported: test accuracy on a held-out, stratified, seeded 30 % split; a logistic regression on the
raw inputs (``linear_accuracy``); and the Hungarian-matched Frobenius distance between the final
centres and scikit-learn's Lloyd fixed point started from them (``rbfviz.kmeans(X_train, init=C)``)
— 0 means the trained centres are themselves a K-Means fixed point of the training data.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from sklearn.cluster import kmeans_plusplus
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from torch import nn

from ..datasets import make_dataset
from ..field import pixel_centers, plane_extent
from ..jsonable import jsonable
from ..layer import RBFClusterLayer
from ..measures import covariance_lambda_max, match_centers
from ..steps import kmeans
from ..validate import check_int, check_k, check_points
from .training import (
    ProgressFn,
    StopFn,
    append_row,
    check_run,
    guarded_step,
    schedule_ends,
    seeded,
    should_stop,
    sigma_schedule,
)

TEST_FRACTION = 0.3
ANNEAL_FRACTION = 0.7


class RBFNetwork(nn.Module):
    """RBFClusterLayer(k, d) followed by nn.Linear(k, classes) on the responsibilities."""

    def __init__(self, centers, n_classes: int, dtype=torch.float32):
        super().__init__()
        centers = torch.as_tensor(np.asarray(centers), dtype=dtype)
        k, d = centers.shape
        self.rbf = RBFClusterLayer(k, d, init=centers, dtype=dtype)
        self.readout = nn.Linear(k, n_classes, dtype=dtype)

    def forward(self, x: torch.Tensor, sigma: float, kind: str = "softmax") -> torch.Tensor:
        """Class logits (n, classes) for points x (n, d) at width σ."""
        return self.readout(self.rbf(x, sigma, kind))


@dataclass
class ClassifierSnapshot:
    """The state after ``epoch`` epochs (epoch 0 = before training): for animation frames."""

    epoch: int
    sigma: float
    centers: np.ndarray  # (k, d) float64, data units
    accuracy: float  # test accuracy at this σ
    proba: np.ndarray | None  # (H, W, classes) float32 on ``extent`` (field pixel convention), or None


@dataclass
class ClassifierResult:
    """Everything a classifier run measured. Arrays are float64 in data units unless stated.

    history: one entry per epoch run, as columns (lists of equal length): epoch (1-based), sigma,
        loss, ce, cluster (L_σ/n, before λ), train_accuracy, test_accuracy, nan_steps (skipped steps
        in the epoch, 0 or 1 here: one full-batch step per epoch), grad_norm_centers,
        grad_norm_readout (norms of the full-objective gradient, before the optimiser step).
    """

    dataset: str
    kind: str
    dtype: str
    k: int
    seed: int
    lam: float
    accuracy: float
    train_accuracy: float
    linear_accuracy: float
    centers: np.ndarray
    lloyd_centers: np.ndarray  # Lloyd's fixed point from ``centers``, rows matched to them
    center_distance_to_lloyd: float
    center_distances: np.ndarray  # (k,) per matched centre
    empty_centers: int  # centres that own no training point (nearest-centre rule)
    sigmas: np.ndarray  # the planned schedule, one σ per epoch
    sigma_final: float  # σ of the last epoch run; the model is evaluated there
    history: dict
    nan_steps: int
    epochs_run: int
    stopped: bool
    seconds: float
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    snapshots: list = field(default_factory=list)
    extent: tuple | None = None  # plane extent of the snapshots' proba grids
    model: RBFNetwork | None = field(default=None, repr=False)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n, classes) float64 of points X (n, d) at the final σ."""
        X = check_points(X, "X", dtype=np.float64)
        return _proba(self.model, X, self.sigma_final, self.kind)

    def summary(self) -> dict:
        """The scalar results (what the CLI prints), JSON-ready."""
        keys = (
            "dataset",
            "kind",
            "dtype",
            "k",
            "seed",
            "lam",
            "accuracy",
            "train_accuracy",
            "linear_accuracy",
            "center_distance_to_lloyd",
            "empty_centers",
            "sigma_final",
            "nan_steps",
            "epochs_run",
            "stopped",
            "seconds",
        )
        return jsonable({key: getattr(self, key) for key in keys})


@dataclass(frozen=True)
class DecisionGrid:
    """Class probabilities on an H×W pixel grid over extent = (x_min, x_max, y_min, y_max).

    Pixel convention of ``rbfviz.field``: row 0 is the top (y_max), column 0 the left (x_min).
    proba: (H, W, classes) float64; label: (H, W) int, the most probable class.
    """

    extent: tuple
    proba: np.ndarray
    label: np.ndarray


def _proba(model: RBFNetwork, X: np.ndarray, sigma: float, kind: str) -> np.ndarray:
    dtype = model.rbf.centers.dtype
    with torch.no_grad():
        logits = model(torch.as_tensor(X, dtype=dtype), sigma, kind)
        return torch.softmax(logits.double(), dim=1).numpy()


def decision_grid(result: ClassifierResult, size: int = 200, extent=None) -> DecisionGrid:
    """Probabilities of the trained classifier on a size × size grid (the decision regions).

    extent: (x_min, x_max, y_min, y_max); default: all data and centres plus an 8 % margin.
    """
    size = check_int(size, "size", 2, 2000)
    if result.model is None:
        raise ValueError("this result carries no trained model (it was built without one).")
    if extent is None:
        extent = plane_extent(np.vstack([result.X_train, result.X_test]), result.centers)
    proba = _proba(result.model, pixel_centers(extent, size, size), result.sigma_final, result.kind)
    proba = proba.reshape(size, size, -1)
    return DecisionGrid(extent=tuple(extent), proba=proba, label=proba.argmax(axis=2))


def split_dataset(name: str, n: int | None = None, noise: float | None = None, seed: int = 0):
    """make_dataset(name, n, noise, seed) split 70/30, stratified, with the same seed.

    Returns X_train, X_test, y_train, y_test (float64 data units; int64 labels).
    """
    X, y = make_dataset(name, n=n, noise=noise, seed=seed)
    return train_test_split(X, y, test_size=TEST_FRACTION, random_state=seed, stratify=y)


def linear_baseline(X_train, y_train, X_test, y_test) -> float:
    """Test accuracy of scikit-learn's LogisticRegression (defaults) on the raw inputs."""
    return float(LogisticRegression().fit(X_train, y_train).score(X_test, y_test))


def train_classifier(
    dataset: str = "moons",
    k: int = 12,
    seed: int = 0,
    kind: str = "softmax",
    epochs: int = 200,
    lam: float = 2.0,
    lr: float = 0.05,
    dtype="float32",
    sigma_start: float | None = None,
    sigma_end: float | None = None,
    anneal_epochs: int | None = None,
    n: int | None = None,
    noise: float | None = None,
    progress: ProgressFn | None = None,
    stop: StopFn | None = None,
    snapshot_every: int = 0,
    snapshot_grid: int = 48,
) -> ClassifierResult:
    """Train the RBF network classifier on a labelled 2-D data set (see the module docstring).

    Parameters
    ----------
    dataset : a name of ``rbfviz.make_dataset`` ("moons", "circles", "spiral", "blobs", "iris").
    k : number of RBF centres (1 <= k <= n_train).
    seed : data, split, initial centres, read-out weights: the whole run is a function of the seed.
    kind : "softmax" | "entmax15" (the responsibility map of the layer).
    epochs : full-batch Adam steps (one per epoch).
    lam : λ, the weight of the clustering term L_σ / n_train (>= 0).
    lr : Adam learning rate for centres and read-out.
    dtype : "float32" | "float64" (model and data on the torch side).
    sigma_start, sigma_end, anneal_epochs : the σ schedule (data units); defaults √λ_max(Cov X_train),
        sigma_start / 10, round(0.7 · epochs).
    n, noise : passed to ``make_dataset``.
    progress : called as progress(done_epochs, epochs) after every epoch.
    stop : called after every epoch; if it returns True the run ends there (``stopped=True``) and the
        result describes the model as it is.
    snapshot_every : m > 0 records a ``ClassifierSnapshot`` before training and every m epochs (and at
        the end) with a snapshot_grid² probability grid; 0 records none.

    Returns
    -------
    ClassifierResult
        The trained network's record; ``decision_grid(result)`` gives the final decision regions.
    """
    started = time.perf_counter()
    kind, torch_dtype, seed, lam, lr, snapshot_every = check_run(
        kind, dtype, seed, lam, lr, snapshot_every, progress, stop
    )
    epochs = check_int(epochs, "epochs", 1, 100_000)
    snapshot_grid = check_int(snapshot_grid, "snapshot_grid", 2, 400)

    X_train, X_test, y_train, y_test = split_dataset(dataset, n=n, noise=noise, seed=seed)
    k = check_k(k, X_train.shape[0])
    n_classes = int(max(y_train.max(), y_test.max())) + 1
    if sigma_start is None:
        sigma_start = math.sqrt(covariance_lambda_max(X_train))
    sigma_start, sigma_end = schedule_ends(sigma_start, sigma_end)
    if anneal_epochs is None:
        anneal_epochs = max(1, round(ANNEAL_FRACTION * epochs))
    sigmas = sigma_schedule(sigma_start, sigma_end, epochs, anneal_epochs)

    init, _ = kmeans_plusplus(X_train, k, random_state=seed)
    with seeded(seed):
        model = RBFNetwork(init, n_classes, dtype=torch_dtype)
    x_tr = torch.as_tensor(X_train, dtype=torch_dtype)
    x_te = torch.as_tensor(X_test, dtype=torch_dtype)
    t_tr = torch.as_tensor(y_train)
    t_te = torch.as_tensor(y_test)
    groups = {"centers": [model.rbf.centers], "readout": list(model.readout.parameters())}
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    extent = plane_extent(np.vstack([X_train, X_test]), init) if snapshot_every else None

    def snapshot(epoch: int, sigma: float) -> ClassifierSnapshot:
        with torch.no_grad():
            acc = _accuracy(model(x_te, sigma, kind), t_te)
        proba = None
        if X_train.shape[1] == 2:
            grid = _proba(model, pixel_centers(extent, snapshot_grid, snapshot_grid), sigma, kind)
            proba = grid.reshape(snapshot_grid, snapshot_grid, -1).astype(np.float32)
        return ClassifierSnapshot(
            epoch=epoch,
            sigma=float(sigma),
            accuracy=acc,
            proba=proba,
            centers=model.rbf.centers.detach().double().numpy().copy(),
        )

    history = {
        key: []
        for key in (
            "epoch",
            "sigma",
            "loss",
            "ce",
            "cluster",
            "train_accuracy",
            "test_accuracy",
            "nan_steps",
            "grad_norm_centers",
            "grad_norm_readout",
        )
    }
    snapshots = [snapshot(0, sigmas[0])] if snapshot_every else []
    stopped = False
    epochs_run = 0
    for epoch, sigma in enumerate(sigmas, start=1):
        sigma = float(sigma)
        logits = model(x_tr, sigma, kind)
        ce = nn.functional.cross_entropy(logits, t_tr)
        cluster = model.rbf.loss(x_tr, sigma, kind) / x_tr.shape[0]
        loss = ce + lam * cluster
        finite, norms = guarded_step(optimizer, loss, groups)
        with torch.no_grad():
            test_acc = _accuracy(model(x_te, sigma, kind), t_te)
        epochs_run = epoch
        append_row(
            history,
            epoch=epoch,
            sigma=sigma,
            loss=float(loss.detach()),
            ce=float(ce.detach()),
            cluster=float(cluster.detach()),
            train_accuracy=_accuracy(logits.detach(), t_tr),
            test_accuracy=test_acc,
            nan_steps=int(not finite),
            grad_norm_centers=norms["centers"],
            grad_norm_readout=norms["readout"],
        )
        if progress is not None:
            progress(epoch, epochs)
        stopped = should_stop(stop) and epoch < epochs
        if snapshot_every and (epoch % snapshot_every == 0 or epoch == epochs or stopped):
            snapshots.append(snapshot(epoch, sigma))
        if stopped:
            break

    model.eval()
    sigma_final = float(sigmas[epochs_run - 1])
    centers = model.rbf.centers.detach().double().numpy().copy()
    with torch.no_grad():
        accuracy = _accuracy(model(x_te, sigma_final, kind), t_te)
        train_accuracy = _accuracy(model(x_tr, sigma_final, kind), t_tr)
    distance, per_center, lloyd, empty = _lloyd_comparison(X_train, centers)
    return ClassifierResult(
        dataset=dataset,
        kind=kind,
        dtype=str(torch_dtype).removeprefix("torch."),
        k=k,
        seed=seed,
        lam=lam,
        accuracy=accuracy,
        train_accuracy=train_accuracy,
        linear_accuracy=linear_baseline(X_train, y_train, X_test, y_test),
        centers=centers,
        lloyd_centers=lloyd,
        center_distance_to_lloyd=distance,
        center_distances=per_center,
        empty_centers=empty,
        sigmas=sigmas,
        sigma_final=sigma_final,
        history=history,
        nan_steps=int(sum(history["nan_steps"])),
        epochs_run=epochs_run,
        stopped=stopped,
        seconds=time.perf_counter() - started,
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        snapshots=snapshots,
        extent=extent,
        model=model,
    )


def _lloyd_comparison(X_train: np.ndarray, centers: np.ndarray):
    """(distance, per-centre distances, Lloyd centres matched to ``centers``, empty centres).

    NaN centres (a run whose every step was skipped never has them, but a caller's model might)
    give NaN distances rather than an exception.
    """
    if not np.all(np.isfinite(centers)):
        nan = np.full(centers.shape[0], np.nan)
        return math.nan, nan, np.full_like(centers, np.nan), -1
    lloyd, _ = kmeans(X_train, init=centers)
    # match_centers(C, C_ref) returns perm with C[perm] matched to C_ref's rows
    lloyd = lloyd[match_centers(lloyd, centers)]
    per_center = np.linalg.norm(lloyd - centers, axis=1)
    nearest = ((X_train[:, None, :] - centers[None, :, :]) ** 2).sum(-1).argmin(axis=1)
    empty = int(centers.shape[0] - np.unique(nearest).size)
    return float(np.linalg.norm(lloyd - centers)), per_center, lloyd, empty


def _accuracy(logits: torch.Tensor, target: torch.Tensor) -> float:
    if not torch.isfinite(logits).all():
        return math.nan
    return float((logits.argmax(dim=1) == target).double().mean())
