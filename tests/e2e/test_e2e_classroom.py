"""A classroom's two paths: a student uploads their own CSV file (then a broken one), and a student
follows a lesson step's link into a view and answers the step's question."""

import re

import numpy as np
import pytest
from playwright.sync_api import expect

from rbfviz.views.lessons.arrays import STEPS, prepare
from ui.state import lesson_query

pytestmark = pytest.mark.e2e

SECTION = "Your own data (CSV)"


def good_csv(rows: int = 37, seed: int = 5) -> tuple[bytes, np.ndarray]:
    """A small two-column file with a header: three loose groups of points (4 decimals)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [1.0, 3.0]])
    X = np.round(centres[np.arange(rows) % 3] + rng.normal(scale=0.4, size=(rows, 2)), 4)
    text = "x,y\n" + "".join(f"{x:.4f},{y:.4f}\n" for x, y in X)
    return text.encode(), X


def test_upload_a_good_file_then_a_bad_one(server, student):
    student.open(f"{server.url}/Explorer")
    student.wait_for_title("blobs")
    sidebar = student.page.locator("[data-testid='stSidebar']")

    # a good file becomes the Explorer's data: its name in the title and the Dataset control, its points drawn
    data, X = good_csv()
    student.upload(SECTION, "classroom.csv", data)
    title = student.wait_for_title("classroom.csv", f"n = {len(X)}")
    assert title.startswith(f"classroom.csv, n = {len(X)}, "), title
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("your file (classroom.csv)")
    drawn = student.points()
    assert len(drawn) == len(X), (len(drawn), len(X))
    assert sorted(drawn) == sorted(map(tuple, X.tolist())), "the drawn points are not the file's rows"
    assert student.query()["dataset"] == "upload", student.page.url
    expect(student.page.locator("[data-testid='stAlertContentSuccess']")).to_contain_text(
        f"Loaded classroom.csv: {len(X)} points, x = x, y = y"
    )
    student.assert_no_problems()
    student.keepsake("good")
    figure = student.figures()[0]

    # a file with a word in a number column is refused with its reason; the uploaded points stay
    bad = data.replace(b"\n", b"\nhello,1.0\n", 1)  # line 2 of the file
    student.upload(SECTION, "broken.csv", bad)
    error = student.page.locator("[data-testid='stAlertContentError']")
    expect(error).to_contain_text("broken.csv was not loaded.")
    expect(error).to_contain_text('Line 2, column "x": "hello" is not a number.')
    expect(error).to_contain_text(f"the view still shows classroom.csv: {len(X)} points")
    assert student.wait_for_title("classroom.csv", f"n = {len(X)}") == title
    assert student.figures()[0]["data"] == figure["data"], "the figure changed after a refused file"
    assert sorted(student.points()) == sorted(map(tuple, X.tolist()))
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("your file (classroom.csv)")
    problems = student.problems()
    assert len(problems) == 1 and "broken.csv was not loaded." in problems[0], problems  # only the refusal


ENTMAX = next(i for i, step in enumerate(STEPS) if step.key == "entmax")


def test_lesson_step_link_opens_its_view_in_its_state(server, student):
    step = STEPS[ENTMAX]
    lesson = prepare(step)
    query = lesson_query(lesson)
    assert step.view == "Explorer" and query["kind"] == "entmax15" and query["dtype"] == "float32"

    student.open(f"{server.url}/Lessons")
    # pick the step in the page's own step menu
    main = student.page.locator("[data-testid='stMain']")
    main.locator("[data-testid='stSelectbox']").filter(has_text="Step").click()
    with student.rerun():
        student.page.locator("[role='option']").filter(has_text=f"{ENTMAX + 1} · {step.title}").click()
    expect(student.page.locator("h2").filter(has_text=f"Step {ENTMAX + 1} of {len(STEPS)}")).to_contain_text(
        step.title
    )
    student.assert_no_problems()

    with student.rerun():
        student.page.get_by_role(
            "link", name=re.compile(r"Open the Explorer view with these settings")
        ).click()
    expect(student.page.locator("h1").first).to_contain_text("Explorer")
    sigma = float(query["sigma"])
    title = student.wait_for_title(
        f"blobs, n = {query['n']}, k = {query['k']}, entmax15, float32", f"σ = {sigma:.3g}"
    )
    assert student.path().endswith("/Explorer"), student.page.url
    assert student.query() == query, (student.query(), query)
    sidebar = student.page.locator("[data-testid='stSidebar']")
    expect(sidebar.get_by_role("combobox", name="Dataset")).to_have_value("blobs")
    expect(sidebar.get_by_role("combobox", name="Map")).to_have_value("entmax-1.5 (sparse)")
    expect(sidebar.get_by_role("radio", name="float32")).to_be_checked()
    assert student.slider_value("Clusters k") == query["k"]
    assert student.scrub_sigma() == f"{sigma:.3g}", title  # the σ slider on the Explorer's figure
    assert student.page.locator("[data-testid='stAlertContentWarning']").count() == 0, (
        "notices for a lesson link"
    )
    student.assert_no_problems()
    student.keepsake("view")

    # back on the Lessons page, the same step; answer it and the verdict and the explanation appear
    student.go_to("Lessons")
    expect(student.page.locator("h2").filter(has_text=f"Step {ENTMAX + 1} of {len(STEPS)}")).to_contain_text(
        step.title
    )
    box = student.page.locator("[data-testid='stMain']").get_by_role("spinbutton")
    box.fill(f"{lesson.answer:.4f}")
    with student.rerun():
        box.press("Enter")
    with student.rerun():
        student.page.get_by_role("button", name="Check my answer").click()
    expect(student.page.locator("[data-testid='stAlertContentSuccess']")).to_contain_text(
        f"Right: {lesson.answer_text}."
    )
    expect(student.page.get_by_role("heading", name="Why")).to_be_visible()
    student.assert_no_problems()
