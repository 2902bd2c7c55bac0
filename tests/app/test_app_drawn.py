"""AppTests of points drawn by hand (dataset=drawn, points=<rbfviz.drawn text>): every view works on a
drawing as on generated data, too few points ask for more, bad links warn and fall back, and the drawing
controls (On the plane: Draw points, Clear, the CSV) do what they say."""

import numpy as np
import pytest
from app_page import PAGE_PATHS, ok, open_page, page_path

from rbfviz.drawn import MAX_DRAWN, decode_points, encode_points
from rbfviz.loader import load_points
from ui import session_keys as keys
from ui.plane_tools import points_csv

EXPLORER, STEPPER = page_path("Explorer"), page_path("Step by step")
X = np.random.default_rng(0).normal(size=(40, 2)) + np.repeat([[3.0, 0.0], [0.0, 0.0]], 20, axis=0)
TEXT = encode_points(X)


@pytest.mark.parametrize("page", PAGE_PATHS)
def test_every_view_works_on_a_drawing(page):
    at = open_page(page, {"dataset": "drawn", "points": TEXT, "k": "2"})
    ok(at)
    query = dict(at.query_params)
    assert query["dataset"] == "drawn" and query["points"] == TEXT and query["n"] == "40"


def test_the_link_says_n_from_its_points_whatever_n_it_gives():
    at = open_page(EXPLORER, {"dataset": "drawn", "points": TEXT, "n": "7", "k": "2"})
    ok(at)
    assert dict(at.query_params)["n"] == "40"


@pytest.mark.parametrize("page", [EXPLORER, STEPPER, page_path("Annealing")])
def test_too_few_points_ask_for_more(page):
    at = open_page(page, {"dataset": "drawn", "points": encode_points(X[:2]), "k": "2"})
    ok(at)  # two points, k = 2: enough
    at = open_page(page, {"dataset": "drawn", "k": "3"})
    assert not at.exception and not at.error
    assert any("0 points so far; draw 3 more" in i.value for i in at.info)
    drawing = page in (EXPLORER, STEPPER)
    assert len(at.get("bidi_component")) == (1 if drawing else 0)  # the drawing plane where one can draw


@pytest.mark.parametrize(
    "points, says",
    [
        ("garbage", "points=garbage"),
        ("-3.AAAAAAA", "cut off"),
        ("42.AAAA", "exponent"),
        ("-3." + encode_points(np.zeros((MAX_DRAWN, 2)))[3:] + "AAAAAA", f"at most {MAX_DRAWN} points"),
    ],
)
def test_bad_points_in_a_link_warn_and_fall_back(points, says):
    at = open_page(EXPLORER, {"dataset": "drawn", "points": points, "k": "3"})
    ok(at)
    assert any(says in w.value for w in at.warning), [w.value for w in at.warning]
    query = dict(at.query_params)
    assert query["dataset"] == "blobs" and "points" not in query


def test_draw_mode_clear_and_the_csv_reads_back_as_the_same_points():
    at = open_page(EXPLORER, {"dataset": "drawn", "points": TEXT, "k": "2"})
    at.radio(key=keys.PLANE_MODE).set_value("draw").run()
    ok(at)
    assert len(at.get("bidi_component")) == 1
    assert any("CSV" in b.proto.label for b in at.get("download_button")), "no CSV download in draw mode"
    # the CSV the button offers (ui.plane_tools.points_csv) reads back, through the upload's loader, as
    # the same points: an uploaded drawing is the same drawing
    loaded = load_points(points_csv(decode_points(TEXT)), k=2)
    np.testing.assert_array_equal(loaded.X, decode_points(TEXT))
    at.button(key="drawn_clear").click().run()
    query = dict(at.query_params)
    assert query["dataset"] == "drawn" and query["n"] == "0"
    assert any("draw 2 more" in i.value for i in at.info)


def test_erase_mode_on_generated_data_offers_the_points_and_big_data_an_empty_plane():
    at = open_page(EXPLORER, {"dataset": "moons", "n": "100", "k": "2"})
    at.radio(key=keys.PLANE_MODE).set_value("erase").run()
    ok(at)
    assert len(at.get("bidi_component")) == 1
    at = open_page(EXPLORER, {"dataset": "moons", "n": str(MAX_DRAWN + 1), "k": "2"})
    at.radio(key=keys.PLANE_MODE).set_value("draw").run()
    ok(at)
    assert any(f"at most {MAX_DRAWN} points" in i.value for i in at.info)
    at.button(key="drawn_clear").click().run()
    assert dict(at.query_params)["dataset"] == "drawn"
