"""Exact collapse across the α-entmax family (``rbfviz.family.FamilyCollapse``), drawn.

* ``family_collapse_figure(result)`` – left: σ*(α) = √((α-1)·g_min/2) as a curve over α in [1.05, 2]
  and the measured first σ with every row one-hot as points (float64 circles, float32 crosses); right:
  the share of exact zeros among the responsibilities against σ, one line per α (dash: dtype), with
  σ*(α) marked on each line.
* ``family_collapse_words(result)`` – the same in sentences, including every measurement that misses
  the curve by more than one grid step, with its numbers.

The figure only draws: every number comes from ``rbfviz.family``.
"""

from __future__ import annotations

import numpy as np

from rbfviz.family import collapse_sigma_curve
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.validate import ALPHA_MAX, ALPHA_MIN
from rbfviz.views.common.kinds import DTYPE_DASH
from rbfviz.views.common.layout import _axis, base_layout, figure
from rbfviz.views.common.sigma import sigma_axis

# one colour per measured α (Paul Tol's "bright", colour-blind safe), light to dark along α
ALPHA_COLORS = ("#66CCEE", "#228833", "#BB5566", "#AA3377", "#4477AA")
DTYPE_SYMBOL = {"float64": "circle-open", "float32": "x-thin-open"}
CURVE_COLOR = "#555555"


def _alpha_color(index: int) -> str:
    return ALPHA_COLORS[index % len(ALPHA_COLORS)]


def family_collapse_figure(result, title: str | None = None, height: int = 460, tr: Translator = ENGLISH):
    """Two panels side by side (see the module docstring). Traces carry ``meta``: ["curve"],
    ["measured", dtype], ["zeros", α, dtype], ["predicted", α]."""
    alphas_curve = np.linspace(ALPHA_MIN, ALPHA_MAX, 96)
    curve = collapse_sigma_curve(result.g_min, alphas_curve)
    data = [
        dict(
            type="scatter",
            x=alphas_curve,
            y=curve,
            mode="lines",
            name="σ*(α) = √((α−1)·g_min/2)",
            line=dict(color=CURVE_COLOR, width=2.5),
            meta=["curve"],
            hovertemplate="α = %{x:.3f}<br>σ* = %{y:.4g}<extra>" + tr("closed form") + "</extra>",
        )
    ]
    for dtype, measured in result.measured.items():
        data.append(
            dict(
                type="scatter",
                x=result.alphas,
                y=measured,
                mode="markers",
                name=tr("measured, {dtype}", dtype=dtype),
                marker=dict(
                    symbol=DTYPE_SYMBOL.get(dtype, "circle-open"),
                    size=13 if dtype == "float64" else 10,
                    color=[_alpha_color(a) for a in range(result.alphas.size)],
                    line=dict(width=2.5),
                ),
                meta=["measured", dtype],
                customdata=np.column_stack([result.predicted, result.step[dtype]]),
                hovertemplate=(
                    f"{dtype}, α = %{{x:.3g}}<br>"
                    + tr("first σ with every row one-hot")
                    + ": %{y:.4g}<br>σ* = %{customdata[0]:.4g}, "
                    + tr("grid step")
                    + " %{customdata[1]:.2g}<extra></extra>"
                ),
            )
        )
    # σ*(α) is marked on the float64 line (the first dtype's if float64 was not measured)
    marked = result.zero_share.get("float64", next(iter(result.zero_share.values())))
    for a, alpha in enumerate(result.alphas):
        for dtype, shares in result.zero_share.items():
            data.append(
                dict(
                    type="scatter",
                    x=result.sigmas,
                    y=shares[a],
                    mode="lines",
                    xaxis="x2",
                    yaxis="y2",
                    name=tr.format("α = {alpha:g}", alpha=alpha),
                    legendgroup=f"alpha-{alpha:g}",
                    showlegend=dtype == "float64",
                    line=dict(color=_alpha_color(a), dash=DTYPE_DASH.get(dtype, "solid"), width=2),
                    meta=["zeros", float(alpha), dtype],
                    hovertemplate=(
                        tr.format("α = {alpha:g}", alpha=alpha)
                        + f", {dtype}<br>σ = %{{x:.3g}}<br>"
                        + tr("exact zeros")
                        + " %{y:.1%}<extra></extra>"
                    ),
                )
            )
        data.append(
            dict(
                type="scatter",
                x=[result.predicted[a]],
                y=[float(np.interp(result.predicted[a], result.sigmas[::-1], marked[a][::-1]))],
                mode="markers",
                xaxis="x2",
                yaxis="y2",
                legendgroup=f"alpha-{alpha:g}",
                showlegend=False,
                marker=dict(
                    symbol="diamond", size=10, color=_alpha_color(a), line=dict(color="#222222", width=1)
                ),
                meta=["predicted", float(alpha)],
                hovertemplate=tr.format(
                    "σ*({alpha:g}) = {sigma:.4g}<extra></extra>", alpha=alpha, sigma=result.predicted[a]
                ),
            )
        )
    layout = base_layout(title, height=height, legend="below", tr=tr)
    layout.update(
        xaxis=_axis(
            tr("α  (1 → softmax, 1.5 entmax-1.5, 2 sparsemax)"), domain=[0.0, 0.44], range=[1.0, 2.05]
        ),
        yaxis=_axis(tr("σ at which every row is exactly one-hot")),
        xaxis2=dict(
            sigma_axis(result.sigmas, tr("σ  (log scale; cooling →)"), tr=tr), domain=[0.56, 1.0], anchor="y2"
        ),
        yaxis2=_axis(tr("share of exact zeros in r"), anchor="x2", range=[-0.02, 1.02], tickformat=".0%"),
    )
    return figure(data, layout)


def family_collapse_words(result, tr: Translator = ENGLISH) -> str:
    """What the panel shows, in sentences with the numbers; says plainly where a measurement misses."""
    parts = [
        tr(
            "g_min = {g_min:.4g} at these centres, so σ*(α) = √((α−1)·g_min/2) runs from {low:.3g} "
            "(α = {alpha_low:g}) to {high:.3g} (α = {alpha_high:g}).",
            g_min=result.g_min,
            low=result.predicted.min(),
            alpha_low=result.alphas.min(),
            high=result.predicted.max(),
            alpha_high=result.alphas.max(),
        )
    ]
    misses = result.misses()
    total = result.alphas.size * len(result.measured)
    if not misses:
        parts.append(
            tr(
                "All {total} measurements ({dtypes}) fall within one grid step of the curve.",
                total=total,
                dtypes=", ".join(result.measured),
            )
        )
    else:
        parts.append(
            tr(
                "{good} of {total} measurements fall within one grid step of the curve;",
                good=total - len(misses),
                total=total,
            )
        )
        for miss in misses:
            measured = (
                tr("no σ on the grid")
                if not np.isfinite(miss["measured"])
                else tr.number(miss["measured"], ".4g")
            )
            parts.append(
                tr(
                    "**not** α = {alpha:g} in {dtype}: measured {measured} against σ* = {predicted:.4g} "
                    "(grid step {step:.2g}).",
                    alpha=miss["alpha"],
                    dtype=miss["dtype"],
                    measured=measured,
                    predicted=miss["predicted"],
                    step=miss["step"],
                )
            )
    return " ".join(parts)
