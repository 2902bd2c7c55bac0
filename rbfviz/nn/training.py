"""What both trainers share: the σ schedule, seeding, guarded optimiser steps, progress and stop.

* ``sigma_schedule``: σ per epoch, geometric from ``start`` to ``end`` over the first
  ``anneal_epochs`` epochs, then held at ``end``:

      σ_e = start · (end/start)^(e/(anneal_epochs − 1))   for e < anneal_epochs,   σ_e = end after.

  Geometric in σ is geometric in T = 2σ² too (ratio a² per epoch), the deterministic-annealing
  cooling of deterministic annealing.
* ``guarded_step``: one optimiser step that is *skipped* when the loss or any gradient is not finite.
  A skipped step is never hidden: it is counted, and the trainers report the count per epoch
  (history["nan_steps"]) and in total (``nan_steps``). Parameters therefore never become NaN; a run
  whose every step is skipped simply stops moving, and says so.
* ``check_run`` and ``schedule_ends``: the arguments both trainers take, checked the same way.
* ``seeded``: a context in which torch's global generator is seeded for building modules, then
  restored, so a trainer call is deterministic for its seed and leaves the caller's RNG alone.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import torch

from ..validate import check_int, check_kind, check_sigma

TRAIN_KINDS = ("softmax", "entmax15")
DTYPES = {"float32": torch.float32, "float64": torch.float64}

SIGMA_END_RATIO = 10.0  # the default σ_end is σ_start / 10

ProgressFn = Callable[[int, int], None]
StopFn = Callable[[], bool]


def sigma_schedule(start: float, end: float, epochs: int, anneal_epochs: int | None = None) -> np.ndarray:
    """σ for each of ``epochs`` epochs (float64 array): geometric from start to end, then constant.

    start >= end > 0 (data units). anneal_epochs (default: all epochs) is how many epochs the cooling
    takes, counting both ends: σ_0 = start and σ_{anneal_epochs−1} = end. anneal_epochs = 1 means no
    cooling at all (σ = end throughout).
    """
    start = check_sigma(start, "sigma_start")
    end = check_sigma(end, "sigma_end")
    if end > start:
        raise ValueError(f"sigma_end ({end:g}) must not exceed sigma_start ({start:g}): annealing cools.")
    epochs = check_int(epochs, "epochs", 1)
    anneal_epochs = epochs if anneal_epochs is None else check_int(anneal_epochs, "anneal_epochs", 1, epochs)
    if anneal_epochs == 1:
        return np.full(epochs, end)
    t = np.minimum(np.arange(epochs) / (anneal_epochs - 1), 1.0)
    sigmas = start * (end / start) ** t
    sigmas[anneal_epochs - 1 :] = end  # exactly end, not end up to rounding
    return sigmas


def check_train_kind(kind: str, allowed=TRAIN_KINDS) -> str:
    return check_kind(kind, allowed)


def check_dtype(dtype) -> torch.dtype:
    """ "float32"/"float64" (or the torch dtypes) → torch dtype."""
    if isinstance(dtype, torch.dtype) and dtype in DTYPES.values():
        return dtype
    if dtype in DTYPES:
        return DTYPES[dtype]
    raise ValueError(f"dtype={dtype!r} is not supported; allowed: float32, float64.")


def check_positive(value, name: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}.")
    return float(value)


def check_lam(lam) -> float:
    """λ, the weight of the clustering loss: a finite number >= 0."""
    if (
        isinstance(lam, bool)
        or not isinstance(lam, (int, float, np.integer, np.floating))
        or not math.isfinite(lam)
        or lam < 0
    ):
        raise ValueError(
            f"lam (λ, the weight of the clustering loss) must be a finite number >= 0, got {lam!r}."
        )
    return float(lam)


def check_callbacks(progress, stop) -> None:
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable progress(done, total) or None.")
    if stop is not None and not callable(stop):
        raise ValueError(
            "stop must be a callable returning True to stop (e.g. threading.Event().is_set) or None."
        )


class RunSettings(NamedTuple):
    """A trainer's checked common arguments."""

    kind: str
    torch_dtype: torch.dtype
    seed: int
    lam: float
    lr: float
    snapshot_every: int


def check_run(kind, dtype, seed, lam, lr, snapshot_every, progress, stop) -> RunSettings:
    """The arguments every trainer takes, each checked with its message (callbacks: callable or None)."""
    settings = RunSettings(
        kind=check_train_kind(kind),
        torch_dtype=check_dtype(dtype),
        seed=check_int(seed, "seed", 0, 2**32 - 1),
        lam=check_lam(lam),
        lr=check_positive(lr, "lr"),
        snapshot_every=check_int(snapshot_every, "snapshot_every", 0),
    )
    check_callbacks(progress, stop)
    return settings


def schedule_ends(sigma_start: float, sigma_end: float | None) -> tuple[float, float]:
    """(σ_start, σ_end) checked, σ_end defaulting to σ_start / SIGMA_END_RATIO."""
    sigma_start = check_sigma(sigma_start, "sigma_start")
    sigma_end = sigma_start / SIGMA_END_RATIO if sigma_end is None else check_sigma(sigma_end, "sigma_end")
    return sigma_start, sigma_end


@contextlib.contextmanager
def seeded(seed: int):
    """Seed torch's global generator inside the block (module initialisers use it), restore it after."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def grad_norm(params) -> float:
    """Euclidean norm of all gradients of ``params`` together (0.0 if none has a gradient; NaN stays NaN)."""
    norms = [p.grad.detach().double().norm() for p in params if p.grad is not None]
    return float(torch.stack(norms).norm()) if norms else 0.0


def guarded_step(optimizer: torch.optim.Optimizer, loss: torch.Tensor, groups: dict) -> tuple[bool, dict]:
    """Backward + step unless the loss or a gradient is non-finite. Returns (finite, gradient norms by group).

    groups: {"name": [parameters]} for the norms that are reported (e.g. encoder, centres, read-out).
    """
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norms = {name: grad_norm(params) for name, params in groups.items()}
    finite = math.isfinite(float(loss.detach())) and all(math.isfinite(v) for v in norms.values())
    if finite:
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return finite, norms


def append_row(history: dict, **values) -> None:
    """Append one value to each named column of a history dict of lists."""
    for key, value in values.items():
        history[key].append(value)


def should_stop(stop: StopFn | None) -> bool:
    return bool(stop()) if stop is not None else False
