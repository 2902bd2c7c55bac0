"""A student at a browser: the few things the browser tests do with the app, in Streamlit's terms.

Waiting follows Streamlit's own e2e suite: a short pause for the rerun to start, then
``[data-testid='stApp'][data-test-connection-state='CONNECTED']`` and
``[data-test-script-state='notRunning']``. A test then polls for the change it expects (the figure
title, a slider value), because a fast rerun can finish before the first check runs.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import Locator, Page

APP = "[data-testid='stApp']"
PLOT = "[data-testid='stPlotlyChart'] .js-plotly-plot"

# Everything the browser knows about each Plotly figure on the page: the drawn title, a fingerprint
# of its data, and its animation controls (frames, Play buttons, the frame slider's active step).
_FIGURES_JS = """(sel) => Array.from(document.querySelectorAll(sel)).map((el) => {
  const L = el._fullLayout || {};
  const menus = (L.updatemenus || []).flatMap((m) => (m.buttons || []).map((b) => b.label));
  return {
    title: (L.title && L.title.text) || "",
    data: JSON.stringify(el.data || []),
    traces: (el.data || []).length,
    frames: ((el._transitionData || {})._frames || []).length,
    buttons: menus,
    slider_active: (L.sliders && L.sliders.length) ? L.sliders[0].active : null,
    slider_steps: (L.sliders && L.sliders.length) ? L.sliders[0].steps.length : 0,
  };
})"""


def plain(html: str) -> str:
    """Plotly title text without its <b>…</b> markup."""
    return re.sub(r"<[^>]+>", "", html)


class Student:
    def __init__(self, page: Page, screenshots: Path | None = None, name: str = "student"):
        self.page = page
        self.screenshots = screenshots
        self.name = name
        self.page_errors: list[str] = []
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))

    # --- waiting --------------------------------------------------------------------------------
    def wait_for_run(self, start_delay_ms: int = 250, settle_ms: int = 150) -> None:
        """Wait until the script run the last action triggered has finished."""
        self.page.wait_for_timeout(start_delay_ms)
        self.page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']")
        self.page.wait_for_selector(f"{APP}[data-test-script-state='notRunning']")
        self.page.wait_for_timeout(settle_ms)

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its first run. Before that run starts the app already reports
        notRunning, so first wait for the page's title (every page's first element after setup)."""
        self.page.goto(url)
        self.page.wait_for_selector(f"{APP}[data-test-connection-state='CONNECTED']")
        self.page.locator("h1").first.wait_for()
        self.wait_for_run()

    # --- reading the page -----------------------------------------------------------------------
    def figures(self) -> list[dict]:
        return self.page.evaluate(_FIGURES_JS, PLOT)

    def wait_for_figures(self, count: int = 1) -> list[dict]:
        self.page.wait_for_function(f"(sel) => document.querySelectorAll(sel).length >= {count}", arg=PLOT)
        return self.figures()

    def wait_for_title(self, *parts: str, index: int = 0) -> str:
        """Wait until figure ``index``'s title contains every one of ``parts``; return the title."""
        self.page.wait_for_function(
            """([sel, i, parts]) => { const el = document.querySelectorAll(sel)[i];
                 const t = el && el._fullLayout && el._fullLayout.title ? el._fullLayout.title.text : "";
                 return parts.every((p) => t.includes(p)); }""",
            arg=[PLOT, index, list(parts)])
        return plain(self.figures()[index]["title"])

    def points(self, index: int = 0) -> list[tuple[float, float]]:
        """The (x, y) of every data point drawn in figure ``index`` (its traces named "points…"),
        read from Plotly's decoded data."""
        return [tuple(p) for p in self.page.evaluate(
            """([sel, i]) => { const el = document.querySelectorAll(sel)[i];
                 return (el._fullData || []).filter((t) => (t.name || "").startsWith("points"))
                   .flatMap((t) => Array.from(t.x).map((x, j) => [x, t.y[j]])); }""",
            [PLOT, index])]

    def path(self) -> str:
        return urlsplit(self.page.url).path

    def text(self) -> str:
        return self.page.locator(APP).inner_text()

    def heading(self) -> str:
        return self.page.locator("h1").first.inner_text()

    def query(self) -> dict[str, str]:
        return dict(parse_qsl(urlsplit(self.page.url).query))

    def metrics(self) -> dict[str, str]:
        labels = self.page.locator("[data-testid='stMetricLabel']").all_inner_texts()
        values = self.page.locator("[data-testid='stMetricValue']").all_inner_texts()
        return {" ".join(label.split()): value.strip() for label, value in zip(labels, values)}

    def metric(self, label_start: str) -> str:
        """The value of the one metric whose label starts with ``label_start``."""
        found = [v for label, v in self.metrics().items() if label.startswith(label_start)]
        assert len(found) == 1, f"expected one metric labelled {label_start!r}…, metrics: {self.metrics()}"
        return found[0]

    def nav_labels(self) -> list[str]:
        return [t.strip() for t in
                self.page.locator("[data-testid='stSidebar'] [data-testid='stPageLink']").all_inner_texts()]

    def problems(self) -> list[str]:
        """Exception boxes, error boxes and uncaught JavaScript errors on the page (empty = fine)."""
        found = [f"exception box: {t}" for t in
                 self.page.locator("[data-testid='stException']").all_inner_texts()]
        found += [f"error box: {t}" for t in
                  self.page.locator("[data-testid='stAlertContentError']").all_inner_texts()]
        found += [f"JavaScript error: {e}" for e in self.page_errors]
        return found

    def assert_no_problems(self) -> None:
        problems = self.problems()
        assert not problems, "the page shows problems:\n" + "\n".join(problems)

    # --- sidebar controls -----------------------------------------------------------------------
    def _sidebar_widget(self, testid: str, label: str) -> Locator:
        widget = self.page.locator(f"[data-testid='stSidebar'] [data-testid='{testid}']").filter(
            has=self.page.locator("[data-testid='stWidgetLabel']", has_text=label))
        assert widget.count() == 1, f"expected one sidebar {testid} labelled {label!r}, found {widget.count()}"
        return widget

    def select(self, label: str, option: str) -> None:
        """Pick ``option`` (its shown text) in the sidebar selectbox ``label``."""
        self._sidebar_widget("stSelectbox", label).click()
        self.page.locator("[role='option']").filter(has_text=re.compile(rf"^{re.escape(option)}$")).click()
        self.wait_for_run()

    def slider_value(self, label: str) -> str:
        thumb = self._sidebar_widget("stSlider", label).locator("input[type='range']")
        return thumb.get_attribute("aria-valuetext") or thumb.input_value()

    def press_slider(self, label: str, key: str, times: int = 1) -> None:
        """Focus the slider's thumb and press ``key`` (ArrowLeft/ArrowRight/Home/End) ``times``,
        waiting for the rerun after each press, as a student watching the figure would."""
        thumb = self._sidebar_widget("stSlider", label).locator("input[type='range']")
        for _ in range(times):
            thumb.focus()
            self.page.keyboard.press(key)
            self.wait_for_run()

    def upload(self, section: str, name: str, data: bytes, mime: str = "text/csv") -> None:
        """Open the sidebar expander ``section`` (if closed) and choose a file ``name`` with content
        ``data`` in its file uploader, as if picked in the file dialog; wait for the rerun."""
        expander = self.page.locator("[data-testid='stSidebar'] [data-testid='stExpander']").filter(has_text=section)
        assert expander.count() == 1, f"expected one sidebar section {section!r}, found {expander.count()}"
        if expander.locator("details").get_attribute("open") is None:
            expander.locator("summary").click()
        expander.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
            {"name": name, "mimeType": mime, "buffer": data})
        self.wait_for_run()

    def go_to(self, view: str) -> None:
        """Click the sidebar's link to ``view``."""
        self.page.locator("[data-testid='stSidebar'] [data-testid='stPageLink']").filter(
            has_text=re.compile(rf"^\s*{re.escape(view)}\s*$")).click()
        self.wait_for_run()

    def screenshot(self, label: str | None = None) -> Path | None:
        """Save the whole view as <screenshots>/<test name>[-<label>].png (None if no folder is set)."""
        if self.screenshots is None:
            return None
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / (f"{self.name}-{label}.png" if label else f"{self.name}.png")
        # Streamlit scrolls inside its main container, so a "full page" shot is one viewport: grow
        # the viewport to the content's height (capped) to capture the whole view, then restore it.
        size = self.page.viewport_size
        height = self.page.evaluate(
            "() => (document.querySelector(\"[data-testid='stMain']\") || document.body).scrollHeight")
        self.page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height) + 40, 4000))})
        self.page.wait_for_timeout(300)
        self.page.screenshot(path=str(path), full_page=True)
        self.page.set_viewport_size(size)
        return path
