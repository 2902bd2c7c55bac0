"""Cached computations of the "How many clusters?" view (all the maths is in rbfviz.choose_k).

The three answers are computed once per (data, k_max, precision) and shared read-only between
sessions, under one progress bar the first time: the annealing run walks ~60 σ levels, the K-Means
sweep fits k_max models. They live in a bounded store (rbfviz.bounded_store), not st.cache_data, because
Streamlit would replay a cached function's progress-bar updates on every hit.

* ``default_k_max(k, n)``  the suggested number of centres: max(8, 2k), at most n − 1 and K_MAX_CAP
* ``answers(ctrl, k_max)`` HowMany: the annealing answer, the K-Means sweep and its silhouettes
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from rbfviz import choose_k
from rbfviz.bounded_store import BoundedStore

from . import compute, language
from .progress import in_stages, while_waiting

# The largest k_max offered: the staircase, J(k) and the silhouette stay readable, and a sweep stays
# a few seconds long.
K_MAX_CAP = 16
# Deterministic annealing is softmax's (the Gibbs distribution); entmax's first split depends on how
# many centres are stacked, which would move the window's top as k_max changes.
ANNEAL_KIND = "softmax"
N_INIT = 4


def default_k_max(k: int, n: int) -> int:
    """max(8, 2k) centres, but at most n − 1 and K_MAX_CAP (and at least choose_k.K_MAX_MIN)."""
    return max(choose_k.K_MAX_MIN, min(max(8, 2 * int(k)), int(n) - 1, K_MAX_CAP))


def k_max_limit(n: int) -> int:
    """The largest k_max for n points."""
    return max(choose_k.K_MAX_MIN, min(int(n) - 1, K_MAX_CAP))


@dataclass(frozen=True)
class HowMany:
    """annealing: choose_k.AnnealingAnswer. sweep: choose_k.KMeansSweep for k = 1 … k_max.
    silhouette: (k_max,) mean silhouette per k of the sweep (NaN at k = 1). elbow, best: the answers
    (None when there is none). sampled: the silhouette used a subsample of this many points (or None)."""

    annealing: choose_k.AnnealingAnswer
    sweep: choose_k.KMeansSweep
    silhouette: np.ndarray
    elbow: int | None
    best: int | None
    sampled: int | None


@st.cache_resource(ttl=compute.TTL, show_spinner=False)
def _store():
    return BoundedStore(max_entries=24)


def answers_key(ctrl, k_max: int) -> tuple:
    """The setting ``answers(ctrl, k_max)`` is computed and stored for."""
    return (compute._key(ctrl), int(k_max), ctrl.dtype)


def answers_ready(ctrl, k_max: int) -> bool:
    """``answers(ctrl, k_max)`` is already computed (by any session) and would be shown at once."""
    return _store().get(answers_key(ctrl, k_max)) is not None


def answers(ctrl, k_max: int) -> HowMany:
    """The three answers for ctrl's data and precision with k_max centres (seeded by ctrl.seed)."""
    key = answers_key(ctrl, k_max)
    tr = language.current()

    def three_answers(X, annealing_progress, sweep_progress, silhouette_progress):
        annealing = choose_k.annealing_answer(
            X, k_max, kind=ANNEAL_KIND, seed=ctrl.seed, progress=annealing_progress
        )
        sweep = choose_k.kmeans_sweep(X, k_max, seed=ctrl.seed, n_init=N_INIT, progress=sweep_progress)
        silhouette_progress(0, 1)
        silhouette = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=ctrl.seed)
        for array in (annealing.sigmas, annealing.counts, sweep.ks, sweep.inertia, sweep.labels, silhouette):
            array.setflags(write=False)
        return HowMany(
            annealing=annealing,
            sweep=sweep,
            silhouette=silhouette,
            elbow=choose_k.elbow(sweep.ks, sweep.inertia),
            best=choose_k.best_silhouette(sweep.ks, silhouette),
            sampled=choose_k.SILHOUETTE_SAMPLE if X.shape[0] > choose_k.SILHOUETTE_SAMPLE else None,
        )

    def in_worker():
        X, _ = compute.data(ctrl)
        # in a worker under one bar over the three stages: a click (Cancel) ends the page's run at once,
        # and the work at its next report; an interrupted computation stores nothing
        return in_stages(
            [
                tr("annealing {k_max} centres from the data mean, once per setting: σ level", k_max=k_max),
                tr("K-Means for every k, once per setting: k"),
                tr("the silhouettes"),
            ],
            lambda *reports: three_answers(X, *reports),
        )

    with while_waiting() as waiting:
        return _store().get_or_compute(key, in_worker, waiting)
