"""The Annealing view's race of restarts against annealing (rbfviz.restarts.Race): its figures and words.

* ``distortion_figure(race)``  – the final J of every restart, k-means++ and random, as two histograms,
                                 with the annealed J, the best J and scikit-learn's KMeans(n_init=N) marked.
* ``centres_figure(X, race)``  – the poorest restart's centres beside the annealed ones, on the points
                                 coloured by the cell each set of centres gives them.
* ``race_numbers(race)``       – the numbers beside the figures, as (label, value, help) triples.
* ``race_words(race)``         – what the race found, in words, honest when annealing does not win.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rbfviz.field import plane_extent
from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.maps import responsibilities
from rbfviz.restarts import INITS, Race
from rbfviz.views.common.layout import base_layout, figure, two_planes_layout
from rbfviz.views.common.palette import KMEANS_COLOR
from rbfviz.views.common.plane import centers_trace, points_trace
from rbfviz.views.common.words import percent

INIT_COLORS = {"k-means++": "#0072B2", "random": "#E69F00"}  # Okabe-Ito blue and orange
ANNEALED_COLOR = "#D55E00"  # vermillion: annealing's J
BEST_COLOR = "#009E73"  # bluish green: the best restart's J
REFERENCE_COLOR = KMEANS_COLOR  # scikit-learn's KMeans(n_init=N), like every K-Means mark
INIT_NAMES = {"k-means++": "k-means++", "random": N_("random")}  # each start's name, shown as tr(name)


def distortion_figure(
    race: Race, title: str | None = None, height: int = 440, tr: Translator = ENGLISH
) -> go.Figure:
    """Histograms of the final J over the N restarts of each init, and vertical lines at the annealed J,
    the best restart's J and KMeans(n_init=N)'s J (dashed, dotted, solid); words in ``tr``'s language."""
    values = np.concatenate([race.distortions[init] for init in INITS])
    bins = dict(start=float(values.min()), end=float(values.max()), size=_bin_size(values))
    data = [
        dict(
            type="histogram",
            x=race.distortions[init],
            name=tr("{init} restarts", init=tr(INIT_NAMES[init])),
            xbins=bins,
            marker=dict(color=INIT_COLORS[init], line=dict(color="white", width=0.5)),
            opacity=0.7,
            hovertemplate=tr(
                "{init}: {count} restarts with J in {range}",
                init=tr(INIT_NAMES[init]),
                count="%{y}",
                range="%{x}",
            )
            + "<extra></extra>",
        )
        for init in INITS
    ]
    layout = base_layout(
        title,
        height,
        x_title=tr("final distortion J (data units²)"),
        y_title=tr("restarts"),
        legend="below",
        tr=tr,
    )
    layout["barmode"] = "overlay"
    lines = (
        (race.annealed_j, tr("annealed J"), ANNEALED_COLOR, "dash"),
        (race.best_j, tr("best restart"), BEST_COLOR, "dot"),
        (race.reference_j, f"KMeans(n_init={race.n_restarts})", REFERENCE_COLOR, "solid"),
    )
    layout["shapes"] = [
        dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1, line=dict(color=c, width=2, dash=d))
        for x, _, c, d in lines
    ]
    # the lines' names as legend entries (shapes have none)
    data += [
        dict(type="scatter", x=[None], y=[None], mode="lines", name=name, line=dict(color=c, width=2, dash=d))
        for _, name, c, d in lines
    ]
    return figure(data, layout)


def _bin_size(values: np.ndarray) -> float:
    """About 30 bins over the spread of J; a tiny spread (every restart alike) gets one visible bin."""
    spread = float(values.max() - values.min())
    return (
        spread / 30 if spread > 1e-9 * max(1.0, abs(float(values.max()))) else 1e-6 * max(1.0, abs(values[0]))
    )


def centres_figure(
    X, race: Race, title: str | None = None, height: int = 430, tr: Translator = ENGLISH
) -> go.Figure:
    """Two planes: the poorest restart's centres (left) and annealing's (right), each on the points
    coloured by its nearest centre; words in ``tr``'s language."""
    init, i = race.poor_restart()
    poor = race.centers[init][i]
    extent = plane_extent(X)
    layout = two_planes_layout(
        title,
        height,
        extent,
        tr("poorest restart<br>J = {j:.5g}", j=race.distortions[init][i]),  # two lines: a phone's half width
        tr("annealed<br>J = {j:.5g}", j=race.annealed_j),
    )
    layout["separators"] = tr.separators  # the numbers of the hover and axes in the reader's language
    data = []
    for side, centres in enumerate((poor, race.annealed_centers)):
        axes = dict(xaxis="x" if side == 0 else "x2", yaxis="y" if side == 0 else "y2")
        cells = responsibilities(np.asarray(X, np.float64), centres, 1.0, "hard")
        points = dict(points_trace(X, cells, name=tr("points (coloured by nearest centre)"), tr=tr), **axes)
        points.update(showlegend=side == 0, hovertemplate="(%{x:.3f}, %{y:.3f})<extra></extra>")
        points.pop("customdata")
        marks = dict(centers_trace(centres, name=tr("centres"), tr=tr), **axes, showlegend=side == 0)
        data += [points, marks]
    return figure(data, layout)


def race_numbers(race: Race, tr: Translator = ENGLISH) -> list[tuple[str, str, str]]:
    """(label, value, help) triples beside the figures; labels short enough for a narrow column."""
    tol = percent(race.tolerance, tr)
    return [
        (
            tr("annealed J (one run)"),
            tr.number(race.annealed_j, ".6g"),
            tr("Annealing's end point, polished by Lloyd."),
        ),
        (
            tr("best of {count} restarts", count=2 * race.n_restarts),
            tr.number(race.best_j, ".6g"),
            tr("The lowest final J of all restarts."),
        ),
        (
            f"KMeans(n_init={race.n_restarts})",
            tr.number(race.reference_j, ".6g"),
            tr("scikit-learn's own best of N k-means++ restarts (its seeds, not ours)."),
        ),
        *(
            (
                tr("reach annealed J: {init}", init=tr(INIT_NAMES[init])),
                percent(race.share_reaching(init), tr),
                tr(
                    "The share of the {init} restarts ending within {tol} of the annealed J, or below.",
                    init=tr(INIT_NAMES[init]),
                    tol=tol,
                ),
            )
            for init in INITS
        ),
    ]


def race_words(race: Race, tr: Translator = ENGLISH) -> str:
    """One paragraph: how often restarts reach the annealed J, and whether annealing beat the best one."""
    n = race.n_restarts
    tol = percent(race.tolerance, tr)
    shares = [
        tr(
            "{share} of the {init} restarts",
            share=percent(race.share_reaching(init), tr),
            init=tr(INIT_NAMES[init]),
        )
        for init in INITS
    ]
    worst_init, worst = race.poor_restart()
    verdict = race.annealing_verdict()
    if verdict == "lower":
        end = tr(
            "Here one annealing run found a lower J ({annealed:.6g}) than all {count} restarts (best "
            "{best:.6g}).",
            annealed=race.annealed_j,
            count=2 * n,
            best=race.best_j,
        )
    elif verdict == "tied":
        end = tr(
            "Here one annealing run found the same J as the best of {count} restarts (within {tol}): "
            "it needed "
            "no luck, the restarts needed many tries.",
            count=2 * n,
            tol=tol,
        )
    else:
        end = tr(
            "Here annealing does **not** win: the best of {count} restarts reached J = {best:.6g}, "
            "lower than "
            "annealing's {annealed:.6g}. Annealing follows one path as σ falls; a split taken early "
            "can lead to "
            "a local minimum that some lucky restart avoids.",
            count=2 * n,
            best=race.best_j,
            annealed=race.annealed_j,
        )
    return tr(
        "{first} and {second} ended within {tol} of the annealed J; the rest stopped in poorer local minima, "
        "the worst at J = {worst:.6g}. {verdict}",
        first=shares[0],
        second=shares[1],
        tol=tol,
        worst=race.distortions[worst_init][worst],
        verdict=end,
    )
