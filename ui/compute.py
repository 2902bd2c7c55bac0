"""Cached computations for the pages, keyed by small plain parameters; all the maths is in rbfviz.

Every cached function takes strings and numbers only, or small frozen keys made of them (``DataKey``:
the data set; ``StartKey``: the starting centres), never arrays or tensors (Streamlit would hash them
slowly, sample large ones, or refuse tensors), and builds its arrays inside. Caches are bounded
(``max_entries``, ``ttl``): every student creates keys.

* ``data(ctrl)``            X (n, 2) in the chosen dtype, y (n,); generated, or the session's upload
* ``read_upload(...)``      an uploaded file's bytes -> rbfviz.LoadedPoints or the DataError message
* ``scale(ctrl)``           the σ range of the data (rbfviz.views.explorer.arrays.SigmaScale)
* ``start(ctrl)``           the starting centres of the chosen init (None for "anneal")
* ``annealing(ctrl)``       the annealing path on the σ grid: computed once per (data, k, kind,
                            dtype) with a progress bar, then every σ on the slider reuses it
* ``centers_at(ctrl)``      the current centres at σ, with the K-Means centroids from the same start
* ``plane_view(ctrl)``      the Explorer's arrays and numbers at σ (``explore.plane_at``: the
                            points are checked once per σ); ``plane_views`` at every σ, with the
                            fields, for the payload (one cache lookup per setting, not per σ)
* ``field_now(...)``        the soft field over the plane (rbfviz.field.Field), uncached
* ``scrub_payload(...)``    a scrubbing view's payload at every σ, once per setting, shared
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from rbfviz import field as fieldmod
from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.loader import DataError, load_points
from rbfviz.steps import kmeans
from rbfviz.validate import check_points
from rbfviz.views.common.scrub import ScrubLevel
from rbfviz.views.explorer import arrays as explore
from rbfviz.views.explorer.picks import picked_centers

from .state import UPLOAD, UPLOAD_KEY

TTL = 3600  # seconds

# --- data -----------------------------------------------------------------------------------------
#
# Generated data are rebuilt from their parameters inside each cached function. Uploaded points have
# no parameters: a session's upload is registered in a small process-wide store under the hash of
# its points, and every cache keys on that hash ("upload:<hash>" in place of the dataset name), so
# the same file gives the same results for everybody and a different file can never hit them.

UPLOAD_PREFIX = f"{UPLOAD}:"


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
    first k picks (``Controls.start_picks``)."""

    data: DataKey
    k: int
    init: str
    dtype: str
    picks: tuple = ()

    @classmethod
    def of(cls, ctrl, init: str | None = None) -> "StartKey":
        """ctrl's start, or the start of ``init`` on ctrl's data (picks only count for "custom")."""
        init = ctrl.init if init is None else init
        return cls(_key(ctrl), ctrl.k, init, ctrl.dtype, ctrl.start_picks() if init == ctrl.init else ())


@st.cache_data(max_entries=32, ttl=TTL, show_spinner="Reading the file…")
def read_upload(file_digest: str, columns: tuple | None, _data: bytes):
    """rbfviz.LoadedPoints for the file whose bytes hash to file_digest, or the DataError message (str).

    Cached on (hash, columns): the bytes themselves are not hashed again. Errors are cached too,
    so a rejected file is not parsed again on every rerun. At least 2 points (the smallest k).
    """
    try:
        return load_points(_data, columns=columns, k=2)
    except DataError as err:
        return str(err)


@st.cache_resource(ttl=TTL, show_spinner=False)
def _upload_store() -> "_BoundedStore":
    return _BoundedStore(max_entries=64)


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
        upload = st.session_state.get(UPLOAD_KEY)
        if upload is None or upload.digest != ctrl.upload:
            raise ValueError(
                "the uploaded points are not in this session any more; upload the file again "
                "under Your own data in the sidebar."
            )
        _upload_store().put(upload.digest, upload.X)
    return DataKey(*ctrl.data_key())


def _uploaded(dataset: str) -> np.ndarray:
    X = _upload_store().get(dataset[len(UPLOAD_PREFIX) :])
    if X is None:
        raise ValueError("the uploaded points are no longer in the server's memory; upload the file again.")
    return X


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _data(key: DataKey, dtype: str):
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
def _scale_store() -> "_BoundedStore":
    return _BoundedStore(max_entries=64)


def _read_only(sigma_scale: explore.SigmaScale) -> explore.SigmaScale:
    sigma_scale.grid.setflags(write=False)  # shared by every session on this setting
    return sigma_scale


@st.cache_data(max_entries=64, ttl=TTL, show_spinner=False)
def _start(key: StartKey):
    X, _ = key.data.points(key.dtype)
    if key.init == "custom":
        return picked_centers(X, key.picks, key.k)
    return explore.initial_centers(X, key.k, key.init, key.data.seed)


def start(ctrl):
    """Starting centres (k, 2) of ctrl.init in ctrl.dtype, or None for "anneal". For "custom": the
    first k picked points (ValueError saying how many more to pick if there are fewer)."""
    return _start(StartKey.of(ctrl))


# --- the annealing path: computed once per setting, with a progress bar ----------------------------


class _BoundedStore:
    """A small thread-safe LRU dict with one lock per key (100 students asking at once compute once).

    Used instead of st.cache_data where the computation reports progress: Streamlit would record
    progress-bar updates made inside a cached function and replay them on every cache hit.
    """

    def __init__(self, max_entries: int, max_bytes: int | None = None):
        self.max_entries = max_entries
        self.max_bytes = max_bytes  # for bytes values: their total length, the newest always kept
        self._items: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._key_locks: dict = {}

    def get(self, key):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def put(self, key, value) -> None:
        with self._lock:
            self._bytes -= _size(self._items.get(key))
            self._items[key] = value
            self._items.move_to_end(key)
            self._bytes += _size(value)
            while len(self._items) > 1 and (
                len(self._items) > self.max_entries
                or (self.max_bytes is not None and self._bytes > self.max_bytes)
            ):
                old, dropped = self._items.popitem(last=False)
                self._bytes -= _size(dropped)
                self._key_locks.pop(old, None)

    def discard(self, key) -> None:
        with self._lock:
            self._bytes -= _size(self._items.pop(key, None))

    def key_lock(self, key) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())

    def get_or_compute(self, key, compute):
        """The stored value for key, or ``compute()`` stored under it; computed once however many
        sessions ask at the same time (the others wait on the key's lock, then find it stored)."""
        value = self.get(key)
        if value is not None:
            return value
        with self.key_lock(key):
            value = self.get(key)
            if value is None:
                value = compute()
                self.put(key, value)
            return value


def _size(value) -> int:
    """What a stored value counts against a store's max_bytes: a bytes value's length, else 0."""
    return len(value) if isinstance(value, bytes) else 0


# The placeholder progress bars are drawn in, when a block has reserved one (``progress_slot``).
_PROGRESS_SLOT: contextvars.ContextVar = contextvars.ContextVar("progress_slot", default=None)


@contextlib.contextmanager
def progress_slot():
    """Reserve one placeholder, here and on every run, for the progress bars drawn inside the block.

    A bar drawn in place takes a position in its container only on the runs that compute, so every
    element after it moves one place down on those runs; Streamlit then mounts a moved element anew
    (a custom component loses its DOM and the keyboard focus). In the slot, the positions stay put."""
    token = _PROGRESS_SLOT.set(st.empty())
    try:
        yield
    finally:
        _PROGRESS_SLOT.reset(token)


def _progress_bar(text: str):
    """A progress bar at 0 showing ``text``, in the block's ``progress_slot`` if it has one, else in place."""
    slot = _PROGRESS_SLOT.get()
    return (st if slot is None else slot).progress(0.0, text=text)


def _with_progress_bar(text: str, work):
    """Run ``work(progress)`` under a progress bar; progress(done, total) moves it. The bar goes away
    afterwards, whether the work succeeded or not. It is drawn in the block's ``progress_slot`` if it
    has one, else in place."""
    bar = _progress_bar(f"{text}…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{text}: {done} of {total}…")

    try:
        return work(progress)
    finally:
        bar.empty()


@st.cache_resource(ttl=TTL, show_spinner=False)
def _annealing_store() -> _BoundedStore:
    return _BoundedStore(max_entries=24)


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
        return _with_progress_bar(
            "Annealing from the data mean, once per setting: σ level",
            lambda progress: _freeze(
                anneal(X, ctrl.k, grid, kind=ctrl.kind, init=None, seed=ctrl.seed, progress=progress)
            ),
        )

    return _annealing_store().get_or_compute(key, compute)


# --- the centres at σ ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CentersAtSigma:
    """The current centres at σ and their K-Means reference.

    centers (k, 2) in ctrl.dtype: the soft fixed point at σ (from the annealing path, or EM from
    the chosen start). kmeans_centers (k, 2), kmeans_labels (n,): scikit-learn Lloyd from the same
    start (for "anneal": from the path's last, smallest-σ centres), so centre j and centroid j
    belong to the same cluster j. start: the starting centres (None for "anneal").
    iterations/converged: how EM ended at this σ. source: one sentence for the page.
    """

    centers: np.ndarray
    kmeans_centers: np.ndarray
    kmeans_labels: np.ndarray
    start: np.ndarray | None
    iterations: int
    converged: bool
    source: str


@st.cache_data(max_entries=256, ttl=TTL, show_spinner="Finding the soft fixed point at this σ…")
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


_START_NAMES = {"custom": "picked-points"}


def centers_at(ctrl) -> CentersAtSigma:
    """The current centres at ctrl.sigma (a grid value) and the K-Means centroids from the same start."""
    if ctrl.init == "anneal":
        path = annealing(ctrl)
        level = scale(ctrl).index(ctrl.sigma)
        end = np.asarray(path.centers[-1], dtype=np.float64)
        if not np.isfinite(end).all():
            raise ValueError(
                "the annealing path ended in NaN centres (the naive map broke at small σ), so there "
                "is no K-Means start at its end; pick softmax or entmax15, or another init."
            )
        km_centers, km_labels = _kmeans_from(_key(ctrl), ctrl.dtype, end.tobytes())
        return CentersAtSigma(
            centers=np.array(path.centers[level]),
            kmeans_centers=km_centers,
            kmeans_labels=km_labels,
            start=None,
            iterations=int(path.iterations[level]),
            converged=bool(path.converged[level]),
            source=f"annealing path from the data mean, level {level + 1} of {len(path.sigmas)}",
        )
    key = StartKey.of(ctrl)
    C0 = _start(key)
    centers, iterations, converged = _fixed_point(key, ctrl.kind, float(ctrl.sigma))
    km_centers, km_labels = _kmeans_from(key.data, ctrl.dtype, np.asarray(C0, dtype=np.float64).tobytes())
    return CentersAtSigma(
        centers=centers,
        kmeans_centers=km_centers,
        kmeans_labels=km_labels,
        start=C0,
        iterations=iterations,
        converged=converged,
        source=f"EM from the {_START_NAMES.get(ctrl.init, ctrl.init)} start to the soft "
        "fixed point at this σ",
    )


# --- the plane ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaneView:
    """Everything the Explorer draws at σ: centres shown, responsibilities, field, numbers, notes."""

    X: np.ndarray
    centers: np.ndarray
    kmeans_centers: np.ndarray
    resp: np.ndarray
    field: fieldmod.Field | None
    numbers: dict | None
    info: CentersAtSigma
    note: str | None


def _plane_at(ctrl, X, field_of) -> PlaneView:
    """The Explorer's data at ctrl.sigma; field_of(ctrl, centers) draws the field (or gives None)."""
    return _plane_from(ctrl, X, centers_at(ctrl), field_of)


def _shown_centers(info: CentersAtSigma) -> np.ndarray | None:
    """The centres the plane is drawn at: EM's, or the start where EM's are NaN (the naive map broke);
    None where there is no start either (the annealing path's centres are NaN)."""
    if np.isfinite(info.centers).all():
        return info.centers
    return info.start


def _plane_from(ctrl, X, info: CentersAtSigma, field_of, computed=None) -> PlaneView:
    """``_plane_at`` from the centres at ctrl.sigma, ``info``; computed: (r, numbers) at the centres
    shown, when ``explore.planes_at`` has them already."""
    centers, note = _shown_centers(info), None
    if centers is not info.centers:
        if centers is not None:
            note = (
                f"With the naive map at σ = {ctrl.sigma:.3g} the EM centres became NaN (0/0 after every "
                f"exp(z) of a row underflowed in {ctrl.dtype}), after {info.iterations} iteration(s). "
                f"The plane shows the naive map at the starting centres instead: grey = NaN."
            )
        else:
            return PlaneView(
                X,
                centers,
                info.kmeans_centers,
                np.full((X.shape[0], ctrl.k), np.nan),
                None,
                None,
                info,
                "The annealing path's centres are NaN at this σ (the naive map broke).",
            )
    if computed is None:
        computed = explore.plane_at(X, centers, ctrl.sigma, ctrl.kind, info.kmeans_labels)
    resp, numbers = computed
    view = PlaneView(X, centers, info.kmeans_centers, resp, field_of(ctrl, centers), numbers, info, note)
    _levels_store().put(_level_key(ctrl), replace(view, resp=None, field=None))
    return view


# The numbers at each σ, kept as the payload's levels are computed (``plane_views``), so a settled σ
# reads them instead of computing them again. Small: no field and no r (n, k), which only a points
# download needs (``resp_at``). 240 levels: the whole σ grid of a few settings.
@st.cache_resource(ttl=TTL, show_spinner=False)
def _levels_store() -> _BoundedStore:
    return _BoundedStore(max_entries=240)


def _level_key(ctrl) -> tuple:
    return (StartKey.of(ctrl), ctrl.kind, float(ctrl.sigma))


def plane_at_sigma(ctrl) -> PlaneView:
    """The Explorer's numbers at ctrl.sigma as ``plane_view`` gives them, but without r and the field
    (both None): the level the payload computed, or computed now and kept if it was not."""
    found = _levels_store().get(_level_key(ctrl))
    if found is None:
        found = replace(_plane_at(ctrl, data(ctrl)[0], lambda *args: None), resp=None)
    return found


def resp_at(view: PlaneView, ctrl):
    """r (n, k) of ``plane_at_sigma``'s view: what ``plane_view`` gives, computed again (a download)."""
    if view.numbers is None:  # the annealing path's centres are NaN here
        return np.full((view.X.shape[0], ctrl.k), np.nan)
    return explore.plane_at(view.X, view.centers, ctrl.sigma, ctrl.kind, view.info.kmeans_labels)[0]


def plane_view(ctrl, quantity: str = "max") -> PlaneView:
    """The Explorer's data at ctrl.sigma, without the field (None; ``field_now`` draws it when the
    figure is downloaded). If EM's centres are NaN (the naive map broke), the plane is shown at the
    starting centres instead and ``note`` says so."""
    return _plane_at(ctrl, data(ctrl)[0], lambda *args: None)


def field_now(ctrl, centers, extent, quantity: str) -> fieldmod.Field:
    """The soft field at ctrl.sigma, computed now and not cached (no session needed)."""
    return fieldmod.soft_field(
        extent, centers, ctrl.sigma, kind=ctrl.kind, quantity=quantity, dtype=ctrl.dtype
    )


def _centers_at_every_sigma(ctrl, grid, progress=None) -> list[CentersAtSigma]:
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
    source = f"EM from the {_START_NAMES.get(ctrl.init, ctrl.init)} start to the soft fixed point at this σ"
    centers, iterations, converged = explore.soft_fixed_points(X, C0, grid, kind=ctrl.kind, progress=progress)
    return [
        CentersAtSigma(centers[i], km_centers, km_labels, C0, int(iterations[i]), bool(converged[i]), source)
        for i in range(len(grid))
    ]


# The fields of this many σ levels are computed together (``rbfviz.field.soft_fields``): their arrays
# (float64 per pixel of each level) stay as small as a single field's were, since large temporaries freed
# into the server's heap would raise its memory for good after a class.
FIELD_LEVELS = 4
# The numbers beside the plot are computed for this many (level, centre, point) entries at a time
# (``explore.planes_at``): 256 kB per float64 array, however many points.
NUMBERS_PASS = 1 << 15


def plane_views(ctrl, quantity: str = "max", progress=None, levels=None):
    """``plane_view`` at every σ of the grid, in grid order, with its field: a generator (the fields are
    not cached; they are computed ``FIELD_LEVELS`` levels at a time, so only those levels' arrays are alive
    at once, plus what the caller keeps).
    progress(done, total) as the centres at each σ are found, all before the first level.
    levels: only the σ at these positions of the grid (increasing), e.g. those near the σ on screen."""
    X, _ = data(ctrl)
    grid = scale(ctrl).grid
    if levels is not None:
        grid = grid[list(levels)]
    extent = fieldmod.plane_extent(X, aspect=fieldmod.PLANE_ASPECT)  # the same at every σ
    infos = _centers_at_every_sigma(ctrl, grid, progress)
    for start in range(0, len(grid), FIELD_LEVELS):
        chunk = range(start, min(start + FIELD_LEVELS, len(grid)))
        shown = {i: _shown_centers(infos[i]) for i in chunk}
        drawn = [i for i in chunk if shown[i] is not None]
        fields, computed = {}, {}
        if drawn:  # every level of a setting has the same K-Means reference
            C = np.stack([shown[i] for i in drawn])
            fields = dict(
                zip(
                    drawn,
                    fieldmod.soft_fields(
                        extent, C, grid[drawn], kind=ctrl.kind, quantity=quantity, dtype=ctrl.dtype
                    ),
                )
            )
            per_pass = max(1, NUMBERS_PASS // (ctrl.k * X.shape[0]))
            for first in range(0, len(drawn), per_pass):
                part = drawn[first : first + per_pass]
                planes = explore.planes_at(
                    X, C[first : first + per_pass], grid[part], ctrl.kind, infos[part[0]].kmeans_labels
                )
                computed.update(zip(part, planes))
        for i in chunk:
            field = fields.get(i)
            yield _plane_from(
                replace(ctrl, sigma=float(grid[i])),
                X,
                infos[i],
                lambda *args, field=field: field,
                computed.get(i),
            )


# --- σ scrubbing: every level of a view in one payload, shared by every session on that setting -------


@st.cache_resource(ttl=TTL, show_spinner=False)
def _scrub_store() -> "_BoundedStore":
    # Bounded by bytes: a class exploring on its own holds one setting per student, and a setting dropped
    # here is built again on that student's next settle. 40 default payloads are ~18 MB.
    return _BoundedStore(max_entries=96, max_bytes=32 << 20)


def scrub_payload(view: str, ctrl, extra: tuple, build, near: int | None = None, show=None) -> bytes:
    """The payload of a scrubbable view (rbfviz.views.common.scrub) for ctrl's setting at every σ, built
    once per (view, data, k, init, picks, kind, dtype, presenter, extra) with a progress bar, and shared
    read-only by every session on that setting. ``extra``: whatever else the figure depends on (a field
    quantity, titles).

    build: ``build(progress) -> bytes``, or a ``LevelBuilder`` (built in one go without ``near`` and
    ``show``). With a LevelBuilder, ``near`` (the grid
    position of the σ on screen) and ``show(partial_payload)``, a setting not yet stored comes in two
    parts: the levels within ``NEAR`` grid steps of ``near`` first, handed to ``show`` at once, then the
    rest (the first part's levels are reused, never built again). A session whose setting another
    session is building shows that session's first part if it holds ``near``, and waits for the rest
    under a progress bar. Returns the complete payload."""
    key = scrub_key(view, ctrl, extra)
    if isinstance(build, LevelBuilder):
        if near is not None and show is not None:
            return _payload_in_parts(key, build, near, show)
        build = _in_one_go(build)
    return _scrub_store().get_or_compute(
        key,
        lambda: _with_progress_bar(
            "Drawing the figure at every σ of the slider, once per setting: σ level", build
        ),
    )


def scrub_key(view: str, ctrl, extra: tuple) -> tuple:
    """What a scrubbable view's payload is stored under (``scrub_payload``)."""
    return (view, StartKey.of(ctrl), ctrl.kind, ctrl.presenter, extra)


# --- σ scrubbing, the levels near the σ on screen first ---------------------------------------------
#
# A new setting's payload costs a few tenths of a second of one core, and a class exploring on its own
# asks for one per student: their first opens would queue behind each other's whole payloads. The
# levels around the σ on screen come first (a figure at once, and the first arrow presses work), then
# the rest, one setting's rest at a time in order of arrival (REST_TURNS), so that first parts are not
# slowed by everybody's rest (the GIL runs one Python thread at a time anyway).

NEAR = 2  # grid steps on each side of the σ on screen in the first part
_WAIT_SECONDS = 0.25  # how often a waiting session moves its progress bar (and can be interrupted)


class _Turns:
    """At most ``slots`` holders at a time, let in in order of arrival: a waiter that stops waiting for a
    moment (to move its progress bar) keeps its place, so the rest of a setting opened first is built
    first."""

    def __init__(self, slots: int):
        self._slots = slots
        self._active = 0
        self._queue: deque = deque()
        self._changed = threading.Condition()

    def take(self) -> object:
        """A place at the end of the queue."""
        ticket = object()
        with self._changed:
            self._queue.append(ticket)
        return ticket

    def wait(self, ticket, timeout: float) -> bool:
        """Whether ``ticket``'s turn came within ``timeout`` seconds; then it holds a slot until ``done``."""
        with self._changed:
            ready = self._changed.wait_for(
                lambda: self._queue[0] is ticket and self._active < self._slots, timeout
            )
            if ready:
                self._queue.popleft()
                self._active += 1
                self._changed.notify_all()
            return ready

    def leave(self, ticket) -> None:
        """Give up a place not yet served (the run was interrupted while it waited)."""
        with self._changed:
            if ticket in self._queue:
                self._queue.remove(ticket)
                self._changed.notify_all()

    def done(self) -> None:
        with self._changed:
            self._active -= 1
            self._changed.notify_all()


REST_TURNS = _Turns(slots=1)  # rests of first parts, one at a time (per process)


@dataclass(frozen=True)
class LevelBuilder:
    """How a scrubbed view builds its payload a few σ levels at a time (``scrub_payload``).

    size: the number of σ levels of the grid.
    levels(positions, progress) -> list: the view's levels (rbfviz.views.common.scrub ScrubLevel or
    ScrubPatch) at these increasing grid positions, in that order, the first a ScrubLevel and every
    ScrubPatch a patch of it; progress(done, total) as they are computed.
    payload(levels, positions) -> bytes: scrub_payload of levels at every grid position in order
    (positions None: the complete payload) or at these positions (a partial payload, ``part=``).
    """

    size: int
    levels: Callable
    payload: Callable


@dataclass
class _Parts:
    """A setting's levels built so far: grid position -> (level, the structure its patches apply to);
    the first part's positions and payload; the rest's progress (done, total)."""

    levels: dict
    first: tuple = ()
    first_payload: bytes | None = None
    done: int = 0
    total: int = 0


@st.cache_resource(ttl=TTL, show_spinner=False)
def _parts_store() -> _BoundedStore:
    return _BoundedStore(max_entries=16)


def _structure(level) -> tuple:
    """What a patch of this ScrubLevel relies on: its traces' types and how many images it has."""
    layout = level.figure.layout
    return tuple(trace.type for trace in level.figure.data), len(layout.images or ())


def _add_levels(parts: _Parts, builder: LevelBuilder, positions: list, progress=None) -> None:
    """Build the levels at these grid positions and keep them (each with its patches' base structure)."""
    if not positions:
        return
    built = builder.levels(positions, progress)
    if len(built) != len(positions) or not isinstance(built[0], ScrubLevel):
        raise ValueError(f"{len(positions)} levels asked, {len(built)} built, the first not a full figure.")
    base = _structure(built[0])
    for position, level in zip(positions, built):
        parts.levels[position] = (level, _structure(level) if isinstance(level, ScrubLevel) else base)


def _levels_at(parts: _Parts, builder: LevelBuilder, positions: list) -> list:
    """The kept levels at these positions as one scrub_payload list: the first a full figure, every
    patch one of a figure of the same structure. A level that does not fit (rare: a σ where the view
    has other traces than at the first position) is built again as a full figure."""
    out = []
    for index, position in enumerate(positions):
        level, base = parts.levels[position]
        if index == 0:
            if not isinstance(level, ScrubLevel):
                _add_levels(parts, builder, [position])
                level, base = parts.levels[position]
            first = base
        elif not isinstance(level, ScrubLevel) and base != first:
            _add_levels(parts, builder, [position])
            level, _ = parts.levels[position]
        out.append(level)
    return out


def _in_one_go(builder: LevelBuilder):
    """``build(progress) -> bytes`` of every level at once, as one part."""
    return lambda progress: builder.payload(builder.levels(list(range(builder.size)), progress), None)


def _payload_in_parts(key, builder: LevelBuilder, near: int, show) -> bytes:
    store = _scrub_store()
    shown = False
    while True:
        payload = store.get(key)
        if payload is not None:
            return payload
        lock = store.key_lock(key)
        if lock.acquire(blocking=False):
            try:
                payload = store.get(key)
                if payload is None:
                    payload = _build_in_parts(key, builder, near, show, shown)
                    store.put(key, payload)
                    _parts_store().discard(key)
                return payload
            finally:
                lock.release()
        shown = _wait_for_builder(key, lock, near, show, shown)


def _build_in_parts(key, builder: LevelBuilder, near: int, show, shown: bool) -> bytes:
    """The complete payload, its first part shown first (unless this session shows one already)."""
    parts = _parts_store().get(key)
    if parts is None:
        parts = _Parts(levels={})
        _parts_store().put(key, parts)
    if not shown:
        if near not in parts.first or parts.first_payload is None:
            first = list(range(max(0, near - NEAR), min(builder.size, near + NEAR + 1)))
            _add_levels(parts, builder, [i for i in first if i not in parts.levels])
            parts.first_payload = builder.payload(_levels_at(parts, builder, first), first)
            parts.first = tuple(first)
        show(parts.first_payload)
    rest = [i for i in range(builder.size) if i not in parts.levels]
    if rest:
        parts.done, parts.total = 0, len(rest)

        def progress(done: int, total: int) -> None:
            parts.done, parts.total = done, total
            moved(done, total)

        bar = _progress_bar(_REST_TEXT.format(done=0, total=len(rest)))

        def moved(done: int, total: int) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=_REST_TEXT.format(done=done, total=total))

        try:
            _hold_rest_for_a_test(lambda: moved(0, len(rest)))
            ticket, queued = REST_TURNS.take(), False
            try:
                while not REST_TURNS.wait(ticket, _WAIT_SECONDS):
                    queued = True
                    bar.progress(0.0, text=_QUEUED_TEXT)  # a yield point: a new setting can interrupt
            except BaseException:
                REST_TURNS.leave(ticket)
                raise
            try:
                if queued:
                    moved(0, len(rest))
                _add_levels(parts, builder, rest, progress)
            finally:
                REST_TURNS.done()
        finally:
            bar.empty()
    return builder.payload(_levels_at(parts, builder, list(range(builder.size))), None)


# Test-only: a browser test (tests/e2e/test_e2e_scrub_parts.py) must see a first part drawn before the
# rest replaces it, whatever the machine's speed. The test servers get this variable naming a file that
# the test creates; while it exists, a rest waits before it is built. Unset (outside those servers),
# nothing waits.
HOLD_REST_ENV = "RBFVIZ_TEST_HOLD_REST"
_HOLD_REST_MAX_SECONDS = 600.0  # a test that never deletes its file does not hold a server for ever


def _hold_rest_for_a_test(still_waiting: Callable[[], None]) -> None:
    """While the file named by ``HOLD_REST_ENV`` exists, wait; ``still_waiting()`` every
    ``_WAIT_SECONDS`` is a yield point (a new setting can interrupt the run meanwhile)."""
    path = os.environ.get(HOLD_REST_ENV)
    deadline = time.monotonic() + _HOLD_REST_MAX_SECONDS
    while path and os.path.exists(path) and time.monotonic() < deadline:
        still_waiting()
        time.sleep(_WAIT_SECONDS)


_REST_TEXT = (
    "Computing the slider's other σ levels, once per setting (the figure is ready): {done} of {total}…"
)
_QUEUED_TEXT = "The slider's other σ levels are next in line on the server (the figure is ready)…"
_WAITING_TEXT = "This setting's σ levels are being computed, once for everybody…"
_WAIT_TEXT = "This setting's σ levels are being computed, once for everybody: {done} of {total}…"


def _wait_for_builder(key, lock, near: int, show, shown: bool) -> bool:
    """Wait while another session builds this setting, under a progress bar that follows its progress;
    show its first part as soon as it holds ``near``. Returns whether a first part was shown."""
    bar = _progress_bar(_WAITING_TEXT)
    try:
        while not lock.acquire(timeout=_WAIT_SECONDS):
            parts = _parts_store().get(key)
            if parts is None:
                continue
            if not shown and parts.first_payload is not None and near in parts.first:
                show(parts.first_payload)
                shown = True
            if parts.total:
                bar.progress(
                    min(parts.done / parts.total, 1.0),
                    text=_WAIT_TEXT.format(done=parts.done, total=parts.total),
                )
        lock.release()
    finally:
        bar.empty()
    return shown


# --- the Equivalence view ---------------------------------------------------------------------------


def _step_key(ctrl) -> StartKey:
    """The start the Equivalence view steps from: ctrl's, k-means++ in place of "anneal" (``step_start``)."""
    return StartKey.of(ctrl, "kmeans++" if ctrl.init == "anneal" else ctrl.init)


def step_start(ctrl):
    """(start (k, 2) in ctrl.dtype, note or None) for the step and trajectory panels.

    Annealing has no single start to step from (all centres begin at the data mean, where a Lloyd
    step cannot separate them), so that init uses k-means++ seeding from the same seed here."""
    note = (
        (
            "Annealing starts every centre at the data mean, where one step shows nothing; this view "
            "starts from k-means++ seeding (same data seed) instead."
        )
        if ctrl.init == "anneal"
        else None
    )
    return _start(_step_key(ctrl)), note


@st.cache_data(max_entries=128, ttl=TTL, show_spinner="Running gradient descent and Lloyd…")
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
def _collapse_store() -> _BoundedStore:
    return _BoundedStore(max_entries=24)


def annealing_view(ctrl):
    """The Annealing view's arrays (rbfviz.views.annealing.arrays.AnnealingView) for ctrl's data, k, kind and
    dtype: ``collapse_study`` on the σ grid of ``scale(ctrl)`` (anneal from the data mean, K-Means from
    the end point, E(σ) from C*), computed once per setting with a progress bar and shared read-only
    between sessions. Its annealing path is the one ``annealing(ctrl)`` computes (same call), so it is
    handed to that store too."""
    from rbfviz.collapse import collapse_study
    from rbfviz.views.annealing.arrays import annealing_view as build_view

    key = (_key(ctrl), ctrl.k, ctrl.kind, ctrl.dtype)

    def compute():
        X, _ = data(ctrl)
        grid = scale(ctrl).grid
        study = _with_progress_bar(
            "Annealing and measuring the collapse, once per setting: step",
            lambda progress: collapse_study(
                X, ctrl.k, kind=ctrl.kind, dtype=ctrl.dtype, sigmas=grid, seed=ctrl.seed, progress=progress
            ),
        )
        _annealing_store().get_or_compute(key, lambda: _freeze(study.path))
        return _freeze(build_view(study, X))

    return _collapse_store().get_or_compute(key, compute)


def kmeans_centroids(ctrl):
    """The K-Means centroids (k, 2), float64, k-means++ seeded: the ones the σ range is derived from."""
    centers, _ = _kmeans_pp(_key(ctrl), ctrl.k)
    return centers


@st.cache_data(max_entries=64, ttl=TTL, show_spinner="Measuring every map in float32 and float64 across σ…")
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
    return _stability(_key(ctrl), ctrl.k)


@st.cache_data(max_entries=128, ttl=TTL, show_spinner=False)
def _stability_plane(key: DataKey, k: int, dtype: str, sigma: float):
    from rbfviz.views.stability import arrays as stability_views

    X, _ = key.points("float64")
    centers, _ = _kmeans_pp(key, k)
    return stability_views.stability_plane(X, centers, sigma, dtype)


def stability_planes(ctrl, progress=None):
    """``stability_plane`` at every σ of the grid, one at a time (a generator, not cached one by one)."""
    from rbfviz.views.stability import arrays as stability_views

    X, _ = _key(ctrl).points("float64")
    centers = kmeans_centroids(ctrl)
    grid = scale(ctrl).grid
    for i, sigma in enumerate(grid):
        yield stability_views.stability_plane(X, centers, float(sigma), ctrl.dtype)
        if progress:
            progress(i + 1, len(grid))


def stability_plane(ctrl):
    """rbfviz.views.stability.arrays.StabilityPlane at ctrl.sigma in ctrl.dtype, at
    ``kmeans_centroids(ctrl)``."""
    return _stability_plane(_key(ctrl), ctrl.k, ctrl.dtype, float(ctrl.sigma))


# --- the Step-by-step view --------------------------------------------------------------------------


# The session's last replay: a click adds one step to it, so the replay continues from there instead of
# from the start (rbfviz.views.step_by_step.arrays.replay's prefix; the same result either way).
LAST_REPLAY_KEY = "_rbfviz_last_replay"


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
    last_setting, last = st.session_state.get(LAST_REPLAY_KEY, (None, None))
    prefix = last if last_setting == setting and ctrl.steps.startswith(last.steps) else None
    run, comparison = _stepper(*setting, ctrl.steps, tuple(float(s) for s in sigmas), _prefix=prefix)
    st.session_state[LAST_REPLAY_KEY] = (setting, run)
    return run, comparison, note
