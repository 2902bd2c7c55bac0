"""AppTests of the Explorer view: it loads, every control changes what is shown, failures stay messages."""

import base64
from pathlib import Path

import numpy as np
import pytest
from hang import HANG_TIMEOUT_S
from scrub_view import commit as scrub_commit
from scrub_view import figure_shown, metrics_shown, payload, payload_bytes, side
from streamlit.testing.v1 import AppTest

from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.common.scrub import figure_at
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers, soft_fixed_point

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/1_Explorer.py"


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def explorer(query=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
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
    """What the user sees at the committed σ, reduced to comparable values: figure pieces and numbers."""
    spec = figure_shown(at)
    points, centres = spec["data"][0], spec["data"][1]
    metrics = metrics_shown(at)
    return dict(
        title=spec["layout"]["title"]["text"],
        centres=np.column_stack([decode(centres["x"]), decode(centres["y"])]),
        n_points=len(decode(points["x"])),
        colours=tuple(points["marker"]["color"]),
        image=spec["layout"]["images"][0]["source"] if spec["layout"].get("images") else None,
        metrics=tuple((label, value) for label, value in metrics.items() if label != "notes"),
        notes=tuple(metrics["notes"]),
        payload=payload_bytes(at),
    )


def differs(a: dict, b: dict) -> bool:
    return (
        a["title"] != b["title"]
        or a["centres"].shape != b["centres"].shape
        or not np.array_equal(a["centres"], b["centres"])
        or a["colours"] != b["colours"]
        or a["image"] != b["image"]
        or a["metrics"] != b["metrics"]
    )


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
    assert view["payload"] <= 2_000_000  # every σ of the slider included


@pytest.mark.parametrize(
    "widget,key,value",
    [
        ("selectbox", "w_dataset", "moons"),
        ("number_input", "w_n", 300),
        ("number_input", "w_noise", 0.8),
        ("number_input", "w_seed", 3),
        ("slider", "w_k", 3),
        ("selectbox", "w_init", "random"),
        ("selectbox", "w_kind", "entmax15"),
        ("radio", "w_dtype", "float32"),
        ("radio", "explorer_field", "entropy"),
    ],
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(widget, key, value):
    at = explorer()
    before = shown(at)
    getattr(at, widget)(key=key).set_value(value).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert differs(before, shown(at)), key


def commit(at, sigma: float) -> None:
    scrub_commit(at, sigma)
    assert not at.exception, at.exception


def test_a_committed_sigma_changes_the_address_downloads_and_shown_level():
    at = explorer()
    before = shown(at)
    grid = payload(at)["sigmas"]
    smaller = [s for s in grid if s < at.session_state["_rbfviz_controls"].sigma][3]
    commit(at, smaller)
    after = shown(at)
    assert after["image"] != before["image"] and after["metrics"] != before["metrics"]
    assert after["payload"] == before["payload"]  # the same bytes: a commit resends nothing
    assert at.query_params["sigma"] == f"{smaller:.4g}"
    assert any(f"Downloads at σ = {smaller:.3g}" in str(m.value) for m in at.markdown)


def test_every_level_matches_rbfviz_at_its_sigma():
    """The payload's figure and numbers at each σ are the library's: centres (EM from the k-means++
    start), r (as rounded for the hover), colours' source, the numbers beside the plot, the sentence."""
    at = explorer()
    header = payload(at)
    X, _ = make_dataset("blobs", 500, 1.5, 0)
    C0 = initial_centers(X, 4, "kmeans++", 0)
    _, labels = measures.kmeans_reference(X, C0)
    assert header["texts"] == [f"{s:.3g}" for s in header["sigmas"]] and np.all(np.diff(header["sigmas"]) < 0)
    for i in range(0, len(header["sigmas"]), 5):
        sigma = header["sigmas"][i]
        fig = figure_at(header, i)
        centres, _, _ = soft_fixed_point(X, C0, sigma, kind="softmax")
        got = np.column_stack([decode(fig["data"][1]["x"]), decode(fig["data"][1]["y"])])
        np.testing.assert_allclose(got, centres, rtol=0, atol=1e-12)
        resp = responsibilities(X, centres, sigma, "softmax")
        np.testing.assert_array_equal(
            np.asarray(fig["data"][0]["customdata"]), np.round(resp, 3).astype(np.float32)
        )
        numbers = plane_numbers(X, centres, sigma, "softmax", labels)
        metrics = side(header, i)
        assert metrics["L_σ  (soft loss)"] == f"{numbers['loss']:.5g}"
        assert metrics["J  (K-Means distortion at these centres)"] == f"{numbers['distortion']:.5g}"
        assert metrics["L_σ − J"] == f"{numbers['gap']:.3g}"
        assert metrics["exactly-zero r_ij"] == f"{numbers['exact_zeros']:,} of {numbers['entries']:,}"
        assert fig["layout"]["title"]["text"].endswith(f"σ = {sigma:.3g}")
        assert f"σ = {sigma:.3g}" in header["frames"][i]["caption"]


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
    assert any("annealing path" in note for note in shown(at)["notes"])


def test_naive_map_at_small_sigma_is_a_message_not_a_traceback():
    at = explorer({"kind": "naive", "dtype": "float32", "sigma": "0.03"})
    assert not at.exception
    view = shown(at)
    assert any("NaN" in note for note in view["notes"]) or any("NaN" in label for label, _ in view["metrics"])


@pytest.mark.parametrize("sigma", ["1e-6", "1e3"])
def test_extreme_sigma_gives_a_valid_figure(sigma):
    at = explorer({"sigma": sigma, "kind": "entmax15"})
    assert any("outside this data set's range" in str(w.value) for w in at.warning)
    assert shown(at)["centres"].shape == (4, 2)


def test_a_commit_wins_over_a_stale_address():
    """Quick successive commits: the second rerun request still carries the address from before the
    first run's write. The user's newest σ must win."""
    at = explorer()
    grid = payload(at)["sigmas"]
    middle = len(grid) // 2
    first, second, third = grid[middle], grid[middle + 2], grid[middle + 4]
    commit(at, first)
    commit(at, second)
    assert at.query_params["sigma"] == f"{second:.4g}"
    at.query_params["sigma"] = f"{first:.4g}"  # the stale address of the next request
    commit(at, third)
    assert at.session_state["_rbfviz_controls"].sigma == third
    assert at.query_params["sigma"] == f"{third:.4g}"


def test_payload_caps_at_5000_points():
    at = explorer({"n": "5000"})
    assert not at.error, [e.value for e in at.error]
    assert payload_bytes(at) <= 6_000_000
    assert shown(at)["n_points"] == 5000
