"""The app in Brazilian Portuguese, in Chromium: every page (the home page opened with ``?lang=pt-BR``,
the others from its sidebar), and the home page and the Explorer in a browser whose language is
Portuguese (``locale="pt-BR"``, no ``lang``), show no English sentence: not in their visible text (the
sidebar and the main area, every expander opened, inside any frame), nor in their figures (the drawn
SVG text, trace names and hover templates). English words that stay English in every language
(softmax, entmax, K-Means, CSV, σ, …) are allowed (tests/e2e/english.py, whose detector
tests/unit/test_english_detector.py checks on fixed sentences and on the catalogs). Code blocks are not
read: a receipt's code comments stay English by design; in a formula only its words written as text
(KaTeX's \\text{...}) are read, the maths stays as it is.

Also: the Explorer's figure title, axis titles and legend change with the language, and its figure uses
the language's separators; σ is shown with a decimal comma in Portuguese; two sessions in different
languages on one server at the same time, their reruns interleaved, each see their own language.
"""

from __future__ import annotations

import re

import pytest
from english import english_segments
from menu import walk_the_menu

from harness.student import HANG_TIMEOUT_MS, Student
from rbfviz.i18n import translator
from ui import session_keys
from ui.page import PAGES

pytestmark = pytest.mark.e2e

APP_PAGES = ["", *(path.split("_", 1)[1].removesuffix(".py") for path, _, _ in PAGES)]
SCRUBBED = {"Explorer", "Annealing", "Stability", "Equivalence"}
VIEWPORT = {"width": 1366, "height": 768}
PT = translator("pt-BR")

# Streamlit's expanders folded on a page: opened, so that what they hold is read too (a click on the
# summary, as a reader would; no rerun).
_OPEN_EXPANDERS_JS = """() => {
  let opened = 0;
  for (const d of document.querySelectorAll("details:not([open])")) {
    d.querySelector("summary").click(); opened += 1;
  }
  return opened;
}"""

# What a reader can read: the document's visible text (innerText: hidden parts left out), the text of the
# code blocks in it (taken out again in Python), and every figure's words: the drawn SVG text, the trace
# names, hover templates and text labels, and the title, axis titles and annotations of its layout.
_TEXTS_JS = """() => {
  const figures = [];
  for (const gd of document.querySelectorAll(".js-plotly-plot")) {
    const words = [];
    for (const t of gd.querySelectorAll("svg text")) words.push(t.textContent);
    const L = gd.layout || {};
    const title = (o) => (o && o.title ? (typeof o.title === "string" ? o.title : o.title.text) : "");
    words.push(title(L));
    for (const [k, v] of Object.entries(L)) if (/^[xy]axis\\d*$/.test(k)) words.push(title(v));
    for (const a of L.annotations || []) words.push(a.text || "");
    for (const tr of gd.data || []) {
      words.push(tr.name || "", tr.hovertemplate || "", tr.texttemplate || "");
      const labels = typeof tr.text === "string" ? [tr.text] : Array.isArray(tr.text) ? tr.text : [];
      words.push(...new Set(labels.filter((s) => typeof s === "string").slice(0, 50)));
    }
    figures.push(words.filter((w) => w && typeof w === "string"));
  }
  return {
    text: document.body.innerText,
    code: [...document.querySelectorAll("pre, code, [data-testid='stCode'], .katex, math")].map(
      (c) => c.innerText || c.textContent || ""),  // a MathML element has no innerText
    formulaWords: [...document.querySelectorAll(".katex-html .text")].map((t) => t.textContent),
    figures,
  };
}"""
# Plotly's markup in a figure's words: %{placeholders}, <extra> boxes, tags and entities
_PLOTLY_MARKUP = re.compile(r"%\{[^}]*\}|<extra>.*?</extra>|<br\s*/?>|<[^>]+>|&[a-z]+;", re.S)


def _readable(page) -> dict[str, str]:
    """{where: text} of everything a reader of ``page`` can read (see _TEXTS_JS), code blocks left out;
    the text of any frame too. Formulas are maths, which stays as it is (σ, r_ij, an operator name such
    as map_j); only the words written in them as text (KaTeX's \\text{...}) are read."""
    found: dict[str, str] = {}
    for i, frame in enumerate(page.frames):
        got = frame.evaluate(_TEXTS_JS)
        text = got["text"]
        for code in sorted(got["code"], key=len, reverse=True):
            if code.strip():
                text = text.replace(code, "\n")
        where = "page" if frame == page.main_frame else f"frame {i} ({frame.url})"
        found[where] = text
        if got["formulaWords"]:
            found[f"{where}, words in formulas"] = "\n".join(got["formulaWords"])
        for j, words in enumerate(got["figures"]):
            found[f"{where}, figure {j}"] = "\n".join(_PLOTLY_MARKUP.sub("\n", w) for w in words)
    return found


def _english_left(page) -> dict[str, list[str]]:
    return {where: found for where, text in _readable(page).items() if (found := english_segments(text))}


def _open(pooled_page, url: str, locale: str) -> Student:
    """A page in a browser speaking ``locale`` (its navigator.language and Accept-Language) with
    ``url`` opened and idle."""
    page = pooled_page(viewport=VIEWPORT, locale=locale)
    page.set_default_timeout(HANG_TIMEOUT_MS)
    student = Student(page)
    student.open(url)
    return student


def _settle(student: Student, name: str) -> None:
    if name in SCRUBBED:
        student.wait_for_scrub()
    student.wait_for_layout()
    student.wait_for_run()


def _english_on(student: Student, name: str) -> list[str]:
    """The English left on the page ``name`` as it is now (settled, its expanders opened), one line per
    sentence; the page must say pt-BR in its address and show no problem."""
    _settle(student, name)
    assert student.query().get("lang") == "pt-BR", f"{name or 'Home'}: {student.page.url}"
    if student.page.evaluate(_OPEN_EXPANDERS_JS):
        student.wait_for_layout()
        student.wait_for_run()
    left = _english_left(student.page)
    student.assert_no_problems()
    return [
        f"- {name or 'Home'}, {where}: {segment!r}"
        for where, segments in left.items()
        for segment in segments
    ]


def test_every_page_in_portuguese_has_no_english_sentence(server, pooled_page):
    """An English browser opens the home page with ``?lang=pt-BR``, then every page in turn by its link
    in the sidebar, as a reader goes (one page load for all): the language stays in the address, and no
    page has English left."""
    student = _open(pooled_page, f"{server.url}/?lang=pt-BR", "en-US")
    left = [line for name in walk_the_menu(student, PT) for line in _english_on(student, name)]
    assert left == [], "English left on the Portuguese pages:\n" + "\n".join(left)


# The browser's language alone (no lang in the address) on two pages: every page reads it in the same
# place, the controls' parsing of the address (ui.state), so the page shown is the one above.
@pytest.mark.parametrize("name", ["", "Explorer"], ids=["Home", "Explorer"])
def test_a_portuguese_browser_without_lang_gets_portuguese(server, pooled_page, name):
    student = _open(pooled_page, f"{server.url}/{name}", "pt-BR")
    left = _english_on(student, name)
    assert left == [], "English left in a Portuguese browser:\n" + "\n".join(left)


# a page as the app would draw it in Portuguese: text, a code block (English comments stay), a figure's
# SVG text; and the same page with English left in the figure and in a caption
_PORTUGUESE_PAGE = """<main><h1>Explorador: um σ, suave contra rígida</h1>
<p>Cada ponto recebe uma responsabilidade r_ij para cada centro j. Baixar os pontos (CSV).</p>
<pre><code># the receipt's comments stay English
sigma = 0.529</code></pre>
<div class="js-plotly-plot"><svg><text>centros RBF</text><text>centróides do K-Means</text>
<text>0,5</text></svg></div></main>"""
_ENGLISH_LEFT = _PORTUGUESE_PAGE.replace("centros RBF", "RBF centres of the network").replace(
    "Baixar os pontos (CSV).", "Download the points with their responsibilities."
)


def test_the_reader_of_a_page_finds_english_left_and_only_that(browser):
    """The collection (visible text without code, figures' SVG text) and the detector on a page of
    known words: nothing on the Portuguese page, exactly the English parts on the other."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_content(_PORTUGUESE_PAGE)
        assert _english_left(page) == {}
        page.set_content(_ENGLISH_LEFT)
        # (an SVG's text is in the document's text too)
        assert _english_left(page) == {
            "page": ["Download the points with their responsibilities.", "RBF centres of the network"],
            "page, figure 0": ["RBF centres of the network"],
        }
    finally:
        context.close()


def test_an_english_browser_without_lang_gets_english(server, pooled_page):
    """The default: an English browser and no ``lang`` is the app in English, and the address says so."""
    student = _open(pooled_page, f"{server.url}/Explorer", "en-US")
    try:
        _settle(student, "Explorer")
        assert student.query().get("lang") == "en"
        assert english_segments(_readable(student.page)["page"])  # the detector sees English here
    finally:
        student.page.close()


_FIGURE_WORDS_JS = """() => {
  const gd = document.querySelector("div.scrub-plot");
  const L = gd._fullLayout;
  const axes = Object.keys(L).filter((k) => /^[xy]axis\\d*$/.test(k)).sort()
    .map((k) => (L[k].title && L[k].title.text) || "");
  return { title: (L.title && L.title.text) || "", axes, separators: L.separators,
           legend: gd._fullData.filter((t) => t.showlegend !== false && t.name).map((t) => t.name) };
}"""


def test_the_explorers_figure_speaks_the_pages_language(server, pooled_page):
    """Title, axis titles and legend of the Explorer's figure in English and in Portuguese: every text
    that has English words in English is another text, with none, in Portuguese; the numbers' separators
    are the language's."""
    shown = {}
    for lang in ("en", "pt-BR"):
        student = _open(pooled_page, f"{server.url}/Explorer?lang={lang}", "en-US")
        try:
            _settle(student, "Explorer")
            shown[lang] = student.page.evaluate(_FIGURE_WORDS_JS)
        finally:
            student.page.close()
    en, pt = shown["en"], shown["pt-BR"]
    assert en["separators"] in (".,", None) and pt["separators"] == ",."
    assert en["title"] != pt["title"], "the figure's title is the same in both languages"
    assert len(en["legend"]) == len(pt["legend"]) and en["legend"] != pt["legend"]
    assert len(en["axes"]) == len(pt["axes"])
    pairs = [(en["title"], pt["title"]), *zip(en["axes"], pt["axes"]), *zip(en["legend"], pt["legend"])]
    for english, portuguese in pairs:
        if english_segments(_PLOTLY_MARKUP.sub("\n", english)):
            assert portuguese != english, f"{english!r} is not translated"
        assert english_segments(_PLOTLY_MARKUP.sub("\n", portuguese)) == [], f"{portuguese!r} is English"


_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def test_sigma_is_shown_with_a_decimal_comma_in_portuguese(server, pooled_page):
    """The σ beside the Explorer's slider: 0.21 in English, 0,21 in Portuguese (the same σ)."""
    shown = {}
    for lang in ("en", "pt-BR"):
        student = _open(pooled_page, f"{server.url}/Explorer?lang={lang}&sigma=0.21", "en-US")
        try:
            scrub = student.wait_for_scrub()
            shown[lang] = scrub["output"]
        finally:
            student.page.close()
    english = _NUMBER.findall(shown["en"])
    portuguese = _NUMBER.findall(shown["pt-BR"])
    assert english and "." in english[0], f"English σ: {shown['en']!r}"
    assert portuguese == [n.replace(".", ",") for n in english], (
        f"σ in English {shown['en']!r}, in Portuguese {shown['pt-BR']!r}"
    )


def _choose_precision(student: Student, dtype: str) -> None:
    """Pick ``dtype`` (float32 or float64: the same words in every language) in the sidebar's precision
    radio, found by its key whatever its label's language, and wait for the rerun."""
    radio = student.page.locator(f".st-key-{session_keys.widget('dtype')}")
    with student.rerun():
        radio.get_by_text(dtype, exact=True).click()


def test_two_sessions_in_two_languages_at_once(server, browser):
    """An English and a Portuguese reader on the same server at the same time: both pages open before
    either has finished, then their reruns interleave; after each rerun each page is in its own
    language (no English sentence in the Portuguese one, its words are the catalog's; the English one
    shows the English words)."""
    contexts = [browser.new_context(viewport=VIEWPORT, locale=loc) for loc in ("en-US", "pt-BR")]
    try:
        readers = []
        for context, lang in zip(contexts, ("en", "pt-BR")):
            page = context.new_page()
            page.set_default_timeout(HANG_TIMEOUT_MS)
            student = Student(page)  # first: its init scripts go into the page it opens
            page.goto(f"{server.url}/Explorer?lang={lang}", wait_until="commit")  # not waiting for it
            readers.append(student)
        for student in readers:
            student.wait_for_run(since={"origin": None, "clock": 0})
        english, portuguese = readers
        for turn in range(4):
            _choose_precision(english if turn % 2 == 0 else portuguese, ("float32", "float64")[turn // 2])
            for student, lang in ((english, "en"), (portuguese, "pt-BR")):
                student.wait_for_scrub()
                assert student.query().get("lang") == lang
                text = _readable(student.page)["page"]
                label = "Presenter mode"
                if lang == "en":
                    assert label in text
                else:
                    assert PT(label) != label, f"{label!r} has no Portuguese translation in the catalog"
                    assert PT(label) in text and label not in text
                    assert english_segments(text) == [], f"turn {turn}: English on the Portuguese page"
    finally:
        for context in contexts:
            context.close()
