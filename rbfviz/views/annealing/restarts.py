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


def distortion_figure(race: Race, title: str | None = None, height: int = 440) -> go.Figure:
    """Histograms of the final J over the N restarts of each init, and vertical lines at the annealed J,
    the best restart's J and KMeans(n_init=N)'s J (dashed, dotted, solid)."""
    values = np.concatenate([race.distortions[init] for init in INITS])
    bins = dict(start=float(values.min()), end=float(values.max()), size=_bin_size(values))
    data = [
        dict(
            type="histogram",
            x=race.distortions[init],
            name=f"{init} restarts",
            xbins=bins,
            marker=dict(color=INIT_COLORS[init], line=dict(color="white", width=0.5)),
            opacity=0.7,
            hovertemplate=f"{init}: %{{y}} restarts with J in %{{x}}<extra></extra>",
        )
        for init in INITS
    ]
    layout = base_layout(
        title, height, x_title="final distortion J (data units²)", y_title="restarts", legend="below"
    )
    layout["barmode"] = "overlay"
    lines = (
        (race.annealed_j, "annealed J", ANNEALED_COLOR, "dash"),
        (race.best_j, "best restart", BEST_COLOR, "dot"),
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


def centres_figure(X, race: Race, title: str | None = None, height: int = 430) -> go.Figure:
    """Two planes: the poorest restart's centres (left) and annealing's (right), each on the points
    coloured by its nearest centre."""
    init, i = race.poor_restart()
    poor = race.centers[init][i]
    extent = plane_extent(X)
    layout = two_planes_layout(
        title,
        height,
        extent,
        f"poorest restart<br>J = {race.distortions[init][i]:.5g}",  # two lines: a phone's half width
        f"annealed<br>J = {race.annealed_j:.5g}",
    )
    data = []
    for side, (centres, name) in enumerate(((poor, "poor restart"), (race.annealed_centers, "annealed"))):
        axes = dict(xaxis="x" if side == 0 else "x2", yaxis="y" if side == 0 else "y2")
        cells = responsibilities(np.asarray(X, np.float64), centres, 1.0, "hard")
        points = dict(points_trace(X, cells, name="points (coloured by nearest centre)"), **axes)
        points.update(showlegend=side == 0, hovertemplate="(%{x:.3f}, %{y:.3f})<extra></extra>")
        points.pop("customdata")
        marks = dict(centers_trace(centres, name="centres"), **axes, showlegend=side == 0)
        data += [points, marks]
    return figure(data, layout)


def race_numbers(race: Race) -> list[tuple[str, str, str]]:
    """(label, value, help) triples beside the figures; labels short enough for a narrow column."""
    tol = percent(race.tolerance)
    return [
        ("annealed J (one run)", f"{race.annealed_j:.6g}", "Annealing's end point, polished by Lloyd."),
        (
            f"best of {2 * race.n_restarts} restarts",
            f"{race.best_j:.6g}",
            "The lowest final J of all restarts.",
        ),
        (
            f"KMeans(n_init={race.n_restarts})",
            f"{race.reference_j:.6g}",
            "scikit-learn's own best of N k-means++ restarts (its seeds, not ours).",
        ),
        *(
            (
                f"reach annealed J: {init}",
                percent(race.share_reaching(init)),
                f"The share of the {init} restarts ending within {tol} of the annealed J, or below.",
            )
            for init in INITS
        ),
    ]


def race_words(race: Race) -> str:
    """One paragraph: how often restarts reach the annealed J, and whether annealing beat the best one."""
    n = race.n_restarts
    tol = percent(race.tolerance)
    shares = " and ".join(f"{percent(race.share_reaching(init))} of the {init} restarts" for init in INITS)
    worst_init, worst = race.poor_restart()
    verdict = race.annealing_verdict()
    if verdict == "lower":
        end = (
            f"Here one annealing run found a lower J ({race.annealed_j:.6g}) than all {2 * n} restarts "
            f"(best {race.best_j:.6g})."
        )
    elif verdict == "tied":
        end = (
            f"Here one annealing run found the same J as the best of {2 * n} restarts (within {tol}): it "
            "needed no luck, the restarts needed many tries."
        )
    else:
        end = (
            f"Here annealing does **not** win: the best of {2 * n} restarts reached J = {race.best_j:.6g}, "
            f"lower than annealing's {race.annealed_j:.6g}. Annealing follows one path as σ falls; a split "
            "taken early can lead to a local minimum that some lucky restart avoids."
        )
    return (
        f"{shares} ended within {tol} of the annealed J; the rest stopped in poorer local minima, the worst "
        f"at J = {race.distortions[worst_init][worst]:.6g}. {end}"
    )
