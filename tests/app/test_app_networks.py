"""AppTests of the Neural network view (pages/9_Neural_network.py): it loads; a small classifier
training completes in the background and shows its accuracy next to the linear baseline and the
Lloyd distance; a finished setting is shown at once to a new session; Stop ends a training early and
the page says so; bad settings give a message, never a traceback; the low-σ comparison and a small
deep clustering run show their figures and tables. Training runs in a thread, so each test reruns
the page until the result is there (as the page's progress fragment does once a second)."""

import json
import time

from app_page import ok, open_page, page_path
from hang import HANG_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from ui import training

PAGE = page_path("Neural network")
SMALL = {"dataset": "moons", "n": "120"}
WAIT = HANG_TIMEOUT_S  # a hang bound: rerun_until returns as soon as the training is done


def run(query) -> AppTest:
    return open_page(PAGE, query, check=False)


def button(at, text):
    matches = [b for b in at.button if text in b.label]
    assert matches, [b.label for b in at.button]
    return matches[0]


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def rerun_until(at, done, what: str) -> AppTest:
    deadline = time.perf_counter() + WAIT
    while not done(at):
        assert time.perf_counter() < deadline, f"{what} did not finish within {WAIT} s"
        time.sleep(0.2)
        at.run()
    return at


def test_loads_with_three_sections_and_nothing_trained():
    at = run({})  # the default sidebar data set (blobs) is not one the classifier offers
    ok(at)
    labels = [b.label for b in at.button]
    assert any("Train the classifier" in b for b in labels)
    assert any("Train the autoencoder" in b for b in labels)
    assert any("Train all three maps" in b for b in labels)
    assert any("uses **moons**" in i.value for i in at.info)
    assert not at.metric and not at.get("plotly_chart")
    assert len(at.tabs) == 3
    assert at.latex  # the objectives are written out


def test_use_button_switches_the_sidebar_data():
    at = run({})
    button(at, "Use circles").click().run()
    ok(at)
    assert at.selectbox(key="w_dataset").value == "circles"
    assert any("sidebar's **circles**" in c.value for c in at.caption)


def test_small_classifier_trains_and_shows_accuracy():
    at = run(SMALL)
    ok(at)
    at.slider(key="clf_k").set_value(6)
    at.select_slider(key="clf_epochs").set_value(50)
    button(at, "Train the classifier").click().run()
    ok(at)
    rerun_until(at, lambda a: "test accuracy" in metrics(a), "the classifier")
    ok(at)
    values = metrics(at)
    accuracy, linear = float(values["test accuracy"]), float(values["logistic regression"])
    assert 0.0 <= linear <= 1.0 and 0.0 <= accuracy <= 1.0
    assert float(values["distance to Lloyd"]) >= 0.0
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(specs) == 3  # result, replay, curves
    replay = specs[1]
    assert len(replay["frames"]) == len(replay["layout"]["sliders"][0]["steps"]) == 50 // 2 + 1
    # the same numbers as a direct call of the library with the same settings
    from rbfviz.views.neural_network.arrays import train_classifier_view

    direct = train_classifier_view("moons", k=6, epochs=50, n=120, noise=0.1, seed=0)
    assert values["test accuracy"] == f"{direct.accuracy:.3f}"
    assert values["logistic regression"] == f"{direct.linear_accuracy:.3f}"

    # a new session asking for the same settings gets the stored result at once, without training
    again = run(SMALL)
    again.slider(key="clf_k").set_value(6)
    again.select_slider(key="clf_epochs").set_value(50)
    button(again, "Train the classifier").click().run()
    ok(again)
    assert metrics(again)["test accuracy"] == values["test accuracy"]
    assert not again.get("progress")
    key = ("classifier", "moons", 120, 0.1, 0, 6, "softmax", 50, 2.0)
    assert training.registry().result(key) is not None and training.registry().running(key) is None


def test_bad_settings_give_a_message():
    at = run({"dataset": "moons", "n": "10"})  # 7 training points for 12 centres
    ok(at)
    button(at, "Train the classifier").click().run()
    assert not at.exception
    assert any("k = 12 centres need at least 12 training points" in e.value for e in at.error)
    assert not at.metric and not at.get("progress")


def test_stop_ends_the_training_early_and_says_so():
    at = run({"dataset": "moons"})  # 500 points × 500 epochs: seconds, long enough to press Stop
    at.select_slider(key="clf_epochs").set_value(500)
    button(at, "Train the classifier").click().run()
    ok(at)
    rerun_until(
        at,
        lambda a: any(b.label.endswith("Stop") for b in a.button) or "test accuracy" in metrics(a),
        "the start of the training",
    )
    assert "test accuracy" not in metrics(at), "500 epochs finished before Stop could be pressed"
    button(at, "Stop").click().run()
    ok(at)
    rerun_until(at, lambda a: "test accuracy" in metrics(a), "the stopped training")
    stopped = [w.value for w in at.warning if w.value.startswith("Stopped after")]
    assert stopped and "of 500 epochs" in stopped[0]
    epochs_run = int(stopped[0].split("Stopped after ")[1].split(" ")[0])
    assert 1 <= epochs_run < 500
    # a partial run is never stored for everybody: a new session sees no result for these settings
    key = ("classifier", "moons", 500, 0.1, 0, 12, "softmax", 500, 2.0)
    assert training.registry().result(key) is None and training.registry().running(key) is None


def test_low_sigma_comparison_shows_three_maps():
    at = run(SMALL)
    at.select_slider(key="low_epochs").set_value(20)
    at.slider(key="low_k").set_value(6)
    button(at, "Train all three maps").click().run()
    ok(at)
    rerun_until(at, lambda a: len(a.dataframe) >= 1, "the low-σ comparison")
    ok(at)
    table = at.dataframe[0].value
    assert list(table["map"]) == ["naive exp/sum", "softmax", "entmax-1.5"]
    # σ = 0.01 in float32: the naive map skips every step, the stable maps none
    assert table["skipped (NaN) steps"].tolist() == ["20 of 20", "0 of 20", "0 of 20"]
    assert len(at.get("plotly_chart")) == 1


def test_small_deep_clustering_on_a_2d_set():
    at = run(SMALL)
    at.selectbox(key="deep_dataset").set_value("moons")
    at.select_slider(key="deep_pretrain").set_value(25)
    at.select_slider(key="deep_joint").set_value(10)
    button(at, "Train the autoencoder").click().run()
    ok(at)
    rerun_until(at, lambda a: "NMI, joint model" in metrics(a), "deep clustering")
    ok(at)
    table = at.dataframe[0].value
    assert table["method"].tolist()[0].startswith("joint")
    latent = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert latent["data"][0]["fill"] == "toself"  # 2-D codes: the exact Voronoi cells, as polygons
    assert any("does **not** beat K-Means" in m.value for m in at.markdown)
