"""AppTests of the Explorer view: it loads, every control changes what is shown, failures stay messages."""
import base64
import json
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/1_Explorer.py"


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def explorer(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if query:
        at.query_params.update(query)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def decode(value):
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"])
    return np.asarray(value)


def shown(at) -> dict:
    """What the user sees, reduced to comparable values: figure pieces and metric texts."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    points, centres = spec["data"][0], spec["data"][1]
    return dict(
        title=spec["layout"]["title"]["text"],
        centres=np.column_stack([decode(centres["x"]), decode(centres["y"])]),
        n_points=len(decode(points["x"])),
        colours=tuple(points["marker"]["color"]),
        image=spec["layout"]["images"][0]["source"] if spec["layout"].get("images") else None,
        metrics=tuple((m.label, m.value) for m in at.metric),
        payload=len(at.get("plotly_chart")[0].proto.spec),
    )


def differs(a: dict, b: dict) -> bool:
    return (a["title"] != b["title"] or a["centres"].shape != b["centres"].shape
            or not np.array_equal(a["centres"], b["centres"]) or a["colours"] != b["colours"]
            or a["image"] != b["image"] or a["metrics"] != b["metrics"])


def test_explorer_loads_with_figure_metrics_and_explanation():
    at = explorer()
    assert not at.error, [e.value for e in at.error]
    view = shown(at)
    assert view["n_points"] == 500 and view["centres"].shape == (4, 2)
    assert view["image"].startswith("data:image/png;base64,")
    labels = [label for label, _ in view["metrics"]]
    for needle in ("L_σ", "J", "L_σ − J", "K-Means label", "entropy", "exactly-zero"):
        assert any(needle in label for label in labels), needle
    assert len(at.latex) >= 3
    assert view["payload"] < 1_000_000


@pytest.mark.parametrize("widget,key,value", [
    ("selectbox", "w_dataset", "moons"),
    ("number_input", "w_n", 300),
    ("number_input", "w_noise", 0.8),
    ("number_input", "w_seed", 3),
    ("slider", "w_k", 3),
    ("selectbox", "w_init", "random"),
    ("selectbox", "w_kind", "entmax15"),
    ("radio", "w_dtype", "float32"),
    ("radio", "explorer_field", "entropy"),
])
def test_each_control_changes_what_is_shown(widget, key, value):
    at = explorer()
    before = shown(at)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert differs(before, shown(at)), key


def test_sigma_changes_the_field_and_numbers():
    at = explorer()
    before = shown(at)
    slider = at.select_slider(key="w_sigma")
    smaller = [s for s in slider.options if float(s) < float(slider.value)][-3]
    slider.set_value(float(smaller)).run()
    after = shown(at)
    assert after["image"] != before["image"] and after["metrics"] != before["metrics"]
    assert at.query_params["sigma"] == f"{float(smaller):.4g}"


def test_float32_centres_are_float32_values():
    at = explorer({"dtype": "float32"})
    centres = shown(at)["centres"]
    assert np.array_equal(centres.astype(np.float32).astype(np.float64), centres)
    at64 = explorer({"dtype": "float64"})
    centres64 = shown(at64)["centres"]
    assert not np.array_equal(centres64.astype(np.float32).astype(np.float64), centres64)


def test_annealing_init_uses_the_path():
    at = explorer({"dataset": "moons", "init": "anneal"})
    assert not at.error, [e.value for e in at.error]
    assert any("annealing path" in str(c.value) for c in at.caption)


def test_naive_map_at_small_sigma_is_a_message_not_a_traceback():
    at = explorer({"kind": "naive", "dtype": "float32", "sigma": "0.03"})
    assert not at.exception
    assert any("NaN" in str(w.value) for w in at.warning) or any("NaN" in str(m.label) for m in at.metric)


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma_gives_a_valid_figure(sigma):
    at = explorer({"sigma": sigma, "kind": "entmax15"})
    assert any("outside this data set's range" in str(w.value) for w in at.warning)
    assert shown(at)["centres"].shape == (4, 2)


def test_a_slider_change_wins_over_a_stale_address():
    """Quick successive changes: the second rerun request still carries the address from before the
    first run's write. The user's newest change must win (found by the browser tests)."""
    at = explorer()
    grid = [float(s) for s in at.select_slider(key="w_sigma").options]
    middle = len(grid) // 2
    first, second, third = grid[middle], grid[middle - 2], grid[middle - 4]
    at.select_slider(key="w_sigma").set_value(first).run()
    at.select_slider(key="w_sigma").set_value(second).run()
    assert at.query_params["sigma"] == f"{second:.4g}"
    at.query_params["sigma"] = f"{first:.4g}"   # the stale address of the next request
    at.select_slider(key="w_sigma").set_value(third).run()
    assert not at.exception
    assert at.session_state["_rbfviz_controls"].sigma == third
    assert at.query_params["sigma"] == f"{third:.4g}"
