"""Screenshots of every view for the documentation, from the running app in Debian's Chromium.

    .venv/bin/python docs/tools/screenshots.py                 # starts its own server, writes docs/images/
    .venv/bin/python docs/tools/screenshots.py --only explorer --out /tmp/shots
    .venv/bin/python docs/tools/screenshots.py --check         # as CI: exit 1 if a page's text changed
    .venv/bin/python docs/tools/screenshots.py --lang pt-BR    # only the Portuguese shots

The only source of the site's screenshots (and of the README's): never edit an image by hand, run this.
Beside each image it writes the page's visible text as Chromium renders it (<name>.txt; ``page_text``),
so that a screenshot cannot silently show an older page: CI runs it with ``--check`` after building the
site (the Home page shows its link), which fails, after writing the new files, when a page's text is not
the committed one. tests/docs/test_docs_images.py checks every image in SHOTS (size, not a blank frame)
and its text. Playwright drives Debian's Chromium (/usr/bin/chromium or $CHROMIUM_PATH), as the browser
tests do; the server is harness/streamlit_server.py's and the waits are the browser tests'
(harness/student.py): a shot is taken once the page's runs have finished, every figure is drawn and the
layout has stopped changing. Class sessions use a throw-away SQLite store in a temporary folder.

Every shot is taken in each of LANGUAGES: <name>.png with the app in English, <name>.pt-BR.png with it
opened with ``lang=pt-BR`` (the buttons it presses and the texts it waits for in that language, from the
app's catalog). The Portuguese pages of the site show <name>.pt-BR.png where the English ones show
<name>.png (mkdocs-static-i18n: a file with the page's language suffix replaces the plain one).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "images"
SITE_INDEX = ROOT / "static" / "docs" / "index.html"  # the built site, which the Home page links to
VIEWPORT = {"width": 1400, "height": 900}
CHECK_TRIES = 3  # with --check: how many times a page whose text differs is taken before it fails
# the languages of the shots: English (the plain names) first, then each other one as a name suffix
LANGUAGES = ("en", "pt-BR")


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
    # the app's language (rbfviz.i18n.LANGUAGES); ``clicks`` are the English labels, pressed as the
    # catalog translates them
    lang: str = "en"

    def in_language(self, lang: str) -> Shot:
        """This shot with the app in ``lang``: named <name>.<lang> (the plain name in English), its
        address with ``lang=``."""
        if lang == "en":
            return replace(self, lang=lang)
        joiner = "&" if "?" in self.address else "?"
        return replace(
            self, name=f"{self.name}.{lang}", address=f"{self.address}{joiner}lang={lang}", lang=lang
        )

    def words(self, message: str) -> str:
        """An English message of the app as this shot's page shows it (the app's catalog)."""
        from rbfviz.i18n import translator

        return translator(self.lang)(message)


# Parts of a page's text that differ from run to run without the page changing: the server's port, a
# class room's code and its join link's seat, replaced by a placeholder before the text is compared.
VOLATILE = (
    (re.compile(r"http://(127\.0\.0\.1|localhost):\d+"), "http://127.0.0.1:PORT"),
    (re.compile(r"\b[0-9A-Z]{4}-[0-9A-Z]{4}\b"), "ROOM-CODE"),
    (re.compile(r"\broom=[0-9A-Za-z]+"), "room=ROOM"),
)


# Plotly's tick labels: numbers read off the data, not words of the page. A log axis starts a decade
# below its smallest value, and values at rounding level (10⁻¹⁶) differ from run to run with the BLAS
# threads' summation order, so its ticks do too.
_HIDE_TICKS_JS = "() => document.querySelectorAll('g.xtick, g.ytick').forEach((g) => g.remove())"


def page_text(page) -> str:
    """The text Chromium shows on the page (the sidebar and the main area, as rendered: hidden parts
    and the figures' tick labels left out), one line per line, with ``VOLATILE`` parts replaced. Call it
    after the screenshot: it hides the tick labels."""
    page.evaluate(_HIDE_TICKS_JS)
    text = page.locator("body").inner_text()
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


# What the processor's own rounding decides (AVX2 and AVX-512 kernels sum in other orders): how many EM
# iterations reach the tolerance, and a difference at rounding level (2.1e-15 or 3.3e-15). Compared as
# these placeholders; the committed text keeps the numbers of the machine that took it.
MACHINE_DEPENDENT = (
    (re.compile(r"\(\d+ (EM iterations?|iteraç(?:ão|ões) de EM)"), r"(# \1"),
    (re.compile(r"\b\d+(?:[.,]\d+)?e-1\d\b"), "ROUNDING"),
)
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")  # 0.529, 1,234, 1,234.5
_SWAP = str.maketrans(".,", ",.")  # pt-BR's 0,529 and 1.500 as 0.529 and 1,500


def _last_digit_apart(old: str, new: str) -> bool:
    """Whether two printed numbers differ by at most one unit of their last printed digit: the same
    computation on another processor (AVX2 or AVX-512 kernels) may round a last digit the other way.
    Whole numbers (counts, steps, n) must be equal."""
    if "." not in old + new:
        return False
    places = max(len(text.partition(".")[2]) for text in (old, new))
    return abs(float(old.replace(",", "")) - float(new.replace(",", ""))) <= 1.000001 * 10.0**-places


def _same_page(old: str, new: str, decimal_comma: bool) -> bool:
    """Whether two texts of a shot differ only in what the processor decides (``MACHINE_DEPENDENT``) and
    in numbers one unit of their last printed digit apart (``_last_digit_apart``)."""
    for pattern, placeholder in MACHINE_DEPENDENT:
        old, new = pattern.sub(placeholder, old), pattern.sub(placeholder, new)
    if decimal_comma:  # read as English numbers: the separators swapped in both texts alike
        old, new = old.translate(_SWAP), new.translate(_SWAP)
    if _NUMBER.sub("#", old) != _NUMBER.sub("#", new):
        return False
    return all(a == b or _last_digit_apart(a, b) for a, b in zip(_NUMBER.findall(old), _NUMBER.findall(new)))


def text_change(name: str, old: str | None, new: str, decimal_comma: bool = False) -> str:
    """A unified diff of a shot's committed text and its new one; "" if they are the same page
    (``_same_page``). With ``decimal_comma`` the numbers are written 0,529 and 1.500 (pt-BR)."""
    if old is None:
        return f"{name}.txt: no committed text\n"
    if old == new or _same_page(old, new, decimal_comma):
        return ""
    diff = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"committed {name}.txt", f"new {name}.txt", lineterm="", n=1
    )
    return "\n".join(diff) + "\n"


_HAS_TEXT = re.compile(r"has-text\('([^']*)'\)")
# the σ scrubber's slider row (the main figure is under it), or the first Plotly chart
FIGURE = "input.scrub-range >> nth=0"
CHART = "[data-testid='stPlotlyChart'] >> nth=0"
# Streamlit scrolls inside its main area, not the window
_SCROLL_JS = """(el) => { const main = document.querySelector("[data-testid='stMain']");
  main.scrollTop += el.getBoundingClientRect().top - 70; }"""


_ENGLISH_SHOTS = (
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
SHOTS = tuple(shot.in_language(lang) for lang in LANGUAGES for shot in _ENGLISH_SHOTS)


# the student's confirmation (ui/classroom.py): its words before the answer, in the shot's language
ANSWER_IS_IN = "Your answer is in: {said}. You can change it until the teacher reveals the answer."


def answer_as_students(teacher, browser, shot: Shot) -> None:
    """Each of ``shot.answers`` by a new student (a browser context of its own, in the shot's language)
    who joins the teacher's room with the link on the teacher's page; returns once the teacher's panel
    counts them all."""
    import re

    from harness.student import HANG_TIMEOUT_MS, Student

    link = teacher.page.locator(".rbfviz-room-link").inner_text().strip()
    answers = shot.answers
    for option in answers:
        context = browser.new_context(viewport=VIEWPORT, locale=shot.lang)
        try:
            student = Student(context.new_page())
            student.page.set_default_timeout(HANG_TIMEOUT_MS)
            student.open(link)
            choice = re.compile(rf"^{chr(65 + option)} · ")
            student.page.locator("[data-testid='stMain']").get_by_text(choice).click()
            student.page.get_by_role("button", name=shot.words("Send my answer")).click()
            student.page.get_by_text(shot.words(ANSWER_IS_IN).split("{", 1)[0].strip()).wait_for()
        finally:
            context.close()
    # the teacher's panel refreshes by itself (every 1.5 s)
    teacher.page.wait_for_function(
        """([label, n]) => Array.from(document.querySelectorAll("[data-testid='stMetric']")).some((m) =>
             m.textContent.startsWith(label) && m.textContent.endsWith(String(n)))""",
        arg=[shot.words("Answered"), len(answers)],
    )


def take(student, url: str, shot: Shot, out: Path, browser=None) -> tuple[Path, str]:
    """Open ``url`` with ``student`` (harness/student.py), press ``shot.clicks``, scroll, wait until
    everything is drawn, save the viewport. Returns the PNG's path and the page's text (``page_text``)."""
    from harness.student import DRAWN_JS  # tests/e2e, on sys.path once main() has run

    page = student.page
    student.open(url)
    for label in shot.clicks:
        button = page.get_by_role("button", name=shot.words(label))
        with student.rerun():
            button.click()
    if shot.answers:
        answer_as_students(student, browser, shot)
    if shot.clicks:
        # the pointer rests on the last button it clicked, whose help tooltip may show: move it to the
        # top corner, which only a page without a sidebar leaves empty (an open sidebar shows its
        # collapse button to a pointer there)
        page.mouse.move(0, 0)
    page.wait_for_function(DRAWN_JS)
    student.wait_for_layout()
    student.wait_for_run()
    page.wait_for_function(DRAWN_JS)
    if shot.scroll_to:  # a has-text('…') in it is the app's English words: in the shot's language
        target = _HAS_TEXT.sub(lambda m: f"has-text('{shot.words(m.group(1))}')", shot.scroll_to)
        page.locator(target).evaluate(_SCROLL_JS)
    else:
        page.evaluate("() => document.querySelector(\"[data-testid='stMain']\").scrollTo(0, 0)")
    student.wait_for_layout()
    page.wait_for_function(DRAWN_JS)
    path = out / f"{shot.name}.png"
    page.screenshot(path=str(path))
    return path, page_text(page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (default docs/images)")
    parser.add_argument("--only", default="", help="comma-separated shot names (default: all)")
    parser.add_argument(
        "--lang", default="", help=f"only the shots in this language ({', '.join(LANGUAGES)}; default: all)"
    )
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit 1 if a page's text differs from the committed <name>.txt (the new files are written)",
    )
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from harness.chromium import CHROMIUM_ARGS
    from harness.streamlit_server import StreamlitServer
    from harness.student import HANG_TIMEOUT_MS, Student

    wanted = [
        s
        for s in SHOTS
        if (not args.only or s.name in args.only.split(",")) and (not args.lang or s.lang == args.lang)
    ]
    if not wanted:
        parser.error(f"no shot named {args.only!r}; known: {', '.join(s.name for s in SHOTS)}")
    if not SITE_INDEX.is_file():
        # the Home page links to the built site, or says it is not built: the shots show the link
        parser.error(
            f"build the documentation first ({SITE_INDEX.relative_to(ROOT)} is missing): mkdocs build"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    changes = []
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
                        text_path = args.out / f"{shot.name}.txt"
                        old = text_path.read_text(encoding="utf-8") if text_path.is_file() else None
                        # a page whose text differs is taken again (up to CHECK_TRIES times in all): a
                        # live page read a moment early is not a changed page, and a changed one
                        # differs every time
                        for _ in range(CHECK_TRIES if args.check else 1):
                            context = browser.new_context(
                                viewport=VIEWPORT,
                                color_scheme="dark" if shot.dark else "light",
                                locale=shot.lang,
                            )
                            try:
                                page = context.new_page()
                                page.set_default_timeout(HANG_TIMEOUT_MS)
                                path, text = take(
                                    Student(page), server.url + shot.address, shot, args.out, browser
                                )
                            finally:
                                context.close()
                            change = text_change(shot.name, old, text, decimal_comma=shot.lang == "pt-BR")
                            if not change:
                                break
                        changes.append(change)
                        text_path.write_text(text, encoding="utf-8")
                        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {shot.what}")
                finally:
                    browser.close()
        finally:
            server.stop()
    print(f"{len(wanted)} screenshots in {time.monotonic() - started:.0f} s")
    changed = [change for change in changes if change]
    if args.check and changed:
        print("".join(changed), end="")
        print(
            f"{len(changed)} page(s) show other text than their committed screenshot: commit the new "
            f"images and texts in {args.out} (docs/contribute/docs.md)"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
