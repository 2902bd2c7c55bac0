"""Cached computations for the pages, keyed by small plain parameters; all the maths is in rbfviz.

Every cached function takes strings and numbers only, or small frozen keys made of them (``DataKey``:
the data set; ``StartKey``: the starting centres), never arrays or tensors (Streamlit would hash them
slowly, sample large ones, or refuse tensors), and builds its arrays inside. Caches are bounded
(``max_entries``, ``ttl``): every student creates keys.

* ``data(ctrl)``            X (n, 2) in the chosen dtype, y (n,); generated, or the session's upload
* ``read_upload(...)``      an uploaded file's bytes -> rbfviz.LoadedPoints or its DataError
* ``scale(ctrl)``           the σ range of the data (rbfviz.views.explorer.arrays.SigmaScale)
* ``start(ctrl)``           the starting centres of the chosen init (None for "anneal")
* ``annealing(ctrl)``       the annealing path on the σ grid: computed once per (data, k, kind,
                            dtype) with a progress bar, then every σ on the slider reuses it
* ``centers_at(ctrl)``      the current centres at σ, with the K-Means centroids from the same start
* ``plane_view(ctrl)``      the Explorer's arrays and numbers at σ (``explore.plane_at``: the
                            points are checked once per σ); ``plane_views`` at every σ, with the
                            fields, for the payload (one cache lookup per setting, not per σ)
* ``field_now(...)``        the soft field over the plane (rbfviz.field.Field), uncached

A scrubbable view's payload at every σ is ui.scrub_parts.scrub_payload; progress bars are ui.progress.
The caches hold numbers only, the same for every language: a computation that may take a while says so
under ``_spinner`` in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from rbfviz import field as fieldmod
from rbfviz import measures
from rbfviz.bounded_store import BoundedStore
from rbfviz.datasets import make_dataset
from rbfviz.drawn import decode_points
from rbfviz.i18n import N_, Invalid, translator
from rbfviz.loader import DataError, load_points
from rbfviz.steps import kmeans
from rbfviz.validate import check_points
from rbfviz.views.explorer import arrays as explore
from rbfviz.views.explorer.picks import picked_centers
from rbfviz.views.explorer.placed import placed_centers

from . import language
from . import session_keys as keys
from .progress import in_stages, in_worker, while_waiting
from .state import DRAWN, UPLOAD

TTL = 3600  # seconds

# --- data -----------------------------------------------------------------------------------------
#
# Generated data are rebuilt from their parameters inside each cached function. Uploaded points have
# no parameters: a session's upload is registered in a small process-wide store under the hash of
# its points, and every cache keys on that hash ("upload:<hash>" in place of the dataset name), so
# the same file gives the same results for everybody and a different file can never hit them.

UPLOAD_PREFIX = f"{UPLOAD}:"
DRAWN_PREFIX = f"{DRAWN}:"  # a drawn data set's DataKey: "drawn:<its text>" (rbfviz.drawn)


@dataclass(frozen=True)
class DataKey:
    """What fixes a data set, as the caches' key: (dataset, n, noise, seed); an upload's dataset is
    "upload:<hash of its points>". Frozen and made of a str, ints and a float, so st.cache_data hashes it
    by value (field by field) and the stores use it as a dict key."""

    dataset: str
    n: int
    noise: float
    seed: int

    def points(self, dtype: str):
        """(X (n, 2) in dtype, y (n,)), cached."""
        return _data(self, dtype)


@dataclass(frozen=True)
class StartKey:
    """What fixes the starting centres: the data, k, the init, the precision and, for init "custom", the
    first k picks (``Controls.start_picks``); for init "placed", the first k placed centres
    (``Controls.start_placed``)."""

    data: DataKey
    k: int
    init: str
    dtype: str
    picks: tuple = ()
    placed: tuple = ()

    @classmethod
    def of(cls, ctrl, init: str | None = None) -> "StartKey":
        """ctrl's start, or the start of ``init`` on ctrl's data (picks only count for "custom")."""
        init = ctrl.init if init is None else init
        own = init == ctrl.init
        return cls(
            _key(ctrl),
            ctrl.k,
            init,
            ctrl.dtype,
            ctrl.start_picks() if own else (),
            ctrl.start_placed() if own else (),
        )


def _spinner(text: str):
    """Streamlit's spinner of a cached computation (shown after half a second), ``text`` in the reader's
    language: the caches' own ``show_spinner`` text would be one language for everybody."""
    return st._main.spinner(text, _cache=True)


def read_upload(file_digest: str, columns: tuple | None, data: bytes):
    """rbfviz.LoadedPoints for the file whose bytes hash to file_digest, or its DataError (shown with
    rbfviz.i18n.explain). At least 2 points (the smallest k)."""
    tr = language.current()
    with _spinner(tr("Reading the file…")):
        return _read_upload(file_digest, columns, data)


@st.cache_data(max_entries=32, ttl=TTL, show_spinner=False)
def _read_upload(file_digest: str, columns: tuple | None, _data: bytes):
    """Cached on (hash, columns): the bytes themselves are not hashed again. Errors are cached too,
    so a rejected file is not parsed again on every rerun."""
    try:
        return load_points(_data, columns=columns, k=2)
    except DataError as err:
        return err


@st.cache_resource(ttl=TTL, show_spinner=False)
def _upload_store() -> BoundedStore:
    return BoundedStore(max_entries=64)


def points_digest(X) -> str:
    """A content hash of points (shape, dtype and bytes): the cache key of an upload."""
    import hashlib

    X = np.ascontiguousarray(X)
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{X.shape}{X.dtype.str}".encode())
    h.update(X.tobytes())
    return h.hexdigest()


def _key(ctrl) -> DataKey:
    """ctrl's DataKey, after making sure an uploaded data set is in the store the caches read from."""
    if ctrl.dataset == UPLOAD:
        upload = st.session_state.get(keys.UPLOAD)
        if upload is None or upload.digest != ctrl.upload:
            raise Invalid(
                "the uploaded points are not in this session any more; upload the file again "
                "under Your own data in the sidebar."
            )
        _upload_store().put(upload.digest, upload.X)
    return DataKey(*ctrl.data_key())


def _uploaded(dataset: str) -> np.ndarray:
    X = _upload_store().get(dataset[len(UPLOAD_PREFIX) :])
    if X is None:
        raise Invalid("the uploaded points are no longer in the server's memory; upload the file again.")
    return X


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _data(key: DataKey, dtype: str):
    if key.dataset.startswith(DRAWN_PREFIX):
        X = decode_points(key.dataset[len(DRAWN_PREFIX) :]).astype(dtype)
        return X, np.zeros(X.shape[0], dtype=np.int64)
    if key.dataset.startswith(UPLOAD_PREFIX):
        # a writable copy in the view's dtype (the stored points are read-only and shared)
        X = check_points(
            np.array(_uploaded(key.dataset), dtype=dtype, order="C"), "the uploaded points in " + dtype
        )
        return X, np.zeros(X.shape[0], dtype=np.int64)
    X, y = make_dataset(key.dataset, key.n, key.noise, key.seed)
    return np.ascontiguousarray(X, dtype=dtype), y


def data(ctrl):
    """(X (n, 2) in ctrl.dtype, y (n,) generating labels; zeros for uploaded points)."""
    return _key(ctrl).points(ctrl.dtype)


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _kmeans_pp(key: DataKey, k: int):
    X, _ = key.points("float64")
    return kmeans(X, k=k, seed=key.seed)


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _scale(key: DataKey, k: int):
    X, _ = key.points("float64")
    centers, _ = _kmeans_pp(key, k)
    return explore.sigma_scale(X, centers)


def scale(ctrl) -> explore.SigmaScale:
    """The σ range for ctrl's data and k. It does not depend on kind, dtype or init, so switching
    those keeps σ where it is. g_min is measured at the k-means++-seeded K-Means solution.

    Every full run asks for it (setup_page): one shared read-only object per setting, in front of
    st.cache_data, whose hit hashes the key and unpickles a copy (a sixth of a first open's script
    time, measured with py-spy)."""
    key = (_key(ctrl), ctrl.k)
    return _scale_store().get_or_compute(key, lambda: _read_only(_scale(*key)))


@st.cache_resource(ttl=TTL, show_spinner=False)
def _scale_store() -> BoundedStore:
    return BoundedStore(max_entries=64)


def _read_only(sigma_scale: explore.SigmaScale) -> explore.SigmaScale:
    sigma_scale.grid.setflags(write=False)  # shared by every session on this setting
    return sigma_scale


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _start(key: StartKey):
    X, _ = key.data.points(key.dtype)
    if key.init == "custom":
        return picked_centers(X, key.picks, key.k)
    if key.init == "placed":
        return placed_centers(key.placed, key.k, key.dtype)
    return explore.initial_centers(X, key.k, key.init, key.data.seed)


def start(ctrl):
    """Starting centres (k, 2) of ctrl.init in ctrl.dtype, or None for "anneal". For "custom": the
    first k picked points (ValueError saying how many more to pick if there are fewer); for "placed":
    the first k placed centres (likewise)."""
    return _start(StartKey.of(ctrl))


# --- the annealing path: computed once per setting, with a progress bar ----------------------------


# The process-wide stores (rbfviz.bounded_store.BoundedStore, one lock per key: 100 students asking at
# once compute once) stand in for st.cache_data where a computation reports progress: Streamlit would
# record progress-bar updates made inside a cached function and replay them on every cache hit.


@st.cache_resource(ttl=TTL, show_spinner=False)
def _annealing_store() -> BoundedStore:
    return BoundedStore(max_entries=24)


def _freeze(result):
    for value in vars(result).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return result


def annealing(ctrl):
    """The annealing path (rbfviz.annealing.AnnealResult) on the σ grid of ``scale(ctrl)``, from the data
    mean, for ctrl's data, k, kind and dtype. Shared read-only between sessions; computed with a
    progress bar the first time."""
    from rbfviz.annealing import anneal

    key = (_key(ctrl), ctrl.k, ctrl.kind, ctrl.dtype)

    def compute():
        X, _ = data(ctrl)
        grid = scale(ctrl).grid
        tr = language.current()
        # in a worker under a bar redrawn every tick: a click (Cancel) ends the page's run at once
        return in_stages(
            [tr("annealing from the data mean, once per setting: σ level")],
            lambda progress: _freeze(
                anneal(X, ctrl.k, grid, kind=ctrl.kind, init=None, seed=ctrl.seed, progress=progress)
            ),
        )

    with while_waiting() as waiting:
        return _annealing_store().get_or_compute(key, compute, waiting)


# --- the centres at σ ---------------------------------------------------------------------------


@st.cache_data(max_entries=256, ttl=TTL, show_spinner=False)
def _fixed_point(start: StartKey, kind: str, sigma: float):
    X, _ = start.data.points(start.dtype)
    centers, iterations, converged = explore.soft_fixed_point(X, _start(start), sigma, kind=kind)
    return centers, int(iterations), bool(converged)


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _kmeans_from(key: DataKey, dtype: str, start_bytes: bytes):
    """K-Means from a start given as bytes (float64, k×d) – small, so hashing it is cheap."""
    X, _ = key.points(dtype)
    start = np.frombuffer(start_bytes, dtype=np.float64).reshape(-1, X.shape[1]).copy()
    return measures.kmeans_reference(X, start)


def centers_at(ctrl) -> explore.CentersAtSigma:
    """The current centres at ctrl.sigma (a grid value) and the K-Means centroids from the same start."""
    if ctrl.init == "anneal":
        path = annealing(ctrl)
        level = scale(ctrl).index(ctrl.sigma)
        end = np.asarray(path.centers[-1], dtype=np.float64)
        if not np.isfinite(end).all():
            raise Invalid(
                "the annealing path ended in NaN centres (the naive map broke at small σ), so there "
                "is no K-Means start at its end; pick softmax or entmax-1.5, or another init."
            )
        km_centers, km_labels = _kmeans_from(_key(ctrl), ctrl.dtype, end.tobytes())
        return explore.CentersAtSigma(
            centers=np.array(path.centers[level]),
            kmeans_centers=km_centers,
            kmeans_labels=km_labels,
            start=None,
            iterations=int(path.iterations[level]),
            converged=bool(path.converged[level]),
            source=explore.centres_source(ctrl.init),
        )
    key = StartKey.of(ctrl)
    C0 = _start(key)
    tr = translator(ctrl.lang)
    with _spinner(tr("Finding the soft fixed point at this σ…")):
        centers, iterations, converged = _fixed_point(key, ctrl.kind, float(ctrl.sigma))
    km_centers, km_labels = _kmeans_from(key.data, ctrl.dtype, np.asarray(C0, dtype=np.float64).tobytes())
    return explore.CentersAtSigma(
        centers=centers,
        kmeans_centers=km_centers,
        kmeans_labels=km_labels,
        start=C0,
        iterations=iterations,
        converged=converged,
        source=explore.centres_source(ctrl.init),
    )


# --- the plane ------------------------------------------------------------------------------------


def _plane_at(ctrl, X, field_of) -> explore.PlaneView:
    """The Explorer's data at ctrl.sigma, kept for ``plane_at_sigma``; field_of(ctrl, centers) draws the
    field (or gives None)."""
    view = explore.plane_from(
        X,
        centers_at(ctrl),
        ctrl.sigma,
        ctrl.kind,
        ctrl.dtype,
        ctrl.k,
        lambda centers: field_of(ctrl, centers),
    )
    _keep_numbers(ctrl, view)
    return view


def _keep_numbers(ctrl, view: explore.PlaneView) -> None:
    """Keep the view at ctrl.sigma, without r and the field, for ``plane_at_sigma`` (not where the
    annealing path's centres are NaN: that view is cheap to compute again)."""
    if view.centers is not None:
        _levels_store().put(_level_key(ctrl), replace(view, resp=None, field=None))


# The numbers at each σ, kept as the payload's levels are computed (``plane_views``), so a settled σ
# reads them instead of computing them again. Small: no field and no r (n, k), which only a points
# download needs (``resp_at``). 240 levels: the whole σ grid of a few settings.
@st.cache_resource(ttl=TTL, show_spinner=False)
def _levels_store() -> BoundedStore:
    return BoundedStore(max_entries=240)


def _level_key(ctrl) -> tuple:
    return (StartKey.of(ctrl), ctrl.kind, float(ctrl.sigma))


def plane_at_sigma(ctrl) -> explore.PlaneView:
    """The Explorer's numbers at ctrl.sigma as ``plane_view`` gives them, but without r and the field
    (both None): the level the payload computed, or computed now and kept if it was not."""
    found = _levels_store().get(_level_key(ctrl))
    if found is None:
        found = replace(_plane_at(ctrl, data(ctrl)[0], lambda *args: None), resp=None)
    return found


def resp_at(view: explore.PlaneView, ctrl):
    """r (n, k) of ``plane_at_sigma``'s view: what ``plane_view`` gives, computed again (a download)."""
    if view.numbers is None:  # the annealing path's centres are NaN here
        return np.full((view.X.shape[0], ctrl.k), np.nan)
    return explore.plane_at(view.X, view.centers, ctrl.sigma, ctrl.kind, view.info.kmeans_labels)[0]


def plane_view(ctrl, quantity: str = "max") -> explore.PlaneView:
    """The Explorer's data at ctrl.sigma, without the field (None; ``field_now`` draws it when the
    figure is downloaded). If EM's centres are NaN (the naive map broke), the plane is shown at the
    starting centres instead and ``note`` says so."""
    return _plane_at(ctrl, data(ctrl)[0], lambda *args: None)


def field_now(ctrl, centers, extent, quantity: str) -> fieldmod.Field:
    """The soft field at ctrl.sigma, computed now and not cached (no session needed)."""
    return fieldmod.soft_field(
        extent, centers, ctrl.sigma, kind=ctrl.kind, quantity=quantity, dtype=ctrl.dtype
    )


def _centers_at_every_sigma(ctrl, grid, progress=None) -> list[explore.CentersAtSigma]:
    """``centers_at`` at every σ of ``grid``, the same numbers, with one cache lookup per setting
    instead of one per σ (EM runs from the start at each σ, as ``_fixed_point`` does, every level
    together: ``explore.soft_fixed_points``)."""
    if ctrl.init == "anneal":
        infos = [centers_at(replace(ctrl, sigma=float(sigma))) for sigma in grid]
        if progress:
            progress(len(grid), len(grid))
        return infos
    key = StartKey.of(ctrl)
    X, _ = key.data.points(key.dtype)
    C0 = _start(key)
    km_centers, km_labels = _kmeans_from(key.data, ctrl.dtype, np.asarray(C0, dtype=np.float64).tobytes())
    source = explore.centres_source(ctrl.init)
    if progress is None:
        centers, iterations, converged = explore.soft_fixed_points(X, C0, grid, kind=ctrl.kind)
    else:  # in a worker: the caller's bar is redrawn while the EM runs, so a click (Cancel) lands at once
        centers, iterations, converged = in_worker(
            lambda report: explore.soft_fixed_points(X, C0, grid, kind=ctrl.kind, progress=report),
            progress,
            len(grid),
        )
    return [
        explore.CentersAtSigma(
            centers[i], km_centers, km_labels, C0, int(iterations[i]), bool(converged[i]), source
        )
        for i in range(len(grid))
    ]


def plane_views(ctrl, quantity: str = "max", progress=None, levels=None):
    """``plane_view`` at every σ of the grid, in grid order, with its field: a generator (the fields are
    not cached; they are computed ``explore.FIELD_LEVELS`` levels at a time, so only those levels' arrays
    are alive at once, plus what the caller keeps).
    progress(done, total) as the centres at each σ are found, all before the first level, then again
    (total, total) as each level is drawn.
    levels: only the σ at these positions of the grid (increasing), e.g. those near the σ on screen."""
    X, _ = data(ctrl)
    grid = scale(ctrl).grid
    if levels is not None:
        grid = grid[list(levels)]
    infos = _centers_at_every_sigma(ctrl, grid, progress)
    views = explore.plane_views(X, infos, grid, ctrl.kind, quantity, ctrl.dtype, ctrl.k)
    for sigma, view in zip(grid, views):
        _keep_numbers(replace(ctrl, sigma=float(sigma)), view)
        # the bar offered a redraw per level drawn too (throttled): a click (Cancel) lands between levels
        if progress:
            progress(len(grid), len(grid))
        yield view


# --- the Equivalence view ---------------------------------------------------------------------------


def _step_key(ctrl) -> StartKey:
    """The start the Equivalence view steps from: ctrl's, k-means++ in place of "anneal" (``step_start``)."""
    return StartKey.of(ctrl, "kmeans++" if ctrl.init == "anneal" else ctrl.init)


def step_start(ctrl):
    """(start (k, 2) in ctrl.dtype, note or None) for the step and trajectory panels.

    Annealing has no single start to step from (all centres begin at the data mean, where a Lloyd
    step cannot separate them), so that init uses k-means++ seeding from the same seed here."""
    note = (
        N_(
            "Annealing starts every centre at the data mean, where one step shows nothing; this view "
            "starts from k-means++ seeding (same data seed) instead."
        )
        if ctrl.init == "anneal"
        else None
    )
    return _start(_step_key(ctrl)), note


@st.cache_data(max_entries=128, ttl=TTL, show_spinner=False)
def _equivalence(start: StartKey, kind: str, sigma: float, steps: int):
    from rbfviz.maps import responsibilities
    from rbfviz.views.equivalence import arrays as equivalence

    X, _ = start.data.points(start.dtype)
    C0 = _start(start)
    resp = responsibilities(X, C0, sigma, kind)
    return (
        equivalence.one_step(X, C0, sigma, kind),
        equivalence.trajectories(X, C0, sigma, kind, steps),
        resp,
    )


def equivalence_runs(ctrl, steps: int = 25):
    """(OneStep, Trajectories, resp at the start (n, k), note) at ctrl.sigma from ``step_start``."""
    _, note = step_start(ctrl)
    tr = translator(ctrl.lang)
    with _spinner(tr("Running gradient descent and Lloyd…")):
        one, traj, resp = _equivalence(_step_key(ctrl), ctrl.kind, float(ctrl.sigma), steps)
    return one, traj, resp, note


def steps_at_every_sigma(ctrl, progress=None):
    """(OneStep, resp at the start (n, k)) at every σ of the grid from ``step_start``, one at a time."""
    from rbfviz.maps import responsibilities
    from rbfviz.views.equivalence import arrays as equivalence

    key = _step_key(ctrl)
    X, _ = key.data.points(key.dtype)
    C0 = _start(key)
    grid = scale(ctrl).grid
    for i, sigma in enumerate(grid):
        yield (
            equivalence.one_step(X, C0, float(sigma), ctrl.kind),
            responsibilities(X, C0, float(sigma), ctrl.kind),
        )
        if progress:
            progress(i + 1, len(grid))


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _gap_curve(key: DataKey, k: int, kind: str, dtype: str):
    from rbfviz.views.equivalence import arrays as equivalence

    X, _ = key.points(dtype)
    centers, _ = _kmeans_pp(key, k)
    grid = _scale(key, k).grid
    return equivalence.gap_curve(X, centers, grid, kind)


def gap_curve(ctrl):
    """L_σ − J and its bound over the σ grid, at the K-Means centroids (k-means++ seeded)."""
    return _gap_curve(_key(ctrl), ctrl.k, ctrl.kind, ctrl.dtype)


# --- the Annealing and Stability views ------------------------------------------------------------


@st.cache_resource(ttl=TTL, show_spinner=False)
def _collapse_store() -> BoundedStore:
    return BoundedStore(max_entries=24)


def annealing_view(ctrl):
    """The Annealing view's arrays (rbfviz.views.annealing.arrays.AnnealingView) for ctrl's data, k, kind and
    dtype: ``collapse_study`` on the σ grid of ``scale(ctrl)`` (anneal from the data mean, K-Means from
    the end point, E(σ) from C*), computed once per setting with a progress bar and shared read-only
    between sessions. Its annealing path is the one ``annealing(ctrl)`` computes (same call), so it is
    handed to that store too."""
    from rbfviz.collapse import collapse_study
    from rbfviz.views.annealing.arrays import annealing_view as build_view

    key = annealing_view_key(ctrl)

    def compute():
        X, _ = data(ctrl)
        grid = scale(ctrl).grid

        def work(collapse_progress, splits_progress):
            study = collapse_study(
                X, ctrl.k, ctrl.kind, ctrl.dtype, grid, seed=ctrl.seed, progress=collapse_progress
            )
            return study, build_view(study, X, progress=splits_progress)

        tr = language.current()
        # in a worker under one bar over both stages: a click (Cancel) ends the page's run at once, and
        # the work at its next report; an interrupted computation stores nothing
        study, view = in_stages(
            [
                tr("annealing and measuring the collapse, once per setting: step"),
                tr("predicting each split: split"),
            ],
            work,
        )
        _annealing_store().get_or_compute(key, lambda: _freeze(study.path))
        return _freeze(view)

    with while_waiting() as waiting:
        return _collapse_store().get_or_compute(key, compute, waiting)


def annealing_view_key(ctrl) -> tuple:
    """The setting ``annealing_view(ctrl)`` is computed and stored for."""
    return (_key(ctrl), ctrl.k, ctrl.kind, ctrl.dtype)


def annealing_view_ready(ctrl) -> bool:
    """``annealing_view(ctrl)`` is already computed (by any session) and would be shown at once."""
    return _collapse_store().get(annealing_view_key(ctrl)) is not None


def kmeans_centroids(ctrl):
    """The K-Means centroids (k, 2), float64, k-means++ seeded: the ones the σ range is derived from."""
    centers, _ = _kmeans_pp(_key(ctrl), ctrl.k)
    return centers


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _stability(key: DataKey, k: int):
    from rbfviz import measures
    from rbfviz.views.stability import arrays as stability_views

    X, _ = key.points("float64")
    centers, _ = _kmeans_pp(key, k)
    grid = _scale(key, k).grid
    rows = stability_views.stability_table(X, centers, grid)
    predicted = {
        dtype: measures.predicted_fractions(X, centers, grid, dtype) for dtype in ("float64", "float32")
    }
    nan_sigmas = {dtype: measures.naive_nan_sigmas(X, centers, dtype) for dtype in ("float64", "float32")}
    return rows, predicted, nan_sigmas


def stability(ctrl):
    """(rows of rbfviz.views.stability.arrays.stability_table, predicted fractions per dtype, naive NaN σ per
    dtype (first, all)) over the σ grid at ``kmeans_centroids(ctrl)``; every map, both dtypes."""
    tr = translator(ctrl.lang)
    with _spinner(tr("Measuring every map in float32 and float64 across σ…")):
        return _stability(_key(ctrl), ctrl.k)


@st.cache_data(max_entries=128, ttl=TTL, show_spinner=False)
def _stability_plane(key: DataKey, k: int, dtype: str, sigma: float):
    from rbfviz.views.stability import arrays as stability_views

    X, _ = key.points("float64")
    centers, _ = _kmeans_pp(key, k)
    return stability_views.stability_plane(X, centers, sigma, dtype)


def stability_planes(ctrl, progress=None):
    """``stability_plane`` at every σ of the grid (``stability_planes``: the σ-free distances once), in grid
    order; not cached one by one."""
    from rbfviz.views.stability import arrays as stability_views

    X, _ = _key(ctrl).points("float64")
    centers = kmeans_centroids(ctrl)
    grid = scale(ctrl).grid
    planes = stability_views.stability_planes(X, centers, grid, ctrl.dtype)
    if progress:
        progress(len(grid), len(grid))
    return planes


def stability_plane(ctrl):
    """rbfviz.views.stability.arrays.StabilityPlane at ctrl.sigma in ctrl.dtype, at
    ``kmeans_centroids(ctrl)``."""
    return _stability_plane(_key(ctrl), ctrl.k, ctrl.dtype, float(ctrl.sigma))


# --- the Step-by-step view --------------------------------------------------------------------------


@st.cache_data(max_entries=32, ttl=TTL, show_spinner=False)
def _stepper(start: StartKey, kind: str, sigma: float, steps: str, sigmas: tuple, _prefix=None):
    from rbfviz.views.step_by_step import arrays as stepper

    X, _ = start.data.points(start.dtype)
    run = stepper.replay(X, _start(start), sigma, kind, steps, prefix=_prefix)
    return run, stepper.compare_with_lloyd(X, run, sigma, kind, sigmas)


def stepper_replay(ctrl, sigmas):
    """(rbfviz.views.step_by_step.arrays.Replay of ctrl.steps from ``step_start`` at ctrl.sigma, its
    LloydComparison at σ and at each σ of ``sigmas``, note or None). Cached per (start, map, σ, steps,
    sigmas), so a shared link is replayed once per server; a new step continues the session's last
    replay when it is a beginning of this one."""
    _, note = step_start(ctrl)
    setting = (_step_key(ctrl), ctrl.kind, float(ctrl.sigma))
    last_setting, last = st.session_state.get(keys.LAST_REPLAY, (None, None))
    prefix = last if last_setting == setting and ctrl.steps.startswith(last.steps) else None
    run, comparison = _stepper(*setting, ctrl.steps, tuple(float(s) for s in sigmas), _prefix=prefix)
    st.session_state[keys.LAST_REPLAY] = (setting, run)
    return run, comparison, note
