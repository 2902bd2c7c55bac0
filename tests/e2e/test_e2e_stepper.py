"""A student steps through EM by hand: E-step, M-step, Lloyd step and Reset in a real browser. The
counter follows, the address holds the steps taken, the plane draws arrows from the old centres to the
new, and the address opened in a new tab replays the same numbers."""

import pytest

from harness.chromium import BROWSER_SIZES
from harness.settings import ARTIFACTS
from harness.student import HANG_TIMEOUT_MS, PLOT, Student

pytestmark = pytest.mark.e2e


def open_stepper(student: Student, url: str) -> None:
    """Open ``url`` and wait until the view's numbers are drawn (they follow the title)."""
    student.open(url)
    student.page.locator("[data-testid='stMetricValue']").nth(3).wait_for()
    student.wait_for_run()


def click(student: Student, name: str, steps: str | None) -> None:
    """Press a button and wait until the address holds ``steps`` (None: no steps parameter)."""
    with student.rerun():
        student.page.get_by_role("button", name=name, exact=True).click()
    student.page.wait_for_function(
        "(s) => new URLSearchParams(window.location.search).get('steps') === s", arg=steps
    )
    student.wait_for_run()


def arrows(student: Student) -> int:
    """How many arrows the plane (the first figure) draws."""
    student.wait_for_figures()
    return student.page.evaluate(
        "(sel) => (document.querySelectorAll(sel)[0]._fullLayout.annotations || [])"
        ".filter((a) => a.showarrow).length",
        PLOT,
    )


def numbers(student: Student) -> dict[str, str]:
    return {label: value for label, value in student.metrics().items() if label != "Steps taken"}


def test_step_buttons_count_write_the_address_and_a_link_replays(server, student, page):
    open_stepper(student, server.url + "/Step_by_step")
    assert student.metric("Steps taken") == "0" and "steps" not in student.query()
    start = numbers(student)
    assert arrows(student) == 0
    taken = ""
    for name, letter in (("E-step", "E"), ("M-step", "M"), ("Lloyd step", "L"), ("E-step", "E")):
        taken += letter
        click(student, name, taken)
        assert student.metric("Steps taken") == str(len(taken))
        assert f"Iteration {len(taken)}" in student.text()
        if letter == "M":
            assert arrows(student) == int(student.query()["k"])  # every centre moved
            assert numbers(student) != start
        if letter == "E":
            assert arrows(student) == 0  # an E-step moves no centre
    shown, link = numbers(student), student.page.url
    student.keepsake("after-EMLE")

    # the address, opened in a new tab, replays the same sequence to the same numbers
    other = Student(page.context.new_page())
    other.page.set_default_timeout(HANG_TIMEOUT_MS)
    open_stepper(other, link)
    assert other.query()["steps"] == "EMLE"
    assert other.metric("Steps taken") == "4"
    assert numbers(other) == shown
    other.assert_no_problems()
    other.page.close()

    click(student, "Reset", None)
    assert student.metric("Steps taken") == "0" and numbers(student) == start
    student.assert_no_problems()


def test_a_bad_link_warns_and_other_views_drop_the_steps(server, student):
    open_stepper(student, server.url + "/Step_by_step?steps=EXQ")
    assert "steps=EXQ" in student.text() and student.metric("Steps taken") == "0"
    assert "steps" not in student.query()
    click(student, "M-step", "M")
    student.go_to("Explorer")
    assert student.path() == "/Explorer" and "steps" not in student.query()
    student.assert_no_problems()


def wait_for_steps(student: Student, steps: str) -> None:
    """Wait until the address's steps begin with ``steps`` (Play may have taken more before a poll sees
    them)."""
    student.page.wait_for_function(
        "(s) => (new URLSearchParams(window.location.search).get('steps') || '').startsWith(s)", arg=steps
    )


def press(student: Student, name: str) -> None:
    """Tap (on a touch screen) or click a button of the view, and wait for the run it starts."""
    button = student.page.get_by_role("button", name=name, exact=True)
    button.scroll_into_view_if_needed()
    touch = student.page.evaluate("() => navigator.maxTouchPoints > 0")
    with student.rerun():
        button.tap() if touch else button.click()
    student.wait_for_run()


@pytest.mark.parametrize("size", list(BROWSER_SIZES))
def test_play_pause_and_step_back(server, pooled_page, size):
    """Play takes E and M by turns at 2 steps per second with no click; Pause stops it; Step back shows
    the iteration before, with its number in the address, and keeps the later steps."""
    student = Student(pooled_page(**BROWSER_SIZES[size]), ARTIFACTS / "screens", name=f"play-{size}")
    student.page.set_default_timeout(HANG_TIMEOUT_MS)
    open_stepper(student, server.url + "/Step_by_step?speed=2")
    assert "steps" not in student.query()
    press(student, "▶ Play")
    wait_for_steps(student, "EME")  # three steps without a click
    press(student, "❚❚ Pause")
    student.page.get_by_role("button", name="▶ Play", exact=True).wait_for()
    student.wait_page_time(600)  # a tick already on its way may still land
    student.wait_for_run()
    taken = student.query().get("steps", "")
    assert taken.startswith("EME") and set(taken) <= {"E", "M"}
    assert taken == ("EM" * len(taken))[: len(taken)]  # E and M by turns
    student.wait_page_time(1500)  # three intervals at 2 per second: nothing more is taken
    assert student.query().get("steps", "") == taken
    assert student.metric("Steps taken") == str(len(taken))

    press(student, "◀ Step back")
    student.page.wait_for_function("() => new URLSearchParams(window.location.search).get('at') !== null")
    assert student.query()["at"] == str(len(taken) - 1) and student.query()["steps"] == taken
    assert student.metric("Steps taken") == f"{len(taken) - 1} of {len(taken)}"
    assert f"Iteration {len(taken) - 1} of {len(taken)} taken" in student.text()
    student.keepsake(f"play-{size}")
    student.assert_no_problems()
