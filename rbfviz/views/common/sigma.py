"""The σ pieces several views draw: the log σ axis and its ticks, vertical σ lines and their names, the
shaded σ
window, the play/pause buttons of an animation over σ, markers for exact zeros on a log axis, and the σ level
nearest to a σ."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from rbfviz.i18n import ENGLISH, N_, Translator
from rbfviz.views.common.layout import figure, framed_axis

# Marks that are not clusters (colour-blind safe: Paul Tol's high-contrast blue/red, plus black
# and grey; they also differ by dash so they read in greyscale).
CURRENT_COLOR = "#000000"


EXACT_COLOR = "#BB5566"


SOFTMAX_EXACT_COLOR = "#666666"


# Legend names of the σ lines (tests look them up), shown as tr(CURRENT) etc.
CURRENT = N_("current σ")


EXACT_PREDICTED = N_("σ* predicted (every row one-hot)")


SOFTMAX_EXACT = N_("softmax f64-exact √(g_min/73.4)")


def sigma_line(
    sigma: float,
    name: str,
    color: str,
    dash: str = "dash",
    width: float = 2.0,
    xref: str = "x",
    yref: str = "paper",
    showlegend: bool = True,
) -> dict:
    """A full-height vertical line at σ (data x; y from 0 to 1 of ``yref``, the figure or a panel's
    domain) with a legend entry; lines of the same ``name`` share one (legendgroup)."""
    return dict(
        type="line",
        xref=xref,
        yref=yref,
        x0=float(sigma),
        x1=float(sigma),
        y0=0.0,
        y1=1.0,
        line=dict(color=color, dash=dash, width=width),
        name=name,
        showlegend=showlegend,
        legendgroup=name,
        layer="above",
    )


def log_ticks(low: float, high: float, tr: Translator = ENGLISH) -> tuple[list[float], list[str]]:
    """Tick values 1, 2, 5 × 10^e covering [low, high] and their labels ("0.05", "2", "1e-05"; "0,05" in a
    decimal-comma language of ``tr``).

    Plotly's own log ticks label 2 and 5 as bare digits ("5" for 0.5), which reads wrongly; fewer
    ticks (1 and 3 per decade) once the range spans more than three decades.
    """
    low, high = float(min(low, high)), float(max(low, high))
    if not (low > 0 and math.isfinite(high)):
        return [], []
    mantissas = (1.0, 2.0, 5.0) if high / low <= 1e3 else (1.0, 3.0)
    values = [
        m * 10.0**e
        for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
        for m in mantissas
    ]
    values = [v for v in values if low <= v <= high]
    return values, [tr.number(v, "g") for v in values]


SIGMA_AXIS = N_("σ  (log scale; cooling →)")  # the σ axis's title, shown as tr(SIGMA_AXIS)


def sigma_axis(sigmas, title: str | None = SIGMA_AXIS, tr: Translator = ENGLISH) -> dict:
    """A log σ axis, large σ on the left, with readable 1-2-5 ticks over the σ values (in ``tr``'s
    decimal separator); no title for ``title=None`` (an upper panel sharing the lower one's). ``title``:
    in ``tr``'s language, or SIGMA_AXIS (translated here)."""
    sigmas = np.asarray(sigmas, dtype=np.float64)
    sigmas = sigmas[np.isfinite(sigmas) & (sigmas > 0)]
    values, labels = log_ticks(sigmas.min(), sigmas.max(), tr) if sigmas.size else ([], [])
    if title == SIGMA_AXIS:
        title = tr(SIGMA_AXIS)
    return dict(
        type="log",
        autorange="reversed",
        title=dict(text=title, font=dict(size=14)) if title else None,
        **framed_axis(tick_size=12),
        tickvals=values,
        ticktext=labels,
    )


def figure_with_frames(data: list[dict], layout: dict, frames: list[dict]) -> go.Figure:
    """``layout.figure`` plus animation frames, none of them validated by Plotly.

    Plotly validates frames even when the figure is built with ``_validate=False``: ~0.6 s for 40
    frames of 500 point colours, on every rerun. Unvalidated ``go.Frame`` objects are therefore
    attached directly (``to_dict``, which Streamlit serialises, reads them as they are). The unit
    tests run every figure through ``layout.validated``, frames included.
    """
    fig = figure(data, layout)
    fig._frame_objs = tuple(go.Frame(frame, _validate=False) for frame in frames)
    return fig


def nearest_index(values, value: float) -> int:
    """Index of the entry of ``values`` (positive numbers) nearest to ``value`` on a log scale; the
    first of equally near ones. The one way every view finds "the σ level nearest to σ"."""
    return int(np.argmin(np.abs(np.log(np.asarray(values, dtype=np.float64)) - math.log(value))))


def sigma_window(sigma_high: float, sigma_low: float, fill: str, name: str) -> dict:
    """A layout shape: the σ interval [sigma_low, sigma_high] shaded over the plot's full height, below
    the traces (a fit's window, the plateau of an answer)."""
    return dict(
        type="rect",
        xref="x",
        yref="paper",
        x0=float(sigma_high),
        x1=float(sigma_low),
        y0=0.0,
        y1=1.0,
        fillcolor=fill,
        line=dict(width=0),
        layer="below",
        name=name,
    )


def play_buttons(
    frame_ms: int, redraw: bool, play_label: str, y: float, tr: Translator = ENGLISH
) -> list[dict]:
    """The layout's ``updatemenus``: play from the first frame, pause, resume, under the plot at
    paper height y. ``redraw`` is True when frames change the layout (images), not only the data.
    play_label: in the reader's language; Pause and Resume in ``tr``'s."""
    play = dict(
        frame=dict(duration=int(frame_ms), redraw=redraw), transition=dict(duration=0), mode="immediate"
    )
    still = dict(frame=dict(duration=0, redraw=redraw), mode="immediate", transition=dict(duration=0))
    return [
        dict(
            type="buttons",
            direction="left",
            showactive=False,
            x=0.0,
            xanchor="left",
            y=y,
            yanchor="top",
            pad=dict(t=0, r=10),
            font=dict(size=13),
            buttons=[
                dict(label=play_label, method="animate", args=[None, {**play, "fromcurrent": False}]),
                dict(label=tr("❚❚ Pause"), method="animate", args=[[None], still]),
                dict(label=tr("▶ Resume"), method="animate", args=[None, {**play, "fromcurrent": True}]),
            ],
        )
    ]


def power_law_line(fit, points: int, name: str, **style) -> dict:
    """A scatter trace of the fitted power law E = e^intercept · σ^slope at ``points`` σ values over the
    fit's window [fit.sigma_min, fit.sigma_max] (a ``measures.SlopeFit``), without hover; ``style``: the
    trace's line, legend group, opacity."""
    xs = np.geomspace(fit.sigma_max, fit.sigma_min, points)
    return dict(
        type="scatter",
        x=xs,
        y=np.exp(fit.intercept) * xs**fit.slope,
        mode="lines",
        name=name,
        **style,
        hoverinfo="skip",
    )


def log_axis_floor(values) -> float:
    """Where exact zeros are drawn on a log axis: a decade below the smallest positive finite value
    (1e-16 when there is none)."""
    values = np.asarray(values, dtype=np.float64)
    positive = values[np.isfinite(values) & (values > 0)]
    return float(positive.min()) / 10.0 if positive.size else 1e-16


def zero_markers(
    x, y, floor: float, color: str, name: str, hovertemplate: str, size: int = 8, **trace
) -> dict:
    """A scatter trace of downward triangles at height ``floor`` where y is exactly 0: a log axis cannot
    show 0, and an exact zero is the point (entmax's collapse, a one-hot row). x, y: (n,) arrays."""
    y = np.asarray(y, dtype=np.float64)
    zero = np.isfinite(y) & (y == 0)
    return dict(
        type="scatter",
        x=np.asarray(x)[zero],
        y=[floor] * int(zero.sum()),
        mode="markers",
        name=name,
        marker=dict(symbol="triangle-down", size=size, color=color),
        hovertemplate=hovertemplate,
        **trace,
    )
