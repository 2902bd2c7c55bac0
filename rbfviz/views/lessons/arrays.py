"""Guided lessons: short steps through the result, as plain data plus answer checking.

Each ``Step`` names a view and its settings (a link opens the view in exactly that state), asks the
student to predict something before revealing it, and explains it with the equation. Every number
in a question, an answer or an explanation is computed here from the rbfviz library on the step's
own data (``prepare``), never typed in: change a data set's defaults and the lessons follow.

* ``STEPS``                  – the steps, in order.
* ``step_facts(step)``       – the numbers of a step, computed (the same in every language).
* ``prepare(step, tr)``      – ``Prepared``: the σ the link opens at (on the view's own σ grid),
                               the question and explanation filled in in ``tr``'s language, the
                               checked answer.
* ``check(prepared, response)`` – ``Verdict`` for an option index (choice) or a number, in the
                               prepared step's language.

The texts (titles, tasks, questions, options, explanations) are catalog messages, marked with ``N_``
where they are declared and translated by ``prepare``; a step's key, view and settings never change
with the language.

A step's settings use the names of the app's controls (dataset, n, noise, seed, k, init, kind,
dtype); the app turns settings and σ into a link with its own URL code (ui.state.lesson_query).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from rbfviz import measures
from rbfviz.datasets import DEFAULT_NOISE, make_dataset
from rbfviz.family import exact_collapse_answer
from rbfviz.i18n import ENGLISH, N_, Translator, translator
from rbfviz.maps import responsibilities
from rbfviz.measures import naive_nan_sigmas, one_hot_rows, underflow_logit
from rbfviz.restarts import race
from rbfviz.steps import kmeans
from rbfviz.validate import entmax_kind
from rbfviz.views.common.sigma import nearest_index
from rbfviz.views.common.words import percent
from rbfviz.views.equivalence.arrays import one_step
from rbfviz.views.explorer.arrays import SigmaScale, initial_centers, sigma_scale

VIEWS = ("Explorer", "Annealing", "Stability", "Equivalence")
# the views' names as the menu shows them (the app's page names), for the texts that name a view
VIEW_NAMES = {
    "Explorer": N_("Explorer"),
    "Annealing": N_("Annealing"),
    "Stability": N_("Stability"),
    "Equivalence": N_("Equivalence"),
}
DATA_UNITS = N_(" (data units)")
# the words inside the equations' \text{...}, translated where shown (equation_in); the rest of an
# equation is maths, the same in every language
EQUATION_WORDS = (
    N_("band"),
    N_("anneal"),
    N_("the minimum of"),
    N_("followed down from large"),
    N_("stable:"),
)
_TEXT = re.compile(r"\\text\{(\s*)([^{}]*?)(\s*)\}")


@dataclass(frozen=True)
class Question:
    """A prediction question: a choice between ``options`` (answer = option index) or, without
    options, a number (correct within ``rel_tol`` of the answer). Text may hold {fact} fields; the
    prompt, the options and the unit are catalog messages (English)."""

    prompt: str
    options: tuple[str, ...] = ()
    unit: str = ""
    rel_tol: float = 0.03

    @property
    def is_choice(self) -> bool:
        return bool(self.options)

    def option_texts(self, tr: Translator = ENGLISH) -> tuple[str, ...]:
        """The options in ``tr``'s language."""
        return tuple(tr(option) for option in self.options)

    def unit_text(self, tr: Translator = ENGLISH) -> str:
        """The unit in ``tr``'s language (empty for none), to follow a number: " (data units)"."""
        return tr(self.unit) if self.unit else ""


@dataclass(frozen=True)
class Step:
    """One lesson step. ``facts(data)`` computes, from rbfviz, the σ of the link ("sigma"), the
    answer ("answer": option index or number) and any number the texts mention."""

    key: str
    title: str
    view: str
    settings: dict
    task: str  # what to do and look at in the linked view (Markdown, {facts})
    question: Question
    explanation: str  # revealed after answering (Markdown, {facts})
    equations: tuple[str, ...]  # LaTeX, shown with the explanation; words in \text{} are EQUATION_WORDS
    facts: Callable[["StepData"], dict] = field(repr=False)


@dataclass(frozen=True)
class StepData:
    """The step's data as the app builds them: points, generating labels, K-Means (k-means++ seeded,
    the centroids the app's σ range comes from) and that σ range."""

    X: np.ndarray
    y: np.ndarray
    centers: np.ndarray
    labels: np.ndarray
    scale: SigmaScale
    settings: dict


@dataclass(frozen=True)
class Prepared:
    """A step with its facts computed and its texts in one language (``lang``); ``facts`` are as the
    texts show them (percentages and words as text)."""

    step: Step
    sigma: float  # the σ the step's link opens at (a value of its view's σ grid); settings: step.settings
    title: str
    task: str
    prompt: str
    options: tuple[str, ...]
    unit: str
    explanation: str
    equations: tuple[str, ...]
    answer: float
    answer_text: str
    facts: dict
    lang: str = ENGLISH.lang


@dataclass(frozen=True)
class Verdict:
    answered: bool
    correct: bool
    message: str


# --- helpers ------------------------------------------------------------------------------------------


class Share(float):
    """A fact that is a fraction, shown in the texts as a percentage (words.percent)."""


def shown_fact(value, tr: Translator = ENGLISH):
    """A fact as the texts show it: a Share as a percentage in ``tr``'s decimal separator, a word (a
    catalog message) in ``tr``'s language, a number as it is (the message's field formats it)."""
    if isinstance(value, Share):
        text = percent(float(value))
        return text.replace(".", ",") if tr.decimal_comma else text
    if isinstance(value, str):
        return tr(value)
    return value


def grid_at_or_below(scale: SigmaScale, sigma: float) -> float:
    """The largest σ of the grid that is <= sigma (the smallest grid value if none is)."""
    below = scale.grid[scale.grid <= sigma]
    return float(below.max()) if below.size else scale.low


def step_data(settings: dict) -> StepData:
    """The data of a step's settings, built exactly as the app builds them (ui.compute)."""
    X, y = make_dataset(settings["dataset"], settings["n"], settings["noise"], settings["seed"])
    centers, labels = kmeans(X, k=settings["k"], seed=settings["seed"])
    return StepData(X, y, centers, labels, sigma_scale(X, centers), settings)


def _settings(
    dataset: str, k: int, kind: str = "softmax", dtype: str = "float64", init: str = "kmeans++"
) -> dict:
    return dict(
        dataset=dataset, n=500, noise=DEFAULT_NOISE[dataset], seed=0, k=k, init=init, kind=kind, dtype=dtype
    )


# --- the facts of each step (all computed) -----------------------------------------------------------


def _voronoi(d: StepData) -> dict:
    sigma = d.scale.low
    resp = responsibilities(d.X, d.centers, sigma, "softmax")
    k = d.centers.shape[0]
    smallest_max = float(resp.max(axis=1).min())
    if smallest_max >= 1.0 - 1e-9:
        answer = 1
    elif float(np.abs(resp - 1.0 / k).max()) < 0.05:
        answer = 0
    else:
        answer = 2
    return dict(
        sigma=sigma,
        answer=answer,
        k=k,
        n=len(d.X),
        smallest_max=smallest_max,
        hard_share=Share(np.mean(resp.max(axis=1) == 1.0)),
        agreement=Share(measures.label_agreement(resp, d.labels)),
        sigma_exact_softmax=d.scale.sigma_exact_softmax,
    )


BAND_OPTIONS = (
    (N_("twice as wide"), 2.0),
    (N_("unchanged"), 1.0),
    (N_("half as wide"), 0.5),
    (N_("a quarter as wide"), 0.25),
)


def band_width(centers: np.ndarray, sigma: float, samples: int = 20_001) -> float:
    """Width of the band where two neighbouring centres share a point 10%–90%, measured with rbfviz's
    softmax along the segment between the two closest centres (data units)."""
    C = np.asarray(centers, dtype=np.float64)
    gaps = np.linalg.norm(C[:, None] - C[None], axis=2) + np.diag(np.full(len(C), np.inf))
    a, b = np.unravel_index(int(np.argmin(gaps)), gaps.shape)
    t = np.linspace(0.0, 1.0, samples)
    line = C[a] + t[:, None] * (C[b] - C[a])
    resp = responsibilities(line, C, sigma, "softmax")
    share = resp[:, a] / (resp[:, a] + resp[:, b])  # the two-centre split, whatever the others do
    inside = (share > 0.1) & (share < 0.9)
    return float(inside.sum() * np.linalg.norm(C[b] - C[a]) / (samples - 1))


def _soften(d: StepData) -> dict:
    sigma = d.scale.default
    wide, narrow = band_width(d.centers, sigma), band_width(d.centers, sigma / 2)
    ratio = narrow / wide
    return dict(
        sigma=sigma,
        answer=nearest_index([v for _, v in BAND_OPTIONS], ratio),
        width=wide,
        width_half=narrow,
        ratio=ratio,
        sigma_half=sigma / 2,
    )


def _anneal(d: StepData) -> dict:
    lam = measures.covariance_lambda_max(d.X)
    sigma_c = measures.critical_sigma_predicted(d.X, "softmax")
    return dict(sigma=grid_at_or_below(d.scale, sigma_c), answer=sigma_c, lam=lam, sigma_c=sigma_c)


RACE_RESTARTS = 100  # restarts per start in the restarts step (the Annealing view's race, N = 100)
RESTART_OPTIONS = (
    (N_("almost all (90% or more)"), 0.9),
    (N_("between a fifth and nine tenths"), 0.2),
    (N_("fewer than one in five"), 0.0),
)


def _restarts(d: StepData) -> dict:
    s = d.settings
    result = race(d.X, s["k"], RACE_RESTARTS, seed=s["seed"])
    share = result.share_reaching("random")
    uneven = race(make_dataset("uneven", 500, DEFAULT_NOISE["uneven"], 0)[0], 3, RACE_RESTARTS, seed=0)
    return dict(
        sigma=d.scale.default,
        answer=next(i for i, (_, floor) in enumerate(RESTART_OPTIONS) if share >= floor),
        n_restarts=RACE_RESTARTS,
        k=s["k"],
        share_random=Share(share),
        share_pp=Share(result.share_reaching("k-means++")),
        tolerance=Share(result.tolerance),
        annealed=result.annealed_j,
        best=result.best_j,
        worst=max(float(values.max()) for values in result.distortions.values()),
        verdict={"lower": N_("lower than"), "tied": N_("the same as"), "higher": N_("higher than")}[
            result.annealing_verdict()
        ],
        uneven_annealed=uneven.annealed_j,
        uneven_best=uneven.best_j,
        uneven_verdict=uneven.annealing_verdict(),
    )


GRADIENT_OPTIONS = (
    N_("to the soft centroid x̄_j = Σ_i r_ij x_i / N_j"),
    N_("halfway from c_j to the soft centroid x̄_j"),
    N_("to the mean of all the data"),
    N_("to the data point nearest to c_j"),
)


def _gradient(d: StepData) -> dict:
    s = d.settings
    sigma = d.scale.default
    C0 = initial_centers(d.X, s["k"], s["init"], s["seed"])
    step = one_step(d.X, C0, sigma, s["kind"])
    nearest = d.X[np.argmin(((d.X[:, None] - C0[None]) ** 2).sum(-1), axis=0)]
    candidates = (step.em, (step.start + step.em) / 2, np.broadcast_to(d.X.mean(axis=0), C0.shape), nearest)
    distance = [float(np.abs(step.gd - c).max()) for c in candidates]
    low = one_step(d.X, C0, d.scale.low, s["kind"])
    return dict(
        sigma=sigma,
        answer=int(np.argmin(distance)),
        gd_vs_em=step.gd_vs_em,
        gd_vs_lloyd=step.gd_vs_lloyd,
        sigma_low=d.scale.low,
        gd_vs_lloyd_low=low.gd_vs_lloyd,
    )


def _underflow(d: StepData) -> dict:
    Z = underflow_logit("float32")
    first, _ = naive_nan_sigmas(d.X, d.centers, "float32")
    sigma = grid_at_or_below(d.scale, first)
    X32 = d.X.astype(np.float32)
    C32, _ = measures.kmeans_reference(X32, d.centers)  # C* in float32, as the Stability view
    naive = responsibilities(X32, C32, sigma, "naive")
    stable = responsibilities(X32, C32, sigma, "softmax")
    return dict(
        sigma=sigma,
        answer=first,
        Z=Z,
        d_max=2.0 * Z * first**2,
        sigma_first=first,
        nan_rows=int(np.isnan(naive).any(axis=1).sum()),
        n=len(d.X),
        stable_nan_rows=int(np.isnan(stable).any(axis=1).sum()),
    )


def _entmax(d: StepData) -> dict:
    g_min = measures.min_sq_gap(d.X, d.centers)
    sigma_star = measures.sigma_exact_predicted(d.X, d.centers)
    sigma = grid_at_or_below(d.scale, sigma_star)
    X32 = d.X.astype(np.float32)
    C32, _ = measures.kmeans_reference(X32, d.centers)
    resp = responsibilities(X32, C32, sigma, "entmax15")
    k = d.centers.shape[0]
    return dict(
        sigma=sigma,
        answer=sigma_star,
        g_min=g_min,
        sigma_star=sigma_star,
        n=len(d.X),
        k=k,
        one_hot=int(one_hot_rows(resp).sum()),
        zeros=int(measures.count_exact_zeros(resp)),
        zeros_expected=len(d.X) * (k - 1),
        nan_rows=int(np.isnan(resp).any(axis=1).sum()),
    )


# the answer options of the sparsemax-or-entmax-1.5 step, in the order of FAMILY_OPTION_ALPHAS
FAMILY_OPTIONS = ("sparsemax (α = 2)", "entmax-1.5 (α = 1.5)", N_("both at the same σ"))
FAMILY_OPTION_ALPHAS = (2.0, 1.5, None)


def _family(d: StepData) -> dict:
    found = exact_collapse_answer(d.X, d.centers, alphas=(1.5, 2.0), dtype="float64")
    (s15, s2), (m15, m2) = found["predicted"], found["measured"]
    return dict(
        sigma=grid_at_or_below(d.scale, s2),
        answer=FAMILY_OPTION_ALPHAS.index(found["larger"]),
        g_min=found["g_min"],
        s15=s15,
        s2=s2,
        m15=m15,
        m2=m2,
        ratio_predicted=found["ratio_predicted"],
        ratio_measured=found["ratio_measured"],
        within=N_("both within one grid step of")
        if all(found["within_step"])
        else N_("not both within a step of"),
    )


MOONS_OPTIONS = (
    N_("all of them: 100%"),
    N_("most, but not all: the cut is a straight line"),
    N_("about half, like a coin flip"),
)


def _agreement_bucket(fraction: float) -> int:
    return 0 if fraction >= 0.99 else 1 if fraction >= 0.6 else 2


def _moons(d: StepData) -> dict:
    k = d.centers.shape[0]
    agreement = measures.label_agreement(np.eye(k)[d.labels], d.y)
    # at fixed centres the argmax of r is the nearest centre at every σ: a straight cut
    distances = ((d.X[:, None] - d.centers[None]) ** 2).sum(-1)
    linear = all(
        np.array_equal(
            responsibilities(d.X, d.centers, float(s), "softmax").argmax(axis=1), distances.argmin(axis=1)
        )
        for s in d.scale.grid[::4]
    )
    circles = step_data(_settings("circles", 2))
    circles_agreement = measures.label_agreement(np.eye(2)[circles.labels], circles.y)
    return dict(
        sigma=d.scale.default,
        answer=_agreement_bucket(agreement),
        agreement=Share(agreement),
        circles_agreement=Share(circles_agreement),
        linear=N_("yes") if linear else N_("no"),
        sigmas_checked=len(d.scale.grid[::4]),
    )


SHEARED_OPTIONS = (
    N_("along the empty gaps between the groups, so each group is one whole cell"),
    N_("straight across the long groups, so the end of a group falls in its neighbour's cell"),
    N_("along curves that hug each group's elliptical outline"),
)


def _sheared(d: StepData) -> dict:
    sigma = d.scale.low
    k = d.centers.shape[0]
    groups = np.unique(d.y)
    cells = np.zeros((len(groups), k), dtype=np.int64)  # points of each generating group in each cell
    np.add.at(cells, (d.y, d.labels), 1)
    majority = cells.max(axis=1) / cells.sum(axis=1)
    whole = bool((majority >= 0.99).all()) and len(set(cells.argmax(axis=1))) == len(groups)
    # the argmax of r is the nearest centre at every σ: the edges are straight lines
    distances = ((d.X[:, None] - d.centers[None]) ** 2).sum(-1)
    linear = all(
        np.array_equal(
            responsibilities(d.X, d.centers, float(s), "softmax").argmax(axis=1), distances.argmin(axis=1)
        )
        for s in d.scale.grid[::4]
    )
    # the most-cut group, the two cells it falls in, and the edge between their centres
    group = int(np.argmin(majority))
    own, other = np.argsort(-cells[group], kind="stable")[:2]
    normal = d.centers[own] - d.centers[other]
    edge = np.array([-normal[1], normal[0]]) / np.linalg.norm(normal)
    spread, axes = np.linalg.eigh(np.cov(d.X[d.y == group].T))
    angle = float(np.degrees(np.arccos(min(1.0, abs(float(edge @ axes[:, -1]))))))
    group_means = np.stack([d.X[d.y == g].mean(axis=0) for g in groups])
    return dict(
        sigma=sigma,
        answer=0 if whole else 1 if linear else 2,
        k=k,
        n=len(d.X),
        group_size=int(cells[group].sum()),
        cut=int(cells[group, other]),
        cut_share=Share(cells[group, other] / cells[group].sum()),
        angle=angle,
        axis_ratio=float(np.sqrt(spread[-1] / spread[0])),
        agreement=Share(measures.label_agreement(np.eye(k)[d.labels], d.y)),
        J_kmeans=float(distances.min(axis=1).sum()),
        J_groups=float(((d.X - group_means[d.y]) ** 2).sum()),
        linear=N_("yes") if linear else N_("no"),
        sigmas_checked=len(d.scale.grid[::4]),
    )


# --- the steps ----------------------------------------------------------------------------------------

STEPS: tuple[Step, ...] = (
    Step(
        key="voronoi",
        title=N_("Hard K-Means and its Voronoi cells"),
        view="Explorer",
        settings=_settings("blobs", 4),
        task=N_(
            "The link opens the Explorer at the smallest σ on the slider (σ = {sigma:.3g}). Look at the "
            "plane: every point has one colour, and dark lines cut the plane into k = {k} cells, one per "
            "centre."
        ),
        question=Question(
            N_("At this tiny σ, what does each point's responsibility vector r_i look like?"),
            options=(
                N_("spread evenly: every r_ij ≈ 1/k"),
                N_("one-hot: all of r_i on its nearest centre, the cell it lies in"),
                N_("shared between its two nearest centres"),
            ),
        ),
        explanation=N_(
            "With σ far below every distance gap, each row of r puts (to float64 rounding) all its "
            "weight on the nearest centre: at the K-Means centroids {hard_share} of the rows have "
            "max_j r_ij == 1.0 exactly (σ is below softmax's float64-exact σ ≈ "
            "{sigma_exact_softmax:.3g}). So argmax r is the Voronoi cell: "
            "{agreement} of the points agree with K-Means. K-Means minimises the distortion J; Lloyd's "
            "algorithm alternates assigning each point to its cell and moving each centre to its cell's mean."
        ),
        equations=(
            r"J(C) = \sum_i \min_j \lVert x_i - c_j\rVert^2",
            r"V_j = \{x : \lVert x - c_j\rVert \le \lVert x - c_l\rVert \ \forall l\}, \qquad "
            r"c_j \leftarrow \frac{1}{|V_j|}\sum_{x_i \in V_j} x_i",
        ),
        facts=_voronoi,
    ),
    Step(
        key="soften",
        title=N_("Soften with σ"),
        view="Explorer",
        settings=_settings("blobs", 4),
        task=N_(
            "The link opens the Explorer at σ = {sigma:.3g}. Along each Voronoi edge the colours blend: "
            "there points belong partly to both neighbouring centres. Move the σ slider and watch the band."
        ),
        question=Question(
            N_("If you halve σ, the band where two centres share a point (10%–90%) becomes…"),
            options=tuple(label for label, _ in BAND_OPTIONS),
        ),
        explanation=N_(
            "For two centres a and b the logits differ by a linear function of x, so the share of a "
            "is a logistic curve across the edge whose width scales like σ². Measured along the segment "
            "between the two closest K-Means centroids: the band is {width:.4g} wide at σ = {sigma:.3g} and "
            "{width_half:.4g} at σ = {sigma_half:.3g}, a ratio of {ratio:.4f}."
        ),
        equations=(
            r"z_{ia} - z_{ib} = \frac{\lVert x_i - c_b\rVert^2 - \lVert x_i - c_a\rVert^2}{2\sigma^2} = "
            r"\frac{\lVert c_a - c_b\rVert}{\sigma^2}\, s_i",
            r"\frac{r_{ia}}{r_{ia} + r_{ib}} = \frac{1}{1 + e^{-\lVert c_a - c_b\rVert s_i/\sigma^2}}, "
            r"\qquad \text{band } |s| < \frac{\sigma^2 \ln 9}{\lVert c_a - c_b\rVert}",
        ),
        facts=_soften,
    ),
    Step(
        key="anneal",
        title=N_("Anneal and watch the splits"),
        view="Annealing",
        settings=_settings("blobs", 4),
        task=N_(
            "The link opens the Annealing view. Press ▶ Play: all centres start at the data mean and stay "
            "there while σ is large. Watch where they first move apart, in the animation and in the "
            "bifurcation diagram."
        ),
        question=Question(
            N_(
                "The covariance matrix of the data (divided by N) has largest eigenvalue "
                "λ_max = {lam:.4g} (data units²). At which σ do the centres first split away from the "
                "data mean (softmax)?"
            ),
            unit=DATA_UNITS,
            rel_tol=0.03,
        ),
        explanation=N_(
            "Linearise EM at the data mean: a small offset δ of a centre grows by the factor "
            "λ/σ² per step along an eigenvector of the covariance with eigenvalue λ. Above σ_c the "
            "mean is stable; below it the centres split along the principal axis, at σ_c = √λ_max = "
            "{sigma_c:.4g}. The view's bifurcation diagram marks the first split measured on its σ grid "
            "(it lags by up to one grid step); later splits follow at smaller σ."
        ),
        equations=(
            r"\delta \mapsto \frac{\Sigma}{\sigma^2}\,\delta \quad\Rightarrow\quad \sigma_c^2 = "
            r"\lambda_{\max}(\Sigma), \qquad \Sigma = \frac{1}{N}\sum_i (x_i - \bar x)(x_i - \bar x)^\top",
        ),
        facts=_anneal,
    ),
    Step(
        key="restarts",
        title=N_("One annealing run against many restarts"),
        view="Annealing",
        settings=dict(_settings("iris", 3), n=150, noise=0.0),
        task=N_(
            "The link opens the Annealing view on the iris measurements with k = {k}. In the app, scroll to "
            "**Restarts against annealing**, set N = {n_restarts} and press **Run the race**."
        ),
        question=Question(
            N_(
                "K-Means is restarted {n_restarts} times, each from k = {k} random data points, and run "
                "until it stops. How many of the restarts end at the distortion J that one annealing run "
                "reaches (within {tolerance})?"
            ),
            options=tuple(text for text, _ in RESTART_OPTIONS),
        ),
        explanation=N_(
            "{share_random} of the random restarts (and {share_pp} of the k-means++ ones) end "
            "within {tolerance} of the annealed J = {annealed:.6g}; the others stop in poorer local minima, "
            "the worst at J = {worst:.6g}. Lloyd's steps only ever go downhill from where they start. "
            "Annealing starts where L_σ has a single minimum, at large σ, and follows it as σ falls: one "
            "run, no luck needed. Here its J is {verdict} the best of all {n_restarts} × 2 restarts "
            "({best:.6g}). It is no guarantee: on the unequal-size blobs with k = 3 the best restart reaches "
            "J = {uneven_best:.6g} and annealing {uneven_annealed:.6g}, because a split taken early follows "
            "the wrong branch."
        ),
        equations=(
            r"J(C) = \sum_i \min_j \lVert x_i - c_j\rVert^2",
            r"C_{\text{anneal}} = \lim_{\sigma \to 0} C_\sigma, \quad "
            r"C_\sigma = \text{the minimum of } L_\sigma \text{ followed down from large } \sigma",
        ),
        facts=_restarts,
    ),
    Step(
        key="gradient",
        title=N_("The gradient step is Lloyd's step"),
        view="Equivalence",
        settings=_settings("blobs", 4),
        task=N_(
            "The link opens the Equivalence view at σ = {sigma:.3g}: one gradient step on the RBF loss L_σ "
            "next to one Lloyd step, from the same start."
        ),
        question=Question(
            N_(
                "With the per-centre step size η_j = 1/(2N_j), where N_j = Σ_i r_ij, where does one "
                "gradient step on L_σ move centre c_j?"
            ),
            options=GRADIENT_OPTIONS,
        ),
        explanation=N_(
            "The gradient of L_σ (responsibilities held fixed) is −2N_j(x̄_j − c_j), so the step "
            "lands exactly on the soft centroid x̄_j at every σ: measured here, the largest difference is "
            "{gd_vs_em:.2g} (rounding). As σ → 0 the soft centroid becomes the mean of the Voronoi cell, "
            "Lloyd's update: the distance to Lloyd's step is {gd_vs_lloyd:.3g} at σ = {sigma:.3g} and "
            "{gd_vs_lloyd_low:.3g} at σ = {sigma_low:.3g}."
        ),
        equations=(
            r"\nabla_{c_j} L_\sigma = -2\sum_i r_{ij}(x_i - c_j) = -2N_j(\bar x_j - c_j)",
            r"c_j - \frac{1}{2N_j}\nabla_{c_j} L_\sigma = \bar x_j = \frac{\sum_i r_{ij} x_i}{\sum_i r_{ij}}",
        ),
        facts=_gradient,
    ),
    Step(
        key="underflow",
        title=N_("Naive softmax underflows in float32"),
        view="Stability",
        settings=_settings("blobs", 4, kind="naive", dtype="float32"),
        task=N_(
            "The link opens the Stability view in float32 at σ = {sigma:.3g}. The naive map computes "
            "exp(z) / Σ exp(z) exactly as written; look at its NaN rows and at the grey region of the plane."
        ),
        question=Question(
            N_(
                "In float32, exp(z) rounds to 0 once z < −{Z:.1f}. The point farthest from its nearest "
                "K-Means centroid is at squared distance d = {d_max:.4g}. Below which σ does that "
                "point's naive row become 0/0 = NaN?"
            ),
            unit=DATA_UNITS,
            rel_tol=0.03,
        ),
        explanation=N_(
            "The row breaks when even its largest term underflows: d/(2σ²) > Z, i.e. σ < √(d/(2Z)) = "
            "{sigma_first:.4g}. At the linked σ = {sigma:.3g}, {nan_rows} of the {n} naive rows are NaN in "
            "float32, while the stable softmax, which subtracts the largest logit before exponentiating, "
            "has {stable_nan_rows}. (On hardware that flushes subnormal numbers to zero the naive map "
            "breaks a little earlier, at Z ≈ 87.3.)"
        ),
        equations=(
            r"r_{ij} = \frac{e^{z_{ij}}}{\sum_l e^{z_{il}}}, \quad z_{ij} = -\frac{d_{ij}}{2\sigma^2}: "
            r"\quad \min_j \frac{d_{ij}}{2\sigma^2} > Z \;\Rightarrow\; r_i = \frac{0}{0}",
            r"\text{stable: } r_{ij} = \frac{e^{z_{ij} - \max_l z_{il}}}{\sum_l e^{z_{il} - \max_l z_{il}}}",
        ),
        facts=_underflow,
    ),
    Step(
        key="entmax",
        title=N_("Entmax-1.5 stays exact and sparse"),
        view="Explorer",
        settings=_settings("blobs", 4, kind="entmax15", dtype="float32"),
        task=N_(
            "The link opens the Explorer with entmax-1.5 in float32 at σ = {sigma:.3g}. Look at the number "
            "of exactly-zero responsibilities and at the agreement with K-Means."
        ),
        question=Question(
            N_(
                "An entmax-1.5 row is exactly one-hot when the gap between its two smallest squared "
                "distances is at least 4σ². At the K-Means centroids the smallest gap over all points is "
                "g_min = {g_min:.4g}. Below which σ is every row exactly one-hot?"
            ),
            unit=DATA_UNITS,
            rel_tol=0.03,
        ),
        explanation=N_(
            "Every row is one-hot once g_min ≥ 4σ², i.e. σ ≤ σ* = √g_min / 2 = {sigma_star:.4g}. At "
            "the linked σ = {sigma:.3g}, in float32: {one_hot} of {n} rows are exactly one-hot and {zeros} "
            "of the {n}·({k}−1) = {zeros_expected} off-weights are exactly 0, with {nan_rows} NaN rows. "
            "Entmax thresholds instead of exponentiating, so it never underflows, and below σ* it is K-Means "
            "exactly, not approximately."
        ),
        equations=(
            r"\operatorname{entmax}_{1.5}(z)_j = \left[\tfrac{z_j}{2} - \tau\right]_+^2, \qquad "
            r"r_i \text{ one-hot} \iff d_{i(2)} - d_{i(1)} \ge 4\sigma^2",
        ),
        facts=_entmax,
    ),
    Step(
        key="family",
        title=N_("Sparsemax or entmax-1.5: which becomes exactly K-Means at a larger σ?"),
        view="Stability",
        settings=dict(_settings("blobs", 4, kind=entmax_kind(2.0)), alpha=2.0),
        task=N_(
            "The link opens the Stability view with sparsemax (α-entmax at α = 2) at σ = {sigma:.3g}. "
            "Scroll to the panel *Exact collapse across the α-entmax family*, but answer before you look."
        ),
        question=Question(
            N_(
                "α-entmax makes a row exactly one-hot once the gap between its two largest logits reaches "
                "1/(α−1). Which map turns every row exactly one-hot, and so the soft centroids into K-Means' "
                "exactly, at the larger σ?"
            ),
            options=FAMILY_OPTIONS,
        ),
        explanation=N_(
            "Sparsemax needs a logit gap of 1/(2−1) = 1, entmax-1.5 a gap of 1/(1.5−1) = 2. A row's "
            "logit gap is gᵢ/(2σ²), so every row at the K-Means centroids is one-hot for σ ≤ σ*(α) = "
            "√((α−1)·g_min/2); with g_min = {g_min:.4g}: σ*(2) = {s2:.4g} and σ*(1.5) = {s15:.4g}, a ratio "
            "of √2 = {ratio_predicted:.4f}. Measured on the σ grid in float64, every row is one-hot from "
            "σ = {m2:.4g} (sparsemax) and from σ = {m15:.4g} (entmax-1.5), a ratio of {ratio_measured:.3f}, "
            "{within} the prediction. The sparser the map, the earlier it is K-Means exactly; softmax (α → "
            "1) never is."
        ),
        equations=(
            r"\alpha\text{-entmax}(z)_j = \left[(\alpha-1)z_j - \tau\right]_+^{1/(\alpha-1)}, \qquad "
            r"r_i \text{ one-hot} \iff z_{i(1)} - z_{i(2)} \ge \frac{1}{\alpha-1}",
            r"\frac{g_{\min}}{2\sigma^2} \ge \frac{1}{\alpha-1} \iff "
            r"\sigma \le \sigma^*(\alpha) = \sqrt{\frac{(\alpha-1)\,g_{\min}}{2}}",
        ),
        facts=_family,
    ),
    Step(
        key="moons",
        title=N_("Why moons and circles defeat K-Means at any σ"),
        view="Explorer",
        settings=_settings("moons", 2),
        task=N_(
            "The link opens the Explorer on two moons with k = 2 at σ = {sigma:.3g}. Move σ up and down: "
            "the boundary between the two colours stays a straight line."
        ),
        question=Question(
            N_(
                "With k = 2, how many points can K-Means (or the RBF layer at any σ) put in the same "
                "cluster as their own moon?"
            ),
            options=MOONS_OPTIONS,
        ),
        explanation=N_(
            "The log-ratio of two responsibilities is linear in x, so the boundary between two "
            "clusters is a straight line at every σ (checked here: at {sigmas_checked} σ values the argmax "
            "of r is exactly the nearest centre: {linear}). The moons interlock, so no line separates them: "
            "K-Means puts {agreement} of the points with their own moon; on two rings (circles) it gets "
            "{circles_agreement}. Separating them needs more than the clustering layer: e.g. a trained "
            "read-out on top of r, which is the RBF network."
        ),
        equations=(
            r"\log\frac{r_{ia}}{r_{ib}} = \frac{(c_a - c_b)^\top x_i}{\sigma^2} + "
            r"\frac{\lVert c_b\rVert^2 - \lVert c_a\rVert^2}{2\sigma^2}",
        ),
        facts=_moons,
    ),
    Step(
        key="sheared",
        title=N_("Sheared blobs: where the Voronoi edges cut"),
        view="Explorer",
        settings=_settings("sheared", 3),
        task=N_(
            'The link opens the Explorer on sheared blobs (scikit-learn\'s "k-means assumptions" data) with '
            "k = {k} at the smallest σ on the slider (σ = {sigma:.3g}), where the responsibilities are "
            "K-Means' Voronoi cells. Before you open it, picture the data: three long, thin, parallel groups."
        ),
        question=Question(
            N_(
                "Three round blobs were sheared into long, thin, parallel ellipses. Where do the edges of "
                "K-Means' k = {k} Voronoi cells run?"
            ),
            options=SHEARED_OPTIONS,
        ),
        explanation=N_(
            "An edge between two cells is the perpendicular bisector of their two centres: a "
            "straight line that knows the centres, not the shape of the groups (checked here: at "
            "{sigmas_checked} σ values the argmax of r is exactly the nearest centre: {linear}). The group "
            "cut most is {axis_ratio:.1f} times longer than wide, so its far end lies nearer a neighbour's "
            "centre than its own: an edge crosses it at {angle:.0f}° to its long axis, and {cut} of its "
            "{group_size} points ({cut_share}) fall in the neighbour's cell. K-Means puts "
            "{agreement} of the points with their own group, and it does so on purpose: its cut has the "
            "smaller distortion, J = {J_kmeans:.4g} against {J_groups:.4g} for the true groups. A smaller σ "
            "only sharpens the same straight edges; following the shear needs a model with a covariance "
            "per cluster, such as a Gaussian mixture with full covariances."
        ),
        equations=(
            r"\lVert x - c_a\rVert^2 = \lVert x - c_b\rVert^2 \iff (c_a - c_b)^\top x = "
            r"\tfrac{1}{2}\left(\lVert c_a\rVert^2 - \lVert c_b\rVert^2\right)",
            r"x = u A,\ u \sim \mathcal{N}(\mu, s^2 I) \;\Rightarrow\; \operatorname{Cov}(x) = s^2 A^\top A",
        ),
        facts=_sheared,
    ),
)


# --- preparing and checking ---------------------------------------------------------------------------


def equation_in(equation: str, tr: Translator = ENGLISH) -> str:
    """A LaTeX equation with the words of its \\text{...} in ``tr``'s language (EQUATION_WORDS)."""
    return _TEXT.sub(lambda m: rf"\text{{{m[1]}{tr(m[2]) if m[2] else ''}{m[3]}}}", equation)


def step_facts(step: Step) -> dict:
    """The step's facts, computed from rbfviz on its data: numbers, shares and words (catalog messages),
    the same in every language (the app computes them once and prepares each reader's texts)."""
    return step.facts(step_data(step.settings))


def prepare(step: Step, tr: Translator = ENGLISH, facts: dict | None = None) -> Prepared:
    """The step with its facts computed (or ``facts``, from ``step_facts``) and its texts in ``tr``'s
    language: link, texts filled in, answer."""
    facts = step_facts(step) if facts is None else facts
    shown = {name: shown_fact(value, tr) for name, value in facts.items()}
    answer = facts["answer"]
    question = step.question
    options = question.option_texts(tr)
    unit = question.unit_text(tr)
    if question.is_choice:
        answer_text = tr("the answer is “{option}”", option=options[int(answer)])
    else:
        answer_text = tr("the answer is {answer:.4g}{unit}", answer=answer, unit=unit)
    return Prepared(
        step=step,
        sigma=float(facts["sigma"]),
        title=tr(step.title),
        task=tr(step.task, **shown),
        prompt=tr(question.prompt, **shown),
        options=options,
        unit=unit,
        explanation=tr(step.explanation, **shown),
        equations=tuple(equation_in(equation, tr) for equation in step.equations),
        answer=float(answer),
        answer_text=answer_text,
        facts=shown,
        lang=tr.lang,
    )


def check(prepared: Prepared, response) -> Verdict:
    """The verdict on a response: an option index for a choice question, a number otherwise (None = not
    answered), in the prepared step's language."""
    tr = translator(prepared.lang)
    question = prepared.step.question
    if response is None:
        return Verdict(
            False, False, tr("Choose an answer first.") if question.is_choice else tr("Enter a number first.")
        )
    if question.is_choice:
        index = int(response)
        if not 0 <= index < len(question.options):
            raise ValueError(
                f"response must be an option index from 0 to {len(question.options) - 1}, got {response!r}."
            )
        correct = index == int(prepared.answer)
        said = tr("you chose “{option}”", option=prepared.options[index])
    else:
        value = float(response)
        if not math.isfinite(value):
            return Verdict(False, False, tr("Enter a finite number."))
        correct = abs(value - prepared.answer) <= question.rel_tol * abs(prepared.answer)
        said = tr("you said {value:.4g}", value=value)
    if correct:
        return Verdict(True, True, tr("Right: {answer}.", answer=prepared.answer_text))
    return Verdict(True, False, tr("Not quite: {said}; {answer}.", said=said, answer=prepared.answer_text))
