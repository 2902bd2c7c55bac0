"""A scrubbed view's payload from its settings alone, without the app: what the command line and the lesson
pack put into an offline page.

The app builds the same payloads through its caches (ui/compute.py) and page scripts; for the same
settings the bytes are the same (tests/app/test_export_build.py builds both and compares them), so the offline
page draws exactly the app's figure at every σ.

    setting = Setting("explorer", dataset="moons", k=2, kind="entmax15")
    payload = view_payload(setting)          # rbfviz.views.common.scrub payload bytes, every σ level
    sigma = setting.sigma_or_default()       # the σ the page opens at (a grid value)

Not covered (they need the app): uploaded points, and the Explorer's custom start (points clicked on its
plot); ``Setting`` says so when asked for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from rbfviz.i18n import ENGLISH, Translator

from ...annealing import anneal
from ...collapse import collapse_study
from ...datasets import DATASET_LABELS, DATASETS, DEFAULT_NOISE, IRIS_SIZE, MAX_NOISE, NATURAL_K, make_dataset
from ...maps import responsibilities
from ...measures import kmeans_reference
from ...steps import kmeans
from ...validate import DTYPES, check_int, check_k, check_kind, check_sigma
from ..annealing.arrays import annealing_view
from ..annealing.figures import FRAME_MS
from ..annealing.levels import annealing_levels
from ..common.palette import MAX_CLUSTERS
from ..common.plane import drawn_points
from ..common.scrub import Probe, scrub_payload
from ..equivalence import arrays as equivalence
from ..equivalence.levels import equivalence_levels
from ..explorer import arrays as explore
from ..explorer.levels import explorer_levels
from ..stability import arrays as stability_views
from ..stability.levels import stability_levels

VIEWS = ("explorer", "annealing", "stability", "equivalence")
INITS = explore.INITS  # the starts the library makes (a custom start needs the app)
# The app's limits on the controls (ui/state.py): n from N_MIN to N_MAX (iris: its 150 points).
N_MIN, N_MAX, N_DEFAULT = 5, 5000, 500
SEED_MAX = 2**31 - 1
# The figure's Plotly config, as the app's pages pass it (pages/1_Explorer.py, ui.page.CHART_CONFIG).
EXPLORER_CONFIG = {
    "displayModeBar": True,
    "displaylogo": False,
    "scrollZoom": False,
    "modeBarButtonsToRemove": ["toImage", "zoomIn2d", "zoomOut2d", "autoScale2d"],
}
CHART_CONFIG = {"displayModeBar": False, "scrollZoom": False}
# The Explorer's field under the points (its "Field under the points" control).
QUANTITIES = ("max", "entropy")


@dataclass(frozen=True)
class Setting:
    """One view as prepared: the app's controls that a payload depends on.

    kind: a map name (softmax, entmax15, naive) or "entmax" with ``alpha``; noise and k default to the
    data set's own (as the app's do); sigma: the σ the page opens at (None: the data set's default σ).
    Checked on construction: a bad value raises ValueError saying what is allowed.
    """

    view: str = "explorer"
    dataset: str = "blobs"
    n: int | None = None
    noise: float | None = None
    seed: int = 0
    k: int | None = None
    init: str = "kmeans++"
    kind: str = "softmax"
    alpha: float | None = None
    dtype: str = "float64"
    sigma: float | None = None
    quantity: str = "max"
    kind_spec: str = field(init=False, default="")

    def __post_init__(self):
        if self.view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}, got {self.view!r}.")
        if self.dataset not in DATASETS:
            raise ValueError(
                f"dataset must be one of {', '.join(DATASETS)}, got {self.dataset!r} (uploaded points: use "
                "the app's Interactive page download)."
            )
        n_max = IRIS_SIZE if self.dataset == "iris" else N_MAX
        n = N_DEFAULT if self.n is None else self.n
        if self.dataset == "iris" and self.n is None:
            n = IRIS_SIZE
        object.__setattr__(self, "n", check_int(n, "n", N_MIN, n_max))
        noise = DEFAULT_NOISE[self.dataset] if self.noise is None else float(self.noise)
        if not 0 <= noise <= MAX_NOISE:
            raise ValueError(f"noise must be a number from 0 to {MAX_NOISE:g}, got {self.noise!r}.")
        object.__setattr__(self, "noise", noise)
        object.__setattr__(self, "seed", check_int(self.seed, "seed", 0, SEED_MAX))
        k = min(NATURAL_K[self.dataset], self.n) if self.k is None else self.k
        k = check_k(k, self.n)
        if not 2 <= k <= MAX_CLUSTERS:
            raise ValueError(f"k must be an integer from 2 to {min(MAX_CLUSTERS, self.n)}, got k={k}.")
        object.__setattr__(self, "k", k)
        if self.init not in INITS:
            raise ValueError(
                f"init must be one of {', '.join(INITS)}, got {self.init!r} (a custom start, from points "
                "clicked on the Explorer's plot, needs the app)."
            )
        object.__setattr__(
            self,
            "kind_spec",
            check_kind(self.kind, allowed=("softmax", "entmax15", "naive"), alpha=self.alpha),
        )
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}.")
        if self.sigma is not None:
            object.__setattr__(self, "sigma", check_sigma(self.sigma))
        if self.quantity not in QUANTITIES:
            raise ValueError(f"quantity must be one of {', '.join(QUANTITIES)}, got {self.quantity!r}.")

    def with_view(self, view: str) -> "Setting":
        return replace(self, view=view)

    @property
    def data_name(self) -> str:
        """The data set's name as the app's titles give it (a catalog message: shown as ``tr(data_name)``)."""
        return DATASET_LABELS.get(self.dataset, self.dataset)

    @cached_property
    def points(self) -> np.ndarray:
        """X (n, 2) in the setting's dtype, as the app makes it."""
        X, _ = make_dataset(self.dataset, self.n, self.noise, self.seed)
        return np.ascontiguousarray(X, dtype=self.dtype)

    @cached_property
    def points64(self) -> np.ndarray:
        X, _ = make_dataset(self.dataset, self.n, self.noise, self.seed)
        return np.ascontiguousarray(X, dtype="float64")

    @cached_property
    def kmeans_centroids(self) -> np.ndarray:
        """K-Means (k-means++ seeded) in float64: what the σ range and the Stability view start from."""
        centers, _ = kmeans(self.points64, k=self.k, seed=self.seed)
        return centers

    @cached_property
    def scale(self) -> explore.SigmaScale:
        return explore.sigma_scale(self.points64, self.kmeans_centroids)

    def sigma_or_default(self) -> float:
        """The σ the page opens at: the grid value nearest the setting's σ, or the data set's default σ."""
        grid = self.scale.grid
        sigma = self.scale.default if self.sigma is None else self.sigma
        return float(grid[self.scale.index(sigma)])

    def view_query(self) -> dict[str, str]:
        """The setting as the app's URL parameters (ui/state.py's names), σ included."""
        query = dict(
            dataset=self.dataset,
            n=str(self.n),
            noise=f"{self.noise:g}",
            seed=str(self.seed),
            k=str(self.k),
            init="kmeanspp" if self.init == "kmeans++" else self.init,
            kind=self.kind,
            dtype=self.dtype,
            sigma=f"{self.sigma_or_default():.6g}",
        )
        if self.kind == "entmax":
            query["alpha"] = f"{self.alpha:g}"
        return query


def view_payload(setting: Setting, progress=None, tr: Translator = ENGLISH) -> bytes:
    """The payload (every σ level) the app's page for ``setting.view`` draws, its words in ``tr``'s
    language; progress(done, total)."""
    return {
        "explorer": _explorer,
        "annealing": _annealing,
        "stability": _stability,
        "equivalence": _equivalence,
    }[setting.view](setting, progress, tr)


# --- the Explorer: ui.compute.plane_views, without the caches ----------------------------------------


def _infos(s: Setting, grid, progress) -> list[explore.CentersAtSigma]:
    X = s.points
    if s.init == "anneal":
        path = anneal(X, s.k, s.scale.grid, kind=s.kind_spec, init=None, seed=s.seed)
        end = np.asarray(path.centers[-1], dtype=np.float64)
        if not np.isfinite(end).all():
            raise ValueError(
                "the annealing path ended in NaN centres (the naive map broke at small σ), so there "
                "is no K-Means start at its end; pick softmax or entmax-1.5, or another init."
            )
        km_centers, km_labels = kmeans_reference(X, end.copy())
        infos = []
        for sigma in grid:
            level = s.scale.index(float(sigma))
            infos.append(
                explore.CentersAtSigma(
                    np.array(path.centers[level]),
                    km_centers,
                    km_labels,
                    None,
                    int(path.iterations[level]),
                    bool(path.converged[level]),
                    explore.centres_source("anneal"),
                )
            )
        if progress:
            progress(len(grid), len(grid))
        return infos
    C0 = explore.initial_centers(X, s.k, s.init, s.seed)
    km_centers, km_labels = kmeans_reference(X, np.asarray(C0, dtype=np.float64).copy())
    source = explore.centres_source(s.init)
    centers, iterations, converged = explore.soft_fixed_points(
        X, C0, grid, kind=s.kind_spec, progress=progress
    )
    return [
        explore.CentersAtSigma(
            centers[i], km_centers, km_labels, C0, int(iterations[i]), bool(converged[i]), source
        )
        for i in range(len(grid))
    ]


def _planes(s: Setting, progress):
    grid = s.scale.grid
    infos = _infos(s, grid, progress)
    return explore.plane_views(s.points, infos, grid, s.kind_spec, s.quantity, s.dtype, s.k)


def _explorer(s: Setting, progress, tr: Translator) -> bytes:
    grid = s.scale.grid
    drawn = drawn_points(s.n, s.seed)
    head = f"{tr(s.data_name)}, n = {s.n}, k = {s.k}, {s.kind_spec}, {s.dtype}"
    levels = explorer_levels(_planes(s, progress), grid, head, s.kind_spec, s.dtype, s.k, drawn=drawn, tr=tr)
    return scrub_payload(
        levels,
        grid,
        config=EXPLORER_CONFIG,
        initial=s.scale.index(s.scale.default),
        select=True,
        point_ids=drawn,
        probe=Probe(s.kind_spec),
        tr=tr,
    )


# --- the other views ---------------------------------------------------------------------------------


def _annealing(s: Setting, progress, tr: Translator) -> bytes:
    X = s.points
    study = collapse_study(
        X, s.k, kind=s.kind_spec, dtype=s.dtype, sigmas=s.scale.grid, seed=s.seed, progress=progress
    )
    view = annealing_view(study, X)
    return scrub_payload(
        annealing_levels(view, X, tr=tr),
        view.sigmas,
        config=CHART_CONFIG,
        initial=s.scale.index(s.scale.default),
        play_ms=FRAME_MS,
        tr=tr,
    )


def _stability(s: Setting, progress, tr: Translator) -> bytes:
    grid = s.scale.grid
    X = s.points
    centroids = s.kmeans_centroids
    planes = stability_views.stability_planes(s.points64, centroids, grid, s.dtype)
    if progress:
        progress(len(grid), len(grid))
    levels = stability_levels(planes, X, centroids, drawn=drawn_points(len(X), s.seed), tr=tr)
    return scrub_payload(levels, grid, config=CHART_CONFIG, initial=s.scale.index(s.scale.default), tr=tr)


def _equivalence(s: Setting, progress, tr: Translator) -> bytes:
    grid = s.scale.grid
    X = s.points
    # annealing has no single start to step from (ui.compute.step_start): k-means++ from the same seed
    C0 = explore.initial_centers(X, s.k, "kmeans++" if s.init == "anneal" else s.init, s.seed)
    steps, resps = [], []
    for i, sigma in enumerate(grid):
        steps.append(equivalence.one_step(X, C0, float(sigma), s.kind_spec))
        resps.append(responsibilities(X, C0, float(sigma), s.kind_spec))
        if progress:
            progress(i + 1, len(grid))
    head = f"{s.dataset}, k = {s.k}, {s.kind_spec}, {s.dtype}"
    levels = equivalence_levels(steps, resps, grid, X, head, s.kind_spec, tr=tr)
    return scrub_payload(levels, grid, config=CHART_CONFIG, initial=s.scale.index(s.scale.default), tr=tr)
