"""Figure builders of the plane: palette, PNG field (orientation!), soft field, the Explorer figure."""

import base64
import io
import math

import numpy as np
import pytest
from PIL import Image

from rbfviz.field import grid_sq_distances, pixel_centers, plane_extent, soft_field
from rbfviz.maps import responsibilities
from rbfviz.views.common.layout import field_image, png_bytes, png_data_uri, validated
from rbfviz.views.common.palette import (
    MAX_CLUSTERS,
    NAN_RGB,
    cluster_colors,
    cluster_rgb,
    fade,
    hex_to_rgb,
    mix_colors,
    rgb_strings,
)
from rbfviz.views.explorer.figures import field_rgb, plane_figure

EXTENT = (-2.0, 4.0, -1.0, 3.0)  # deliberately not square and not centred on 0


def decode_uri(uri: str) -> np.ndarray:
    assert uri.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))


# --- palette ----------------------------------------------------------------------------------------


def test_cluster_colours_are_distinct_and_stable():
    colors = cluster_colors(MAX_CLUSTERS)
    assert len(set(colors)) == MAX_CLUSTERS
    assert cluster_colors(3) == colors[:3]  # cluster j has one colour whatever k is
    assert cluster_colors(1)[0] == "#E69F00"  # Okabe–Ito orange first
    with pytest.raises(ValueError, match="between 1 and"):
        cluster_colors(MAX_CLUSTERS + 1)


def test_mix_colors_one_hot_uniform_and_nan_rows():
    k = 4
    palette = cluster_rgb(k)
    resp = np.vstack([np.eye(k), np.full((1, k), 1 / k), np.full((1, k), np.nan)])
    mixed = mix_colors(resp)
    assert np.array_equal(mixed[:k], palette)
    assert np.array_equal(mixed[k], np.rint(palette.mean(axis=0)).astype(np.uint8))
    assert tuple(mixed[k + 1]) == NAN_RGB
    assert rgb_strings(mixed[:1]) == ["rgb(%d,%d,%d)" % hex_to_rgb(cluster_colors(1)[0])]


def test_fade_goes_to_white():
    rgb = np.array([[10, 100, 200]], np.uint8)
    assert np.array_equal(fade(rgb, 0.0), rgb)
    assert np.array_equal(fade(rgb, 1.0), np.full((1, 3), 255))


# --- PNG and orientation ------------------------------------------------------------------------------


def test_png_round_trip():
    rgb = np.random.RandomState(0).randint(0, 256, size=(7, 11, 3)).astype(np.uint8)
    decoded = np.asarray(Image.open(io.BytesIO(png_bytes(rgb))).convert("RGB"))
    assert np.array_equal(decoded, rgb)
    with pytest.raises(ValueError, match="shape"):
        png_bytes(np.zeros((3, 3)))


def test_pixel_grid_row_zero_is_the_top():
    P = pixel_centers(EXTENT, 4, 6).reshape(4, 6, 2)
    x_min, x_max, y_min, y_max = EXTENT
    assert P[0, 0, 0] < P[0, -1, 0]  # columns go left to right
    assert P[0, 0, 1] > P[-1, 0, 1]  # rows go top to bottom
    assert P[0, 0, 0] == pytest.approx(x_min + 0.5 * (x_max - x_min) / 6)
    assert P[0, 0, 1] == pytest.approx(y_max - 0.5 * (y_max - y_min) / 4)


def test_grid_distances_equal_the_maps_distances():
    import torch

    from rbfviz.maps import sq_distances

    C = np.random.RandomState(1).normal(size=(3, 2))
    P = pixel_centers(EXTENT, 9, 13)
    expected = sq_distances(torch.from_numpy(P), torch.from_numpy(C)).numpy()
    assert np.array_equal(grid_sq_distances(EXTENT, 9, 13, C), expected)


def test_field_image_top_left_pixel_is_x_min_y_max():
    """One centre near each corner: each corner pixel of the PNG has that centre's colour, and the
    layout image is anchored with its top-left corner at (x_min, y_max)."""
    x_min, x_max, y_min, y_max = EXTENT
    corners = np.array([[x_min, y_max], [x_max, y_max], [x_min, y_min], [x_max, y_min]])  # TL, TR, BL, BR
    field = soft_field(EXTENT, corners, sigma=0.3, kind="softmax", quantity="max", size=40)
    image = decode_uri(png_data_uri(field_rgb(field)))
    palette = cluster_rgb(4).astype(int)

    def nearest_cluster(pixel):
        faded = fade(palette, 0.55).astype(int)  # hard pixels: FIELD_FADE_HARD toward white
        return int(np.argmin(np.abs(faded - pixel.astype(int)).sum(axis=1)))

    assert nearest_cluster(image[0, 0]) == 0  # top-left pixel: the centre at (x_min, y_max)
    assert nearest_cluster(image[0, -1]) == 1
    assert nearest_cluster(image[-1, 0]) == 2
    assert nearest_cluster(image[-1, -1]) == 3
    spec = field_image("data:image/png;base64,", EXTENT)
    assert (spec["x"], spec["y"], spec["xanchor"], spec["yanchor"]) == (x_min, y_max, "left", "top")
    assert (spec["sizex"], spec["sizey"]) == (x_max - x_min, y_max - y_min)


# --- the soft field -------------------------------------------------------------------------------------


def test_field_values_match_the_maps_at_pixel_centres():
    C = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 2.5]])
    size = 30
    for kind in ("softmax", "entmax15"):
        for quantity in ("max", "entropy"):
            field = soft_field(EXTENT, C, 0.4, kind=kind, quantity=quantity, size=size)
            resp = responsibilities(pixel_centers(EXTENT, size, size), C, 0.4, kind)
            if quantity == "max":
                expected = resp.max(axis=1)
            else:
                expected = -np.sum(np.where(resp > 0, resp * np.log(np.where(resp > 0, resp, 1)), 0), axis=1)
            assert np.allclose(field.value.ravel(), expected, atol=1e-12)
            assert np.array_equal(field.argmax.ravel(), resp.argmax(axis=1))


def test_field_ranges():
    C = np.array([[0.0, 0.0], [2.0, 1.0], [1.0, 2.5]])
    field = soft_field(EXTENT, C, 0.4, quantity="entropy", size=20)
    assert field.value.min() >= 0 and field.value.max() <= math.log(3) + 1e-12
    field = soft_field(EXTENT, C, 0.4, quantity="max", size=20)
    assert field.value.min() >= 1 / 3 - 1e-12 and field.value.max() <= 1 + 1e-12


def test_naive_field_breaks_in_float32_first():
    C = np.array([[0.0, 0.0], [2.0, 1.0]])
    f32 = soft_field(EXTENT, C, 0.2, kind="naive", size=40, dtype=np.float32)
    f64 = soft_field(EXTENT, C, 0.2, kind="naive", size=40, dtype=np.float64)
    assert np.isnan(f32.value).sum() > np.isnan(f64.value).sum()
    image = field_rgb(f32)
    bad = np.repeat(np.repeat(np.isnan(f32.value), 2, 0), 2, 1) & ~f32.edges
    assert (image[bad] == NAN_RGB).all()


def test_voronoi_edges_lie_on_the_bisector():
    C = np.array([[-1.0, 1.0], [3.0, 1.0]])  # bisector x = 1
    field = soft_field(EXTENT, C, 0.5, size=50, edge_factor=2)
    cols = np.flatnonzero(field.edges.any(axis=0))
    xs = pixel_centers(EXTENT, 100, 100)[:100, 0]
    assert len(cols) == 1 and abs(xs[cols[0]] - 1.0) <= (EXTENT[1] - EXTENT[0]) / 100
    assert field.edges[:, cols[0]].all()


def test_field_rejects_bad_input():
    with pytest.raises(ValueError, match="quantity"):
        soft_field(EXTENT, np.zeros((2, 2)), 0.5, quantity="mean")
    with pytest.raises(ValueError, match="extent"):
        soft_field((1, 0, 0, 1), np.zeros((2, 2)), 0.5)
    with pytest.raises(ValueError, match="sigma"):
        soft_field(EXTENT, np.zeros((2, 2)), -1.0)


def test_plane_extent_pads_the_data():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    x_min, x_max, y_min, y_max = plane_extent(X, margin=0.1)
    assert (x_min, x_max, y_min, y_max) == pytest.approx((-0.1, 1.1, -0.2, 2.2))


# --- the Explorer figure -----------------------------------------------------------------------------


def _plane_inputs(n=60, k=3, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 2))
    C = X[:k].copy()
    resp = responsibilities(X, C, 0.5, "softmax")
    return X, C, resp


def test_plane_figure_traces_colours_and_hover():
    X, C, resp = _plane_inputs()
    km = C + 0.1
    field = soft_field(plane_extent(X), C, 0.5, size=20)
    fig = plane_figure(X, resp, C, km, field, title="t")
    validated(fig)  # every property is valid Plotly
    names = [trace.name for trace in fig.data]
    assert names[:3] == ["points (colour mixed by r)", "RBF centres c_j", "K-Means centroids"]
    assert "Voronoi edges (hard)" in names
    points, centres, kmeans = fig.data[:3]
    assert list(points.marker.color) == rgb_strings(mix_colors(resp))
    assert np.allclose(np.asarray(points.customdata), np.round(resp, 4))
    assert "customdata[2]" in points.hovertemplate and "customdata[3]" not in points.hovertemplate
    assert list(centres.marker.color) == cluster_colors(3)
    assert np.allclose(np.column_stack([centres.x, centres.y]), C)
    assert np.allclose(np.column_stack([kmeans.x, kmeans.y]), km)
    assert centres.marker.symbol != kmeans.marker.symbol
    (image,) = fig.layout.images
    assert image.source.startswith("data:image/png;base64,") and image.layer == "below"
    assert (image.x, image.y) == (field.extent[0], field.extent[3])
    assert fig.layout.yaxis.scaleanchor == "x"


def test_plane_figure_entropy_has_a_colour_bar_and_payload_is_small():
    X, C, resp = _plane_inputs(n=500)
    field = soft_field(plane_extent(X), C, 0.5, quantity="entropy", size=200)
    fig = plane_figure(X, resp, C, C, field)
    assert any(getattr(t.marker, "showscale", None) for t in fig.data)
    assert len(fig.to_json()) < 1_000_000
    validated(fig)


def test_plane_figure_nan_rows_and_large_n():
    X, C, resp = _plane_inputs(n=1600)
    resp[0] = np.nan
    fig = plane_figure(X, resp, C, C)
    assert fig.data[0].type == "scattergl"
    assert fig.data[0].marker.color[0] == "rgb(%d,%d,%d)" % NAN_RGB
    with pytest.raises(ValueError, match="shape"):
        plane_figure(X[:10], resp, C, C)


def test_plane_extent_aspect_widens_the_short_side():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    x_min, x_max, y_min, y_max = plane_extent(X, margin=0.0, aspect=1.25)
    assert (x_max - x_min) / (y_max - y_min) == pytest.approx(1.25)
    assert (y_min, y_max) == pytest.approx((0.0, 2.0)) and (x_min + x_max) / 2 == pytest.approx(0.5)
    x_min, x_max, y_min, y_max = plane_extent(np.array([[0.0, 0.0], [4.0, 1.0]]), margin=0.0, aspect=1.0)
    assert (x_min, x_max) == pytest.approx((0.0, 4.0)) and y_max - y_min == pytest.approx(4.0)
    with pytest.raises(ValueError, match="aspect"):
        plane_extent(X, aspect=0.0)
