"""The Stability view's measurements (rbfviz.views.stability.arrays) and figures
(rbfviz.views.stability.figures).

The closed forms of theory §5 are checked against the floating-point maps themselves: naive rows
are NaN iff min_j d_ij/(2σ²) > Z(dtype), entmax15 rows one-hot iff g_i ≥ 4σ², softmax rows one-hot
iff g_i/(2σ²) > Z(dtype).
"""

import base64
import io
import math

import numpy as np
import pytest
import torch
from numpy_reference import sq_dist
from PIL import Image

from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.measures import naive_nan_sigmas, one_hot_rows, predicted_fractions, underflow_logit
from rbfviz.steps import kmeans
from rbfviz.validate import DTYPES  # the table nests in this order
from rbfviz.views.common.layout import validated
from rbfviz.views.common.palette import NAN_RGB, cluster_colors, cluster_rgb, fade
from rbfviz.views.common.sigma import CURRENT, EXACT_PREDICTED
from rbfviz.views.stability import figures as figs
from rbfviz.views.stability.arrays import stability_plane, stability_planes, stability_table
from rbfviz.views.stability.levels import stability_levels

K = 3


def values(v) -> np.ndarray:
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).astype(np.float64)
    return np.array(
        [np.nan if x is None else x for x in np.asarray(v, dtype=object).ravel()], dtype=np.float64
    )


@pytest.fixture(scope="module")
def problem():
    X, _ = make_dataset("blobs", 120, None, 1)
    X = np.ascontiguousarray(X, dtype=np.float64)
    C, _ = kmeans(X, k=K, seed=0)
    sigmas = np.geomspace(4.0, 0.004, 31)
    return X, C, sigmas


@pytest.fixture(scope="module")
def table(problem):
    X, C, sigmas = problem
    return stability_table(X, C, sigmas)


# --- thresholds -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,approx", [("float64", 745.13), ("float32", 103.97)])
def test_underflow_logit_is_where_exp_rounds_to_zero(dtype, approx):
    Z = underflow_logit(dtype)
    assert Z == pytest.approx(approx, abs=0.01)
    t = getattr(torch, dtype)
    assert torch.exp(torch.tensor(-Z + 0.01, dtype=t)).item() > 0
    assert torch.exp(torch.tensor(-Z - 0.01, dtype=t)).item() == 0
    assert np.exp(np.array(-Z - 0.01, dtype=dtype)) == 0


def test_one_hot_rows():
    resp = np.array([[1.0, 0.0], [0.5, 0.5], [np.nan, np.nan], [0.0, 1.0], [1.0, 1e-300]])
    np.testing.assert_array_equal(one_hot_rows(resp), [True, False, False, True, False])


@pytest.mark.parametrize("dtype", DTYPES)
def test_naive_nan_sigmas_bracket_the_first_and_last_nan_row(problem, dtype):
    X, C, _ = problem
    first, every = naive_nan_sigmas(X, C, dtype)
    assert every < first
    Xd, Cd = X.astype(dtype), C.astype(dtype)
    nan_rows = lambda s: np.isnan(responsibilities(Xd, Cd, s, "naive")).any(axis=1)  # noqa: E731
    assert not nan_rows(first * 1.01).any() and nan_rows(first * 0.99).any()
    assert nan_rows(every * 0.99).all() and not nan_rows(every * 1.01).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_closed_forms_predict_the_measured_fractions(problem, table, dtype):
    X, C, sigmas = problem
    predicted = predicted_fractions(X, C, sigmas, dtype)
    rows = lambda kind: [r for r in table if r["kind"] == kind and r["dtype"] == dtype]  # noqa: E731
    naive = np.array([r["nan_row_fraction"] for r in rows("naive")])
    entmax = np.array([r["hard_row_fraction"] for r in rows("entmax15")])
    softmax = np.array([r["hard_row_fraction"] for r in rows("softmax")])
    # each fraction is a count of rows over n: allow one row of rounding right at a boundary
    tol = 1.0 / len(X) + 1e-12
    np.testing.assert_allclose(naive, predicted["naive_nan"], rtol=0, atol=tol)
    np.testing.assert_allclose(entmax, predicted["entmax15_hard"], rtol=0, atol=tol)
    np.testing.assert_allclose(softmax, predicted["softmax_hard"], rtol=0, atol=tol)
    assert naive.max() > 0.5 and entmax.max() == 1.0, "the grid must reach both regimes"


# --- the table ------------------------------------------------------------------------------------


def test_table_order_and_report_numbers(problem, table):
    X, C, sigmas = problem
    kinds = ("softmax", "entmax15", "naive")
    assert [(r["kind"], r["dtype"], r["sigma"]) for r in table] == [
        (kind, dtype, float(s)) for kind in kinds for dtype in DTYPES for s in sigmas
    ]
    # the report's own numbers, at C* computed in that dtype
    C32, _ = measures.kmeans_reference(X.astype("float32"), C)
    report = measures.stability_report(
        X.astype("float32"), C32, sigmas[:3], kinds=("softmax",), dtypes=("float32",)
    )
    for got, want in zip(
        [r for r in table if r["kind"] == "softmax" and r["dtype"] == "float32"][:3], report
    ):
        for key in ("nan_row_fraction", "zero_fraction", "grad_norm", "loss"):
            assert got[key] == want[key]


def test_stable_maps_never_nan_naive_does(table):
    assert all(r["nan_row_fraction"] == 0 for r in table if r["kind"] != "naive")
    assert all(math.isfinite(r["grad_norm"]) for r in table if r["kind"] != "naive")
    broken = [r for r in table if r["kind"] == "naive" and r["nan_row_fraction"] > 0]
    assert broken and all(math.isnan(r["error_to_kmeans"]) for r in broken)


@pytest.mark.parametrize("dtype", DTYPES)
def test_entmax_step_from_c_star_is_exactly_c_star_below_sigma_exact(problem, table, dtype):
    X, C, _ = problem
    sigma_exact = measures.sigma_exact_predicted(X, C)
    rows = [r for r in table if r["kind"] == "entmax15" and r["dtype"] == dtype]
    below = [r for r in rows if r["sigma"] <= sigma_exact * 0.999]
    assert below and all(r["error_to_kmeans"] == 0.0 and r["hard_row_fraction"] == 1.0 for r in below)
    assert all(r["error_to_kmeans"] > 0 for r in rows if r["sigma"] > 2 * sigma_exact)


# --- the figure across σ --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def curves(problem, table):
    X, C, sigmas = problem
    predicted = {dtype: predicted_fractions(X, C, sigmas, dtype) for dtype in DTYPES}
    nan_sigmas = {dtype: naive_nan_sigmas(X, C, dtype)[0] for dtype in DTYPES}
    sigma = float(sigmas[12])
    fig = figs.stability_figure(
        table,
        predicted,
        sigma,
        highlight="entmax15",
        nan_sigmas=nan_sigmas,
        sigma_exact=measures.sigma_exact_predicted(X, C),
    )
    return fig, predicted, nan_sigmas, sigma


def test_stability_figure_validates(curves):
    validated(curves[0])


def test_measured_traces_are_the_table_numbers(curves, table):
    spec = curves[0].to_dict()
    panel_keys = {key for key, _, _ in figs.PANELS}
    measured = [t for t in spec["data"] if t["meta"][0] in panel_keys]
    assert len(measured) == 4 * 3 * 2
    for trace in measured:
        key, kind, dtype = trace["meta"]
        rows = [r for r in table if r["kind"] == kind and r["dtype"] == dtype]
        want = np.array([r[key] for r in rows])
        got = values(trace["y"])
        if key in ("nan_row_fraction", "hard_row_fraction"):
            np.testing.assert_allclose(got, 100 * want, rtol=0, atol=1e-12)
        else:  # log panels: zeros are gaps (drawn as triangles), the rest as measured
            ok = np.isfinite(want) & (want > 0)
            np.testing.assert_array_equal(got[ok], want[ok])
            assert np.isnan(got[~ok]).all()
        assert trace["line"]["color"] == figs.KIND_COLORS[kind]
        assert trace["line"]["dash"] == figs.DTYPE_DASH[dtype]
        assert trace["line"]["width"] == (3.5 if kind == "entmax15" else 2.0)


def test_exact_zeros_are_marked_at_the_floor(curves, table):
    spec = curves[0].to_dict()
    zero_marks = [t for t in spec["data"] if t["meta"][0] == "zero"]
    assert zero_marks, "entmax's one-step error is exactly 0 below σ*"
    entmax64 = [t for t in zero_marks if t["meta"][1:] == ["entmax15", "float64"]]
    want = [
        r["sigma"]
        for r in table
        if r["kind"] == "entmax15" and r["dtype"] == "float64" and r["error_to_kmeans"] == 0
    ]
    assert sorted(np.concatenate([values(t["x"]) for t in entmax64])) == pytest.approx(sorted(want))


def test_predicted_bands_and_threshold_lines(curves):
    fig, predicted, nan_sigmas, sigma = curves
    spec = fig.to_dict()
    bands = [t for t in spec["data"] if t["meta"][0] == "predicted"]
    assert {(t["meta"][1], t["meta"][2]) for t in bands} == {
        (k, d) for k in ("naive", "entmax15", "softmax") for d in DTYPES
    }
    for t in bands:
        key = {"naive": "naive_nan", "entmax15": "entmax15_hard", "softmax": "softmax_hard"}[t["meta"][1]]
        np.testing.assert_allclose(values(t["y"]), 100 * predicted[t["meta"][2]][key])
    shapes = spec["layout"]["shapes"]
    current = [s for s in shapes if s["name"] == CURRENT]
    assert len(current) == 4 and all(s["x0"] == sigma for s in current)
    for dtype, value in nan_sigmas.items():
        line = [s for s in shapes if s["name"] == figs.NAN_THRESHOLD.format(dtype=dtype)]
        assert len(line) == 1 and line[0]["x0"] == value
    assert len([s for s in shapes if s["name"] == EXACT_PREDICTED]) == 2


# --- the plane at σ -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_stability_plane_matches_the_maps(problem, dtype):
    X, C, _ = problem
    sigma = naive_nan_sigmas(X, C, dtype)[0] * 0.7  # some naive rows are NaN here
    plane = stability_plane(X, C, sigma, dtype, size=40)
    assert plane.label.shape == (40, 40)
    naive = responsibilities(X.astype(dtype), C.astype(dtype), sigma, "naive")
    entmax = responsibilities(X.astype(dtype), C.astype(dtype), sigma, "entmax15")
    np.testing.assert_array_equal(plane.point_naive_nan, np.isnan(naive).any(axis=1))
    np.testing.assert_array_equal(plane.point_entmax_hard, one_hot_rows(entmax))
    assert plane.point_naive_nan.any() and not plane.point_naive_nan.all()
    d = sq_dist(X, C)
    assert np.mean(plane.point_label == d.argmin(axis=1)) > 0.99
    # the pixel grid reaches farther from the centres than the points, so it breaks too
    assert plane.naive_nan.any() and not plane.naive_nan.all()


def test_stability_plane_figure(problem):
    X, C, _ = problem
    plane = stability_plane(X, C, naive_nan_sigmas(X, C, "float64")[0] * 0.7, "float64", size=30)
    fig = figs.stability_plane_figure(plane, X, C)
    validated(fig)
    spec = fig.to_dict()
    assert len(spec["layout"]["images"]) == 2
    by_state = {tuple(t["meta"]): t for t in spec["data"] if "meta" in t and len(t["meta"]) == 2}
    assert len(values(by_state[("naive", "nan")]["x"])) == plane.point_naive_nan.sum()
    assert len(values(by_state[("naive", "finite")]["x"])) == (~plane.point_naive_nan).sum()
    assert len(values(by_state[("entmax15", "hard")]["x"])) == plane.point_entmax_hard.sum()
    hard = by_state[("entmax15", "hard")]["marker"]["color"]
    assert list(hard) == [cluster_colors(K)[j] for j in plane.point_label[plane.point_entmax_hard]]
    rgb = figs.naive_rgb(plane)
    assert (rgb[plane.naive_nan] == np.array([120, 120, 120])).all()
    assert (figs.entmax_rgb(plane)[~plane.entmax_hard] == 255).all()


def decoded(uri: str) -> tuple[np.ndarray, str]:
    """A PNG data URI's (H, W, 3) pixels and its PNG mode ("P": palette, "RGB")."""
    image = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    return np.asarray(image.convert("RGB")), image.mode


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_the_panels_are_palette_pngs_of_each_pixels_colour(k, dtype):
    """Each panel's image, in the full figure and in the scrubber's patch, decodes to the colour its
    pixel means, written out here pixel by pixel: the nearest centre's colour faded (by the panel's
    amount), grey where the naive row is NaN, white where entmax15's row is soft."""
    X = make_dataset("blobs", n=300, seed=k)[0]
    C = kmeans(X, k=k, seed=0)[0] if k > 1 else X.mean(axis=0, keepdims=True)
    first, _ = naive_nan_sigmas(X, C, dtype)
    spread = float(np.ptp(X))
    sigmas = [first * 0.7, first * 3, spread / 20, spread]  # NaN pixels; none; soft ones (k > 1)
    planes = stability_planes(X, C, sigmas, dtype, size=24)
    levels = stability_levels(planes, X, C)
    for i, plane in enumerate(planes):
        naive = np.empty(plane.label.shape + (3,), dtype=np.uint8)
        entmax = np.empty_like(naive)
        for row in range(plane.label.shape[0]):
            for col in range(plane.label.shape[1]):
                colour = cluster_rgb(k)[plane.label[row, col]]
                naive[row, col] = (
                    NAN_RGB if plane.naive_nan[row, col] else fade(colour, figs.NAIVE_FINITE_FADE)
                )
                entmax[row, col] = fade(colour, figs.ENTMAX_HARD_FADE) if plane.entmax_hard[row, col] else 255
        if i == 0:
            sources = [image["source"] for image in levels[0].figure.to_dict()["layout"]["images"]]
        else:
            sets = dict(levels[i].sets)
            sources = [sets[("layout", "images", panel, "source")] for panel in (0, 1)]
        for source, expected in zip(sources, (naive, entmax)):
            pixels, mode = decoded(source)
            assert mode == "P" and np.array_equal(pixels, expected), (i, plane.sigma)
        assert np.array_equal(figs.naive_rgb(plane), naive) and np.array_equal(figs.entmax_rgb(plane), entmax)
    assert any(plane.naive_nan.any() for plane in planes)
    assert any(plane.entmax_hard.any() for plane in planes)
    assert any((~plane.entmax_hard).any() for plane in planes) == (k > 1)  # one centre: always one-hot
