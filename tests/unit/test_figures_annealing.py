"""The Annealing view's arrays (rbfviz.views.annealing.arrays) and figures (rbfviz.views.annealing.figures).

One small collapse study per map (blobs, n = 150, k = 3, float64) is shared by the module; every
figure is checked against the study's own numbers and against closed forms computed here.
"""

import base64
import json
import math

import numpy as np
import pytest

from rbfviz import collapse, measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.annealing import figures as figs
from rbfviz.views.annealing.arrays import annealing_view, level_colors, principal_axis, project
from rbfviz.views.common.layout import validated
from rbfviz.views.common.palette import NAN_RGB, cluster_colors, mix_colors
from rbfviz.views.common.sigma import log_ticks

K = 3


def values(v) -> np.ndarray:
    """A Plotly data array (typed-array dict, list with None, or array) as float64, None -> NaN."""
    if isinstance(v, dict):
        return np.frombuffer(
            base64.b64decode(v["bdata"]), dtype={"f4": np.float32, "f8": np.float64}[v["dtype"]]
        ).astype(np.float64)
    return np.array(
        [np.nan if x is None else x for x in np.asarray(v, dtype=object).ravel()], dtype=np.float64
    )


def shape_named(fig, name):
    found = [s for s in fig.to_dict()["layout"].get("shapes", []) if s.get("name") == name]
    assert len(found) == 1, f"expected one shape named {name!r}, got {len(found)}"
    return found[0]


@pytest.fixture(scope="module")
def data():
    X, _ = make_dataset("blobs", 150, None, 0)
    return np.ascontiguousarray(X, dtype=np.float64)


@pytest.fixture(scope="module")
def grid(data):
    top = 1.5 * measures.critical_sigma_predicted(data, "entmax15", m=K)
    return np.geomspace(top, top / 150.0, 24)


@pytest.fixture(scope="module", params=["softmax", "entmax15"])
def study_and_view(request, data, grid):
    study = collapse.collapse_study(data, K, kind=request.param, sigmas=grid, seed=0)
    return study, annealing_view(study, data)


# --- rbfviz.views.annealing.arrays ---------------------------------------------------------------------


def test_principal_axis_is_the_top_eigenvector_of_the_1_over_n_covariance(data):
    mean, u, lam = principal_axis(data)
    centred = data - data.mean(axis=0)
    cov = centred.T @ centred / len(data)
    np.testing.assert_allclose(mean, data.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov @ u, lam * u, rtol=1e-10, atol=1e-10)
    assert abs(np.linalg.norm(u) - 1) < 1e-12
    assert lam == pytest.approx(np.linalg.eigvalsh(cov)[-1], rel=1e-12)
    assert u[np.argmax(np.abs(u))] > 0  # the sign convention
    np.testing.assert_allclose(project(data, mean, u), centred @ u, rtol=0, atol=1e-12)


def test_level_colors_are_the_responsibilities_mixed_at_each_level(data):
    centers = np.stack([data[:K], data[K : 2 * K]])
    sigmas = np.array([2.0, 0.3])
    colors = level_colors(data, centers, sigmas, "softmax")
    assert colors.shape == (2, len(data), 3) and colors.dtype == np.uint8
    for s in range(2):
        np.testing.assert_array_equal(
            colors[s], mix_colors(responsibilities(data, centers[s], sigmas[s], "softmax"))
        )


def test_level_colors_grey_out_naive_nan_rows_and_nan_centres(data):
    centers = np.stack([data[:K], np.full((K, 2), np.nan)])
    colors = level_colors(data, centers, np.array([1e-3, 1.0]), "naive")
    resp = responsibilities(data, data[:K], 1e-3, "naive")
    nan_rows = np.isnan(resp).any(axis=1)
    assert nan_rows.any(), "σ = 1e-3 must break the naive map on some rows"
    assert (colors[0][nan_rows] == NAN_RGB).all()
    assert (colors[1] == NAN_RGB).all()


def test_view_carries_the_study_numbers(study_and_view, data):
    study, view = study_and_view
    np.testing.assert_array_equal(view.sigmas, study.sigmas)
    np.testing.assert_array_equal(view.error, study.error)
    np.testing.assert_array_equal(view.kmeans_centers, study.kmeans_centers)
    mean, u, _ = principal_axis(data)
    np.testing.assert_allclose(view.along, (study.path.centers - mean) @ u, rtol=0, atol=1e-12)
    assert view.level(float(study.sigmas[5])) == 5
    with pytest.raises(ValueError):
        view.level(0.0)


# --- the animated plane -------------------------------------------------------------------------


def test_trajectory_figure_validates_and_has_one_frame_per_level(study_and_view, data):
    _, view = study_and_view
    sigma = float(view.sigmas[10])
    fig = figs.trajectory_figure(view, data, sigma)
    validated(fig)  # every property, frames included, is valid Plotly
    spec = fig.to_dict()
    S = len(view.sigmas)
    assert [f["name"] for f in spec["frames"]] == [str(s) for s in range(S)]
    animated = [1, *range(K + 2, 2 * K + 2), 2 * K + 2]
    assert all(f["traces"] == animated for f in spec["frames"])
    # each frame carries only what moves: point colours, k trails, the centres (no field, no data)
    for frame in spec["frames"]:
        assert len(frame["data"]) == K + 2
        assert set(frame["data"][0]) == {"type", "marker"}
        assert all(set(d) == {"type", "x", "y"} for d in frame["data"][1:])
    assert "images" not in spec["layout"]


def test_frames_advance_down_the_path(study_and_view, data):
    _, view = study_and_view
    fig = figs.trajectory_figure(view, data, float(view.sigmas[0]))
    frames = fig.to_dict()["frames"]
    for s, frame in enumerate(frames):
        centres = frame["data"][-1]
        np.testing.assert_allclose(values(centres["x"]), view.centers[s, :, 0], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(values(centres["y"]), view.centers[s, :, 1], rtol=1e-6, atol=1e-6)
        for j in range(K):
            trail = frame["data"][1 + j]
            np.testing.assert_allclose(values(trail["x"]), view.centers[: s + 1, j, 0], rtol=1e-6, atol=1e-6)
        assert frame["data"][0]["marker"]["color"] == figs.hex_colors(view.colors[s])
    first, last = values(frames[0]["data"][-1]["x"]), values(frames[-1]["data"][-1]["x"])
    assert np.abs(first - last).max() > 0.1, "the centres must move between the first and last frame"
    assert frames[0]["data"][0]["marker"]["color"] != frames[-1]["data"][0]["marker"]["color"]


def test_plane_opens_at_the_current_sigma_with_play_pause_and_slider(study_and_view, data):
    _, view = study_and_view
    level = 7
    fig = figs.trajectory_figure(view, data, float(view.sigmas[level]) * 1.01)  # nearest level
    spec = fig.to_dict()
    layout = spec["layout"]
    slider = layout["sliders"][0]
    assert slider["active"] == level
    assert [step["args"][0] for step in slider["steps"]] == [[str(s)] for s in range(len(view.sigmas))]
    assert all(step["method"] == "animate" for step in slider["steps"])
    buttons = layout["updatemenus"][0]["buttons"]
    play, pause = buttons[0], buttons[1]
    assert play["method"] == "animate" and play["args"][0] is None
    assert play["args"][1]["frame"]["redraw"] is False and play["args"][1]["frame"]["duration"] > 0
    assert pause["args"][0] == [None]
    data_traces = spec["data"]
    np.testing.assert_allclose(
        values(data_traces[2 * K + 2]["x"]), view.centers[level, :, 0], rtol=1e-6, atol=1e-6
    )
    assert data_traces[1]["marker"]["color"] == figs.hex_colors(view.colors[level])
    np.testing.assert_allclose(values(data_traces[2 * K + 3]["x"]), view.kmeans_centers[:, 0], atol=1e-12)


def test_plane_uses_the_cluster_palette(study_and_view, data):
    _, view = study_and_view
    spec = figs.trajectory_figure(view, data, float(view.sigmas[0])).to_dict()
    colors = cluster_colors(K)
    assert spec["data"][2 * K + 2]["marker"]["color"] == colors
    assert [spec["data"][2 + j]["line"]["color"] for j in range(K)] == colors
    assert [spec["data"][K + 2 + j]["line"]["color"] for j in range(K)] == colors


def test_large_data_animate_a_fixed_subset_but_draw_every_point():
    rng = np.random.default_rng(0)
    n = figs.MAX_ANIMATED_POINTS + 250
    shown = figs.animated_subset(n)
    assert len(shown) == figs.MAX_ANIMATED_POINTS and np.all(np.diff(shown) > 0)
    np.testing.assert_array_equal(shown, figs.animated_subset(n))  # deterministic
    np.testing.assert_array_equal(figs.animated_subset(100), np.arange(100))
    X = rng.normal(size=(n, 2))
    study = collapse.collapse_study(X, 2, sigmas=np.geomspace(2.0, 0.05, 6))
    view = annealing_view(study, X)
    spec = figs.trajectory_figure(view, X, 0.5).to_dict()
    assert len(values(spec["data"][0]["x"])) == n
    assert len(spec["frames"][0]["data"][0]["marker"]["color"]) == figs.MAX_ANIMATED_POINTS


def test_hex_colors():
    assert figs.hex_colors(np.array([[0, 0, 0], [255, 16, 1]], np.uint8)) == ["#000000", "#ff1001"]


def test_log_ticks_are_1_2_5_inside_the_range():
    values_, labels = log_ticks(0.03, 4.0)
    assert values_ == pytest.approx([0.05, 0.1, 0.2, 0.5, 1.0, 2.0])
    assert labels == ["0.05", "0.1", "0.2", "0.5", "1", "2"]
    wide, _ = log_ticks(1e-4, 10.0)
    assert wide == pytest.approx([1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0])


# --- bifurcation diagram ------------------------------------------------------------------------


def test_bifurcation_lines_are_centre_projections(study_and_view, data):
    _, view = study_and_view
    fig = figs.bifurcation_figure(view, float(view.sigmas[3]))
    validated(fig)
    spec = fig.to_dict()
    mean, u, _ = principal_axis(data)
    for j in range(K):
        trace = spec["data"][j]
        np.testing.assert_allclose(values(trace["x"]), view.sigmas)
        np.testing.assert_allclose(values(trace["y"]), (view.centers[:, j] - mean) @ u, atol=1e-12)
        assert trace["line"]["color"] == cluster_colors(K)[j]
    np.testing.assert_allclose(values(spec["data"][K]["y"]), (view.kmeans_centers - mean) @ u, atol=1e-12)
    assert spec["layout"]["xaxis"]["type"] == "log"


def test_critical_sigma_line_is_at_the_closed_form(study_and_view, data):
    study, view = study_and_view
    lam = np.linalg.eigvalsh(np.cov(data.T, bias=True))[-1]
    expected = math.sqrt(lam) if study.kind == "softmax" else math.sqrt(math.sqrt(K) * lam)
    sigma = float(view.sigmas[4])
    for fig in (figs.bifurcation_figure(view, sigma), figs.collapse_figure(view, sigma)):
        assert shape_named(fig, figs.CRITICAL_PREDICTED)["x0"] == pytest.approx(expected, rel=1e-10)
        assert shape_named(fig, figs.CURRENT)["x0"] == sigma
    measured = shape_named(figs.bifurcation_figure(view, sigma), figs.CRITICAL_MEASURED)["x0"]
    assert measured == study.sigma_critical_measured
    # the measured split is a grid value within one cooling step of the prediction
    step = view.sigmas[0] / view.sigmas[1]
    assert expected / step**1.5 <= measured <= expected * step


def trace_named(spec, name):
    found = [t for t in spec["data"] if t.get("name") == name]
    assert len(found) == 1, f"expected one trace named {name!r}, got {len(found)}"
    return found[0]


def test_every_split_has_a_predicted_marker_on_its_branch(study_and_view, data):
    study, view = study_and_view
    assert len(view.splits) >= (2 if study.kind == "entmax15" else 1)  # coarse grid: softmax splits 3 at once
    spec = figs.bifurcation_figure(view, float(view.sigmas[3])).to_dict()
    predicted = trace_named(spec, figs.SPLIT_PREDICTED)
    measured = trace_named(spec, figs.SPLIT_MEASURED)
    mean, u, _ = principal_axis(data)
    lam = np.linalg.eigvalsh(np.cov(data.T, bias=True))[-1]
    first = math.sqrt(lam) if study.kind == "softmax" else math.sqrt(math.sqrt(K) * lam)
    # split 1 sits on the critical line's closed form; every marker at its record's σ
    assert values(predicted["x"])[0] == pytest.approx(first, rel=1e-10)
    np.testing.assert_allclose(values(predicted["x"]), [r.sigma_predicted for r in view.splits], rtol=1e-12)
    np.testing.assert_allclose(values(measured["x"]), [r.sigma_measured for r in view.splits], rtol=1e-12)
    np.testing.assert_array_equal(values(measured["x"]), [view.sigmas[r.level] for r in view.splits])
    # on the branch that splits: the stack's coordinate along u₁ one level above its split
    branch = [((study.path.centers[r.level - 1, list(r.parent)] - mean) @ u).mean() for r in view.splits]
    np.testing.assert_allclose(values(predicted["y"]), branch, atol=1e-9)
    # each later prediction from numpy: the splitting stack's responsibilities, weighted covariance
    X = data
    for record in view.splits[1:]:
        resp = responsibilities(
            X, study.path.centers[record.level - 1], float(view.sigmas[record.level - 1]), study.kind
        )
        weights = resp[:, list(record.parent)].sum(axis=1)
        at_level = np.linalg.eigvalsh(np.cov(X.T, aweights=weights, bias=True))[-1]
        factor = 1.0 if study.kind == "softmax" else math.sqrt(record.m)
        # evaluated self-consistently, not at that level: the two agree to what C_{x|y} changes in a step
        assert record.sigma_predicted == pytest.approx(math.sqrt(factor * at_level), rel=0.1)
    validated(figs.bifurcation_figure(view, float(view.sigmas[3])))


def test_no_split_markers_without_splits(study_and_view):
    _, view = study_and_view
    from dataclasses import replace

    spec = figs.bifurcation_figure(replace(view, splits=()), float(view.sigmas[3])).to_dict()
    assert not [t for t in spec["data"] if t.get("name") in (figs.SPLIT_PREDICTED, figs.SPLIT_MEASURED)]


# --- collapse error -----------------------------------------------------------------------------


def test_collapse_trace_is_the_diagnostics_error(study_and_view):
    study, view = study_and_view
    fig = figs.collapse_figure(view, float(view.sigmas[5]))
    validated(fig)
    spec = fig.to_dict()
    main, zeros, path = spec["data"][:3]
    error = study.error
    positive = np.isfinite(error) & (error > 0)
    got = values(main["y"])
    np.testing.assert_array_equal(got[positive], error[positive])
    assert np.isnan(got[~positive]).all()
    is_zero = np.isfinite(error) & (error == 0)
    np.testing.assert_array_equal(values(zeros["x"]), study.sigmas[is_zero])
    assert np.all(values(zeros["y"]) == figs.error_axis_floor(view))
    np.testing.assert_array_equal(
        values(path["y"])[study.error_path > 0], study.error_path[study.error_path > 0]
    )
    assert spec["layout"]["yaxis"]["type"] == "log" and spec["layout"]["xaxis"]["type"] == "log"


def test_collapse_fit_line_has_the_fitted_slope_on_its_window(study_and_view):
    study, view = study_and_view
    fit = study.slope
    assert math.isfinite(fit.slope), "this study has enough pre-collapse points to fit"
    spec = figs.collapse_figure(view, float(view.sigmas[5])).to_dict()
    line = spec["data"][3]
    assert f"{fit.slope:.2f}" in line["name"]
    x, y = values(line["x"]), values(line["y"])
    assert x.min() == pytest.approx(fit.sigma_min) and x.max() == pytest.approx(fit.sigma_max)
    assert np.polyfit(np.log(x), np.log(y), 1)[0] == pytest.approx(fit.slope, rel=1e-9)
    window = [s for s in spec["layout"]["shapes"] if s.get("name") == "fit window"][0]
    assert {window["x0"], window["x1"]} == {fit.sigma_min, fit.sigma_max}


def test_collapse_thresholds_are_the_closed_forms(study_and_view, data):
    study, view = study_and_view
    g_min = measures.min_sq_gap(data, study.kmeans_centers)
    fig = figs.collapse_figure(view, float(view.sigmas[5]))
    assert shape_named(fig, figs.EXACT_PREDICTED)["x0"] == pytest.approx(math.sqrt(g_min) / 2, rel=1e-12)
    assert shape_named(fig, figs.SOFTMAX_EXACT)["x0"] == pytest.approx(math.sqrt(g_min / 73.4), rel=1e-12)
    if study.sigma_exact_measured is not None:
        assert shape_named(fig, figs.EXACT_MEASURED)["x0"] == study.sigma_exact_measured
    if study.kind == "entmax15":
        # theory §5: entmax is exactly K-Means at every grid σ <= √g_min/2
        below = study.sigmas <= math.sqrt(g_min) / 2
        assert below.any() and np.all(study.error[below] == 0)


def test_payload_of_the_animated_plane_is_small(study_and_view, data):
    _, view = study_and_view
    spec = json.dumps(figs.trajectory_figure(view, data, float(view.sigmas[0])).to_dict(), default=str)
    # 24 frames × (150 colours + trails + centres): tens of kB, far below the 1 MB budget per view
    assert len(spec) < 200_000


def test_static_trajectory_figure_is_one_level_without_animation(study_and_view, data):
    _, view = study_and_view
    level = 10
    animated = figs.trajectory_figure(view, data, float(view.sigmas[level])).to_dict()
    static = figs.trajectory_figure(view, data, float(view.sigmas[level]), static=True)
    validated(static)
    spec = static.to_dict()
    assert "frames" not in spec and "sliders" not in spec["layout"] and "updatemenus" not in spec["layout"]
    assert json.dumps(spec["data"], default=str) == json.dumps(
        animated["data"], default=str
    )  # the same level


def test_splits_in_words_counts_the_predictions_inside_their_grid_step(study_and_view):
    from rbfviz.views.annealing.arrays import split_rows, splits_in_words

    study, view = study_and_view
    records = view.splits
    inside = sum(view.sigmas[r.level] <= r.sigma_predicted <= view.sigmas[r.level - 1] for r in records)
    text = splits_in_words(view)
    assert f"{len(records)} split" in text and f"{inside} of {len(records)} predictions" in text
    rows = split_rows(view)
    assert [row["split"] for row in rows] == list(range(1, len(records) + 1))
    for row, r in zip(rows, records):
        low, high = (float(v) for v in row["σ measured (between levels)"].split(" – "))
        assert low == pytest.approx(view.sigmas[r.level], rel=5e-3)
        assert high == pytest.approx(view.sigmas[r.level - 1], rel=5e-3)
        assert ("σ linearised (√r)" in row) == (study.kind == "entmax15")
