"""A student starts a computation over the work budget in a browser, watches its progress, cancels it:
the page says so within a few seconds, asks again before it would start once more, and keeps working.

The setting is the Annealing page's heaviest map at the largest n and k (entmax-1.5, n = 5,000, k = 10:
about 15 s of CPU, far over the 5 s budget); the test cancels it after its progress bar has moved, so the
test itself stays a few seconds long.
"""

import time

import pytest

pytestmark = pytest.mark.e2e

HEAVY = "dataset=blobs&n=5000&k=10&kind=entmax15&seed=913"  # a seed no other test computes
BAR = "[data-testid='stProgress']"
BAR_SAYS = (
    "([sel, words]) => { const b = document.querySelector(sel); return b &&  b.innerText.includes(words); }"
)


def bar_text(student) -> str:
    return student.page.locator(BAR).first.inner_text()


def press_cancel(student, view: str) -> None:
    """Press Cancel; the page must say "Cancelled after" within 5 s and finish its run without problems."""
    clicked = time.monotonic()
    student.page.get_by_role("button", name="Cancel").click()
    student.page.get_by_text("Cancelled after").wait_for(timeout=10_000)
    answered = time.monotonic() - clicked
    student.wait_for_run()
    student.assert_no_problems()
    assert answered < 5.0, f"the page took {answered:.1f} s to answer Cancel"
    print(f"{view}: Cancel answered in {answered:.2f} s")


def test_cancel_stops_a_heavy_computation_and_the_page_keeps_working(server, student):
    student.open(f"{server.url}/Annealing?{HEAVY}")
    student.assert_no_problems()
    assert "Not started" in student.text() and not student.figures()

    student.page.get_by_role("button", name="Compute anyway").click()
    student.page.wait_for_selector(BAR)
    assert "Computing the annealing run" in student.text()
    first = bar_text(student)
    # the notice's button is replaced by Cancel, not left beside it (faded) while the work runs
    assert not student.page.get_by_role("button", name="Compute anyway").count()
    # the bar is redrawn while the work runs (its seconds count up even between the work's own steps)
    student.page.wait_for_function(
        "([sel, first]) => { const b = document.querySelector(sel); return b && b.innerText !== first; }",
        arg=[BAR, first],
        timeout=15_000,
    )

    press_cancel(student, "Annealing")
    text = student.text()
    assert "Not started" in text and "nothing of it was kept" in text  # it asks again, it does not restart
    assert not student.page.locator(BAR).count() and not student.figures()

    # the page keeps working: a setting within the budget is computed and drawn as usual
    student.open(f"{server.url}/Annealing?dataset=blobs&n=300&k=3&seed=913")
    student.assert_no_problems()
    assert student.wait_for_figures(1) and "Cancelled" not in student.text()


def test_the_explorer_asks_before_its_heaviest_map_and_cancel_stops_it(server, student):
    """α-entmax at n = 5,000, k = 10: about 20 s of CPU for the plane at every σ (cost.explorer_cost)."""
    student.open(f"{server.url}/Explorer?dataset=blobs&n=5000&k=10&kind=entmax&alpha=1.3&seed=913")
    student.assert_no_problems()
    assert "Not started" in student.text() and student.scrub() is None

    student.page.get_by_role("button", name="Compute anyway").click()
    # the levels near the σ on screen come first; cancel while the others' EM runs (the long part)
    student.page.wait_for_function(
        BAR_SAYS,
        arg=[BAR, "other σ levels"],
        timeout=30_000,
    )
    student.page.wait_for_timeout(1500)
    assert student.page.locator(BAR).count(), "the rest of the levels was computed within 1.5 s"
    press_cancel(student, "Explorer")
    assert "Not started" in student.text() and not student.page.locator(BAR).count()
