"""The Neural network view's arrays (rbfviz.views.neural_network.arrays) and figures
(rbfviz.views.neural_network.figures).

Pinned: confidence codes and the class a centre's cell votes for (closed forms), the pixel
orientation of every grid (row 0 = top) through to the decoded Plotly heatmaps, frames that carry
exactly the snapshots (decision grids, centres, latent codes and labels, Voronoi cells recomputed
independently), Play/Pause/slider, the Lloyd × drawn over the centres, log-panel markers for exact
zeros and NaN, and that every figure passes Plotly's validation. Runs are tiny (≈ 0.1 s each).
"""

import base64
import json
import textwrap

import numpy as np
import pytest
import torch
from numpy_reference import sq_dist

from rbfviz.field import pixel_centers
from rbfviz.nn import train_classifier, train_deep_clustering
from rbfviz.views.common.layout import png_data_uri, validated
from rbfviz.views.common.palette import cluster_colors, fade
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.neural_network.arrays import (
    CONFIDENCE_LEVELS,
    center_classes,
    confidence_codes,
    deep_table,
    deep_view,
    nearest_center_grid,
    snapshot_every,
    train_classifier_view,
    train_low_sigma_view,
    voronoi_cells,
)
from rbfviz.views.neural_network.figures import (
    CENTERS,
    CERTAIN_FADE,
    CLASS_COLORS,
    LLOYD,
    MISCLASSIFIED,
    TIE_FADE,
    TITLE_CHARS,
    TRAIN_POINTS,
    _step_colorscale,
    class_rgb,
    classifier_animation,
    classifier_figure,
    classifier_history_figure,
    curves_figure,
    decision_lut,
    decision_rgb,
    deep_history_figure,
    frame_image,
    latent_figure,
    log_tickvals,
    low_sigma_figure,
    title_lines,
)


def decode(spec):
    """A Plotly typed array ({dtype, bdata[, shape]}) or a plain list → numpy."""
    if isinstance(spec, dict) and "bdata" in spec:
        arr = np.frombuffer(
            base64.b64decode(spec["bdata"]),
            dtype={"u1": np.uint8, "f4": np.float32, "f8": np.float64, "i1": np.int8}[spec["dtype"]],
        )
        if "shape" in spec:
            arr = arr.reshape([int(s) for s in str(spec["shape"]).split(",")])
        return arr
    return np.asarray(spec)


@pytest.fixture(scope="module")
def clf():
    return train_classifier_view("moons", k=6, epochs=30, n=150)


@pytest.fixture(scope="module")
def spiral():
    return train_classifier_view("spiral", k=9, epochs=20, n=150)


def small_deep(latent_dim=None, dataset="moons"):
    kwargs = dict(n=200) if dataset != "digits" else {}
    result = train_deep_clustering(
        dataset,
        hidden=(16, 16),
        pretrain_epochs=3,
        joint_epochs=4,
        batch_size=64,
        latent_dim=latent_dim,
        snapshot_every=2,
        snapshot_points=80,
        **kwargs,
    )
    return deep_view(result)


@pytest.fixture(scope="module")
def deep2():
    return small_deep()


@pytest.fixture(scope="module")
def deep3():
    return small_deep(latent_dim=3, dataset="digits")


@pytest.fixture(scope="module")
def low():
    return train_low_sigma_view("moons", sigma=0.01, k=6, epochs=6)


def arr(values) -> np.ndarray:
    """Trace data as numpy, whether Plotly packed it as a typed array or not."""
    return decode(values) if isinstance(values, dict) else np.asarray(values)


def spec(fig) -> dict:
    return json.loads(fig.to_json())


# --- arrays ------------------------------------------------------------------------------------------


def test_confidence_codes_closed_form():
    proba = np.array([[[0.5, 0.5], [1.0, 0.0]], [[0.2, 0.8], [0.74, 0.26]]])  # t = 0, 1 / 0.6, 0.48
    codes = confidence_codes(proba, levels=8)
    assert codes.dtype == np.uint8
    # label·8 + floor(8 t) clipped to 7: tie → band 0; certain → band 7
    assert codes.tolist() == [[0 * 8 + 0, 0 * 8 + 7], [1 * 8 + 4, 0 * 8 + 3]]
    three = np.array([[[1 / 3, 1 / 3, 1 / 3], [0.0, 0.0, 1.0]]])
    assert confidence_codes(three, levels=4).tolist() == [[0, 2 * 4 + 3]]
    with pytest.raises(ValueError, match="shape"):
        confidence_codes(np.ones((2, 2)))


def test_center_classes_is_argmax_of_the_readout_columns():
    class Readout(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.tensor([[1.0, 0.0, -2.0], [0.0, 0.5, 3.0]]))
            self.bias = torch.nn.Parameter(torch.tensor([0.0, 0.6]))

    model = torch.nn.Module()
    model.readout = Readout()
    # logits of a one-hot r on centre j: W[:, j] + b → [1, 0.6], [0, 1.1], [-2, 3.6]
    assert center_classes(model).tolist() == [0, 1, 1]


def test_center_class_is_what_the_network_predicts_on_the_centre_at_small_sigma():
    result = train_classifier("moons", k=6, epochs=30, n=150)
    centers = torch.as_tensor(result.centers, dtype=torch.float32)
    with torch.no_grad():  # at σ → 0 a point on centre j has r = e_j exactly
        predicted = result.model(centers, 1e-3, "softmax").argmax(dim=1).numpy()
    assert np.array_equal(predicted, center_classes(result.model))


def test_nearest_center_grid_orientation():
    extent = (0.0, 4.0, 0.0, 2.0)
    centers = np.array([[1.0, 1.8], [3.0, 0.2]])  # top-left and bottom-right
    grid = nearest_center_grid(extent, centers, 8)
    assert grid[0, 0] == 0 and grid[-1, -1] == 1  # row 0 is the top (y_max)
    pts = pixel_centers(extent, 8, 8)
    expected = sq_dist(pts, centers).argmin(1).reshape(8, 8)
    assert np.array_equal(grid, expected)


def test_snapshot_every():
    assert snapshot_every(200, 40) == 5 and snapshot_every(10, 40) == 1 and snapshot_every(41, 40) == 2


def test_classifier_view_arrays(clf):
    v = clf
    assert v.label.shape == v.confidence.shape == v.decision_edges.shape == (200, 200)
    assert v.voronoi_edges.shape == (400, 400)
    S = len(v.frame_epochs)
    assert v.frame_codes.shape == (S, 48, 48) and v.frame_centers.shape == (S, v.k, 2)
    assert v.frame_epochs[0] == 0 and v.frame_epochs[-1] == v.epochs_run == 30
    assert np.array_equal(v.frame_centers[-1], v.centers)
    assert v.frame_codes.max() < v.n_classes * v.frame_levels
    # the test predictions are those of the final model: accuracy recomputed from them
    assert np.isclose(np.mean(v.test_pred == v.y_test), v.accuracy)
    assert 0.5 <= v.confidence.min() and v.confidence.max() <= 1.0
    # the final extent holds every point and both centre sets
    x0, x1, y0, y1 = v.extent
    for pts in (v.X_train, v.X_test, v.centers, v.lloyd_centers):
        assert (
            (pts[:, 0] > x0).all()
            and (pts[:, 0] < x1).all()
            and (pts[:, 1] > y0).all()
            and (pts[:, 1] < y1).all()
        )


def test_settings_checks_say_what_is_wrong():
    from rbfviz.views.neural_network.arrays import check_classifier_settings, check_low_sigma_settings

    with pytest.raises(ValueError, match="k = 12 centres need at least 12 training points"):
        check_classifier_settings("moons", 12, n=10)
    with pytest.raises(ValueError, match="not offered"):
        check_classifier_settings("blobs", 3)
    with pytest.raises(ValueError, match="out of range for float32"):
        check_low_sigma_settings("moons", 4, 1e-30, "float32")
    check_classifier_settings("spiral", 12)  # fine: no exception


# --- the classifier figures -----------------------------------------------------------------------


def test_decision_rgb_orientation_and_marks(clf):
    rgb = decision_rgb(clf)
    assert rgb.shape == (400, 400, 3)
    # a pixel well inside a class region, away from every edge, has that class's hue (faded toward white)
    clear = ~clf.decision_edges & ~clf.voronoi_edges[::2, ::2] & ~clf.voronoi_edges[1::2, 1::2]
    i, j = np.unravel_index(np.argmax(np.where(clear, clf.confidence, 0)), clear.shape)
    base = class_rgb(clf.n_classes)[clf.label[i, j]].astype(float)
    pixel = rgb[2 * i + 1, 2 * j + 1].astype(float)
    t = (255 - pixel) / (255 - base)  # the same fade toward white in every channel
    assert np.ptp(t[base < 250]) < 0.05
    # corners: the image's row 0 is the grid's row 0 (the top), colour recomputed from label and confidence
    checked = 0
    for i, j in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
        row, col = (2 * i + 1 if i >= 0 else -1), (2 * j + 1 if j >= 0 else -1)
        if clf.decision_edges[i, j] or clf.voronoi_edges[row, col]:
            continue
        checked += 1
        t = np.clip((clf.confidence[i, j] - 0.5) / 0.5, 0, 1)
        expected = fade(class_rgb(2)[clf.label[i, j]], TIE_FADE + (CERTAIN_FADE - TIE_FADE) * t)
        assert rgb[row, col].tolist() == expected.tolist()
    assert checked >= 2
    assert (rgb[np.repeat(np.repeat(clf.decision_edges, 2, 0), 2, 1)] == (40, 40, 40)).all()


def test_classifier_figure_traces(clf):
    fig = validated(classifier_figure(clf))
    names = [t.name for t in fig.data]
    assert names[0] == TRAIN_POINTS and names.index(LLOYD) > names.index(CENTERS)  # × drawn over the centres
    centres = fig.data[names.index(CENTERS)]
    assert list(centres.marker.color) == [CLASS_COLORS[c] for c in clf.center_class]
    assert np.allclose(arr(centres.x), clf.centers[:, 0]) and np.allclose(arr(centres.y), clf.centers[:, 1])
    lloyd = fig.data[names.index(LLOYD)]
    assert np.allclose(arr(lloyd.x), clf.lloyd_centers[:, 0])
    wrong = fig.data[names.index(MISCLASSIFIED)]
    assert len(arr(wrong.x)) == int(np.sum(clf.test_pred != clf.y_test))
    image = fig.layout.images[0]
    assert (image.x, image.y) == (clf.extent[0], clf.extent[3])  # top-left corner at (x_min, y_max)
    assert image.source.startswith("data:image/png;base64,")
    assert fig.layout.yaxis.scaleanchor == "x"


def test_decision_lut_fades_each_class_from_tie_to_certain():
    lut = decision_lut(3, CONFIDENCE_LEVELS)
    assert lut.shape == (3 * CONFIDENCE_LEVELS, 3) and lut.dtype == np.uint8
    for c in range(3):
        band = lut[c * CONFIDENCE_LEVELS : (c + 1) * CONFIDENCE_LEVELS].astype(int)
        assert band[0].tolist() == fade(class_rgb(3)[c], TIE_FADE).tolist()
        assert band[-1].tolist() == fade(class_rgb(3)[c], CERTAIN_FADE).tolist()
        assert (np.diff(band.sum(axis=1)) <= 0).all()  # darker (more saturated) as the network is surer


def test_step_colorscale_maps_each_integer_to_its_colour():
    colors = ["#000000", "#111111", "#222222"]
    scale = _step_colorscale(colors)
    n = len(colors)
    for m, color in enumerate(colors):
        # cmin = −0.5, cmax = n − 0.5: value m sits at (m + 0.5)/n, inside the band [m/n, (m+1)/n] of colour m
        lo, hi = scale[2 * m], scale[2 * m + 1]
        assert lo == [m / n, color] and hi == [(m + 1) / n, color] and lo[0] < (m + 0.5) / n < hi[0]


def test_frame_image_puts_row_zero_at_the_top():
    codes = np.zeros((4, 5), np.uint8)
    codes[0, :] = 1  # the top row of the grid (y_max)
    lut = np.array([[255, 255, 255], [0, 0, 0]], np.uint8)
    image = frame_image(codes, lut, (0.0, 5.0, 0.0, 4.0))
    expected = np.full((4, 5, 3), 255, np.uint8)
    expected[0] = 0
    assert image["source"] == png_data_uri(expected)  # PNG row 0 is the image's top
    assert (image["x"], image["y"], image["sizex"], image["sizey"]) == (0.0, 4.0, 5.0, 4.0)
    assert (image["xanchor"], image["yanchor"]) == ("left", "top")


def test_classifier_animation_frames(clf):
    fig = classifier_animation(clf)
    validated(fig)
    d = spec(fig)
    S = len(clf.frame_epochs)
    frames = d["frames"]
    lut = decision_lut(clf.n_classes, clf.frame_levels)
    assert len(frames) == S == len(d["layout"]["sliders"][0]["steps"])
    assert d["layout"]["sliders"][0]["active"] == S - 1  # opens at the end of training
    for s in (0, S // 2, S - 1):
        frame = frames[s]
        assert frame["name"] == str(s) and frame["traces"] == [2]
        assert frame["layout"]["images"][0]["source"] == png_data_uri(lut[clf.frame_codes[s]])
        assert np.allclose(decode(frame["data"][0]["x"]), clf.frame_centers[s, :, 0], atol=1e-6)
        assert np.allclose(decode(frame["data"][0]["y"]), clf.frame_centers[s, :, 1], atol=1e-6)
        label = d["layout"]["sliders"][0]["steps"][s]["label"]
        assert f"epoch {clf.frame_epochs[s]} " in label and f"{clf.frame_accuracy[s]:.3f}" in label
    # the figure opens on the last frame
    assert d["layout"]["images"][0]["source"] == frames[-1]["layout"]["images"][0]["source"]
    assert np.allclose(decode(d["data"][2]["x"]), clf.frame_centers[-1, :, 0], atol=1e-6)
    buttons = [b["label"] for b in d["layout"]["updatemenus"][0]["buttons"]]
    assert any("Play" in b for b in buttons) and any("Pause" in b for b in buttons)
    play = d["layout"]["updatemenus"][0]["buttons"][0]["args"][1]
    assert play["frame"]["redraw"] is True  # frames change layout.images: only the redraw path applies them
    # frames carry only what moves: a frame is small
    assert max(len(json.dumps(f)) for f in frames) < 8000


def test_three_classes_get_three_colours(spiral):
    assert spiral.n_classes == 3
    fig = classifier_figure(spiral)
    colors = set(fig.data[0].marker.color)
    assert colors == set(CLASS_COLORS[:3])
    validated(classifier_animation(spiral))


def test_classifier_history(clf):
    fig = validated(classifier_history_figure(clf))
    baseline = [t for t in fig.data if t.name == "logistic regression (test)"][0]
    assert arr(baseline.y).tolist() == [clf.linear_accuracy] * 2
    test = [t for t in fig.data if t.name == "test"][0]
    assert arr(test.y).tolist() == clf.history["test_accuracy"]
    assert {t.legend or "legend" for t in fig.data} == {"legend", "legend2", "legend3", "legend4", "legend5"}
    skipped = [t for t in fig.data if t.name.startswith("skipped:")][0]
    assert (
        arr(skipped.y).tolist() == clf.history["nan_steps"]
        and skipped.name == f"skipped: {clf.nan_steps} in total"
    )


# --- deep clustering ---------------------------------------------------------------------------------


def polygon_area(p) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def test_voronoi_cells_are_exact():
    rng = np.random.RandomState(0)
    centers = rng.uniform(-1, 1, size=(6, 2))
    extent = (-1.5, 1.5, -1.2, 1.2)
    cells = voronoi_cells(extent, centers)
    # the cells tile the box
    assert sum(polygon_area(c) for c in cells) == pytest.approx(3.0 * 2.4, rel=1e-12)
    for j, cell in enumerate(cells):
        d = sq_dist(cell, centers)
        assert (d[:, j] <= d.min(axis=1) + 1e-12).all()  # every vertex is nearest to its centre
        inside = cell.mean(axis=0)  # a convex polygon holds its vertex mean
        assert ((inside - centers) ** 2).sum(-1).argmin() == j
    # against the pixel rule: the cell of each pixel centre is its nearest centre
    grid = nearest_center_grid(extent, centers, 40)
    assert set(np.unique(grid)) == set(range(6))
    two = voronoi_cells((0.0, 2.0, 0.0, 1.0), np.array([[0.5, 0.5], [1.5, 0.5]]))
    assert sorted(map(tuple, two[0].round(12))) == [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)]


def test_deep_view_cells_for_2d_codes(deep2):
    v = deep2
    assert v.exact_voronoi and len(v.frame_cells) == len(v.frame_epochs)
    for s in range(len(v.frame_epochs)):
        assert len(v.frame_cells[s]) == v.k
        assert sum(polygon_area(c) for c in v.frame_cells[s]) == pytest.approx(
            (v.extent[1] - v.extent[0]) * (v.extent[3] - v.extent[2]), rel=1e-9
        )
    # labels of the shown codes are their nearest centre in the 2-D view (it is the latent space)
    d = sq_dist(v.frame_codes[-1], v.frame_centers[-1])
    assert np.array_equal(v.frame_labels[-1], d.argmin(1))


def test_latent_figure_frames(deep2):
    fig = latent_figure(deep2)
    validated(fig)
    d = spec(fig)
    S, k = len(deep2.frame_epochs), deep2.k
    assert all(d["data"][j]["fill"] == "toself" for j in range(k)) and len(d["frames"]) == S
    for s in (0, S - 1):
        frame = d["frames"][s]
        assert frame["traces"] == list(range(k + 2))
        for j in range(k):
            x, y = decode(frame["data"][j]["x"]), decode(frame["data"][j]["y"])
            cell = deep2.frame_cells[s][j]
            assert np.allclose(x[:-1], cell[:, 0], atol=1e-5) and x[-1] == x[0] and y[-1] == y[0]  # closed
        assert np.array_equal(decode(frame["data"][k]["marker"]["color"]), deep2.frame_labels[s])
        assert np.allclose(decode(frame["data"][k + 1]["x"]), deep2.frame_centers[s, :, 0], atol=1e-6)
    centres = d["data"][k + 1]
    assert centres["marker"]["color"] == cluster_colors(k)
    assert d["layout"]["sliders"][0]["active"] == S - 1
    assert d["layout"]["xaxis"]["title"]["text"] == "z₁"
    assert d["layout"]["updatemenus"][0]["buttons"][0]["args"][1]["frame"]["redraw"] is False  # scatter only


def test_latent_figure_without_exact_cells(deep3):
    assert not deep3.exact_voronoi and deep3.frame_cells is None
    d = spec(validated(latent_figure(deep3)))
    assert not any(t.get("fill") for t in d["data"])
    assert d["frames"][0]["traces"] == [0, 1]
    assert "PCA" in d["layout"]["xaxis"]["title"]["text"]


def test_deep_table_and_history(deep2):
    rows = deep_table(deep2)
    assert rows[0]["NMI"] == deep2.nmi and rows[0]["ARI"] == deep2.ari
    assert [r["NMI"] for r in rows[1:]] == [deep2.pretrain_nmi, deep2.kmeans_raw_nmi, deep2.kmeans_pca_nmi]
    fig = validated(deep_history_figure(deep2))
    # pretraining has no σ, L_σ or centre gradient: a gap, never a NaN mark
    assert deep2.nan_steps == 0 and not [t for t in fig.data if t.meta and t.meta[0] == "nan"]
    sigma = [t for t in fig.data if t.name == "σ"][0]
    assert len(arr(sigma.x)) == deep2.joint_epochs and arr(sigma.x).min() == deep2.pretrain_epochs + 1


# --- curves, low σ -----------------------------------------------------------------------------------


def test_curves_mark_zeros_and_nan_on_log_panels():
    panels = [
        {
            "title": "log",
            "log": True,
            "lines": [
                {"name": "a", "x": [1, 2, 3, 4], "y": [1e-3, 0.0, float("nan"), 1e-1], "color": "#000000"},
                {"name": "b", "x": [1, 2], "y": [float("nan"), 1.0], "color": "#111111", "mark_nan": False},
            ],
        },
        {
            "title": "lin",
            "log": False,
            "lines": [{"name": "c", "x": [1, 2], "y": [0.0, float("nan")], "color": "#222222"}],
        },
    ]
    fig = validated(curves_figure(panels))
    metas = {tuple(t.meta) for t in fig.data}
    assert ("zero", "a") in metas and ("nan", "a") in metas
    assert ("nan", "b") not in metas and ("zero", "c") not in metas and ("nan", "c") not in metas
    zero = [t for t in fig.data if tuple(t.meta) == ("zero", "a")][0]
    nan = [t for t in fig.data if tuple(t.meta) == ("nan", "a")][0]
    assert arr(zero.x).tolist() == [2] and arr(zero.y)[0] == pytest.approx(
        1e-4
    )  # a decade below the smallest
    assert arr(nan.x).tolist() == [3] and arr(nan.y)[0] == pytest.approx(10.0)  # a decade above the largest
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type is None


def _plotly_legend_px(rows: int, font_size: float) -> float:
    """A vertical legend's height in Chromium: each one-line entry max(1.3 · font, 16) + 3 px, and 5 px
    above and below (plotly.js' legend layout, read off legends of 1 to 8 entries at 11, 16.5, 22 pt)."""
    return rows * (max(1.3 * font_size, 16.0) + 3.0) + 10.0


def assert_room_for_titles_and_legends(fig) -> None:
    """Each panel of a curves figure, top to bottom: its title (every line short enough for a phone),
    its legend (vertical: as many rows as entries, whatever the width), its plot, its x axis; each part
    in a band at least as high as its lines need, so none reaches the next."""
    layout = fig.layout
    paper_px = layout.height - layout.margin.t - layout.margin.b
    titles = layout.annotations
    panels = len(titles)
    for i in range(panels):
        suffix = "" if i == 0 else str(i + 1)
        legend, yaxis, xaxis = layout["legend" + suffix], layout["yaxis" + suffix], layout["xaxis" + suffix]
        entries = sum(
            1 for t in fig.data if (t.legend or "legend") == "legend" + suffix and t.showlegend is not False
        )
        assert entries >= 1 and legend.orientation == "v" and legend.yanchor == "top"
        # with a few pixels to spare: Plotly may draw the plot area a little shorter than the layout's
        assert (legend.y - yaxis.domain[1]) * paper_px >= _plotly_legend_px(entries, legend.font.size) + 4
        title = titles[i]
        lines = title.text.split("<br>")
        assert title.yanchor == "top" and all(len(line) - len("<b></b>") <= TITLE_CHARS for line in lines)
        assert (title.y - legend.y) * paper_px >= len(lines) * 1.3 * title.font.size
        # the x axis' tick labels and title (below the plot) end before the next panel's title
        below_px = 1.3 * xaxis.tickfont.size + xaxis.title.standoff + 1.3 * xaxis.title.font.size
        next_top = titles[i + 1].y if i + 1 < panels else 0.0
        assert (yaxis.domain[0] - next_top) * paper_px >= below_px
        assert title.y <= 1.0 and (i + 1 == panels or titles[i + 1].y < yaxis.domain[0])


@pytest.mark.parametrize("entries", [1, 3, 7])
def test_curves_reserve_each_legend_its_rows_and_each_title_its_lines(entries):
    x = [1, 2, 3]
    panels = [
        {
            "title": "a title long enough to take two lines on a phone's narrow figure",
            "log": False,
            "lines": [
                {"name": f"line {j}", "x": x, "y": [j, j, j], "color": "#000000"} for j in range(entries)
            ],
            "hlines": [{"y": 0.5, "name": "a baseline", "color": "#111111"}],
        },
        {
            "title": "short",
            "log": True,
            "lines": [{"name": "one", "x": x, "y": [1, 2, 3], "color": "#222222"}],
        },
        {
            "title": "entries only",
            "log": False,
            "lines": [{"name": f"m{j}", "x": x, "y": x, "color": "#333333"} for j in range(entries)],
        },
    ]
    fig = validated(curves_figure(panels))
    assert len(fig.layout.annotations[0].text.split("<br>")) == 2
    assert_room_for_titles_and_legends(fig)
    assert_room_for_titles_and_legends(presenter_figure(fig))  # larger fonts in a taller figure


def test_curves_figures_of_the_page_reserve_their_rows(clf, deep2, low):
    for fig in (
        classifier_history_figure(clf),
        deep_history_figure(deep2),
        low_sigma_figure(low.comparison, low.n_train),
    ):
        assert_room_for_titles_and_legends(fig)
        assert_room_for_titles_and_legends(presenter_figure(fig))


@pytest.mark.parametrize(
    "text",
    ["accuracy", "", "skipped (NaN) steps per epoch, of its mini-batch steps", "a " * 60, "x" * 50 + " y"],
)
def test_title_lines_fit_few_lines_between_words(text):
    lines = title_lines(text, most=42)
    assert " ".join(lines) == text.strip() or lines == [text]
    assert len(lines) == max(
        1, len(textwrap.wrap(text, 42, break_long_words=False))
    )  # no more lines than needed
    assert all(len(line) <= 42 or " " not in line for line in lines)  # only a longer word passes the limit


def test_log_tickvals():
    assert log_tickvals(0.05, 2.0) == (
        [0.05, 0.1, 0.2, 0.5, 1.0, 2.0],
        ["0.05", "0.1", "0.2", "0.5", "1", "2"],
    )
    values, labels = log_tickvals(1e-21, 10.0)
    assert len(values) <= 7 and labels[-1] in ("1", "10") and all(np.log10(v) % 1 == 0 for v in values)
    assert "10<sup>-" in labels[0]
    assert log_tickvals(0.0, 1.0) == ([], [])


def test_low_sigma_figure(low):
    comp = low.comparison
    fig = validated(low_sigma_figure(comp, low.n_train))
    by_name = {}
    for t in fig.data:
        if t.meta[0] == "line":
            by_name.setdefault(t.name, []).append(t)
    assert set(by_name) == {"naive exp/sum", "softmax", "entmax-1.5"}
    assert all(len(traces) == 4 for traces in by_name.values())  # one line per panel per map
    naive = comp.history["naive"]
    skipped = by_name["naive exp/sum"][3]
    assert arr(skipped.y).tolist() == np.cumsum(naive["nan_steps"]).tolist()
    hot = by_name["entmax-1.5"][2]
    assert np.allclose(arr(hot.y), 100 * np.asarray(comp.history["entmax15"]["one_hot_rows"]) / low.n_train)
    assert low.n_train == 350
    # σ = 0.01 in float32 breaks the naive map: its gradient through r is NaN, marked at the top
    assert comp.summary["naive"]["nan_steps"] == 6
    assert [t for t in fig.data if tuple(t.meta) == ("nan", "naive exp/sum")]


def test_deep_run_stopped_while_pretraining_still_draws():
    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= 2  # after the second pretraining epoch

    result = train_deep_clustering(
        "moons",
        n=200,
        hidden=(16, 16),
        pretrain_epochs=5,
        joint_epochs=4,
        batch_size=64,
        snapshot_every=2,
        snapshot_points=50,
        stop=stop,
    )
    view = deep_view(result, pretrain_epochs=5)
    assert view.stopped and view.epochs_run == 2 and view.pretrain_epochs == 5 and view.joint_epochs == 4
    assert len(view.frame_epochs) == 1  # the centres as placed by K-Means on the codes
    validated(latent_figure(view))
    fig = validated(deep_history_figure(view))
    raw = [t for t in fig.data if t.name == "K-Means raw"][0]
    assert arr(raw.x).tolist() == [1.0, 2.0]  # the baselines span the epochs that ran
