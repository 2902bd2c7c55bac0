"""AppTests of the Explorer view: it loads, every control changes what is shown, failures stay messages."""

import base64

import numpy as np
import pytest
from app_page import assert_same_points, data_set, is_float32, open_page, page_path, set_control, xy
from scrub_view import commit as scrub_commit
from scrub_view import figure_shown, metrics_shown, payload, payload_bytes, side
from streamlit.testing.v1 import AppTest

from rbfviz import measures
from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.views.common.scrub import figure_at
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers, soft_fixed_point
from ui import session_keys

PAGE = page_path("Explorer")


def explorer(query=None) -> AppTest:
    return open_page(PAGE, query)


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
        points=xy(points),
        colour_bars=[
            t["marker"]["colorbar"]["title"]["text"]
            for t in spec["data"]
            if t.get("marker", {}).get("showscale") and "colorbar" in t["marker"]
        ],
        colours=tuple(points["marker"]["color"]),
        image=spec["layout"]["images"][0]["source"] if spec["layout"].get("images") else None,
        metrics=tuple((label, value) for label, value in metrics.items() if label != "notes"),
        notes=tuple(metrics["notes"]),
        payload=payload_bytes(at),
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


def exact_zeros(view: dict) -> int:
    """The count of exactly-zero responsibilities beside the plot ("a of b")."""
    return int(dict(view["metrics"])["exactly-zero r_ij"].split(" of ")[0].replace(",", ""))


def library_centres(at) -> np.ndarray:
    """The centres the page should show for its address: EM from its start at its σ (rbfviz)."""
    q = at.query_params
    X = data_set(at).astype(q["dtype"])
    C0 = initial_centers(X, int(q["k"]), q["init"], int(q["seed"]))
    centres, _, _ = soft_fixed_point(
        X, C0, float(at.session_state[session_keys.CONTROLS].sigma), kind=q["kind"]
    )
    return np.asarray(centres, np.float64)


def assert_changed_as_it_should(key: str, before: dict, after: dict, at) -> None:
    """What each control changes, and which way. Before: the defaults (blobs, n = 500, noise 1.5, seed 0,
    k = 4, k-means++, softmax, float64, the max-responsibility field)."""
    if key in ("w_dataset", "w_n", "w_noise", "w_seed"):  # moons; 300 points; noise 0.8; seed 3
        assert_same_points(after["points"], data_set(at))  # the library's new data set, every point drawn
        if key == "w_n":
            assert after["n_points"] == 300 < before["n_points"]
    elif key == "w_k":  # 3 centres instead of 4
        assert after["centres"].shape == (3, 2) and before["centres"].shape == (4, 2)
    elif key == "w_init":  # EM from k random (or farthest) data points instead of k-means++
        np.testing.assert_allclose(after["centres"], library_centres(at), rtol=0, atol=1e-9)
        assert not np.allclose(after["centres"], before["centres"])
    elif key == "w_kind":  # entmax-1.5 gives exact zeros where softmax gives none
        assert exact_zeros(after) > exact_zeros(before) == 0
    elif key == "w_dtype":  # computed in float32: the centres are float32 values
        assert is_float32(after["centres"]) and not is_float32(before["centres"])
    elif key == "explorer_field":  # the entropy field, with its colour bar
        assert after["colour_bars"] == ["H(r), nats"] and before["colour_bars"] == []
        assert after["image"] != before["image"]
    else:
        raise AssertionError(f"no expected change written for {key}")


@pytest.mark.parametrize(
    "key,value",
    [
        ("w_dataset", "moons"),
        ("w_n", 300),
        ("w_noise", 0.8),
        ("w_seed", 3),
        ("w_k", 3),
        ("w_init", "random"),
        ("w_init", "farthest"),
        ("w_kind", "entmax15"),
        ("w_dtype", "float32"),
        ("explorer_field", "entropy"),
    ],
)
@pytest.mark.shared_streamlit_caches
def test_each_control_changes_what_is_shown(key, value):
    at = explorer()
    before = shown(at)
    assert_changed_as_it_should(key, before, shown(set_control(at, key, value)), at)


def commit(at, sigma: float) -> None:
    scrub_commit(at, sigma)
    assert not at.exception, at.exception


def test_a_committed_sigma_changes_the_address_downloads_and_shown_level():
    at = explorer()
    before = shown(at)
    grid = payload(at)["sigmas"]
    smaller = [s for s in grid if s < at.session_state[session_keys.CONTROLS].sigma][3]
    commit(at, smaller)
    after = shown(at)
    # a smaller σ: harder responsibilities (lower mean entropy), the soft loss closer to K-Means' J
    numbers_before, numbers_after = dict(before["metrics"]), dict(after["metrics"])
    entropy = "mean entropy of r"
    assert float(numbers_after[entropy].split()[0]) < float(numbers_before[entropy].split()[0])
    assert abs(float(numbers_after["L_σ − J"])) < abs(float(numbers_before["L_σ − J"]))
    assert after["image"] != before["image"]  # the field redrawn at the new σ
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


def test_farthest_init_from_the_url_starts_at_the_library_centres():
    at = explorer({"dataset": "moons", "init": "farthest"})
    assert not at.warning, [w.value for w in at.warning]
    assert at.selectbox(key="w_init").value == "farthest"
    np.testing.assert_allclose(shown(at)["centres"], library_centres(at), rtol=0, atol=1e-9)


def test_a_bad_init_in_the_url_is_a_notice_and_kmeans_plus_plus():
    at = explorer({"init": "farthestt"})
    assert at.selectbox(key="w_init").value == "kmeans++"
    notes = [str(w.value) for w in at.warning] + [str(i.value) for i in at.info]
    assert any("`init=farthestt`" in note and "farthest" in note for note in notes), notes


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
    assert at.session_state[session_keys.CONTROLS].sigma == third
    assert at.query_params["sigma"] == f"{third:.4g}"


def test_payload_caps_at_5000_points():
    at = explorer({"n": "5000"})
    assert not at.error, [e.value for e in at.error]
    assert payload_bytes(at) <= 6_000_000
    assert shown(at)["n_points"] == 5000


def test_a_heavy_setting_waits_with_its_cost_and_compute_anyway_draws_the_plane(monkeypatch):
    """The work budget: α-entmax at n = 5,000, k = 10 (about 20 s) is not started; the page says what it
    would cost and what fits. With a budget of 0 s a small setting asks too, and "Compute anyway" draws
    the plane, kept on the session's later runs."""
    at = explorer({"dataset": "blobs", "n": "5000", "k": "10", "kind": "entmax", "alpha": "1.3", "seed": "7"})
    words = " ".join(w.value for w in at.warning)
    assert "Not started" in words and "would take about" in words and "softmax" in words
    assert [b.label for b in at.button if b.key == "budget_explorer"][0].startswith("Compute anyway (about ")
    assert not at.get("bidi_component")

    monkeypatch.setattr("rbfviz.cost.BUDGET_S", 0.0)
    at = explorer({"dataset": "blobs", "n": "60", "k": "3", "seed": "4243"})  # a seed no other test uses
    assert at.warning and not at.get("bidi_component")
    at.button(key="budget_explorer").click().run()
    assert (
        not at.error and at.get("bidi_component") and not [w for w in at.warning if "Not started" in w.value]
    )
    at.run()
    assert at.get("bidi_component") and not [w for w in at.warning if "Not started" in w.value]
