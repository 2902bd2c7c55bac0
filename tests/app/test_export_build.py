"""The command line's payloads (rbfviz.views.export.build) are the app's, byte for byte: for the same
settings, every view's page in an AppTest sends the σ scrubber the bytes ``view_payload`` builds, so the
offline page draws exactly the app's figure, numbers and "In words" at every σ. And the app's own
"Interactive page (HTML)" download holds the bytes its scrubber draws."""

import base64
import re
import threading

import pytest
from app_page import download, open_page, page_path, page_payload

import ui  # noqa: F401  here, so that the app's process tuning (rbfviz.tune_for_server) runs in this thread
from rbfviz.i18n import translator
from rbfviz.views.export.build import VIEWS, Setting
from rbfviz.views.export.build import view_payload as build_payload
from rbfviz.views.export.page import VIEW_PAGES
from ui import session_keys


def view_page(view: str) -> str:
    """The app's script of an export view ("explorer" -> "pages/1_Explorer.py")."""
    return page_path(VIEW_PAGES[view][0])


def view_payload(setting: Setting, lang: str = "en") -> bytes:
    """``build.view_payload`` in a new thread, as AppTest runs a page in a new thread. scikit-learn's
    K-Means sums over OpenMP threads, and a thread's OpenMP thread count is its own (torch.set_num_threads,
    in rbfviz.tune_for_server, sets it for the calling thread only): its last bits depend on it. The
    container sets OMP_NUM_THREADS=1 for every thread; the command line tunes its one thread."""
    out = []
    worker = threading.Thread(target=lambda: out.append(build_payload(setting, tr=translator(lang))))
    worker.start()
    worker.join()
    assert out, "the payload was not built (see the thread's exception above)"
    return out[0]


@pytest.mark.parametrize(
    "view, setting",
    [
        ("explorer", dict()),
        ("explorer", dict(dataset="moons", k=3, kind="entmax", alpha=1.7, dtype="float32", init="random")),
        ("explorer", dict(dataset="blobs", n=300, init="anneal", kind="entmax15", seed=3)),
        ("explorer", dict(dataset="varied", n=300, k=3, init="farthest")),
        ("annealing", dict()),
        ("annealing", dict(dataset="moons", n=200, k=2, kind="naive", dtype="float32")),
        ("stability", dict(n=300, dtype="float32")),
        ("equivalence", dict()),
        ("equivalence", dict(dataset="circles", n=250, kind="entmax15", seed=2)),
    ],
)
def test_the_command_lines_payload_is_the_apps(view, setting):
    s = Setting(view, **setting)
    assert view_payload(s) == page_payload(view_page(view), s.view_query())


@pytest.mark.parametrize("view", VIEWS)
def test_the_command_lines_portuguese_payload_is_the_apps_portuguese_page(view):
    """The offline page's figures speak the language chosen (``rbfviz export --lang pt-BR``): the same bytes
    as the app's page opened with lang=pt-BR, and not the English ones."""
    s = Setting(view)
    portuguese = view_payload(s, "pt-BR")
    assert portuguese == page_payload(view_page(view), {**s.view_query(), "lang": "pt-BR"})
    assert portuguese != view_payload(s)


@pytest.mark.parametrize("view", VIEWS)
def test_the_apps_interactive_page_download_holds_the_page_payload(media, monkeypatch, view):
    """Each view's "Interactive page (HTML)" button gives the offline page of exactly the payload the view's
    scrubber draws, opening at the committed σ, with the settings and a link back (RBFVIZ_PUBLIC_URL)."""
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", "https://rbfviz.example.edu/course/")
    at = open_page(view_page(view), dict(dataset="moons", n="120", k="3", sigma="0.3"))
    page = download(at, media, "Interactive page (HTML)").decode("utf-8")
    payload = at.get("bidi_component")[0].proto.bytes
    found = re.search(r'<script type="application/octet-stream" id="rbfviz-payload">([^<]*)</script>', page)
    assert base64.b64decode(found.group(1)) == payload
    sigma = at.session_state[session_keys.CONTROLS].sigma
    assert f'data-sigma="{sigma:.12g}"' in page
    assert "<dt>data set</dt><dd>moons</dd>" in page and "<dt>clusters k</dt><dd>3</dd>" in page
    link = re.search(r'<a href="([^"]+)"[^>]*>Open the same view in the app', page).group(1)
    assert link.startswith(f"https://rbfviz.example.edu/course/{VIEW_PAGES[view][0]}?")
    assert "dataset=moons" in link and "k=3" in link
    assert len(page.encode()) < 3_000_000


@pytest.mark.parametrize("key", ["entmax", "family", "anneal"])
def test_a_lesson_steps_figure_in_the_pack_is_the_one_its_link_opens(key):
    """The lesson pack draws a step's figure from ``step_setting``: the payload the step's link (the
    Lessons page's, ui.state.lesson_query) opens in the app."""
    from rbfviz.views.export.lesson_pack import step_setting
    from rbfviz.views.lessons.arrays import STEPS, prepare
    from ui.state import lesson_query

    prepared = prepare(next(step for step in STEPS if step.key == key))
    setting = step_setting(prepared)
    assert view_payload(setting) == page_payload(view_page(setting.view), lesson_query(prepared))


@pytest.mark.parametrize("lang, label", [("en", "Lesson pack (HTML)"), ("pt-BR", "Pacote de lições (HTML)")])
def test_the_lessons_page_offers_the_lesson_pack(media, monkeypatch, lang, label):
    """The Lessons page's "Lesson pack (HTML)" button gives rbfviz.views.export.lesson_pack's page, linking
    back to RBFVIZ_PUBLIC_URL, in the page's language (the pack itself: tests/e2e/test_e2e_export.py)."""
    from rbfviz.views.export import lesson_pack

    asked = []
    monkeypatch.setattr(lesson_pack, "lesson_pack", lambda **kw: asked.append(kw) or "<!doctype html>pack")
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", "https://rbfviz.example.edu/course")
    at = open_page(page_path("Lessons"), {"lang": lang})
    assert download(at, media, label) == b"<!doctype html>pack"
    assert asked == [{"public_url": "https://rbfviz.example.edu/course", "tr": translator(lang)}]
    assert asked[0]["tr"].lang == lang
