"""The offline pages (rbfviz.views.export) in Chromium, opened from file:// with every network request
blocked:

* each view's page: the σ control by keyboard (arrows, Page Up/Down, Home, End) and by mouse drag, and on
  Annealing Play; every level drawn is the payload's level (rbfviz.views.common.scrub.figure_at: the
  figure the app draws), the numbers beside it and the "In words" sentence are that level's; nothing
  was requested but the file itself; axe-core finds no serious or critical violation (the app's audit,
  tests/e2e/a11y.py), at laptop size and at phone size (390 × 844, touch), where the page does not
  scroll sideways;
* Play and Pause on Annealing: level after level from the largest σ, holding where it paused;
* a page inside an <iframe> of a course page (Moodle, Canvas), drawn and moved there;
* the lesson pack (written by ``python -m rbfviz export --lessons``): every step answered in the page,
  each verdict and explanation equal to rbfviz.views.lessons.arrays.check's; each step's figure is its
  view's payload at the step's σ, and its link back to the app is the Lessons page's; the equations are
  drawn as MathML (no LaTeX source on the page); the page's number formatting is Python's ``{:.4g}``; on
  a phone, with every step answered, nothing runs off the screen and the audit passes;
* the lesson pack in Brazilian Portuguese (``--lang pt-BR``): its words, verdicts and links in Portuguese.
"""

from __future__ import annotations

import base64
import html
import math
import re
from urllib.parse import parse_qsl, urlsplit

import numpy as np
import pytest
from a11y import FAILING_IMPACTS, AxeUnavailable, axe_script, describe, figure_texts, run_axe
from plotly_shown import FIGURE_JS, assert_figure_is

from rbfviz.cli import main as cli
from rbfviz.i18n import translator
from rbfviz.views.common.scrub import figure_at, read_payload
from rbfviz.views.export.build import Setting, view_payload
from rbfviz.views.export.lesson_pack import inline_html
from rbfviz.views.export.maths import parts
from rbfviz.views.export.page import view_page
from rbfviz.views.lessons.arrays import STEPS, check, prepare
from ui.state import lesson_query

pytestmark = pytest.mark.e2e

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]  # as tests/e2e/test_e2e_accessibility.py
SETTING = dict(dataset="moons", n=150, k=3, seed=0)
TIMEOUT_MS = 120_000

# The scrubber's numbers beside the plot, its "In words" and its slider (FIGURE_JS reads the figure).
SCRUBBER_JS = """(holder) => {
  const root = holder ? document.querySelector(holder) : document;
  return { side: root.querySelector(".scrub-side").innerHTML,
           caption: root.querySelector(".scrub-caption").textContent,
           range: Number(root.querySelector("input.scrub-range").value),
           valuetext: root.querySelector("input.scrub-range").getAttribute("aria-valuetext") };
}"""


@pytest.fixture(scope="module")
def axe_js():
    try:
        return axe_script()
    except AxeUnavailable as exc:
        pytest.skip(f"axe-core is unavailable: {exc}")


def embedded_payload(page_html: str, payload_id: str = "rbfviz-payload") -> bytes:
    found = re.search(
        rf'<script type="application/octet-stream" id="{payload_id}">([^<]*)</script>', page_html
    )
    return base64.b64decode(found.group(1))


def offline_tab(browser, path, viewport=None, touch=False, also=()):
    """A new tab that may read the file (and the files in ``also``) and nothing else; returns (context,
    page, requests made)."""
    context = browser.new_context(
        viewport=viewport or {"width": 1366, "height": 768}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    requests, errors = [], []
    page.on("pageerror", lambda err: errors.append(str(err)))

    def route(route):
        requests.append(route.request.url)
        if route.request.url in [path.as_uri(), *(other.as_uri() for other in also)]:
            return route.continue_()
        return route.abort()

    context.route("**/*", route)
    page.goto((also[0] if also else path).as_uri())
    page.errors = errors
    return context, page, requests


def wait_level(page, level: int, holder: str = "") -> dict:
    page.wait_for_function(
        """([holder, n]) => { const root = holder ? document.querySelector(holder) : document;
          const gd = root && root.querySelector('div.scrub-plot');
          return gd && gd._fullLayout && Number(gd.dataset.level) === n; }""",
        arg=[holder, level],
    )
    return shown_now(page, holder)


def shown_now(page, holder: str = "") -> dict:
    """The figure Chromium holds (plotly_shown.FIGURE_JS) and the scrubber's numbers, words and slider."""
    return {**page.evaluate(FIGURE_JS, holder or None), **page.evaluate(SCRUBBER_JS, holder or None)}


def assert_level_is_the_apps(shown: dict, header: dict) -> None:
    """What Chromium holds at a level is figure_at's figure at that level, with that level's numbers."""
    level = shown["level"]
    want = figure_at(header, level)
    assert_figure_is(shown, want)
    annotations = [[a.get("text"), a.get("x"), a.get("y")] for a in want["layout"].get("annotations", [])]
    assert [a[0] for a in shown["annotations"]] == [a[0] for a in annotations]
    np.testing.assert_allclose(
        [a[1:] for a in shown["annotations"] if a[1] is not None],
        [a[1:] for a in annotations if a[1] is not None],
        rtol=0,
        atol=0,
    )
    frame = header["frames"][level]
    assert shown["side"] == frame["side"]
    assert shown["caption"] == (f"In words: {frame['caption']}" if frame["caption"] else "")
    assert shown["range"] == len(header["sigmas"]) - 1 - level
    assert shown["valuetext"] == f"σ = {header['texts'][level]}"


# every level the figure shows, in order (the plot's data-level as scrub.js sets it)
RECORD_LEVELS_JS = """() => { window.levelsShown = [];
  const gd = document.querySelector("div.scrub-plot");
  new MutationObserver(() => window.levelsShown.push(Number(gd.dataset.level)))
    .observe(gd, { attributes: true, attributeFilter: ["data-level"] }); }"""


def play_pause_and_play_to_the_end(page, header: dict) -> None:
    """▶ Play from the end of the slider runs the annealing from the largest σ, one level after another;
    ❚❚ Pause holds the level it reached (drawn as the app draws it); ▶ Play again goes on from there to the
    smallest σ and stops."""
    last = len(header["sigmas"]) - 1
    page.keyboard.press("Home")  # at the smallest σ: Play starts again from the largest
    page.evaluate(RECORD_LEVELS_JS)
    page.get_by_role("button", name="▶ Play").click()
    page.wait_for_function(f"window.levelsShown.length && window.levelsShown.at(-1) >= {last // 2}")
    page.get_by_role("button", name="❚❚ Pause").click()
    paused = shown_now(page)
    assert last // 2 <= paused["level"] < last
    page.wait_for_timeout(3 * header["play_ms"])
    assert_level_is_the_apps(wait_level(page, paused["level"]), header)  # it stays where it paused
    page.get_by_role("button", name="▶ Play").click()
    page.get_by_role("button", name="▶ Play").wait_for()  # it plays to the end, then stops
    assert_level_is_the_apps(wait_level(page, last), header)
    shown = page.evaluate("window.levelsShown")
    assert shown[0] == 0 and shown[-1] == last, shown
    assert shown == sorted(shown), shown  # forward only, from the largest σ to the smallest
    assert len(set(shown)) >= len(header["sigmas"]) // 2, shown  # level after level, not a jump


def audit(page, axe_js, where: str) -> None:
    result = run_axe(page, axe_js, WCAG_TAGS)
    failing = [v for v in result["violations"] if v["impact"] in FAILING_IMPACTS]
    assert not failing, f"serious or critical accessibility violations on {where}:\n{describe(failing)}"
    faint = [t for t in figure_texts(page) if t["ratio"] < t["required"]]
    assert not faint, f"figure text below WCAG AA contrast on {where}: {faint[:5]}"


def level_of_sigma(header: dict, sigma: float) -> int:
    sigmas = header["sigmas"]
    return min(range(len(sigmas)), key=lambda i: abs(math.log(sigmas[i] / sigma)))


@pytest.mark.parametrize("view", ["explorer", "annealing", "stability", "equivalence"])
def test_an_exported_view_scrubs_offline_as_the_app_draws_it(browser, axe_js, tmp_path, view):
    setting = Setting(view, **SETTING)
    page_html = view_page(setting)
    payload = embedded_payload(page_html)
    assert payload == view_payload(setting)  # the app's bytes (tests/app/test_export_build.py)
    header = read_payload(payload)
    path = tmp_path / f"{view}.html"
    path.write_text(page_html, encoding="utf-8")
    last = len(header["sigmas"]) - 1

    context, page, requests = offline_tab(browser, path)
    try:
        start = level_of_sigma(header, setting.sigma_or_default())
        assert_level_is_the_apps(wait_level(page, start), header)
        slider = page.locator("input.scrub-range")
        slider.focus()
        level = start
        for key, move in (("ArrowLeft", 1), ("ArrowLeft", 1), ("ArrowRight", -1), ("PageDown", None)):
            page.keyboard.press(key)
            if move is None:  # a page is a tenth of the range (at least one level), as the browser steps it
                moved = page.wait_for_function(
                    """n => { const gd = document.querySelector('div.scrub-plot');
                      const now = gd && Number(gd.dataset.level);
                      return now > n ? now : null; }""",
                    arg=level,
                )
                level = int(moved.json_value())
            else:
                level += move
            assert_level_is_the_apps(wait_level(page, level), header)
        page.keyboard.press("End")
        assert_level_is_the_apps(wait_level(page, 0), header)  # the largest σ is on the right
        page.keyboard.press("Home")
        assert_level_is_the_apps(wait_level(page, last), header)

        # a mouse drag along the slider from near its left end to its middle: every level it passes is drawn
        box = slider.bounding_box()
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + 0.05 * box["width"], y)
        page.mouse.down()
        for fraction in (0.2, 0.35, 0.5):
            page.mouse.move(box["x"] + fraction * box["width"], y, steps=4)
            shown = shown_now(page)
            assert_level_is_the_apps(wait_level(page, shown["level"]), header)
        page.mouse.up()
        shown = shown_now(page)
        assert 0 < shown["level"] < last
        assert_level_is_the_apps(shown, header)

        if view == "annealing":
            play_pause_and_play_to_the_end(page, header)

        audit(page, axe_js, f"the exported {view} page")
        assert not page.errors, page.errors
        assert requests == [path.as_uri()], requests
    finally:
        context.close()

    # a phone: touch, 390 × 844; the page fits the width and a tap on the slider moves σ
    context, page, requests = offline_tab(browser, path, {"width": 390, "height": 844}, touch=True)
    try:
        assert_level_is_the_apps(wait_level(page, start), header)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator("input.scrub-range").bounding_box()
        page.touchscreen.tap(box["x"] + 0.1 * box["width"], box["y"] + box["height"] / 2)
        page.wait_for_function(f"Number(document.querySelector('div.scrub-plot').dataset.level) > {start}")
        assert_level_is_the_apps(shown_now(page), header)
        audit(page, axe_js, f"the exported {view} page on a phone")
        assert requests == [path.as_uri()], requests
    finally:
        context.close()


def test_an_exported_page_works_inside_an_iframe(browser, tmp_path):
    """A course page (Moodle, Canvas) embeds the file in an <iframe>, as docs/teach/offline.md shows: the
    figure draws in the frame, the σ slider moves it by keyboard and mouse, and nothing else is fetched."""
    setting = Setting("equivalence", **SETTING)
    path = tmp_path / "equivalence.html"
    path.write_text(view_page(setting), encoding="utf-8")
    header = read_payload(view_payload(setting))
    course = tmp_path / "course page.html"
    course.write_text(
        '<!doctype html><html lang="en"><title>Week 3</title><h1>Week 3</h1>'
        f'<iframe src="{path.name}" title="rbfviz: the Equivalence at every σ" width="100%" height="900" '
        'style="border: 0"></iframe></html>',
        encoding="utf-8",
    )
    context, page, requests = offline_tab(browser, path, also=(course,))
    try:
        frame = page.locator("iframe").element_handle().content_frame()
        start = level_of_sigma(header, setting.sigma_or_default())
        assert_level_is_the_apps(wait_level(frame, start), header)
        frame.locator("input.scrub-range").focus()
        page.keyboard.press("ArrowLeft")
        assert_level_is_the_apps(wait_level(frame, start + 1), header)
        box = frame.locator("input.scrub-range").bounding_box()
        page.mouse.click(box["x"] + 0.98 * box["width"], box["y"] + box["height"] / 2)
        assert_level_is_the_apps(wait_level(frame, 0), header)  # the largest σ is on the right
        assert not page.errors, page.errors
        assert sorted(requests) == sorted([course.as_uri(), path.as_uri()]), requests
    finally:
        context.close()


PUBLIC_URL = "https://rbfviz.example.edu/course"


@pytest.fixture(scope="module")
def lesson_pack(tmp_path_factory):
    """The pack as the command line writes it (into a folder that does not exist yet), linking back to the
    app at PUBLIC_URL."""
    path = tmp_path_factory.mktemp("pack") / "new folder" / "lessons.html"
    assert cli(["export", "--lessons", "--public-url", PUBLIC_URL, "--out", str(path)]) == 0
    return path


def assert_links_back(page, index: int, prepared) -> None:
    """The step's link opens its view in the app with the Lessons page's own link for the step."""
    href = page.locator(f"#step-{index} .note a").get_attribute("href")
    address = urlsplit(href)
    assert f"{address.scheme}://{address.netloc}{address.path}" == f"{PUBLIC_URL}/{prepared.step.view}"
    assert dict(parse_qsl(address.query)) == lesson_query(prepared)


# Values typed into a number question: the answer, inside and outside the tolerance, and numbers whose
# {:.4g} text is hard (a tie at the 5th digit, exponents, negative).
def typed_values(answer: float) -> list[float]:
    return [answer, answer * 1.029, answer * 0.97, answer * 1.031, answer * 2, 0.3, 10.125, -1e-7, 123456.5]


def test_the_lesson_pack_checks_every_answer_as_the_library_does(browser, axe_js, lesson_pack):
    page_html = lesson_pack.read_text(encoding="utf-8")
    assert len(page_html.encode()) <= 3_000_000
    context, page, requests = offline_tab(browser, lesson_pack)
    try:
        for index, step in enumerate(STEPS, start=1):
            prepared = prepare(step)
            section = f"#step-{index}"
            page.locator(section).scroll_into_view_if_needed()
            # the step's figure: its view's payload, opened at the step's σ
            holder = page.locator(f"{section} .rbfviz-scrubber")
            header = read_payload(embedded_payload(page_html, holder.get_attribute("data-payload")))
            assert_level_is_the_apps(
                wait_level(page, level_of_sigma(header, prepared.sigma), section), header
            )

            assert_links_back(page, index, prepared)

            why = page.locator(f"#step-{index}-why")
            verdict = page.locator(f"#step-{index}-verdict")
            button = page.locator(f"{section} button.check")
            button.click()  # nothing chosen yet
            assert verdict.text_content() == check(prepared, None).message
            assert why.is_hidden()
            if step.question.is_choice:
                for option in range(len(step.question.options)):
                    page.locator(f"{section} input[type=radio][value='{option}']").check()
                    button.click()
                    assert verdict.text_content() == check(prepared, option).message
                    assert (
                        verdict.get_attribute("data-correct") == str(check(prepared, option).correct).lower()
                    )
            else:
                box = page.locator(f"#step-{index}-answer")
                for value in typed_values(prepared.answer):
                    box.fill(repr(value))
                    button.click()
                    assert verdict.text_content() == check(prepared, value).message, value
                    assert (
                        verdict.get_attribute("data-correct") == str(check(prepared, value).correct).lower()
                    )
            assert why.is_visible()
            explanation = page.locator(f"#step-{index}-why .explanation").inner_html()
            assert explanation == inline_html(prepared.explanation)
            assert_equations_drawn(page, index, step.equations)
        made = page.get_by_role("link", name="Open the same view in the app")
        assert made.get_attribute("href") == f"{PUBLIC_URL}/Lessons?lang=en"
        audit(page, axe_js, "the lesson pack, every step answered")
        assert not page.errors, page.errors
        assert requests == [lesson_pack.as_uri()], requests
    finally:
        context.close()


# Each equation box of a step: its MathML elements' sources, and whether Chromium lays each out as MathML
EQUATIONS_JS = """(index) => Array.from(document.querySelectorAll(`#step-${index}-why .equation`))
  .map((box) => Array.from(box.children).map((m) => ({ alttext: m.getAttribute("alttext"),
    mathml: m instanceof MathMLElement, display: getComputedStyle(m).display,
    height: m.getBoundingClientRect().height,
    fontPx: parseFloat(getComputedStyle(m).fontSize) })))"""


def assert_equations_drawn(page, index: int, equations) -> None:
    """The step's equations are drawn by the browser as MathML, part by part (maths.parts), at a readable
    size; the page shows no LaTeX source."""
    boxes = page.evaluate(EQUATIONS_JS, index)
    assert [[m["alttext"] for m in box] for box in boxes] == [parts(eq) for eq in equations]
    for box in boxes:
        for m in box:
            assert m["mathml"] and m["display"] == "block math" and m["height"] > 10, m
            assert m["fontPx"] >= 16, m
    shown = page.locator(f"#step-{index}-why").inner_text()
    assert "\\" not in shown and "$" not in shown, shown


def answer_every_step(page) -> None:
    """Answer each step (the first option, or the exact number) and check it: every "Why" opens."""
    for index, step in enumerate(STEPS, start=1):
        section = f"#step-{index}"
        if step.question.is_choice:
            page.locator(f"{section} input[type=radio][value='0']").check()
        else:
            page.locator(f"#step-{index}-answer").fill(repr(prepare(step).answer))
        page.locator(f"{section} button.check").click()
        page.locator(f"#step-{index}-why").wait_for()


def test_the_lesson_pack_reads_on_a_phone(browser, axe_js, lesson_pack):
    """390 × 844, touch: with every step answered and its equations shown, the page does not scroll
    sideways; an equation wider than the screen scrolls in its own box, which then takes the keyboard focus;
    axe finds no serious or critical violation."""
    context, page, requests = offline_tab(browser, lesson_pack, {"width": 390, "height": 844}, touch=True)
    try:
        page.wait_for_function("window.rbfvizLessons !== undefined && document.body.dataset.ready === '1'")
        answer_every_step(page)
        for index, step in enumerate(STEPS, start=1):
            assert_equations_drawn(page, index, step.equations)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        boxes = page.evaluate(
            """Array.from(document.querySelectorAll('.equation')).map((b) =>
                 ({ wide: b.scrollWidth > b.clientWidth, focusable: b.tabIndex === 0,
                    inside: b.getBoundingClientRect().right <= 390 }))"""
        )
        assert all(box["inside"] and box["focusable"] == box["wide"] for box in boxes), boxes
        audit(page, axe_js, "the lesson pack on a phone, every step answered")
        assert not page.errors, page.errors
        assert requests == [lesson_pack.as_uri()], requests
    finally:
        context.close()


def test_the_lesson_packs_number_text_is_pythons(browser, lesson_pack):
    """formatG in the page (the typed value in a wrong answer's message) writes what "{:.4g}" writes."""
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(300) * 10.0 ** rng.integers(-9, 10, 300)).tolist()
    values += [0.0, 1.0, 10.125, 0.00012345, 1e-5, 99995.0, 9.9995, 0.5, 2.5e-5, 123456.5, 1e16, -3.14159]
    context, page, _ = offline_tab(browser, lesson_pack)
    try:
        page.wait_for_function("window.rbfvizLessons !== undefined")
        got = page.evaluate("(xs) => xs.map((x) => window.rbfvizLessons.formatG(x))", values)
        assert got == [f"{value:.4g}" for value in values]
    finally:
        context.close()


@pytest.fixture(scope="module")
def lesson_pack_pt(tmp_path_factory):
    """The pack in Brazilian Portuguese, as ``rbfviz export --lessons --lang pt-BR`` writes it."""
    path = tmp_path_factory.mktemp("pack_pt") / "licoes.html"
    assert (
        cli(["export", "--lessons", "--lang", "pt-BR", "--public-url", PUBLIC_URL, "--out", str(path)]) == 0
    )
    return path


# words of English sentences that Portuguese text does not contain (with their spaces)
ENGLISH_WORDS = (" the ", " and ", " of ", " is ", " with ", " to ", " your ", " this ")


def test_the_lesson_pack_in_portuguese(browser, lesson_pack_pt):
    """``--lang pt-BR``: <html lang="pt-BR">, every step's title, task, question, options, verdicts and
    explanation the catalog's Portuguese (a typed number written with the decimal comma, as check writes
    it), no common English word in the page's text, links back to the app in Portuguese, nothing
    requested but the file."""
    pt = translator("pt-BR")
    page_html = lesson_pack_pt.read_text(encoding="utf-8")
    assert page_html.startswith('<!doctype html>\n<html lang="pt-BR">')
    context, page, requests = offline_tab(browser, lesson_pack_pt)
    try:
        page.wait_for_function("window.rbfvizLessons !== undefined && document.body.dataset.ready === '1'")
        assert page.locator("h1").text_content() == "Lições: do K-Means a uma rede RBF, e de volta"
        for index, step in enumerate(STEPS, start=1):
            prepared = prepare(step, pt)
            section = f"#step-{index}"
            assert page.locator(f"#step-{index}-title").text_content() == (
                f"Passo {index} de {len(STEPS)} · {prepared.title}"
            )
            assert dict(
                parse_qsl(urlsplit(page.locator(f"{section} .note a").get_attribute("href")).query)
            ) == (lesson_query(prepared, lang="pt-BR"))
            verdict = page.locator(f"#step-{index}-verdict")
            button = page.locator(f"{section} button.check")
            assert button.text_content() == "Verificar minha resposta"
            button.click()
            assert verdict.text_content() == check(prepared, None).message
            if step.question.is_choice:
                labels = page.locator(f"{section} label.option").all_text_contents()
                assert [label.strip() for label in labels] == list(prepared.options)
                for option in range(len(prepared.options)):
                    page.locator(f"{section} input[type=radio][value='{option}']").check()
                    button.click()
                    assert verdict.text_content() == check(prepared, option).message
            else:
                assert page.locator(f"{section} legend, {section} label[for]").first.text_content() == (
                    prepared.prompt
                )
                for value in (prepared.answer, prepared.answer * 2, 0.3, 123456.5):
                    page.locator(f"#step-{index}-answer").fill(repr(value))
                    button.click()
                    assert verdict.text_content() == check(prepared, value).message, value
            explanation = page.locator(f"#step-{index}-why .explanation").inner_html()
            assert explanation == inline_html(prepared.explanation)
        made = page.get_by_role("link", name="Abra a mesma visualização no aplicativo")
        assert made.get_attribute("href") == f"{PUBLIC_URL}/Lessons?lang=pt-BR"
        # the page's own words; the figures' words are their views' (their payloads, built by the views)
        words = page.evaluate(
            """() => { const main = document.querySelector("main").cloneNode(true);
                 main.querySelectorAll(".rbfviz-scrubber").forEach((figure) => figure.remove());
                 return main.textContent; }"""
        )
        text = " " + " ".join(words.split()).lower() + " "
        assert [word for word in ENGLISH_WORDS if word in text] == []
        assert not page.errors, page.errors
        assert requests == [lesson_pack_pt.as_uri()], requests
    finally:
        context.close()


def test_the_inline_markdown_of_the_lessons():
    """Emphasis, strong text and paragraphs; σ* is not emphasis; text is escaped."""
    assert inline_html("Scroll to *Exact collapse* now.") == "<p>Scroll to <em>Exact collapse</em> now.</p>"
    assert inline_html("below σ* = 1 and σ* = 2") == "<p>below σ* = 1 and σ* = 2</p>"
    assert inline_html("**a** < b\n\nnext") == "<p><strong>a</strong> &lt; b</p>\n<p>next</p>"
    assert html.unescape(inline_html("x > y")) == "<p>x > y</p>"
