"""AppTests of the classroom features: CSV upload, centres picked on the plot, presenter mode,
downloads (points CSV, figure HTML, trajectories JSON, receipts that reproduce the shown numbers),
and lessons whose links land in the right state.

Download data are generated on click (deferred): the tests record AppTest's media-file manager and
call the generator behind each button, exactly what a click would run.
"""

import base64
import csv
import io
import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from app_page import download, open_page, page_path
from hang import HANG_TIMEOUT_S
from scrub_view import figure_shown, metrics_shown, payload, payload_bytes
from streamlit.testing.v1 import AppTest

from rbfviz.datasets import make_dataset
from rbfviz.loader import DataError, load_points
from rbfviz.maps import responsibilities
from rbfviz.views.common.scrub import figure_at
from rbfviz.views.lessons.arrays import STEPS, prepare
from rbfviz.views.stability.figures import KIND_LABELS
from ui import session_keys
from ui.state import UPLOAD, lesson_query

ROOT = Path(__file__).resolve().parents[2]
EXPLORER, ANNEALING, STABILITY, EQUIVALENCE, LESSONS = (
    page_path("Explorer"),
    page_path("Annealing"),
    page_path("Stability"),
    page_path("Equivalence"),
    page_path("Lessons"),
)
SMALL = {"dataset": "moons", "n": "150", "k": "3"}  # quick to compute everywhere


def decode(value):
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), value["dtype"])
    return np.asarray(value, dtype=np.float64)


def figures(at: AppTest) -> list[dict]:
    """Every figure on the page as drawn: the σ-scrubbing ones (at the committed σ), then the others."""
    return [figure_shown(at, i) for i in range(len(at.get("bidi_component")))] + [
        json.loads(chart.proto.spec) for chart in at.get("plotly_chart")
    ]


def figure(at: AppTest, index: int = 0) -> dict:
    return figures(at)[index]


def metrics(at: AppTest) -> dict:
    """Every number shown as a metric: Streamlit's st.metric and those beside a scrubbing figure."""
    shown = {m.label: m.value for m in at.metric}
    for i in range(len(at.get("bidi_component"))):
        shown.update({k: v for k, v in metrics_shown(at, i).items() if k != "notes"})
    return shown


def notes(at: AppTest) -> str:
    """The captions, and the note lines beside scrubbing figures."""
    lines = [str(c.value) for c in at.caption]
    for i in range(len(at.get("bidi_component"))):
        lines += metrics_shown(at, i)["notes"]
    return "\n".join(lines)


def points_of(spec: dict) -> np.ndarray:
    trace = spec["data"][0]
    return np.column_stack([decode(trace["x"]), decode(trace["y"])])


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def upload(at: AppTest, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="upload_file").set_value((name, data, "text/csv")).run()
    assert not at.exception, at.exception
    return at


def csv_points(n=40, seed=0, columns=2) -> tuple[bytes, np.ndarray]:
    rng = np.random.RandomState(seed)
    A = np.vstack([rng.normal(size=(n // 2, columns)), rng.normal(size=(n - n // 2, columns)) + 4.0])
    header = ",".join(["a", "b", "c", "d"][:columns])
    lines = [header] + [",".join(repr(float(v)) for v in row) for row in A]
    return ("\n".join(lines) + "\n").encode(), A


# --- upload -------------------------------------------------------------------------------------------


def test_good_upload_becomes_the_data_of_every_view():
    data, A = csv_points()
    at = upload(open_page(EXPLORER), "mine.csv", data)
    assert at.query_params["dataset"] == UPLOAD and at.query_params["n"] == "40"
    assert not at.error, texts(at.error)
    assert "Loaded mine.csv: 40 points, x = a, y = b" in texts(at.success)
    assert np.array_equal(points_of(figure(at)), A)  # the plane shows exactly the file's points
    assert any("L_σ" in label for label in metrics(at))
    for page in (ANNEALING, STABILITY, EQUIVALENCE, EXPLORER):
        at.switch_page(page).run()
        assert not at.exception and not at.error, (page, texts(at.error))
        assert at.query_params["dataset"] == UPLOAD
        assert at.selectbox(key="w_dataset").value == UPLOAD


BAD_FILES = {
    "empty": b"",
    "header only": b"x,y\n",
    "not UTF-8": "x,y\n1,2\n3,é\n".encode("latin-1"),
    "text cells": b"x,y\n1,2\n3,four\n5,6\n",
    "NaN": b"x,y\n1,2\nnan,3\n4,5\n",
    "infinity": b"x,y\n1,2\n3,inf\n4,5\n",
    "one column": b"x\n1\n2\n3\n",
    "one point": b"x,y\n1,2\n",
    "identical points": b"x,y\n1,2\n1,2\n1,2\n",
    "binary": bytes(range(256)) * 4,
}


@pytest.mark.parametrize("what", BAD_FILES)
@pytest.mark.shared_streamlit_caches
def test_bad_upload_shows_the_loader_message_and_keeps_the_data(what):
    data = BAD_FILES[what]
    with pytest.raises(DataError) as err:
        load_points(data, k=2)
    at = open_page(EXPLORER, {"dataset": "spiral"})
    before = (dict(at.query_params), points_of(figure(at)))
    upload(at, "bad.csv", data)
    assert str(err.value) in texts(at.error)
    assert "the view still shows the spiral data" in texts(at.error)
    assert dict(at.query_params) == before[0]
    assert np.array_equal(points_of(figure(at)), before[1])


def test_bad_upload_after_a_good_one_keeps_the_good_one():
    good, A = csv_points(n=30)
    at = upload(open_page(EXPLORER), "good.csv", good)
    upload(at, "bad.csv", BAD_FILES["text cells"])
    assert "bad.csv was not loaded" in texts(at.error) and "good.csv: 30 points" in texts(at.error)
    assert at.query_params["dataset"] == UPLOAD and at.query_params["n"] == "30"
    assert np.array_equal(points_of(figure(at)), A)


def test_many_columns_use_pca_or_two_chosen_columns():
    data, A = csv_points(n=40, columns=4)
    at = upload(open_page(EXPLORER), "four.csv", data)
    assert "first two principal components of 4 columns" in texts(at.success)
    assert np.array_equal(points_of(figure(at)), load_points(data).X)
    at.radio(key="w_upload_mode").set_value("columns").run()
    assert not at.exception and not at.error
    assert np.array_equal(points_of(figure(at)), A[:, :2])
    at.selectbox(key="w_upload_y").set_value("d").run()
    assert np.array_equal(points_of(figure(at)), A[:, [0, 3]])
    at.selectbox(key="w_upload_y").set_value("a").run()  # the same column twice: a message, nothing changes
    assert "Pick two different columns" in texts(at.error)
    assert np.array_equal(points_of(figure(at)), A[:, [0, 3]])


def test_a_link_to_uploaded_data_without_the_upload_explains_and_uses_defaults():
    at = open_page(EXPLORER, {"dataset": "upload", "n": "40", "k": "3"})
    assert "links and bookmarks cannot carry it" in texts(at.warning)
    assert at.query_params["dataset"] == "blobs" and not at.error


def test_a_large_upload_draws_a_sample_counts_every_point_and_stays_under_8_mb():
    """19,999 uploaded points: every view that scrubs σ draws at most 5,000 of them (a seeded sample,
    said in a caption), counts all of them in its numbers, and sends at most 8 MB, every σ included.
    (Stability: the next test.)"""
    at = upload(open_page(EXPLORER), "big.csv", csv_points(n=19_999)[0])
    assert not at.error, texts(at.error)
    assert "a seeded sample of 5,000 of the 19,999 points" in texts(at.caption)
    spec = figure(at)
    assert len(spec["data"][0]["x"]) == 5000
    k = at.session_state[session_keys.CONTROLS].k
    assert metrics(at)["exactly-zero r_ij"].endswith(f"of {19_999 * k:,}")  # r of every point counted
    assert payload_bytes(at) <= 8_000_000
    for page in (ANNEALING, EQUIVALENCE):
        at.switch_page(page).run()
        assert not at.exception and not at.error, (page, texts(at.error))
        assert payload_bytes(at) <= 8_000_000, page


def test_a_large_upload_on_stability_draws_a_sample_at_every_sigma():
    """Stability with more points than it draws: a seeded sample of 5,000 at every σ, the counts of all
    points, at most 8 MB. Its payload holds the drawn points only, so one point over the limit takes the
    same path as the largest upload (whose α-family panel, measured once opened, costs tens of seconds at
    k = 3)."""
    at = upload(open_page(STABILITY, {"k": "2"}), "big.csv", csv_points(n=5_001)[0])
    assert not at.exception and not at.error, texts(at.error)
    assert (
        "Drawn: a seeded sample of 5,000 of the 5,001 points; the counts above each panel and below "
        "count all 5,001." in texts(at.caption)
    )
    assert payload_bytes(at) <= 8_000_000
    header = payload(at)
    for level in range(len(header["sigmas"])):
        traces = figure_at(header, level)["data"]
        for panel in ("naive exp/sum", "entmax-1.5"):  # each panel's point traces: every drawn point once
            rows = [t for t in traces if t["name"].startswith(panel) and "row" in t["name"] and t.get("meta")]
            drawn = [len(t["x"]) for t in rows]  # the point traces, not their legend entries
            assert sum(drawn) == 5000, (level, panel, drawn)


# --- picking centres ------------------------------------------------------------------------------------


def test_custom_start_asks_for_more_picks_then_starts_from_them():
    at = open_page(EXPLORER, {"init": "custom", "picks": "3,250"})
    assert "click 2 more points" in texts(at.info)
    spec = figure(at)
    assert spec["data"][-1]["name"] == "picked starting points"
    assert not metrics(at)  # nothing is computed from half a start
    at.query_params["picks"] = "3,250,17,400,90"
    at.run()
    assert not at.exception and not at.error
    assert "picked-points start" in notes(at)
    X, _ = make_dataset("blobs", 500, 1.5, 0)
    picks = figure(at)["data"][-1]
    assert np.array_equal(np.column_stack([decode(picks["x"]), decode(picks["y"])]), X[[3, 250, 17, 400, 90]])
    # the Equivalence view steps from the first k picks
    at.switch_page(EQUIVALENCE).run()
    start = next(t for t in figure(at)["data"] if t["name"] == "start c⁰")
    assert np.array_equal(np.column_stack([decode(start["x"]), decode(start["y"])]), X[[3, 250, 17, 400]])


def test_pick_buttons_and_typed_numbers():
    at = open_page(EXPLORER)
    at.text_input(key="w_typed_picks").set_value("12, 40 ,301").run()
    assert at.query_params["picks"] == "12,40,301"
    at.button[[b.label for b in at.button].index("Undo last pick")].click().run()
    assert at.query_params["picks"] == "12,40"
    at.button[[b.label for b in at.button].index("Set k = 2 (all picks)")].click().run()
    assert at.query_params["k"] == "2"
    at.button[[b.label for b in at.button].index("Start from my picks")].click().run()
    assert at.query_params["init"] == "custom" and not at.error
    at.button[[b.label for b in at.button].index("Clear picks")].click().run()
    assert "picks" not in at.query_params
    at.text_input(key="w_typed_picks").set_value("12, x").run()
    assert "is not a list of point numbers" in texts(at.warning)


# --- presenter mode -----------------------------------------------------------------------------------


def font_and_marker(spec: dict) -> tuple:
    layout = spec["layout"]
    return (
        layout["font"]["size"],
        layout["title"]["font"]["size"],
        layout["xaxis"]["tickfont"]["size"],
        spec["data"][0]["marker"]["size"],
        layout["height"],
    )


@pytest.mark.parametrize("page", [EXPLORER, ANNEALING, STABILITY, EQUIVALENCE])
def test_presenter_mode_enlarges_every_figure_and_hides_downloads(page):
    normal = open_page(page, SMALL)
    big = open_page(page, dict(SMALL, presenter="1"))
    assert big.query_params["presenter"] == "1" and not big.error
    assert len(figures(big)) == len(figures(normal))
    for i in range(len(figures(normal))):
        a, b = figure(normal, i)["layout"], figure(big, i)["layout"]
        assert b["font"]["size"] >= 1.4 * a["font"]["size"], (page, i)
    if page == EXPLORER:
        assert all(y > x for x, y in zip(font_and_marker(figure(normal)), font_and_marker(figure(big))))
    assert normal.get("download_button") and not big.get("download_button")
    assert any("More controls" in e.label for e in big.expander) and not any(
        "More controls" in e.label for e in normal.expander
    )


def test_presenter_toggle_writes_the_url_and_links_keep_it():
    at = open_page(EXPLORER)
    at.toggle(key="w_presenter").set_value(True).run()
    assert at.query_params["presenter"] == "1"
    at.switch_page("app.py").run()
    assert all("presenter=1" in link.proto.query_string for link in at.main.get("page_link"))


# --- downloads and receipts ------------------------------------------------------------------------------


# A downloaded receipt runs as its user runs it: a new Python process with the repository on its path
# and the receipt's folder as working directory. Each is a fork of one runner process that has made the
# cold imports (torch, rbfviz) and computed nothing, so every receipt starts from that state and never
# from another receipt's, and the receipts pay for one interpreter start instead of one each.
RECEIPT_RUNNER = """
import json, math, os, runpy, sys
import torch, rbfviz
clean = lambda v: None if isinstance(v, float) and math.isnan(v) else v
fix = lambda d: {k: clean(v) for k, v in d.items()}
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(line.rstrip("\\n"))
            for fd, name in ((1, "receipt.out"), (2, "receipt.err")):
                os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            ns = runpy.run_path("receipt.py")
            with open("receipt.json", "w") as out:
                json.dump({"numbers": fix(ns["numbers"]), "shown": fix(ns["SHOWN"])}, out)
            code = 0
        except BaseException:
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""
# the tests that run receipts share one runner: on one pytest-xdist worker
RECEIPTS = pytest.mark.xdist_group("receipts")


@pytest.fixture(scope="module")
def receipt_runner(tmp_path_factory):
    log = tmp_path_factory.mktemp("receipt-runner") / "stderr"
    with open(log, "w") as err:
        runner = subprocess.Popen(
            [sys.executable, "-c", RECEIPT_RUNNER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
    runner.log = log
    yield runner
    runner.stdin.close()
    runner.wait(timeout=HANG_TIMEOUT_S)


def run_receipt(runner, text: bytes, cwd: Path) -> dict:
    """Run a downloaded receipt in ``cwd`` in a fresh process (a fork of ``runner``); return (numbers,
    SHOWN) as JSON."""
    (cwd / "receipt.py").write_bytes(text)
    runner.stdin.write(f"{cwd}\n")
    runner.stdin.flush()
    ready, _, _ = select.select([runner.stdout], [], [], HANG_TIMEOUT_S)
    status = runner.stdout.readline().strip() if ready else "no answer within the hang bound"
    errors = cwd / "receipt.err"
    assert status == "0", (
        status,
        runner.log.read_text()[-3000:],
        errors.exists() and errors.read_text()[-3000:],
    )
    return json.loads((cwd / "receipt.json").read_text())


def assert_reproduced(result: dict) -> None:
    numbers, shown = result["numbers"], result["shown"]
    assert numbers.keys() == shown.keys() and shown
    for key, value in shown.items():
        if value is None or isinstance(value, (bool, str)):
            assert numbers[key] == value, key
        else:
            np.testing.assert_allclose(
                np.asarray(numbers[key], float), np.asarray(value, float), rtol=1e-12, atol=1e-12, err_msg=key
            )


def reproduced_receipt(at, media, runner, cwd: Path) -> dict:
    """The page's "Receipt (.py)" downloaded and run (``run_receipt``); it reproduces every number it
    says the page showed (``assert_reproduced``). Returns its (numbers, shown)."""
    result = run_receipt(runner, download(at, media, "Receipt (.py)"), cwd)
    assert_reproduced(result)
    return result


@RECEIPTS
def test_explorer_downloads(media, tmp_path, receipt_runner):
    at = open_page(EXPLORER, SMALL)
    spec = figure(at)
    X, _ = make_dataset("moons", 150, 0.1, 0)
    # points CSV: the points, their r at the centres shown, the K-Means labels; read back exactly
    table = list(csv.DictReader(io.StringIO(download(at, media, "Points and r (CSV)").decode())))
    assert list(table[0]) == ["x", "y", "r_0", "r_1", "r_2", "label"]
    got = np.array([[float(row[c]) for c in ("x", "y", "r_0", "r_1", "r_2")] for row in table])
    centres = np.column_stack([decode(spec["data"][1]["x"]), decode(spec["data"][1]["y"])])
    sigma = float(at.query_params["sigma"])
    assert np.array_equal(got[:, :2], X)
    np.testing.assert_allclose(got[:, 2:], responsibilities(X, centres, sigma, "softmax"), rtol=0, atol=1e-15)
    # the figure as a standalone page with plotly.js inside
    html = download(at, media, "Figure (HTML)").decode()
    assert html.lstrip().lower().startswith("<!doctype html>") and len(html) > 1_000_000
    assert not re.search(r"<script[^>]*\bsrc=", html)  # plotly.js is inside: it opens offline
    assert spec["layout"]["title"]["text"] in html
    # the receipt reproduces the numbers, which are the ones on screen
    result = reproduced_receipt(at, media, receipt_runner, tmp_path)
    shown = metrics(at)
    assert shown["L_σ  (soft loss)"] == f"{result['shown']['loss']:.5g}"
    assert shown["J  (K-Means distortion at these centres)"] == f"{result['shown']['distortion']:.5g}"
    assert shown["argmax r = K-Means label"] == f"{100 * result['shown']['agreement']:.1f} %"


@RECEIPTS
def test_receipt_of_uploaded_data_reads_the_file(media, tmp_path, receipt_runner):
    data, _ = csv_points(n=36, columns=3)
    at = upload(open_page(EXPLORER), "three.csv", data)
    text = download(at, media, "Receipt (.py)")
    assert b"three.csv" in text
    (tmp_path / "three.csv").write_bytes(data)
    assert_reproduced(run_receipt(receipt_runner, text, tmp_path))


@RECEIPTS
def test_equivalence_receipt_reproduces(media, tmp_path, receipt_runner):
    at = open_page(EQUIVALENCE, dict(SMALL, init="random", kind="entmax15", dtype="float32"))
    result = reproduced_receipt(at, media, receipt_runner, tmp_path)
    shown = metrics(at)
    assert shown["max |GD step − Lloyd step|"] == f"{result['shown']['gd_vs_lloyd']:.3g}"


@RECEIPTS
def test_annealing_downloads(media, tmp_path, receipt_runner):
    at = open_page(ANNEALING, SMALL)
    trajectories = json.loads(download(at, media, "Trajectories (JSON)"))
    anneal = trajectories["anneal"]
    assert trajectories["parameters"]["dataset"] == "moons"
    assert np.asarray(anneal["centers"]).shape == (len(anneal["sigmas"]), 3, 2)
    assert np.all(np.diff(anneal["sigmas"]) < 0)
    result = reproduced_receipt(at, media, receipt_runner, tmp_path)
    shown = metrics(at)
    assert shown["σ_c predicted"] == f"{result['shown']['sigma_critical_predicted']:.3g}"


@RECEIPTS
def test_stability_receipt_reproduces_the_table(media, tmp_path, receipt_runner):
    at = open_page(STABILITY, dict(SMALL, dtype="float32"))
    result = reproduced_receipt(at, media, receipt_runner, tmp_path)
    table = at.dataframe[0].value  # the table at the current σ: one row per map and dtype
    assert len(table) == 6
    for _, row in table.iterrows():
        kind = next(k for k, label in KIND_LABELS.items() if label == row["map"])
        value = result["shown"][f"{kind}/{row['dtype']}/grad_norm"]
        assert row["‖∇L‖ at C*"] == f"{value:.3e}"  # as the table formats it


# --- lessons ------------------------------------------------------------------------------------------

VIEW_PAGES = {
    "Explorer": EXPLORER,
    "Annealing": ANNEALING,
    "Stability": STABILITY,
    "Equivalence": EQUIVALENCE,
}


@pytest.mark.parametrize("step", STEPS, ids=[s.key for s in STEPS])
def test_each_lesson_link_lands_in_its_state(step):
    lesson = prepare(step)
    query = lesson_query(lesson)
    at = open_page(VIEW_PAGES[step.view], query)
    assert not at.warning and not at.error, (texts(at.warning), texts(at.error))
    assert dict(at.query_params) == query  # nothing was reset or re-snapped
    ctrl = at.session_state[session_keys.CONTROLS]
    assert ctrl.sigma == lesson.sigma == float(query["sigma"])
    assert ctrl.kind == lesson.step.settings["kind"]
    assert at.selectbox(key="w_kind").value == ctrl.map_choice()  # "entmax" for an α-entmax step


def test_lessons_page_reveals_the_explanation_only_after_an_answer():
    at = open_page(LESSONS)
    lesson = prepare(STEPS[0])
    link = at.main.get("page_link")[-1].proto
    assert link.page == "Explorer"
    assert dict(pair.split("=") for pair in link.query_string.split("&")) == lesson_query(lesson)
    assert not at.latex and "appears once you have answered" in texts(at.caption)
    at.radio(key="lesson_voronoi_answer").set_value(0).run()
    at.button(key="lesson_voronoi_check").click().run()
    assert "Not quite" in texts(at.warning) and lesson.answer_text in texts(at.warning)
    assert len(at.latex) == len(STEPS[0].equations)
    at.button(key="lesson_voronoi_next").click().run()
    assert at.query_params["lesson"] == "2" and f"Step 2 of {len(STEPS)}" in texts(at.header)
    at.query_params["lesson"] = "3"
    at.run()
    at.number_input(key="lesson_anneal_answer").set_value(round(prepare(STEPS[2]).answer, 2)).run()
    at.button(key="lesson_anneal_check").click().run()
    assert "Right" in texts(at.success)


def test_the_last_lesson_sheared_blobs_is_checked_and_links_to_the_explorer():
    at = open_page(LESSONS, {"lesson": str(len(STEPS))})
    lesson = prepare(STEPS[-1])
    assert lesson.step.key == "sheared"
    assert f"Step {len(STEPS)} of {len(STEPS)}" in texts(at.header)
    link = at.main.get("page_link")[-1].proto
    assert link.page == "Explorer"
    query = dict(pair.split("=") for pair in link.query_string.split("&"))
    assert query == lesson_query(lesson) and query["dataset"] == "sheared"
    at.radio(key="lesson_sheared_answer").set_value(0).run()
    at.button(key="lesson_sheared_check").click().run()
    assert "Not quite" in texts(at.warning) and "straight across the long groups" in texts(at.warning)
    at.radio(key="lesson_sheared_answer").set_value(int(lesson.answer)).run()
    at.button(key="lesson_sheared_check").click().run()
    assert "Right" in texts(at.success)
    assert len(at.latex) == len(lesson.step.equations) and lesson.facts["cut_share"] in texts(at.markdown)
    assert "lesson_sheared_next" not in [button.key for button in at.button]  # the last step
