"""rbfviz.views.equivalence.arrays and its figures: GD with η_j = 1/(2N_j) vs EM vs Lloyd, paths, L_σ − J over
σ."""

from dataclasses import replace

import numpy as np
import pytest

from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.steps import gradient_step, lloyd_step, soft_centroid_step
from rbfviz.views.common.layout import validated
from rbfviz.views.common.palette import KMEANS_COLOR, cluster_colors
from rbfviz.views.equivalence.arrays import gap_curve, one_step, trajectories
from rbfviz.views.equivalence.figures import (
    difference_figure,
    gap_sigma_figure,
    step_figure,
    trajectory_figure,
)
from rbfviz.views.explorer.arrays import initial_centers


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_dataset("blobs", 200, seed=2)
    return X, initial_centers(X, 4, "kmeans++", seed=0)


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_one_step_gd_is_the_soft_centroid_and_reuses_the_core_steps(blobs, kind):
    X, C0 = blobs
    step = one_step(X, C0, 0.8, kind)
    assert step.gd_vs_em < 1e-12
    assert np.array_equal(step.gd, gradient_step(X, C0, 0.8, kind))
    assert np.array_equal(step.em, soft_centroid_step(X, C0, 0.8, kind))
    assert np.array_equal(step.lloyd, lloyd_step(X, C0))
    assert step.masses.sum() == pytest.approx(X.shape[0])
    assert step.gd_vs_lloyd > 1e-3  # at this σ the soft step is visibly not Lloyd's


def test_one_step_becomes_lloyd_as_sigma_falls(blobs):
    X, C0 = blobs
    diffs = [one_step(X, C0, s, "softmax").gd_vs_lloyd for s in (2.0, 0.5, 0.1)]
    assert diffs[0] > diffs[1] > diffs[2]
    # Below σ* of this start every entmax row is one-hot, so the steps agree to rounding (the GD step
    # computes c − ∇/(2N), Lloyd the mean: the same number by two roundings); softmax is not there yet.
    sigma = 0.5 * measures.sigma_exact_predicted(X, C0)
    assert one_step(X, C0, sigma, "entmax15").gd_vs_lloyd < 1e-12
    assert one_step(X, C0, sigma, "softmax").gd_vs_lloyd > 1e-9


def test_one_step_in_float32_is_float32_accurate(blobs):
    X, C0 = blobs
    step = one_step(X.astype(np.float32), C0, 0.8, "softmax")
    assert 0 < step.gd_vs_em < 1e-4


def test_trajectories_start_together_and_follow_the_core_steps(blobs):
    X, C0 = blobs
    traj = trajectories(X, C0, 0.5, "softmax", steps=6)
    assert traj.gd.shape == traj.lloyd.shape == (7, 4, 2)
    assert traj.difference[0] == 0.0 and traj.difference.shape == (7,)
    c = C0
    for t in range(1, 7):
        c = lloyd_step(X, c)
        assert np.array_equal(traj.lloyd[t], c)
    assert np.array_equal(traj.gd[1], gradient_step(X, C0, 0.5, "softmax"))
    assert np.isfinite(traj.loss).all() and np.isfinite(traj.distortion).all()


def test_entmax_paths_are_identical_far_below_the_collapse(blobs):
    X, C0 = blobs
    traj = trajectories(X, C0, 1e-3, "entmax15", steps=10)
    assert np.allclose(traj.gd, traj.lloyd, rtol=0, atol=1e-12)
    assert traj.difference.max() < 1e-12


def test_gap_curve_matches_gamma_gap_and_stays_within_the_bound(blobs):
    X, C0 = blobs
    sigmas = np.geomspace(3.0, 0.01, 12)
    for kind in ("softmax", "entmax15"):
        curve = gap_curve(X, C0, sigmas, kind)
        assert curve.within.all()
        for s, gap in zip(sigmas[::4], curve.gap[::4]):
            assert gap == measures.gamma_gap(X, C0, s, kind).gap
    # one-hot rows: L_σ = J up to the rounding of two differently ordered sums
    tiny = gap_curve(X, C0, [1e-3], "entmax15")
    assert abs(tiny.gap[0]) <= 1e-12 * tiny.distortion[0]


def test_bad_input_is_a_value_error(blobs):
    X, C0 = blobs
    with pytest.raises(ValueError, match="steps"):
        trajectories(X, C0, 0.5, steps=0)
    with pytest.raises(ValueError, match="sigma"):
        one_step(X, C0, 0.0)


# --- figures -----------------------------------------------------------------------------------------


def test_step_figure_two_panels_with_arrows(blobs):
    X, C0 = blobs
    step = one_step(X, C0, 0.8, "softmax")
    fig = step_figure(X, responsibilities(X, C0, 0.8, "softmax"), step, title="t")
    validated(fig)
    assert len(fig.data) == 6
    gd_trace, lloyd_trace = fig.data[2], fig.data[5]
    assert np.allclose(np.column_stack([gd_trace.x, gd_trace.y]), step.gd)
    assert np.allclose(np.column_stack([lloyd_trace.x, lloyd_trace.y]), step.lloyd)
    assert (gd_trace.xaxis, lloyd_trace.xaxis) == ("x", "x2")
    arrows = [a for a in fig.layout.annotations if a.showarrow]
    assert len([a for a in arrows if a.xref == "x"]) == len([a for a in arrows if a.xref == "x2"]) == 4
    assert list(gd_trace.marker.color) == cluster_colors(4)  # the arrow heads carry the cluster colours
    assert lloyd_trace.marker.color == KMEANS_COLOR
    for a, start, end in zip([a for a in arrows if a.xref == "x"], step.start, step.gd):
        assert (a.ax, a.ay, a.x, a.y) == pytest.approx((*start, *end))
    assert fig.layout.xaxis.domain[1] < fig.layout.xaxis2.domain[0]


def test_trajectory_and_difference_figures(blobs):
    X, C0 = blobs
    traj = trajectories(X, C0, 1e-3, "entmax15", steps=5)
    fig = trajectory_figure(X, traj)
    validated(fig)
    assert len(fig.data) == 1 + 2 * 4 + 3
    assert [fig.data[1 + 2 * j].line.color for j in range(4)] == cluster_colors(4)
    assert all(fig.data[2 + 2 * j].line.dash == "dash" for j in range(4))
    diff = difference_figure(traj)
    validated(diff)
    assert diff.layout.yaxis.type == "log"
    assert np.allclose(np.asarray(diff.data[0].y[1:], float), traj.difference[1:])
    exact = replace(traj, difference=np.array([0.0, 1e-3, 0.0, 1e-5, 0.0, 0.0]))
    zeros = [t for t in difference_figure(exact).data if t.name == "exactly 0"]
    assert len(zeros) == 1 and list(zeros[0].x) == [0, 2, 4, 5]  # exact zeros are marked, not lost


def test_gap_sigma_figure_marks_zeros_bound_and_current_sigma(blobs):
    X, C0 = blobs
    sigmas = np.geomspace(3.0, 1e-3, 10)
    curve = gap_curve(X, C0, sigmas, "entmax15")
    curve = replace(curve, gap=np.where(sigmas < 0.01, 0.0, curve.gap))  # zeros must be marked, not lost
    fig = gap_sigma_figure(curve, sigma=0.5)
    validated(fig)
    names = [t.name for t in fig.data]
    assert names[:2] == ["bound", "L_σ − J (measured)"]
    assert "L_σ − J = 0 exactly" in names
    current = [t for t in fig.data if t.name.startswith("current σ")][0]
    assert tuple(current.x) == (0.5, 0.5)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
