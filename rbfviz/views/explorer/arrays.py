"""What the app needs around one σ: its range, the starting centres, the soft fixed point, the numbers.

* ``sigma_scale(X, C_km)``      – the data-derived σ range (log grid) with its landmarks: the first
                                  critical σ (softmax and entmax15), entmax's exact-collapse σ
                                  √g_min/2 and softmax's float64-exact σ √(g_min/73.4).
* ``initial_centers(X, k, init, seed)`` – k-means++ seeding, k random data points, farthest-point
                                  seeding, or None for "anneal" (the annealing path starts at the data
                                  mean).
* ``farthest_point_centers(X, k)`` – the first centre at the point nearest the mean, each next at the
                                  point farthest from those chosen.
* ``soft_fixed_point(X, C0, sigma, kind)`` – EM from C0 to the soft fixed point at σ.
* ``soft_fixed_points(X, C0, sigmas, kind)`` – the same at many σ levels, all together.
* ``plane_numbers(...)``        – L_σ, J, L_σ − J and its bound, label agreement, mean entropy,
                                  exact zeros, NaN rows: every number the Explorer prints.
* ``plane_at(...)``             – the responsibilities and ``plane_numbers`` at one σ, checked once.
* ``planes_at(...)``            – ``plane_at`` at many σ levels (each with its centres) at once.
* ``CentersAtSigma``, ``PlaneView`` – the centres at one σ, and everything the Explorer draws there;
  ``plane_from(X, info, ...)`` builds the second from the first (the app's caches and the offline
  export both do).

Convention: logits z = -||x - c||² / (2σ²); all σ values are in data units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import kmeans_plusplus

from rbfviz import field as fieldmod
from rbfviz import maps, measures
from rbfviz.annealing import fixed_point, fixed_points
from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.maps import _responsibilities
from rbfviz.measures import (
    _critical_sigma_predicted,
    _gamma_gap,
    _min_sq_gap,
    _sigma_exact,
    _sigma_softmax_exact,
)
from rbfviz.validate import (
    check_centers,
    check_int,
    check_k,
    check_kind,
    check_points,
    check_sigma,
    check_sigma_for_dtype,
)
from rbfviz.views.common.sigma import nearest_index

INITS = ("kmeans++", "random", "farthest", "anneal")

# The σ grid spans from above the first split down to below the exact collapse, at this density.
POINTS_PER_DECADE = 16
MIN_LEVELS, MAX_LEVELS = 30, 81
# Top of the range, in units of the larger predicted first critical σ.
TOP_FACTOR = 1.5
# Bottom of the range, in units of entmax's exact-collapse σ* = √g_min/2: below softmax's
# float64-exact σ = σ*·√(4/73.4) ≈ 0.23 σ*, so both collapses are on the slider.
BOTTOM_FACTOR = 0.2
# At least this many decades, at most MAX_DECADES (g_min can be 0 or tiny).
MIN_DECADES, MAX_DECADES = 2.0, 5.0


@dataclass(frozen=True)
class SigmaScale:
    """The σ range of one data set, and where the maths says things happen on it.

    grid : (S,) float64, decreasing, geometric, values rounded to 3 significant digits.
    sigma_c_softmax, sigma_c_entmax : predicted first critical σ (centres split from the mean);
        softmax √λ_max, entmax15 (√k·λ_max)^½ with λ_max of the 1/N covariance.
    sigma_exact_entmax : √g_min/2 at the K-Means solution; below it entmax15 is exactly K-Means.
    sigma_exact_softmax : √(g_min/73.4); below it float64 softmax is bitwise hard.
    default : the σ the app opens with (a grid value between the split and the collapse).
    """

    grid: np.ndarray
    sigma_c_softmax: float
    sigma_c_entmax: float
    sigma_exact_entmax: float
    sigma_exact_softmax: float
    default: float

    @property
    def low(self) -> float:
        return float(self.grid[-1])

    @property
    def high(self) -> float:
        return float(self.grid[0])

    def nearest(self, sigma: float) -> float:
        """The grid value nearest to σ on a log scale."""
        return float(self.grid[self.index(sigma)])

    def index(self, sigma: float) -> int:
        """Position of σ (a grid value, or the nearest one) in the decreasing grid."""
        return nearest_index(self.grid, check_sigma(sigma))


def _round_sig(values: np.ndarray, digits: int = 3) -> np.ndarray:
    return np.array([float(f"{v:.{digits}g}") for v in values])


def sigma_scale(X, C_km) -> SigmaScale:
    """The σ range for data X (n, d) whose K-Means centroids are C_km (k, d), k >= 2.

    From TOP_FACTOR × the larger predicted first critical σ (softmax, entmax15 with m = k) down to
    BOTTOM_FACTOR × entmax's exact-collapse σ* = √g_min/2, kept between MIN_DECADES and
    MAX_DECADES wide, on a geometric grid of about POINTS_PER_DECADE values per decade.
    """
    X = check_points(X, "X", dtype=np.float64)
    C_km = check_centers(C_km, X, "C_km")
    k = C_km.shape[0]
    if k < 2:
        raise ValueError(f"the σ range needs at least 2 centres, got k={k}.")
    sc_soft = float(_critical_sigma_predicted(X, "softmax"))
    sc_ent = float(_critical_sigma_predicted(X, "entmax15", m=k))
    g_min = _min_sq_gap(X, C_km)
    s_exact, s_soft_exact = float(_sigma_exact(g_min)), float(_sigma_softmax_exact(g_min))
    top = TOP_FACTOR * max(sc_soft, sc_ent)
    if not (math.isfinite(top) and top > 0):
        raise ValueError("the data have no spread (all points coincide): there is no σ range to explore.")
    bottom = BOTTOM_FACTOR * s_exact if s_exact > 0 else 0.0
    bottom = min(max(bottom, top * 10.0**-MAX_DECADES), top * 10.0**-MIN_DECADES)
    decades = math.log10(top / bottom)
    num = int(np.clip(math.ceil(POINTS_PER_DECADE * decades) + 1, MIN_LEVELS, MAX_LEVELS))
    grid = np.unique(_round_sig(np.geomspace(top, bottom, num)))[::-1].copy()
    # Open between the split and the exact collapse: the soft band is wide enough to see.
    target = math.sqrt(max(s_exact, bottom) * sc_soft)
    default = float(grid[nearest_index(grid, target)])
    return SigmaScale(
        grid=grid,
        sigma_c_softmax=sc_soft,
        sigma_c_entmax=sc_ent,
        sigma_exact_entmax=s_exact,
        sigma_exact_softmax=s_soft_exact,
        default=default,
    )


def initial_centers(X, k: int, init: str, seed: int = 0):
    """Starting centres (k, d) in X's dtype, or None for "anneal".

    "kmeans++": scikit-learn's k-means++ seeding from ``seed``; "random": k distinct data points
    drawn with ``seed``; "farthest": ``farthest_point_centers`` (deterministic, ``seed`` unused);
    "anneal": None (``rbfviz.annealing.anneal`` starts every centre at the data
    mean with a tiny symmetry-breaking perturbation).
    """
    X = check_points(X, "X")
    k = check_k(k, X.shape[0])
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    if init not in INITS:
        raise ValueError(f"init={init!r} is unknown; allowed: {', '.join(INITS)}.")
    if init == "anneal":
        return None
    if init == "kmeans++":
        centers, _ = kmeans_plusplus(X.astype(np.float64), n_clusters=k, random_state=seed)
    elif init == "farthest":
        centers = X[_farthest_rows(X.astype(np.float64), k)]
    else:
        rows = np.random.RandomState(seed).choice(X.shape[0], size=k, replace=False)
        centers = X[np.sort(rows)]
    return np.ascontiguousarray(centers, dtype=X.dtype)


def farthest_point_centers(X, k: int) -> np.ndarray:
    """Farthest-point seeding: k distinct rows of X (n, d) as centres (k, d), in X's dtype.

    The first centre is the point nearest the data mean; each next one is the point whose squared
    distance to its nearest chosen centre is largest. Ties go to the lowest row index, so the result
    depends on the data only. Rows already chosen are never chosen again: with fewer than k distinct
    points some centres coincide, but each is a different row.
    """
    X = check_points(X, "X")
    k = check_k(k, X.shape[0])
    return np.ascontiguousarray(X[_farthest_rows(X.astype(np.float64), k)])


def _farthest_rows(X64: np.ndarray, k: int) -> np.ndarray:
    """The row indices (k,) of ``farthest_point_centers`` on checked float64 points X64 (n, d), k <= n."""
    first = int(np.argmin(((X64 - X64.mean(axis=0)) ** 2).sum(axis=1)))
    rows = [first]
    nearest = ((X64 - X64[first]) ** 2).sum(axis=1)  # squared distance to the nearest chosen centre
    nearest[first] = -1.0
    for _ in range(k - 1):
        row = int(np.argmax(nearest))
        rows.append(row)
        nearest = np.minimum(nearest, ((X64 - X64[row]) ** 2).sum(axis=1))
        nearest[rows] = -1.0  # a chosen row, even at distance 0 from another, is never taken twice
    return np.array(rows, dtype=np.int64)


def soft_fixed_point(X, C0, sigma: float, kind: str = "softmax"):
    """EM from C0 until the centres stop moving at this σ (``rbfviz.annealing.fixed_point``).

    Returns (centers (k, d) in X's dtype, iterations, converged).
    """
    return fixed_point(X, C0, sigma, kind=kind)


def soft_fixed_points(X, C0, sigmas, kind: str = "softmax", progress=None):
    """``soft_fixed_point`` at every σ of ``sigmas`` (m,), all levels together
    (``rbfviz.annealing.fixed_points``; level i the bits of ``soft_fixed_point`` at sigmas[i]).

    Returns (centers (m, k, d) in X's dtype, iterations (m,), converged (m,)); progress(done, total) as
    levels stop.
    """
    return fixed_points(X, C0, sigmas, kind=kind, progress=progress)


def plane_numbers(X, C, sigma: float, kind: str, kmeans_labels) -> dict:
    """The Explorer's numbers for points X (n, d), centres C (k, d) at σ.

    kmeans_labels (n,) are K-Means labels in C's centre indices (K-Means run from the same start
    keeps centre j as cluster j). Returns a dict of plain floats/ints: loss L_σ, distortion J, gap
    L_σ − J, bound (the Γ-convergence bound for this map), within_bound, agreement (fraction of
    argmax r equal to the K-Means label), mean_entropy (nats), exact_zeros (count of r_ij == 0),
    entries (n·k), nan_rows (rows of r that are NaN; only "naive").
    """
    return plane_at(X, C, sigma, kind, kmeans_labels)[1]


def plane_at(X, C, sigma: float, kind: str, kmeans_labels) -> tuple[np.ndarray, dict]:
    """(r, numbers) at one σ, from one check of the arguments: the responsibilities r (n, k) of points X
    (n, d) for centres C (k, d), as ``rbfviz.responsibilities`` gives them (what the Explorer colours the
    points with), and ``plane_numbers`` (what it prints beside them)."""
    X = check_points(X, "X")
    C = check_centers(C, X, "C")
    kind = check_kind(kind)  # before σ: the Explorer's messages name a bad map first
    sigma = check_sigma(sigma)
    check_sigma_for_dtype(sigma, X.dtype)
    resp = _responsibilities(X, C, sigma, kind)
    nan_rows = int(np.count_nonzero(~np.isfinite(resp).all(axis=1)))
    gap = _gamma_gap(X, C, sigma, kind)
    finite = resp[np.isfinite(resp).all(axis=1)]
    return resp, dict(
        loss=float(gap.loss),
        distortion=float(gap.distortion),
        gap=float(gap.gap),
        bound=float(gap.bound),
        within_bound=bool(gap.within_bound),
        agreement=float(measures.label_agreement(resp, kmeans_labels)) if nan_rows == 0 else float("nan"),
        mean_entropy=float(measures.mean_entropy(finite)) if len(finite) else float("nan"),
        exact_zeros=int(measures.count_exact_zeros(resp)),
        entries=int(resp.size),
        nan_rows=nan_rows,
    )


# Where the centres shown come from, one sentence per initialisation (``centres_source``).
CENTRES_SOURCES = {
    "kmeans++": N_("EM from the kmeans++ start to the soft fixed point at this σ"),
    "random": N_("EM from the random start to the soft fixed point at this σ"),
    "farthest": N_("EM from the farthest start to the soft fixed point at this σ"),
    "custom": N_("EM from the picked-points start to the soft fixed point at this σ"),
    "placed": N_("EM from the placed-centres start to the soft fixed point at this σ"),
    "anneal": N_("the annealing path from the data mean, at this σ"),
}
NAN_PATH_NOTE = N_("The annealing path's centres are NaN at this σ (the naive map broke).")


def centres_source(init: str) -> str:
    """``CentersAtSigma.source`` for an initialisation: a catalog message (shown as ``tr(source)``)."""
    return CENTRES_SOURCES.get(init, init)


def naive_note(sigma: float, dtype: str, iterations: int, tr: Translator = ENGLISH) -> str:
    """The note beside a plane whose EM centres became NaN (the naive map at the start is shown)."""
    return tr(
        "With the naive map at σ = {sigma:.3g} the EM centres became NaN (0/0 after every exp(z) of a row "
        "underflowed in {dtype}), after {iterations} iteration(s). The plane shows the naive map at the "
        "starting centres instead: grey = NaN.",
        sigma=float(sigma),
        dtype=dtype,
        iterations=int(iterations),
    )


@dataclass(frozen=True)
class CentersAtSigma:
    """The current centres at σ and their K-Means reference.

    centers (k, 2) in the data's dtype: the soft fixed point at σ (from the annealing path, or EM from
    the chosen start). kmeans_centers (k, 2), kmeans_labels (n,): scikit-learn Lloyd from the same start
    (for "anneal": from the path's last, smallest-σ centres), so centre j and centroid j belong to the
    same cluster j. start: the starting centres (None for "anneal"). iterations/converged: how EM ended
    at this σ. source: one sentence for the page (``centres_source``: a catalog message).
    """

    centers: np.ndarray
    kmeans_centers: np.ndarray
    kmeans_labels: np.ndarray
    start: np.ndarray | None
    iterations: int
    converged: bool
    source: str


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
    note: str | None  # in English: ``note_in`` gives it in a reader's language


def shown_centers(info: CentersAtSigma) -> np.ndarray | None:
    """The centres the plane is drawn at: EM's, or the start where EM's are NaN (the naive map broke);
    None where there is no start either (the annealing path's centres are NaN)."""
    if np.isfinite(info.centers).all():
        return info.centers
    return info.start


def plane_from(X, info: CentersAtSigma, sigma: float, kind: str, dtype: str, k: int, field_of, computed=None):
    """The ``PlaneView`` at σ from the centres there, ``info``. field_of(centers) gives the field at the
    centres shown (or None); computed: (r, numbers) at those centres, when ``planes_at`` has them already.
    Where the annealing path's centres are NaN, centers, field and numbers are None and r is NaN."""
    centers, note = shown_centers(info), None
    if centers is not info.centers:
        if centers is None:
            return PlaneView(
                X,
                centers,
                info.kmeans_centers,
                np.full((X.shape[0], k), np.nan),
                None,
                None,
                info,
                NAN_PATH_NOTE,
            )
        note = naive_note(sigma, dtype, info.iterations)
    if computed is None:
        computed = plane_at(X, centers, sigma, kind, info.kmeans_labels)
    resp, numbers = computed
    return PlaneView(X, centers, info.kmeans_centers, resp, field_of(centers), numbers, info, note)


def note_in(view: PlaneView, sigma: float, dtype: str, tr: Translator = ENGLISH) -> str | None:
    """``view.note`` (made by ``plane_from`` at σ in ``dtype``) in ``tr``'s language."""
    if view.note is None:
        return None
    if view.centers is None:
        return tr(NAN_PATH_NOTE)
    return naive_note(sigma, dtype, view.info.iterations, tr)


# The numbers beside the plot are computed for this many (level, centre, point) entries at a time
# (``planes_at``): 256 kB per float64 array, however many points.
NUMBERS_PASS = 1 << 15


def fields_and_planes(
    X, extent, shown: dict, drawn: list, grid, kind, quantity: str, dtype: str, k: int, kmeans_labels
) -> tuple[dict, dict]:
    """The soft fields and the numbers beside the plot at the grid positions ``drawn``.

    shown: position -> the centres (k, d) drawn there; grid: the σ grid (every position's σ);
    kmeans_labels: the K-Means labels of X (the same at every level of a setting). Returns
    ({position: field image array}, {position: planes_at's (resp, numbers)}), both empty if nothing
    is drawn. The numbers go ``NUMBERS_PASS`` entries at a time, so the temporaries stay small."""
    if not drawn:
        return {}, {}
    C = np.stack([shown[i] for i in drawn])
    fields = dict(
        zip(drawn, fieldmod.soft_fields(extent, C, grid[drawn], kind=kind, quantity=quantity, dtype=dtype))
    )
    computed = {}
    per_pass = max(1, NUMBERS_PASS // (k * X.shape[0]))
    for first in range(0, len(drawn), per_pass):
        part = drawn[first : first + per_pass]
        computed.update(zip(part, planes_at(X, C[first : first + per_pass], grid[part], kind, kmeans_labels)))
    return fields, computed


# The fields of this many σ levels are computed together (``rbfviz.field.soft_fields``): their arrays
# (float64 per pixel of each level) stay as small as a single field's were, since large temporaries freed
# into the server's heap would raise its memory for good after a class.
FIELD_LEVELS = 4


def plane_views(X, infos: list, grid, kind: str, quantity: str, dtype: str, k: int):
    """``plane_from`` at every σ of ``grid`` (m,), in grid order, with its field: a generator. infos: the
    m ``CentersAtSigma``, level i's at grid[i]. The fields and numbers are computed ``FIELD_LEVELS``
    levels at a time, so only those levels' arrays are alive at once, plus what the caller keeps."""
    extent = fieldmod.plane_extent(X, aspect=fieldmod.PLANE_ASPECT)  # the same at every σ
    for start in range(0, len(grid), FIELD_LEVELS):
        chunk = range(start, min(start + FIELD_LEVELS, len(grid)))
        shown = {i: shown_centers(infos[i]) for i in chunk}
        drawn = [i for i in chunk if shown[i] is not None]
        # every level of a setting has the same K-Means reference
        labels = infos[drawn[0]].kmeans_labels if drawn else None
        fields, computed = fields_and_planes(X, extent, shown, drawn, grid, kind, quantity, dtype, k, labels)
        for i in chunk:
            level_field = fields.get(i)
            yield plane_from(
                X,
                infos[i],
                float(grid[i]),
                kind,
                dtype,
                k,
                lambda centers, level_field=level_field: level_field,
                computed.get(i),
            )


def planes_at(X, C, sigmas, kind: str, kmeans_labels) -> list[tuple[np.ndarray, dict]]:
    """``plane_at`` at m σ levels at once: centres C (m, k, d) (level i's at sigmas[i]), sigmas (m,).

    Each level's distances go through the map once (``plane_at`` computes r twice: for the points and
    for L_σ), and L_σ, J, the NaN rows and the exact zeros of all levels are reduced together as
    (m, k, n) arrays; the label agreement and the mean entropy are read from each level's r. Level i is
    ``plane_at(X, C[i], sigmas[i], kind, kmeans_labels)``, bit for bit. Temporaries are O(m·k·n): pass
    a few levels at a time when there are many points.
    """
    X = check_points(X, "X")
    sigmas = np.asarray(sigmas, dtype=np.float64)
    C = np.asarray(C)
    if C.ndim != 3 or C.shape[0] != sigmas.size:
        raise ValueError(f"C must have shape (m, k, d) with m = {sigmas.size} levels, got {C.shape}.")
    C = np.stack([check_centers(c, X, "C") for c in C])
    kind = check_kind(kind)
    for sigma in sigmas:
        check_sigma_for_dtype(check_sigma(float(sigma)), X.dtype)
    return _planes_at(X, C, sigmas, kind, kmeans_labels)


def _planes_at(X: np.ndarray, C: np.ndarray, sigmas: np.ndarray, kind: str, kmeans_labels) -> list:
    """``planes_at`` on checked arguments (X, C (m, k, d) finite in one float dtype, σ valid in it)."""
    m, k, _ = C.shape
    n = X.shape[0]
    distances = np.empty((m, k, n), dtype=X.dtype)
    resp = np.empty((m, k, n), dtype=X.dtype)
    for i in range(m):  # the map level by level, as ``rbfviz.maps.responsibilities`` runs it
        distances[i] = maps.sq_distance_columns(X, C[i])
        resp[i] = maps.resp_columns(distances[i].copy(), float(sigmas[i]), kind, overwrite=True)
    d64 = distances.astype(np.float64)
    # as ``measures._gamma_gap``: each point's sum over the centres, then the sum over the points
    loss = (resp.astype(np.float64) * d64).sum(axis=1).sum(axis=1)
    distortion = d64.min(axis=1).sum(axis=1)
    gap = loss - distortion
    tol = 16.0 * float(np.finfo(X.dtype).eps) * (np.abs(loss) + np.abs(distortion))
    nan_rows = (~np.isfinite(resp)).any(axis=1).sum(axis=1)
    zeros = np.count_nonzero(resp == 0, axis=(1, 2))
    planes = []
    for i in range(m):
        level = np.ascontiguousarray(resp[i].T)  # (n, k) rows, as ``rbfviz.maps.responsibilities`` gives
        bound = measures._gamma_gap_bound(n, k, float(sigmas[i]), kind)
        finite = level[np.isfinite(level).all(axis=1)]
        numbers = dict(
            loss=float(loss[i]),
            distortion=float(distortion[i]),
            gap=float(gap[i]),
            bound=float(bound),
            within_bound=bool(math.isfinite(gap[i]) and -tol[i] <= gap[i] <= bound + tol[i]),
            agreement=float(measures.label_agreement(level, kmeans_labels))
            if nan_rows[i] == 0
            else float("nan"),
            mean_entropy=float(measures.mean_entropy(finite)) if len(finite) else float("nan"),
            exact_zeros=int(zeros[i]),
            entries=int(level.size),
            nan_rows=int(nan_rows[i]),
        )
        planes.append((level, numbers))
    return planes
