"""An accessibility audit of every page: axe-core (the npm package, pinned in tests/e2e/a11y.py)
injected by Playwright into the home page and every view of ui.page.PAGES, each in the light theme,
in presenter mode and in the dark theme (the browser asks for dark, Streamlit follows), once the page
has drawn all its figures. Presenter mode changes sizes and the theme changes colours, so presenter
mode is audited in the light theme only. Some states need a click first (a lesson answered, the
Explorer's picking panel, steps taken and one stepped back, the race of restarts run, a network trained
and its other tabs): SCENARIOS, in both themes,
audited in the same test and tab as the page's first state. One page load per page for both themes:
each state is audited in the theme the page is in, then the browser switches its colour scheme and
Streamlit follows in place (no reload, no rerun; tests/e2e/test_e2e_theme.py) and the state is
audited again, so the next click happens in that theme (light, dark; dark, light; …).

Any serious or critical violation of the WCAG 2.0, 2.1 and 2.2 A/AA rules fails the page's test with
the rule, its help page and the offending elements; moderate and minor ones are reported as warnings.
axe cannot judge the contrast of text drawn in a Plotly figure's SVG (it cannot see what is behind
it): the test measures that itself (tests/e2e/a11y.py, figure_texts) against the WCAG AA ratios.
Every result is saved to artifacts/accessibility/<test>.json.

The page is audited with a viewport as tall as its content: Streamlit scrolls inside its main area
and its sidebar, and axe's colour-contrast rule skips text scrolled out of view in such a region.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from a11y import (
    FAILING_IMPACTS,
    AxeUnavailable,
    axe_script,
    contrast_ratio,
    describe,
    describe_texts,
    figure_texts,
    required_ratio,
    run_axe,
)
from playwright.sync_api import expect

from harness import settings
from harness.settings import require_browser
from harness.student import DRAWN_JS
from ui.page import PAGES

pytestmark = pytest.mark.e2e

ARTIFACTS = settings.ARTIFACTS / "accessibility"
# axe's tags for the WCAG 2.0, 2.1 and 2.2 success criteria at levels A and AA (2.2 adds AA rules only)
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# (axe rule id, CSS selector): elements drawn by Streamlit or Plotly themselves that the app cannot
# change, each with the reason. Never a whole rule.
EXCLUSIONS: list[tuple[str, str]] = []
MAX_HEIGHT = 12_000  # px: the tallest viewport used to bring a whole page into view
_CONTENT_HEIGHT_JS = """() => Math.max(
  ...["[data-testid='stMain']", "[data-testid='stSidebarContent']"].map(
    (sel) => (document.querySelector(sel) || { scrollHeight: 0 }).scrollHeight))"""


def _slug(path: str) -> str:
    """Streamlit's address of pages/<n>_<Some_name>.py: /Some_name."""
    return Path(path).stem.split("_", 1)[1]


TARGETS = [("Home", "")] + [(label, _slug(path)) for path, label, _ in PAGES]
THEMES = ("light", "dark")  # each page (and each state behind a click) in both, in one test
# mode -> the themes audited in it, one after the other in one page load
MODES = {"themes": THEMES, "presenter": ("light",)}
CASES = [
    pytest.param(slug, MODES[mode], mode == "presenter", id=f"{label}-{mode}".replace(" ", "_"))
    for label, slug in TARGETS
    for mode in MODES
]
# The page has taken the theme: the app's background, every st.plotly_chart figure's paper and the σ
# scrubber's figure are dark (or light).
THEME_TAKEN_JS = """(dark) => {
  const side = (el) => { const c = el && getComputedStyle(el).backgroundColor.match(/[\\d.]+/g);
    if (!c) return null; const y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    return y < 80 ? "dark" : y > 200 ? "light" : null; };
  const want = dark ? "dark" : "light", app = document.querySelector("[data-testid='stApp']");
  if (side(app) !== want) return false;
  const charts = document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot");
  const papers = Array.from(charts, (gd) => gd.querySelector(".main-svg"));
  if (!papers.every((svg) => side(svg) === want)) return false;
  const scrub = document.querySelector("div.scrub-plot");
  return !scrub || scrub.dataset.theme === want;
}"""


@pytest.fixture(scope="session")
def axe_js() -> Path:
    try:
        return axe_script()
    except AxeUnavailable as exc:
        if require_browser():
            pytest.fail(f"RBFVIZ_REQUIRE_BROWSER=1 but axe-core is unavailable: {exc}")
        pytest.skip(f"axe-core is unavailable: {exc}")


def wait_until_drawn(student) -> None:
    """Wait for the script run and every figure, then bring the whole page into one viewport and wait
    for the layout to settle and every figure to be drawn again."""
    page = student.page
    student.wait_for_run()
    page.wait_for_function(DRAWN_JS)
    size = page.viewport_size
    height = min(max(size["height"], int(page.evaluate(_CONTENT_HEIGHT_JS)) + 40), MAX_HEIGHT)
    page.set_viewport_size({"width": size["width"], "height": height})
    student.wait_for_layout()
    page.wait_for_function(DRAWN_JS)


def test_every_page_is_audited():
    """The audit follows the menu: the home page and every view, in both themes and in presenter mode."""
    assert len(CASES) == len(MODES) * (len(PAGES) + 1)
    assert {c.values[0] for c in CASES} == {""} | {_slug(p) for p, _, _ in PAGES}
    for slug in {c.values[0] for c in CASES}:
        audited = {(theme, c.values[2]) for c in CASES if c.values[0] == slug for theme in c.values[1]}
        assert audited == {("light", False), ("dark", False), ("light", True)}, (slug, audited)


def test_contrast_ratio_is_wcags():
    """The figure-text check's arithmetic against WCAG's own numbers: black on white is 21:1, a colour
    on itself 1:1, and #767676 is the lightest grey that reaches 4.5:1 on white (#777777 does not)."""
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#555867", "#555867") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio("#777777", "#ffffff") < 4.5
    assert (required_ratio(14, False), required_ratio(24, False), required_ratio(19, True)) == (4.5, 3.0, 3.0)
    assert required_ratio(18, True) == 4.5


def audit(student, axe_js, where: str, label: str = "") -> list[str]:
    """Audit the page as it is now (once drawn, all of it in view). Returns the failures as messages
    (none: empty); warns about moderate and minor findings; saves the results as JSON."""
    wait_until_drawn(student)
    student.assert_no_problems()
    result = run_axe(student.page, axe_js, WCAG_TAGS, EXCLUSIONS)
    texts = figure_texts(student.page)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{student.name}{'-' + label if label else ''}.json").write_text(
        json.dumps({**result, "figure_texts": texts}, indent=1, ensure_ascii=False)
    )
    where = f"{where} with axe-core {result['version']}"
    failing = [v for v in result["violations"] if v["impact"] in FAILING_IMPACTS]
    minor = [v for v in result["violations"] if v["impact"] not in FAILING_IMPACTS]
    faint = [t for t in texts if t["ratio"] < t["required"]]
    if minor:
        warnings.warn(f"moderate/minor accessibility findings on {where}:\n{describe(minor)}", stacklevel=1)
    problems = []
    if failing:
        problems.append(f"serious or critical accessibility violations on {where}:\n{describe(failing)}")
    if faint:
        problems.append(f"figure text below WCAG AA contrast on {where}:\n{describe_texts(faint)}")
    return problems


def switch_theme(student, scheme: str) -> None:
    """The browser asks for ``scheme``; wait until the page has taken it (Streamlit follows in place)."""
    student.page.emulate_media(color_scheme=scheme)
    student.page.wait_for_function(THEME_TAKEN_JS, arg=scheme == "dark")


@pytest.mark.parametrize(("slug", "themes", "presenter"), CASES)
def test_no_serious_accessibility_violation(server, student, axe_js, slug, themes, presenter):
    """The page as it opens, then (outside presenter mode) each state behind a click (SCENARIOS), each
    in every theme of ``themes``: audited in the page's theme, then in the next one after a switch."""
    order = list(themes)
    student.page.emulate_media(color_scheme=order[0])  # Streamlit's default theme follows the browser's
    student.open(f"{server.url}/{slug}" + ("?presenter=1" if presenter else ""))
    student.page.wait_for_function(THEME_TAKEN_JS, arg=order[0] == "dark")
    problems: list[str] = []

    def in_every_theme(state: str = "") -> None:
        for i, scheme in enumerate(order):
            if i:
                switch_theme(student, scheme)
            where = (
                f"/{slug}{', ' + state if state else ''} ({scheme} theme{', presenter' if presenter else ''})"
            )
            problems.extend(audit(student, axe_js, where, "-".join(filter(None, (state, scheme)))))
        order.reverse()  # the next state starts in the theme the page is in now

    in_every_theme()
    if slug in SCENARIOS and not presenter:
        for state in SCENARIOS[slug](student):
            in_every_theme(state)
    assert not problems, "\n".join(problems)


def test_every_state_behind_a_click_is_audited_in_both_themes():
    """Each scenario's page is audited in the light and the dark theme (not only in presenter mode)."""
    audited = {(c.values[0], theme) for c in CASES if not c.values[2] for theme in c.values[1]}
    assert {(slug, scheme) for slug in SCENARIOS for scheme in THEMES} <= audited


# --- states behind a click: what a page shows only after the student does something ---------------


def _main(student):
    return student.page.locator("[data-testid='stMain']")


def lessons_answered(student):
    """Lessons, first step: an answer given and checked, so the verdict box and the explanation show."""
    main = _main(student)
    radio = main.locator("[data-testid='stRadioOption']")
    with student.rerun():  # the answer is sent: "Check my answer" is enabled by that run
        if radio.count():
            radio.first.click()
        else:
            main.locator("[data-testid='stNumberInput'] input").first.fill("1")
            main.locator("[data-testid='stNumberInput'] input").first.press("Enter")
    with student.rerun():
        main.get_by_role("button", name="Check my answer").click()
    main.get_by_role("heading", name="Why").wait_for()
    yield "answered"


def explorer_picking(student):
    """Explorer: the panel for picking starting centres opened, and the sidebar's file upload."""
    _main(student).locator("[data-testid='stExpander'] summary").filter(has_text="Pick starting").click()
    sidebar = student.page.locator("[data-testid='stSidebar']")
    sidebar.locator("[data-testid='stExpander'] summary").filter(has_text="Your own data").click()
    sidebar.locator("[data-testid='stFileUploader']").wait_for()
    yield "picking"


def network_trained(student):
    """Neural network: the classifier trained (its figures), then the two other tabs."""
    main = _main(student)
    with student.rerun():
        main.get_by_role("button", name="Train the classifier").click()
    main.locator("[data-testid='stPlotlyChart']").first.wait_for()  # the page's rerun when training ends
    yield "trained"
    for number in (2, 3):
        tab = main.get_by_role("tab").filter(has_text=f"{number} ·")
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")
        main.get_by_role("tabpanel").filter(visible=True).first.wait_for()
        yield f"tab{number}"


def steps_taken(student):
    """Step by step: an E-step, an M-step and a Lloyd step taken (arrows, losses, the steps table)."""
    main = _main(student)
    for name in ("E-step", "M-step", "Lloyd step"):
        with student.rerun():
            main.get_by_role("button", name=name, exact=True).click()
    main.get_by_text("Iteration 3").wait_for()
    yield "steps"
    with student.rerun():  # scrubbed back: the iteration slider, "2 of 3" and the history's marker
        main.get_by_role("button", name="◀ Step back", exact=True).click()
    main.get_by_text("Iteration 2 of 3 taken").wait_for()
    yield "stepped back"


def race_run(student):
    """Annealing: the race of restarts against annealing run (its histogram, numbers and two planes)."""
    main = _main(student)
    button = main.get_by_role("button", name="Run the race", exact=True)
    button.scroll_into_view_if_needed()
    with student.rerun():
        button.click()
    main.get_by_text("A poor restart beside annealing").wait_for()
    yield "race"


SCENARIOS = {
    "Annealing": race_run,
    "Lessons": lessons_answered,
    "Explorer": explorer_picking,
    "Step_by_step": steps_taken,
    "Neural_network": network_trained,
}
