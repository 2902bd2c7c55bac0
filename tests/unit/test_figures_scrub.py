"""The σ-scrubbing payload (rbfviz.views.common.scrub): every level rebuilds exactly the figure the server
built, arrays travel as typed bytes, colours as bytes, and the numbers' HTML is escaped."""

import gzip
import json
import struct

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rbfviz.datasets import make_dataset
from rbfviz.field import plane_extent, soft_field
from rbfviz.maps import responsibilities
from rbfviz.steps import kmeans
from rbfviz.views.common import scrub
from rbfviz.views.common.palette import hex_strings, rgb_strings
from rbfviz.views.common.plane import drawn_points
from rbfviz.views.common.scrub import (
    MAGIC,
    Probe,
    RGBColors,
    ScrubLevel,
    ScrubPatch,
    _diff,
    _holds_nan_number,
    _patch_diff,
    _patched,
    _same,
    figure_at,
    metrics_html,
    read_payload,
    scrub_payload,
)
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers, soft_fixed_point
from rbfviz.views.explorer.figures import explorer_figure, plane_side_html


def plain(value):
    """A figure dict with every array as a nested list and typed-array specs decoded, for comparison."""
    from rbfviz.views.common.presenter import _decoded

    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            return plain(_decoded(value))
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, float) and np.isnan(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def numeric_equal(a, b) -> bool:
    """Equal as figures: numbers equal (NaN = None = gap), lists element-wise, dicts key by key."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(numeric_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(numeric_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b)
    return a == b


def explorer_levels(sigmas, n=120):
    X, _ = make_dataset("moons", n, 0.1, 0)
    C0 = initial_centers(X, 2, "kmeans++", 0)
    extent = plane_extent(X, aspect=1.25)
    levels = []
    for sigma in sigmas:
        C, _, _ = soft_fixed_point(X, C0, sigma)
        resp = responsibilities(X, C, sigma, "softmax")
        field = soft_field(extent, C, sigma, size=40)
        fig = explorer_figure(X, resp, C, C0, field, title=f"σ = {sigma:.3g}")
        levels.append(ScrubLevel(fig, f"<b>{sigma}</b>", f"at σ = {sigma:.3g}"))
    return X, levels


def test_every_level_rebuilds_the_servers_figure():
    sigmas = [1.0, 0.3, 0.1, 0.03]
    _, levels = explorer_levels(sigmas)
    header = read_payload(scrub_payload(levels, sigmas, initial=2))
    assert (
        header["sigmas"] == sigmas
        and header["texts"] == ["1", "0.3", "0.1", "0.03"]
        and header["initial"] == 2
    )
    for i, level in enumerate(levels):
        assert numeric_equal(plain(figure_at(header, i)), plain(level.figure.to_plotly_json())), i
        assert (
            header["frames"][i]["side"] == level.side_html and header["frames"][i]["caption"] == level.caption
        )


@pytest.mark.parametrize("kind", ["softmax", "entmax:1.3"])
def test_the_probe_carries_every_levels_centres_and_the_map(kind):
    """The browser's probe needs the centres at every σ (the figure's trace 1), the map and its α."""
    sigmas = [1.0, 0.3, 0.1, 0.03]
    _, levels = explorer_levels(sigmas)
    header = read_payload(scrub_payload(levels, sigmas, probe=Probe(kind)))
    probe = header["probe"]
    assert probe["kind"] == kind and probe["alpha"] == (1.3 if kind != "softmax" else None)
    assert probe["colors"] == ["#E69F00", "#56B4E9"]
    assert probe["centers"].shape == (4, 2, 2) and probe["centers"].dtype == np.float64
    for i, level in enumerate(levels):
        trace = level.figure.data[1]
        np.testing.assert_array_equal(probe["centers"][i], np.column_stack([trace.x, trace.y]))
    assert "probe" not in read_payload(scrub_payload(levels, sigmas))


def test_only_what_changes_is_stored_per_level():
    sigmas = [1.0, 0.3, 0.1]
    _, levels = explorer_levels(sigmas)
    header = read_payload(scrub_payload(levels, sigmas))
    assert header["frames"][0]["set"] == []  # the base is level 0
    changed = {tuple(path) for path, _ in header["frames"][1]["set"]}
    assert ("data", 0, "x") not in changed and ("data", 0, "y") not in changed  # the points never move
    assert ("data", 0, "marker", "color") in changed and ("layout", "images", 0, "source") in changed


def test_arrays_are_typed_blobs_and_colours_bytes():
    sigmas = [1.0, 0.1]
    X, levels = explorer_levels(sigmas)
    raw = gzip.decompress(scrub_payload(levels, sigmas))
    assert raw[:4] == MAGIC
    (length,) = struct.unpack("<I", raw[4:8])
    header = json.loads(raw[8 : 8 + length])
    dtypes = {(b["dtype"], b.get("as")) for b in header["blobs"]}
    assert ("f4", None) in dtypes and ("u1", "rgb") in dtypes and ("f8", None) in dtypes
    assert all(b["offset"] % 8 == 0 for b in header["blobs"])  # the browser views them in place
    points = header["figure"]["data"][0]
    assert set(points["x"]) == {"$blob"} and set(points["marker"]["color"]) == {"$blob"}
    decoded = read_payload(scrub_payload(levels, sigmas))["figure"]["data"][0]
    np.testing.assert_array_equal(decoded["x"], X[:, 0])


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(
        st.lists(st.floats(allow_nan=True, allow_infinity=False, width=64), min_size=8, max_size=8),
        min_size=2,
        max_size=4,
    ),
    colours=st.lists(st.tuples(*[st.integers(0, 255)] * 3), min_size=8, max_size=8),
    hex_form=st.sampled_from(["rgb({},{},{})", "#{:02x}{:02x}{:02x}", "#{:02X}{:02X}{:02X}"]),
)
def test_any_values_and_colours_round_trip(values, colours, hex_form):
    """Random arrays (NaN included) and colour lists in either form come back exactly, at every level."""
    form = hex_form
    levels = []
    for i, ys in enumerate(values):
        trace = dict(
            type="scatter",
            x=np.arange(8.0),
            y=np.array(ys),
            marker=dict(color=[form.format(*c) for c in colours[i:] + colours[:i]]),
        )
        levels.append(ScrubLevel(go.Figure(data=[trace], layout=dict(title=dict(text=str(i)))), "", ""))
    header = read_payload(scrub_payload(levels, np.geomspace(1, 0.1, len(levels))))
    for i, level in enumerate(levels):
        fig = figure_at(header, i)
        np.testing.assert_array_equal(np.asarray(fig["data"][0]["y"], dtype=float), np.array(values[i]))
        assert fig["data"][0]["marker"]["color"] == list(level.figure.data[0].marker.color)
        assert fig["layout"]["title"]["text"] == str(i)


@pytest.mark.parametrize("form", ["rgb", "hex"])
def test_colour_arrays_in_a_patch_are_the_payload_of_their_strings(form):
    """A patch's RGBColors of either form gives the payload its list of strings gives (rgb_strings or
    hex_strings), byte for byte, and reads back as those strings; a base list of the other form differs."""
    rng = np.random.default_rng(4)
    rgb = rng.integers(0, 256, size=(3, 12, 3)).astype(np.uint8)
    strings = rgb_strings if form == "rgb" else hex_strings
    base = go.Figure(
        data=[dict(type="scatter", x=np.arange(12.0), y=np.zeros(12), marker=dict(color=strings(rgb[0])))]
    )
    path = ("data", 0, "marker", "color")
    as_arrays = [ScrubLevel(base, "", "")] + [
        ScrubPatch(((path, RGBColors(c, form)),), "", "") for c in rgb[1:]
    ]
    as_lists = [ScrubLevel(base, "", "")] + [ScrubPatch(((path, strings(c)),), "", "") for c in rgb[1:]]
    sigmas = [1.0, 0.5, 0.25]
    assert scrub_payload(as_arrays, sigmas) == scrub_payload(as_lists, sigmas)
    header = read_payload(scrub_payload(as_arrays, sigmas))
    for i in range(3):
        assert figure_at(header, i)["data"][0]["marker"]["color"] == strings(rgb[i])
    other = rgb_strings if form == "hex" else hex_strings
    assert not _same(other(rgb[1]), RGBColors(rgb[1], form), {})
    with pytest.raises(ValueError, match="form"):
        RGBColors(rgb[0], "HEX")


def test_one_level_per_sigma_is_required():
    _, levels = explorer_levels([1.0, 0.1])
    with pytest.raises(ValueError, match="one level per σ"):
        scrub_payload(levels, [1.0])
    with pytest.raises(ValueError, match="one level per σ"):
        scrub_payload([], [])


def test_metrics_html_escapes_every_string():
    text = metrics_html([("L <b>", "1 & 2", 'say "hi"'), (None, "<script>x</script>", "")])
    assert "<b>" not in text and "<script>" not in text
    assert "L &lt;b&gt;" in text and "1 &amp; 2" in text and 'title="say &quot;hi&quot;"' in text
    assert 'class="scrub-note"' in text


def test_drawn_points_is_all_below_the_limit_and_a_seeded_sorted_sample_above():
    assert drawn_points(5000) is None
    a, b = drawn_points(20_000, seed=3), drawn_points(20_000, seed=3)
    assert len(a) == 5000 and np.array_equal(a, b) and np.all(np.diff(a) > 0) and a[-1] < 20_000
    assert not np.array_equal(a, drawn_points(20_000, seed=4))


def test_explorer_figure_draws_the_sample_with_the_points_own_numbers_and_rounded_r():
    X, _ = make_dataset("blobs", 300, 1.5, 0)
    C, _ = kmeans(X, k=3, seed=0)
    resp = responsibilities(X, C, 0.5, "softmax")
    drawn = np.array([0, 5, 299])
    fig = explorer_figure(X, resp, C, C, None, title="t", drawn=drawn, axes=("a", "b"))
    points = fig.data[0]
    np.testing.assert_array_equal(points.x, X[drawn, 0])
    assert list(points.text) == ["0", "5", "299"] and "point #%{text}" in points.hovertemplate
    np.testing.assert_array_equal(points.customdata, np.round(resp[drawn], 3).astype(np.float32))
    assert fig.layout.xaxis.title.text == "a" and fig.layout.yaxis.title.text == "b"


def test_plane_side_html_shows_the_numbers_as_formatted():
    X, _ = make_dataset("blobs", 200, 1.5, 0)
    C, labels = kmeans(X, k=3, seed=0)
    numbers = plane_numbers(X, C, 0.4, "entmax15", labels)
    text = plane_side_html(numbers, "entmax15", 3, note="careful", centres="Centres shown: here")
    assert f"{numbers['loss']:.5g}" in text and f"{numbers['gap']:.3g}" in text
    assert f"{numbers['exact_zeros']:,} of {numbers['entries']:,}" in text
    assert "⚠ careful" in text and "Centres shown: here" in text
    assert "NaN rows of r" not in text  # only when there are some


def test_colour_lists_with_repeats_parse_to_every_item_and_mixed_or_out_of_range_lists_stay_strings():
    from rbfviz.views.common.scrub import _color_array

    names = [
        "#1f77b4",
        "#ff7f0e",
        "#1f77b4",
        "#2ca02c",
        "#1f77b4",
        "#ff7f0e",
        "#2ca02c",
        "#2ca02c",
        "#000000",
    ]
    rgb, form = _color_array(names)
    assert form == "hex" and rgb.dtype == np.uint8 and rgb.shape == (len(names), 3)
    assert [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.tolist()] == names
    assert _color_array(names[:-1] + ["rgb(0,0,0)"]) is None  # two forms in one list
    assert _color_array(["rgb(300,0,0)"] + ["rgb(1,2,3)"] * 8) is None  # not a colour
    assert _color_array(names[:7]) is None  # too short for a blob


def _figure_like() -> dict:
    """A plain figure as ``_plain`` gives one: traces (a list of dicts), a layout with a list of images, a
    short list of numbers, arrays (one with a NaN) and strings."""
    return {
        "data": [
            {"x": np.arange(9.0), "marker": {"color": "red", "size": 3}, "customdata": np.zeros((9, 2))},
            {"x": np.array([1.0, np.nan]), "name": "c"},
        ],
        "layout": {
            "title": {"text": "t"},
            "images": [{"source": "a", "x": 0}],
            "ticks": [1, 2],
            "width": 4.0,
        },
    }


READ = [
    ((("data", 0, "x"), np.arange(9.0) + 1), (("layout", "title", "text"), "u")),
    ((("layout", "title", "text"), "u"), (("data", 0, "x"), np.arange(9.0))),  # an equal value: no pair
    ((("layout", "images", 0, "source"), "b"), (("data", 1, "x"), np.array([1.0, np.nan]))),  # NaN equal
    ((("data", 0, "marker", "color"), "blue"), (("data", 0, "marker", "color"), "red")),  # the last wins
    ((("layout", "width"), float("nan")),),  # a NaN set is never the same
    ((("layout", "ticks"), [1, 3]), (("data", 0, "customdata"), np.ones((9, 2)))),
]
WALKED = [
    ((("layout", "height"), 400),),  # a new key
    ((("data", 0, "marker"), {"color": "blue", "size": 3}),),  # a dict: gone into
    ((("data", 0), {"x": 1}),),  # a list's item
    ((("layout", "title"), {"text": "v"}), (("layout", "title", "text"), "w")),  # a prefix
    ((("layout", "ticks", 0), 5),),  # a list of numbers, not of dicts
]


@pytest.mark.parametrize("sets", READ + WALKED)
def test_a_patchs_pairs_are_the_diff_of_the_figure_it_makes(sets):
    """``_patch_diff`` reads a patch's pairs from its sets: the pairs ``_diff`` finds walking the patched
    figure, in its order; or None where it cannot tell (then the figure is walked)."""
    base = _figure_like()
    walked = []
    _diff(base, _patched(base, sets), [], walked, {})
    read = _patch_diff(base, sets, {})
    assert (read is None) == (sets in WALKED)
    if read is not None:
        assert [path for path, _ in read] == [path for path, _ in walked]
        assert all(a is b for (_, a), (_, b) in zip(read, walked))


def test_a_patch_of_a_base_with_a_nan_number_is_walked(monkeypatch):
    """``_diff`` gives an untouched NaN number a pair wherever it walks past one: such a base's patches are
    not read from their sets (``scrub_payload``); the payload is the one walked. A base without one, the
    same payload either way."""
    base = _figure_like()
    base["layout"]["width"] = float("nan")
    walked = []
    _diff(base, _patched(base, READ[0]), [], walked, {})
    assert ["layout", "width"] in [path for path, _ in walked] and _holds_nan_number(base)
    assert not _holds_nan_number(_figure_like())
    figure = go.Figure(go.Scatter(x=np.arange(9.0), y=np.arange(9.0)), layout=dict(width=400, title="t"))
    patch = ScrubPatch(((("layout", "title", "text"), "u"), (("data", 0, "y"), np.arange(9.0) + 1)), "", "")
    read = scrub_payload([ScrubLevel(figure), patch], [2.0, 1.0])
    figure.layout.meta = float("nan")
    read_nan = scrub_payload([ScrubLevel(figure), patch], [2.0, 1.0])
    monkeypatch.setattr(scrub, "_patch_diff", lambda *args: None)
    assert scrub_payload([ScrubLevel(figure), patch], [2.0, 1.0]) == read_nan
    figure.layout.meta = None
    assert scrub_payload([ScrubLevel(figure), patch], [2.0, 1.0]) == read
