"""Equations coloured like the curves they name (rbfviz.views.common.palette.tex_color): the colour of each
term in an equation is the colour of its curve in the figure beside it; and the free energy's terms along an
annealing path (rbfviz.views.annealing.arrays.free_energy_terms) against a numpy closed form."""

import re

import numpy as np
import pytest
from numpy_reference import sq_dist
from scipy.special import logsumexp

from rbfviz import anneal, default_sigmas
from rbfviz.datasets import make_dataset
from rbfviz.views.annealing.arrays import free_energy_terms
from rbfviz.views.annealing.figures import free_energy_equation, free_energy_figure
from rbfviz.views.common.layout import validated
from rbfviz.views.common.palette import tex_color
from rbfviz.views.equivalence.arrays import gap_curve
from rbfviz.views.equivalence.figures import gap_equation, gap_sigma_figure
from rbfviz.views.step_by_step.arrays import replay
from rbfviz.views.step_by_step.figures import DISTORTION_EQUATION, LOSS_EQUATION, history_figure


def colours_in(tex: str) -> list[str]:
    return re.findall(r"\\color\{(#[0-9A-Fa-f]{6})\}", tex)


def trace_colour(fig, name_start: str) -> str:
    (trace,) = [t for t in fig.data if t.name.startswith(name_start)]
    return trace.line.color


def test_tex_color():
    assert tex_color(r"L_\sigma", "#0072B2") == r"{\color{#0072B2}{L_\sigma}}"
    assert tex_color("F", "#000000") == "{F}"  # ink follows the theme's text colour, as ink curves do
    for bad in ("red", "#12345", "#GGGGGG", None):
        with pytest.raises(ValueError, match="#rrggbb"):
            tex_color("x", bad)


@pytest.fixture(scope="module")
def blobs_path():
    X, _ = make_dataset("blobs", 200, 1.5, 0)
    return X, anneal(X, 3, default_sigmas(X, 3, "softmax", num=25), kind="softmax", seed=0)


def test_free_energy_terms_against_the_closed_form(blobs_path):
    X, path = blobs_path
    terms = free_energy_terms(X, path)
    for s in range(0, len(path.sigmas), 4):
        d = sq_dist(X, path.centers[s].astype(np.float64))
        temperature = 2 * path.sigmas[s] ** 2
        closed = -temperature * logsumexp(-d / temperature, axis=1).sum()  # softmax: F = −T Σ log Σ e^{−d/T}
        assert terms.free_energy[s] == pytest.approx(closed, rel=1e-10)
        r = np.exp(-d / temperature - logsumexp(-d / temperature, axis=1, keepdims=True))
        assert terms.distortion[s] == pytest.approx((r * d).sum(), rel=1e-10)
        entropy = -(r * np.log(np.where(r > 0, r, 1))).sum()
        assert terms.entropy[s] == pytest.approx(
            temperature * entropy, rel=1e-6, abs=1e-9 * terms.distortion[s]
        )
    assert np.all(terms.entropy >= -1e-9 * terms.distortion)  # T·H ≥ 0, so F ≤ Σ r·d
    assert terms.entropy[-1] < 1e-6 * terms.distortion[-1]  # at the bottom of the grid: hard, F = J


def test_free_energy_equation_names_each_curve_by_its_colour(blobs_path):
    X, path = blobs_path
    fig = validated(free_energy_figure(free_energy_terms(X, path)))
    distortion, entropy = colours_in(free_energy_equation())
    assert distortion == trace_colour(fig, "Σ r·d") and entropy == trace_colour(fig, "T·H(r)")
    assert trace_colour(fig, "F_σ") == "#000000" and free_energy_equation().startswith("{F_\\sigma}")


def test_gap_equation_names_the_gap_and_the_bound_by_their_colours():
    X, _ = make_dataset("moons", 100, 0.1, 0)
    C = X[:2]
    fig = gap_sigma_figure(gap_curve(X, C, np.geomspace(1, 0.05, 8), "softmax"))
    gap, *bound = colours_in(gap_equation())  # the gap, then the bound of each map
    assert gap == trace_colour(fig, "L_σ − J (measured)") and bound == [trace_colour(fig, "bound")] * 2
    assert "\\color{#D55E00}{4N" in gap_equation() and "{\\text{softmax}" not in gap_equation()


def test_step_equations_name_the_history_curves_by_their_colours():
    X, _ = make_dataset("blobs", 100, 1.5, 0)
    fig = history_figure(replay(X, X[:3], 0.5, "softmax", "EML"))
    assert colours_in(LOSS_EQUATION) == [trace_colour(fig, "L_σ")]
    assert colours_in(DISTORTION_EQUATION) == [trace_colour(fig, "J ")]
