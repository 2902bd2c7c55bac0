"""Screenshots of every view for the documentation, from the running app in Debian's Chromium.

    .venv/bin/python docs/tools/screenshots.py                 # starts its own server, writes docs/images/
    .venv/bin/python docs/tools/screenshots.py --only explorer --out /tmp/shots

The only source of the site's screenshots (and of the README's): never edit an image by hand, run this.
CI runs it before building the site, and tests/docs/test_docs_images.py checks every image in SHOTS (size,
not a blank frame). Playwright drives Debian's Chromium (/usr/bin/chromium or $CHROMIUM_PATH), as the
browser tests do; the server is harness/streamlit_server.py's and the waits are the browser tests'
(harness/student.py): a shot is taken once the page's runs have finished, every figure is drawn and
the layout has stopped changing. Class sessions use a throw-away SQLite store in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "images"
VIEWPORT = {"width": 1400, "height": 900}


@dataclass(frozen=True)
class Shot:
    """One screenshot: docs/images/<name>.png of the app at ``address`` (path and query), VIEWPORT
    pixels. ``clicks``: buttons pressed in order (by their label) first; ``answers``: then students
    answer the class session's open question; ``scroll_to``: a Playwright selector whose first element
    is scrolled to the top of the window (default: the page's top)."""

    name: str
    address: str
    what: str
    dark: bool = False
    clicks: tuple[str, ...] = ()
    scroll_to: str | None = None
    # after the clicks: students join the teacher's class session and answer the open question, each
    # with the option of this index (A = 0), before the shot
    answers: tuple[int, ...] = ()


# the σ scrubber's slider row (the main figure is under it), or the first Plotly chart
FIGURE = "input.scrub-range >> nth=0"
CHART = "[data-testid='stPlotlyChart'] >> nth=0"
# Streamlit scrolls inside its main area, not the window
_SCROLL_JS = """(el) => { const main = document.querySelector("[data-testid='stMain']");
  main.scrollTop += el.getBoundingClientRect().top - 70; }"""


SHOTS = (
    Shot("home", "/", "the home page"),
    Shot("explorer", "/Explorer", "the Explorer at its defaults"),
    Shot(
        "step-by-step",
        "/Step_by_step?steps=EM",
        "Step by step after an E-step and an M-step",
        scroll_to=CHART,
    ),
    Shot("annealing", "/Annealing", "Annealing: the centres as σ falls", scroll_to=FIGURE),
    Shot("how-many-clusters", "/How_many_clusters", "three answers to how many clusters", scroll_to=CHART),
    Shot("stability", "/Stability", "Stability: where naive breaks, entmax-1.5 sparse", scroll_to=FIGURE),
    Shot("equivalence", "/Equivalence", "one gradient step next to one Lloyd step", scroll_to=FIGURE),
    Shot("gaussian-mixture", "/Gaussian_mixture", "softmax as a Gaussian mixture's E-step", scroll_to=CHART),
    Shot("lessons", "/Lessons", "the first lesson step"),
    Shot("neural-network", "/Neural_network", "the RBF layer inside networks"),
    Shot("explorer-presenter", "/Explorer?presenter=1", "the Explorer in presenter mode"),
    Shot("explorer-dark", "/Explorer", "the Explorer in the dark theme", dark=True),
    Shot(
        "class-session",
        "/Lessons?presenter=1",
        "a teacher's class session on the projector: the room's code, the join link and its QR code",
        clicks=("Start a class session",),
    ),
    Shot(
        "class-question",
        "/Lessons?presenter=1",
        "the class's answers to the step's question, while it is open",
        clicks=("Start a class session", "Ask the class"),
        answers=(1, 1, 2, 1, 0),
        scroll_to="h3:has-text('Ask the class') >> nth=0",
    ),
)


def answer_as_students(teacher, browser, answers: tuple[int, ...]) -> None:
    """Each answer by a new student (a browser context of its own) who joins the teacher's room with
    the link on the teacher's page; returns once the teacher's panel counts them all."""
    import re

    from harness.student import HANG_TIMEOUT_MS, Student

    link = teacher.page.locator(".rbfviz-room-link").inner_text().strip()
    for option in answers:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            student = Student(context.new_page())
            student.page.set_default_timeout(HANG_TIMEOUT_MS)
            student.open(link)
            choice = re.compile(rf"^{chr(65 + option)} · ")
            student.page.locator("[data-testid='stMain']").get_by_text(choice).click()
            student.page.get_by_role("button", name="Send my answer").click()
            student.page.get_by_text("Your answer is in").wait_for()
        finally:
            context.close()
    # the teacher's panel refreshes by itself (every 1.5 s)
    teacher.page.wait_for_function(
        """(n) => Array.from(document.querySelectorAll("[data-testid='stMetric']")).some((m) =>
             m.textContent.startsWith("Answered") && m.textContent.endsWith(String(n)))""",
        arg=len(answers),
    )


def take(student, url: str, shot: Shot, out: Path, browser=None) -> Path:
    """Open ``url`` with ``student`` (harness/student.py), press ``shot.clicks``, scroll, wait until
    everything is drawn, save the viewport."""
    from harness.student import DRAWN_JS  # tests/e2e, on sys.path once main() has run

    page = student.page
    student.open(url)
    for label in shot.clicks:
        button = page.get_by_role("button", name=label)
        with student.rerun():
            button.click()
    if shot.answers:
        answer_as_students(student, browser, shot.answers)
    page.wait_for_function(DRAWN_JS)
    student.wait_for_layout()
    student.wait_for_run()
    page.wait_for_function(DRAWN_JS)
    if shot.scroll_to:
        page.locator(shot.scroll_to).evaluate(_SCROLL_JS)
    else:
        page.evaluate("() => document.querySelector(\"[data-testid='stMain']\").scrollTo(0, 0)")
    student.wait_for_layout()
    page.wait_for_function(DRAWN_JS)
    path = out / f"{shot.name}.png"
    page.screenshot(path=str(path))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (default docs/images)")
    parser.add_argument("--only", default="", help="comma-separated shot names (default: all)")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from harness.chromium import CHROMIUM_ARGS
    from harness.streamlit_server import StreamlitServer
    from harness.student import HANG_TIMEOUT_MS, Student

    wanted = [s for s in SHOTS if not args.only or s.name in args.only.split(",")]
    if not wanted:
        parser.error(f"no shot named {args.only!r}; known: {', '.join(s.name for s in SHOTS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="rbfviz-shots-") as data_dir:
        os.environ["RBFVIZ_DATA_DIR"] = data_dir  # the class store of this server only
        os.environ.pop("RBFVIZ_DATABASE_URL", None)
        server = StreamlitServer(Path(data_dir) / "server.log")
        try:
            server.wait_healthy(HANG_TIMEOUT_MS / 1000)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
                try:
                    for shot in wanted:
                        context = browser.new_context(
                            viewport=VIEWPORT, color_scheme="dark" if shot.dark else "light"
                        )
                        try:
                            page = context.new_page()
                            page.set_default_timeout(HANG_TIMEOUT_MS)
                            path = take(Student(page), server.url + shot.address, shot, args.out, browser)
                        finally:
                            context.close()
                        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {shot.what}")
                finally:
                    browser.close()
        finally:
            server.stop()
    print(f"{len(wanted)} screenshots in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
