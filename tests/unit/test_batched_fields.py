"""The fields, their images and the Explorer's numbers at many σ levels at once (rbfviz.field.soft_fields
with its Voronoi labels decided block by block, rbfviz.views.explorer.figures.field_images and field_pngs,
rbfviz.views.explorer.arrays.planes_at) are the one-level computations at each level, bit for bit, for
every map,
both quantities and both precisions; every PNG decodes to the image's pixels. The references are written
out one level at a time, the straightforward way: every pixel's distance to every centre and numpy's
argmin for the Voronoi labels and argmax, and the image pixel by pixel."""

from __future__ import annotations

import base64
import io
import math

import numpy as np
import pytest
import torch
from hypothesis import event, given, settings
from hypothesis import strategies as st
from PIL import Image
from test_scrub_levels import COVERING, covering_group, explorer_case

from rbfviz import field
from rbfviz.datasets import make_dataset
from rbfviz.maps import resp_columns, resp_from_sq_distances
from rbfviz.steps import kmeans
from rbfviz.validate import KINDS, check_sigma_for_dtype, entmax_kind
from rbfviz.views.common.layout import png_indexed_bytes
from rbfviz.views.common.palette import EDGE_RGB, NAN_RGB, cluster_rgb
from rbfviz.views.common.scrub import figure_at, read_payload
from rbfviz.views.explorer.arrays import initial_centers, plane_at, planes_at, sigma_scale, soft_fixed_points
from rbfviz.views.explorer.figures import ENTROPY_DARK, FIELD_FADE_HARD, field_images, field_pngs, field_rgb

MAPS = (*KINDS, entmax_kind(2.0), entmax_kind(1.3))
DTYPES = (np.float32, np.float64)
EXTENT = (-3.0, 3.0, -2.0, 2.5)


def nearest_labels(extent, height, width, C):
    """(H, W) nearest centre of every pixel: all k squared distances in C's dtype, then numpy's argmin
    (first minimum)."""
    C = np.asarray(C)
    xs, ys = field._pixel_axes(extent, height, width)
    xs, ys = xs.astype(C.dtype), ys.astype(C.dtype)
    d = np.stack([np.square(xs - cx)[None, :] + np.square(ys - cy)[:, None] for cx, cy in C])
    return d.argmin(axis=0)


def field_one_level(extent, C, sigma, kind, quantity, size, edge_factor, dtype):
    """(value, argmax, edges) of one level, from the single-σ map and plain numpy."""
    C = np.asarray(C, dtype=dtype)
    xs, ys = field._pixel_axes(extent, size, size)
    xs, ys = xs.astype(dtype), ys.astype(dtype)
    d = np.stack(
        [(np.square(xs - cx)[None, :] + np.square(ys - cy)[:, None]).ravel() for cx, cy in C], axis=1
    )
    with torch.no_grad():
        resp = resp_from_sq_distances(torch.from_numpy(np.ascontiguousarray(d.T)).T, sigma, kind).numpy()
    resp = resp.astype(np.float64)
    bad = ~np.isfinite(resp).all(axis=1)
    safe = np.where(bad[:, None], 0.0, resp)
    if quantity == "max":
        value = safe.max(axis=1)
    else:
        value = -np.sum(np.where(safe > 0, safe * np.log(np.where(safe > 0, safe, 1.0)), 0.0), axis=1)
    value[bad] = np.nan
    argmax = np.where(bad, -1, safe.argmax(axis=1))
    fine = edge_factor * size
    labels = nearest_labels(extent, fine, fine, C.astype(np.float64))
    edges = np.zeros((fine, fine), dtype=bool)
    edges[:, :-1] |= labels[:, :-1] != labels[:, 1:]
    edges[:-1, :] |= labels[:-1, :] != labels[1:, :]
    shape = (size, size)
    return value.reshape(shape), argmax.reshape(shape), edges


@pytest.mark.parametrize("kind", MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("quantity", field.QUANTITIES)
def test_fields_at_many_levels_are_each_level_alone(kind, dtype, quantity):
    rng = np.random.default_rng(len(kind) + 3 * (dtype == np.float32) + 7 * (quantity == "max"))
    m, k = 4, 3 + len(kind) % 3
    C = rng.normal(scale=1.5, size=(m, k, 2)).astype(dtype)
    C[1, 1] = C[1, 0]  # two centres on top of each other: ties go to the lower index
    sigmas = np.array([2.0, 0.4, 0.05, 0.004])  # from a soft plane to a hard one (naive breaks)
    fields = field.soft_fields(EXTENT, C, sigmas, kind, quantity, size=40, edge_factor=2, dtype=dtype)
    for i, got in enumerate(fields):
        value, argmax, edges = field_one_level(EXTENT, C[i], sigmas[i], kind, quantity, 40, 2, dtype)
        assert np.array_equal(got.value, value, equal_nan=True), (i, kind)
        assert np.array_equal(got.argmax, argmax)
        assert np.array_equal(got.edges, edges)
        alone = field.soft_field(EXTENT, C[i], sigmas[i], kind, quantity, size=40, dtype=dtype)
        assert np.array_equal(alone.value, got.value, equal_nan=True) and np.array_equal(
            alone.edges, got.edges
        )


def test_fields_refuse_centres_and_levels_that_disagree():
    with pytest.raises(ValueError, match="m = 2 levels"):
        field.soft_fields(EXTENT, np.zeros((3, 2, 2)), [1.0, 0.5])
    with pytest.raises(ValueError, match="positive"):
        field.soft_fields(EXTENT, np.zeros((1, 2, 2)), [-1.0])


def centre_sets(rng, m, k, spread):
    """m sets of k centres, some of them the hard cases of the block-by-block labels: centres a rounding
    error apart (merged at a large σ), exact duplicates, centres on a coarse lattice (boundaries along
    pixel rows and columns) and centres far outside the plane."""
    C = rng.normal(scale=spread, size=(m, k, 2))
    C[0, 1:] = C[0, :1] + rng.normal(scale=1e-13, size=(k - 1, 2))
    if m > 1:
        C[1, -1] = C[1, 0]
    if m > 2:
        C[2] = np.round(C[2] * 2) / 2
    if m > 3:
        C[3, 0] += 50.0
    return C


def general_summary(D, sigma, quantity="max"):
    """(value, argmax) of one level from (k, n) squared distances D the general way: the map's
    responsibilities, then the pixel summary's passes over them (what the softmax's "max" field skips)."""
    value, argmax = np.empty(D.shape[1]), np.empty(D.shape[1], dtype=np.int64)
    resp = resp_columns(D.copy(), sigma, "softmax", overwrite=True)
    field._pixel_summary(resp.astype(np.float64, copy=False).T, quantity, value, argmax)
    return value, argmax


@settings(max_examples=80)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 10),
    st.sampled_from([0.0, 1e-300, 1e-16, 1e-13, 1e-9, 1e-3, 0.3, 3.0]),
    st.sampled_from([1e-4, 0.01, 0.2, 1.0, 30.0]),
    st.sampled_from(DTYPES),
)
def test_softmax_max_field_is_the_map_then_its_largest_r(seed, k, spread, sigma, dtype):
    """The softmax's "max" field from the weights and their sum (``field._softmax_max_summary``) is the
    responsibilities' largest value and its first argmax: centres merged a rounding error apart (weights
    that round to 1 although the distances differ: ties to the lower index), exact duplicates, centres far
    outside the plane (weights that underflow) and every σ from hard to soft. The argmax bit for bit; the
    value too, but for the weights below 1e-304 taken at the floor's (``maps._softmax_weights_``), which
    could move a sum by one unit in its last place on a rounding tie (1e-16: no 8-bit colour moves unless
    it lies within 1e-13 of a rounding boundary), so that much is allowed and counted."""
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=1.5, size=(1, 2)) + rng.normal(scale=spread, size=(k, 2))
    if k > 1 and rng.random() < 0.3:
        C[-1] = C[0]
    if rng.random() < 0.2:
        C[0] += 60.0
    C = C.astype(dtype)
    if sigma < 1e-2 and dtype == np.float32:
        sigma = 1e-2  # below float32's smallest σ (``validate.check_sigma_for_dtype``)
    D = field.grid_sq_distance_columns(EXTENT, 23, 31, C)
    value, argmax = np.empty(D.shape[1]), np.empty(D.shape[1], dtype=np.int64)
    field._softmax_max_summary(D.copy(), sigma, value, argmax)
    expected_value, expected_argmax = general_summary(D, sigma)
    assert np.array_equal(argmax, expected_argmax)
    assert (np.abs(value - expected_value) <= np.spacing(expected_value.astype(dtype))).all()
    if not np.array_equal(value, expected_value):
        event("a sum one unit in its last place from the map's")


@pytest.mark.parametrize("dataset", ["blobs", "moons", "circles"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_max_field_on_every_data_set_is_the_map_then_its_largest_r(dataset, dtype):
    """The Explorer's centres at every σ of a data set's grid (k-means++ start, EM to each σ's fixed point,
    as the app draws them), the app's 200² grid: the softmax's "max" field is the general path's, value
    and argmax bit for bit (the weights below 1e-304 at the floor's moved none of these sums)."""
    X, _ = make_dataset(dataset, 300, seed=0)
    X = X.astype(dtype)
    X64 = X.astype(np.float64)
    scale = sigma_scale(X64, kmeans(X64, k=5, seed=0)[0])
    C0 = initial_centers(X, 5, "kmeans++", 0)
    grid = np.array([s for s in scale.grid if valid_sigma(s, dtype)])
    centers, _, _ = soft_fixed_points(X, C0, grid, kind="softmax")
    extent = field.plane_extent(X64, aspect=field.PLANE_ASPECT)
    for i, sigma in enumerate(grid):
        D = field.grid_sq_distance_columns(extent, 200, 200, centers[i])
        value, argmax = np.empty(D.shape[1]), np.empty(D.shape[1], dtype=np.int64)
        field._softmax_max_summary(D.copy(), float(sigma), value, argmax)
        expected_value, expected_argmax = general_summary(D, float(sigma))
        assert np.array_equal(value, expected_value) and np.array_equal(argmax, expected_argmax), sigma


def valid_sigma(sigma, dtype) -> bool:
    try:
        check_sigma_for_dtype(float(sigma), np.dtype(dtype))
    except ValueError:
        return False
    return True


def test_softmax_max_field_of_nan_distances_is_nan():
    """A pixel with a NaN distance (or only infinite ones) is NaN with argmax -1, as the general path
    gives it; the others are untouched."""
    D = np.array([[1.0, np.nan, np.inf, 0.5], [2.0, 0.3, np.inf, np.inf]])
    value, argmax = np.empty(4), np.empty(4, dtype=np.int64)
    with np.errstate(invalid="ignore"):  # inf - inf
        field._softmax_max_summary(D.copy(), 0.7, value, argmax)
        expected_value, expected_argmax = general_summary(D, 0.7)
    assert np.array_equal(value, expected_value, equal_nan=True) and np.isnan(value[1:3]).all()
    assert np.array_equal(argmax, expected_argmax) and list(argmax) == [0, -1, -1, 0]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 9, 12])
@pytest.mark.parametrize("height, width", [(400, 400), (37, 61), (8, 9), (2, 2)])
def test_block_labels_are_every_pixels_nearest_centre(k, height, width):
    rng = np.random.default_rng(100 * k + height + width)
    C = centre_sets(rng, 5, k, spread=1.5)
    labels = field.nearest_center_maps(EXTENT, height, width, C)
    assert labels.shape == (5, height, width) and labels.dtype == np.uint8
    for i in range(5):
        assert np.array_equal(labels[i], nearest_labels(EXTENT, height, width, C[i])), i
    assert np.array_equal(field.nearest_center_map(EXTENT, height, width, C[2]), labels[2])


@settings(max_examples=60)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 9),
    st.integers(1, 4),
    st.integers(1, 90),
    st.integers(1, 90),
    st.sampled_from([1e-13, 1e-9, 1e-3, 0.3, 3.0]),
    st.sampled_from(DTYPES),
)
def test_block_labels_equal_every_pixels_nearest_centre_for_any_centres(
    seed, k, m, height, width, spread, dtype
):
    """Any centres, grid and precision: near-coincident centres (merged at a large σ, decided pixel by
    pixel in bands of rows), close and far ones, exact duplicates and centres outside the plane."""
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=1.5, size=(m, 1, 2)) + rng.normal(scale=spread, size=(m, k, 2))
    if k > 1 and rng.random() < 0.3:
        C[:, -1] = C[:, 0]
    if rng.random() < 0.2:
        C[0, 0] += 40.0
    C = C.astype(dtype)
    labels = field.nearest_center_maps(EXTENT, height, width, C)
    assert labels.shape == (m, height, width) and labels.dtype == np.uint8
    for i in range(m):
        assert np.array_equal(labels[i], nearest_labels(EXTENT, height, width, C[i])), i


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_labels_of_merged_centres_on_a_large_grid(dtype):
    """Centres a rounding error apart on the app's 400² grid (more rows than one band): every pixel."""
    rng = np.random.default_rng(7)
    spread = 20 * float(np.finfo(dtype).eps)  # a few units in the last place of the centres
    C = (np.array([0.4, -0.3]) + rng.normal(scale=spread, size=(2, 6, 2))).astype(dtype)
    C[1, 3] = C[1, 1]
    labels = field.nearest_center_maps(EXTENT, 400, 400, C)
    assert field.boundary_mask(labels).any()  # the rounding draws some edges: they must be the same
    for i in range(2):
        assert np.array_equal(labels[i], nearest_labels(EXTENT, 400, 400, C[i])), i


def test_block_labels_near_a_boundary_through_pixel_centres():
    """Two centres mirrored about a column of pixel centres: every pixel of that column is a tie (to the
    lower index), and blocks whose corners lie on it are computed pixel by pixel."""
    extent = (-1.0, 1.0, -1.0, 1.0)
    xs, _ = field._pixel_axes(extent, 64, 64)
    mid = xs[24]
    C = np.array([[[mid - 0.3, 0.1], [mid + 0.3, 0.1]], [[mid + 0.3, -0.2], [mid - 0.3, -0.2]]])
    labels = field.nearest_center_maps(extent, 64, 64, C)
    for i in range(2):
        assert np.array_equal(labels[i], nearest_labels(extent, 64, 64, C[i]))


def image_one_level(f) -> np.ndarray:
    """The image of one Field, the straightforward way: the colour of each pixel, each pixel repeated
    E×E times, then the edges."""
    k, value = f.k, f.value
    bad = ~np.isfinite(value)
    if f.quantity == "max":
        certainty = np.clip((np.nan_to_num(value, nan=1.0) - 1 / k) / (1 - 1 / k), 0, 1) if k > 1 else 1.0
        amount = (FIELD_FADE_HARD + (1 - FIELD_FADE_HARD) * (1 - certainty)) * np.ones_like(value)
        base = cluster_rgb(k)[np.clip(f.argmax, 0, k - 1)].astype(np.float64)
        rgb = np.clip(np.rint(base + (255 - base) * amount[..., None]), 0, 255).astype(np.uint8)
    else:
        t = np.clip(np.nan_to_num(value, nan=0.0) / max(np.log(k), 1e-12), 0, 1)[..., None]
        rgb = np.rint(255 + (np.array(ENTROPY_DARK, float) - 255) * t).astype(np.uint8)
    rgb[bad] = NAN_RGB
    E = f.edge_factor
    rgb = np.repeat(np.repeat(rgb, E, axis=0), E, axis=1)
    rgb[f.edges] = EDGE_RGB
    return rgb


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "naive"])
@pytest.mark.parametrize("quantity", field.QUANTITIES)
@pytest.mark.parametrize("k, edge_factor", [(1, 2), (4, 2), (10, 3)])
def test_field_images_are_each_field_alone(kind, quantity, k, edge_factor):
    rng = np.random.default_rng(k + edge_factor)
    C = centre_sets(rng, 4, k, spread=1.5)
    sigmas = np.array([2.0, 0.4, 0.05, 0.004])  # the naive map's NaN pixels (grey) at the smallest
    fields = field.soft_fields(EXTENT, C, sigmas, kind, quantity, size=30, edge_factor=edge_factor)
    images = field_images(fields)
    assert images.shape == (4, 30 * edge_factor, 30 * edge_factor, 3) and images.dtype == np.uint8
    for i, f in enumerate(fields):
        assert np.array_equal(images[i], image_one_level(f)), i
        assert np.array_equal(field_rgb(f), images[i])


def decoded(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    return np.asarray(image.convert("RGB"))


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "naive"])
@pytest.mark.parametrize("quantity", field.QUANTITIES)
@pytest.mark.parametrize("k, edge_factor", [(1, 2), (4, 2), (10, 3)])
def test_field_pngs_decode_to_the_field_images(kind, quantity, k, edge_factor):
    """Palette PNGs (at most 256 colours) and RGB PNGs (more) both decode to ``field_rgb``'s pixels."""
    rng = np.random.default_rng(10 * k + edge_factor)
    C = centre_sets(rng, 6, k, spread=1.5)
    sigmas = np.array([3.0, 1.0, 0.4, 0.1, 0.05, 0.004])
    fields = field.soft_fields(EXTENT, C, sigmas, kind, quantity, size=64, edge_factor=edge_factor)
    modes = set()
    for f, png in zip(fields, field_pngs(fields)):
        modes.add(Image.open(io.BytesIO(png)).mode)
        assert np.array_equal(decoded(png), field_rgb(f))
    assert "P" in modes  # the hard levels have few colours


def test_field_images_of_levels_in_any_order_and_from_separate_calls():
    """Levels that are not one after the other in one ``soft_fields`` result (reordered, or computed
    apart) give the same images and PNGs as each level alone, and the fields' arrays stay unchanged."""
    rng = np.random.default_rng(5)
    C = centre_sets(rng, 4, 3, spread=1.5)
    sigmas = np.array([2.0, 0.6, 0.2, 0.05])
    fields = field.soft_fields(EXTENT, C, sigmas, "softmax", "max", size=40)
    before = [(f.value.copy(), f.argmax.copy(), f.edges.copy()) for f in fields]
    alone = field.soft_field(EXTENT, C[1], sigmas[1], "softmax", "max", size=40)
    picked = [fields[2], fields[0], alone, fields[3]]
    images = field_images(picked)
    for image, f in zip(images, picked):
        assert np.array_equal(image, image_one_level(f))
    for png, image in zip(field_pngs(picked), images):
        assert np.array_equal(decoded(png), image)
    for f, (value, argmax, edges) in zip(fields, before):
        assert np.array_equal(f.value, value) and np.array_equal(f.argmax, argmax)
        assert np.array_equal(f.edges, edges)


def test_field_pngs_fall_back_to_rgb_above_256_colours():
    f = field.soft_field(EXTENT, np.array([[-1.0, 0.0], [1.0, 0.5], [0.0, 2.0], [2.0, 2.0]]), 1.0, size=200)
    image = field_rgb(f)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 256
    (png,) = field_pngs([f])
    assert Image.open(io.BytesIO(png)).mode == "RGB" and np.array_equal(decoded(png), image)


@pytest.mark.parametrize(
    "dataset, kind, dtype", [pytest.param(*case, marks=covering_group(*case)) for case in COVERING]
)
def test_explorer_payload_images_are_the_field_images(dataset, kind, dtype):
    """Every σ level's image in the Explorer's payload decodes to ``field_rgb`` of that level's field
    (the payload and plane views tests/unit/test_scrub_levels.py compares with the per-level reference)."""
    payload, views = explorer_case(dataset, kind, dtype)
    header = read_payload(payload)
    assert len(views) == len(header["frames"])
    for level, view in enumerate(views):
        (image,) = figure_at(header, level)["layout"]["images"]
        png = base64.b64decode(image["source"].removeprefix("data:image/png;base64,"))
        assert np.array_equal(decoded(png), field_rgb(view.field)), level


def test_png_indexed_bytes_decodes_to_its_palette_and_refuses_bad_input():
    rng = np.random.default_rng(5)
    palette = rng.integers(0, 256, size=(256, 3), dtype=np.uint8)
    indices = rng.integers(0, 256, size=(7, 11), dtype=np.uint8)
    assert np.array_equal(decoded(png_indexed_bytes(indices, palette)), palette[indices])  # row 0 on top
    with pytest.raises(ValueError, match="below the palette"):
        png_indexed_bytes(indices, palette[:10])
    with pytest.raises(ValueError, match="palette must have shape"):
        png_indexed_bytes(indices[:1, :1], np.zeros((257, 3), np.uint8))
    with pytest.raises(ValueError, match="indices must have shape"):
        png_indexed_bytes(indices[0], palette)


@pytest.mark.parametrize("kind", MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_the_numbers_at_many_levels_are_each_level_alone(kind, dtype):
    rng = np.random.default_rng(len(kind))
    n, k, m = 150, 9, 5  # k > 8: numpy sums a row of 8 or more values pairwise, fewer one by one
    X = (rng.normal(size=(n, 2)) * 3 + 40.0).astype(dtype)
    C = (X[rng.integers(0, n, size=(m, k))] + rng.normal(scale=0.1, size=(m, k, 2))).astype(dtype)
    sigmas = np.array([5.0, 1.0, 0.2, 0.03, 0.002])  # the naive map breaks at the smallest
    labels = rng.integers(0, k, size=n)
    for i, (resp, numbers) in enumerate(planes_at(X, C, sigmas, kind, labels)):
        expected_resp, expected = plane_at(X, C[i], sigmas[i], kind, labels)
        assert np.array_equal(resp, expected_resp, equal_nan=True) and resp.flags.c_contiguous
        assert resp.dtype == expected_resp.dtype and numbers.keys() == expected.keys()
        for key, value in expected.items():
            same = numbers[key] == value or (
                isinstance(value, float) and math.isnan(value) and math.isnan(numbers[key])
            )
            assert same, (kind, i, key, numbers[key], value)


def test_the_numbers_refuse_centres_and_levels_that_disagree():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="m = 2 levels"):
        planes_at(X, np.zeros((3, 2, 2)), [1.0, 0.5], "softmax", np.zeros(5, dtype=int))
