"""An accessibility audit of every page: axe-core (the npm package, pinned in tests/e2e/a11y.py)
injected by Playwright into the home page and every view of ui.page.PAGES, each also in presenter
mode, once the page has drawn all its figures. Any serious or critical violation of the WCAG 2.0,
2.1 and 2.2 A/AA rules fails the page's test with the rule, its help page and the offending elements;
moderate and minor ones are reported as warnings (and every result is saved to
artifacts/accessibility/<page>.json).

The page is audited with a viewport as tall as its content: Streamlit scrolls inside its main area
and its sidebar, and axe's colour-contrast rule skips text scrolled out of view in such a region.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest
from a11y import FAILING_IMPACTS, AxeUnavailable, axe_script, describe, run_axe

from ui.page import PAGES

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "accessibility"
# axe's tags for the WCAG 2.0, 2.1 and 2.2 success criteria at levels A and AA (2.2 adds AA rules only)
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# (axe rule id, CSS selector): elements drawn by Streamlit or Plotly themselves that the app cannot
# change, each with the reason. Never a whole rule.
EXCLUSIONS: list[tuple[str, str]] = []
MAX_HEIGHT = 12_000  # px: the tallest viewport used to bring a whole page into view
# A page has drawn when no spinner or skeleton is left, every Plotly chart has been laid out and the
# σ scrubber (ui/scrub.js) has drawn its level.
_DRAWN_JS = """() => {
  if (document.querySelector("[data-testid='stSpinner'], [data-testid='stSkeleton']")) return false;
  const charts = Array.from(document.querySelectorAll("[data-testid='stPlotlyChart']"));
  if (!charts.every((c) => { const p = c.querySelector(".js-plotly-plot"); return p && p._fullLayout; }))
    return false;
  const scrub = document.querySelector("div.scrub-plot");
  return !scrub || (scrub._fullLayout !== undefined && scrub.dataset.level !== undefined);
}"""
_CONTENT_HEIGHT_JS = """() => Math.max(
  ...["[data-testid='stMain']", "[data-testid='stSidebarContent']"].map(
    (sel) => (document.querySelector(sel) || { scrollHeight: 0 }).scrollHeight))"""


def _slug(path: str) -> str:
    """Streamlit's address of pages/<n>_<Some_name>.py: /Some_name."""
    return Path(path).stem.split("_", 1)[1]


TARGETS = [("Home", "")] + [(label, _slug(path)) for path, label, _ in PAGES]
CASES = [
    pytest.param(slug, presenter, id=f"{label}{'-presenter' if presenter else ''}".replace(" ", "_"))
    for label, slug in TARGETS
    for presenter in (False, True)
]


@pytest.fixture(scope="session")
def axe_js() -> Path:
    try:
        return axe_script()
    except AxeUnavailable as exc:
        if os.environ.get("RBFVIZ_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RBFVIZ_REQUIRE_BROWSER=1 but axe-core is unavailable: {exc}")
        pytest.skip(f"axe-core is unavailable: {exc}")


def wait_until_drawn(student) -> None:
    """Wait for every figure, then bring the whole page into one viewport and wait again."""
    page = student.page
    page.wait_for_function(_DRAWN_JS, timeout=120_000)
    size = page.viewport_size
    height = min(max(size["height"], int(page.evaluate(_CONTENT_HEIGHT_JS)) + 40), MAX_HEIGHT)
    page.set_viewport_size({"width": size["width"], "height": height})
    page.wait_for_timeout(500)
    page.wait_for_function(_DRAWN_JS, timeout=120_000)


def test_every_page_is_audited():
    """The audit follows the menu: the home page and every view, each also in presenter mode."""
    assert len(CASES) == 2 * (len(PAGES) + 1)
    assert {slug for slug, _ in (c.values for c in CASES)} == {""} | {_slug(p) for p, _, _ in PAGES}


@pytest.mark.parametrize(("slug", "presenter"), CASES)
def test_no_serious_accessibility_violation(server, student, axe_js, slug, presenter):
    student.open(f"{server.url}/{slug}" + ("?presenter=1" if presenter else ""))
    wait_until_drawn(student)
    student.assert_no_problems()
    result = run_axe(student.page, axe_js, WCAG_TAGS, EXCLUSIONS)

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{student.name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    where = f"{slug or 'home'}{' (presenter)' if presenter else ''} with axe-core {result['version']}"
    failing = [v for v in result["violations"] if v["impact"] in FAILING_IMPACTS]
    minor = [v for v in result["violations"] if v["impact"] not in FAILING_IMPACTS]
    if minor:
        warnings.warn(f"moderate/minor accessibility findings on {where}:\n{describe(minor)}", stacklevel=1)
    assert not failing, f"serious or critical accessibility violations on {where}:\n{describe(failing)}"
