"""Softmax vs entmax15 training at low σ in float32, side by side — and what exactly breaks.

``compare_low_sigma`` trains the same RBF network classifier (same data, split, k-means++ centres
and read-out weights) at one fixed low σ, once per map, and records per epoch what the training
sees. The three maps, precisely:

* "naive": softmax written literally, r_ij = φ_ij / Σ_l φ_il with φ = exp(−d/(2σ²)). Once the
  nearest centre's φ underflows (min_j d_ij/(2σ²) above ≈ 103 in float32, ≈ 745 in float64) the row
  is 0/0 = NaN, the loss is NaN and so is every gradient. The backward pass breaks a little earlier
  (measured: moons, σ = 0.03, float32: loss finite, no NaN row, centre gradients NaN), because the
  derivative of φ/S carries 1/S², which overflows while the row sum S is still a tiny positive
  number. Either way the step is skipped and the network stops learning. This is the "softmax is
  unstable at low temperature" of the paper, and it needs the literal form: the stable softmax
  below never gives NaN.
* "softmax": the stable (max-shifted) softmax, what ``rbfviz`` uses. No NaN at any σ. What does
  collapse is the cross-entropy gradient that reaches the centres *through* r: ∂r/∂z = r(1 − r) is
  ≈ e^(−gap/(2σ²)), so it decays exponentially in 1/σ², and in float32 it is exactly 0 once the
  off-weights underflow. The read-out and the (detached-r) clustering term keep training.
* "entmax15": exactly one-hot rows outside a band of squared-distance gap < 4σ² around each Voronoi
  edge; there the Jacobian, hence the cross-entropy gradient to the centres, is exactly 0 too —
  by construction, not by underflow — and O(1) inside the band. No NaN at any σ.

So "softmax breaks, entmax keeps training" is literally true only against the naive map. Against the
stable softmax both keep training, both lose the gradient through r on rows far from an edge (softmax
by underflow, entmax exactly), and the measured columns show how many rows still carry it.

Recorded per epoch (history[kind] columns): epoch, loss, ce, cluster, nan_steps (1 if the step was
skipped), nan_rows (training rows with a NaN responsibility), one_hot_rows (rows exactly one-hot),
grad_norm_centers (full objective), grad_norm_centers_ce (the cross-entropy's gradient w.r.t. the
centres alone: the part that flows through r), grad_norm_readout, test_accuracy (a test point whose
logits are NaN counts as an error), test_nan_rows.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.cluster import kmeans_plusplus
from torch import nn

from ..jsonable import jsonable
from ..measures import naive_nan_sigmas
from ..validate import check_int, check_k, check_kind, check_sigma, check_sigma_for_dtype
from .classifier import RBFNetwork, split_dataset
from .training import (
    append_row,
    check_callbacks,
    check_dtype,
    check_lam,
    check_positive,
    grad_norm,
    seeded,
    should_stop,
)

LOW_SIGMA_KINDS = ("naive", "softmax", "entmax15")


@dataclass
class LowSigmaComparison:
    """Histories of the same classifier trained at one σ with each map.

    history: {kind: {column: list per epoch}} (columns in the module docstring).
    summary: {kind: {final_test_accuracy, nan_steps, first_nan_epoch (None if never),
        final_one_hot_fraction, final_grad_norm_centers_ce}}.
    naive_nan_sigma_first / _all: below these σ at least one / every naive row of the training data
        is NaN for the initial centres (closed form, ``rbfviz.views.stability.arrays.naive_nan_sigmas``).
    """

    dataset: str
    sigma: float
    dtype: str
    k: int
    seed: int
    kinds: tuple
    history: dict
    summary: dict
    naive_nan_sigma_first: float
    naive_nan_sigma_all: float
    init_centers: np.ndarray
    stopped: bool
    seconds: float

    def to_dict(self) -> dict:
        return jsonable({name: getattr(self, name) for name in self.__dataclass_fields__})


def compare_low_sigma(
    dataset: str = "moons",
    sigma: float = 0.01,
    k: int = 12,
    seed: int = 0,
    epochs: int = 60,
    kinds=LOW_SIGMA_KINDS,
    dtype="float32",
    lam: float = 2.0,
    lr: float = 0.05,
    progress=None,
    stop=None,
) -> LowSigmaComparison:
    """Train the RBF classifier at fixed σ (data units) once per map in ``kinds``; same start for all.

    progress(done, total) is called after every epoch of every map (total = epochs · len(kinds));
    stop() is checked after every epoch and ends the whole comparison.
    """
    started = time.perf_counter()
    sigma = check_sigma(sigma)
    torch_dtype = check_dtype(dtype)
    dtype_name = str(torch_dtype).removeprefix("torch.")
    check_sigma_for_dtype(sigma, np.dtype(dtype_name))
    kinds = tuple(check_kind(kind, LOW_SIGMA_KINDS) for kind in kinds)
    if not kinds:
        raise ValueError(f"kinds must name at least one of {', '.join(LOW_SIGMA_KINDS)}.")
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    epochs = check_int(epochs, "epochs", 1, 100_000)
    lam = check_lam(lam)
    lr = check_positive(lr, "lr")
    check_callbacks(progress, stop)

    X_train, X_test, y_train, y_test = split_dataset(dataset, seed=seed)
    k = check_k(k, X_train.shape[0])
    n_classes = int(max(y_train.max(), y_test.max())) + 1
    init, _ = kmeans_plusplus(X_train, k, random_state=seed)
    nan_first, nan_all = naive_nan_sigmas(X_train, init, dtype_name)
    x_tr = torch.as_tensor(X_train, dtype=torch_dtype)
    x_te = torch.as_tensor(X_test, dtype=torch_dtype)
    t_tr, t_te = torch.as_tensor(y_train), torch.as_tensor(y_test)

    history, summary = {}, {}
    stopped = False
    for m, kind in enumerate(kinds):
        with seeded(seed):  # the same read-out weights for every map
            model = RBFNetwork(init, n_classes, dtype=torch_dtype)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        rows = {
            key: []
            for key in (
                "epoch",
                "loss",
                "ce",
                "cluster",
                "nan_steps",
                "nan_rows",
                "one_hot_rows",
                "grad_norm_centers",
                "grad_norm_centers_ce",
                "grad_norm_readout",
                "test_accuracy",
                "test_nan_rows",
            )
        }
        for epoch in range(1, epochs + 1):
            resp = model.rbf(x_tr, sigma, kind)
            ce = nn.functional.cross_entropy(model.readout(resp), t_tr)
            cluster = model.rbf.loss(x_tr, sigma, kind) / x_tr.shape[0]
            loss = ce + lam * cluster
            optimizer.zero_grad(set_to_none=True)
            (ce_grad,) = torch.autograd.grad(ce, model.rbf.centers, retain_graph=True)
            loss.backward()
            norms = {
                "centers": grad_norm([model.rbf.centers]),
                "readout": grad_norm(model.readout.parameters()),
            }
            finite = math.isfinite(float(loss.detach())) and all(math.isfinite(v) for v in norms.values())
            if finite:
                optimizer.step()
            with torch.no_grad():
                r = resp.detach()
                logits = model(x_te, sigma, kind)
                bad = ~torch.isfinite(logits).all(dim=1)
                acc = float(((logits.argmax(1) == t_te) & ~bad).double().mean())  # a NaN row is an error
            append_row(
                rows,
                epoch=epoch,
                loss=float(loss.detach()),
                ce=float(ce.detach()),
                cluster=float(cluster.detach()),
                nan_steps=int(not finite),
                nan_rows=int(torch.isnan(r).any(dim=1).sum()),
                one_hot_rows=int(((r == 1).any(dim=1) & ((r == 0).sum(dim=1) == k - 1)).sum()),
                grad_norm_centers=norms["centers"],
                grad_norm_centers_ce=float(ce_grad.double().norm()),
                grad_norm_readout=norms["readout"],
                test_accuracy=acc,
                test_nan_rows=int(bad.sum()),
            )
            if progress is not None:
                progress(m * epochs + epoch, len(kinds) * epochs)
            if should_stop(stop):
                stopped = True
                break
        history[kind] = rows
        nan_epochs = [e for e, bad in zip(rows["epoch"], rows["nan_steps"]) if bad]
        summary[kind] = {
            "final_test_accuracy": rows["test_accuracy"][-1],
            "nan_steps": int(sum(rows["nan_steps"])),
            "first_nan_epoch": nan_epochs[0] if nan_epochs else None,
            "final_one_hot_fraction": rows["one_hot_rows"][-1] / X_train.shape[0],
            "final_grad_norm_centers_ce": rows["grad_norm_centers_ce"][-1],
        }
        if stopped:
            break
    return LowSigmaComparison(
        dataset=dataset,
        sigma=sigma,
        dtype=dtype_name,
        k=k,
        seed=seed,
        kinds=kinds,
        history=history,
        summary=summary,
        naive_nan_sigma_first=nan_first,
        naive_nan_sigma_all=nan_all,
        init_centers=init,
        stopped=stopped,
        seconds=time.perf_counter() - started,
    )
