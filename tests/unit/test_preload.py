"""ui.preload: the page of a view asks for Plotly's bundle and the sidebar's chunks in its HTML.

Driven as ASGI directly around an inner app that answers like Streamlit's static files: its
index.html for a page's address (plain or gzip-compressed), other HTML and JSON as they are."""

import gzip
import re

import pytest

from tests.unit.test_compression import _request
from ui import preload
from ui.preload import NO_FIGURE, PLOTLY, SIDEBAR, Preload, chunk_of, preload_tags, static_imports

INDEX = (
    b"<!DOCTYPE html><html><head><title>Streamlit</title>"
    b'<script type="module" crossorigin src="./static/js/index.abc.js"></script>'
    b'<link rel="modulepreload" crossorigin href="./static/js/shared.abc.js">'
    b"</head><body></body></html>"
)
FIGURES, OTHERS = b"<!--figures-->", b"<!--others-->"


def _streamlit_like(body: bytes = INDEX, content_type: bytes = b"text/html; charset=utf-8", gzipped=False):
    async def inner(scope, receive, send):
        data = gzip.compress(body) if gzipped else body
        headers = [(b"content-type", content_type), (b"content-length", str(len(data)).encode())]
        headers += [(b"content-encoding", b"gzip")] if gzipped else []
        await send({"type": "http.response.start", "status": 200, "headers": headers + [(b"etag", b'"e1"')]})
        await send({"type": "http.response.body", "body": data[:10], "more_body": True})
        await send({"type": "http.response.body", "body": data[10:]})

    return inner


def _page(app, path, **kwargs):
    status, headers, body = _request(app, path, **kwargs)
    assert int(headers["content-length"]) == len(body)
    return status, headers, body


@pytest.mark.parametrize("path", ["/Explorer", "/Stability", "/Neural_network", "/Explorer/"])
def test_a_view_gets_the_figure_tags_before_head_end(path):
    app = Preload(_streamlit_like(), figures=FIGURES, others=OTHERS)
    status, headers, body = _page(app, path)
    assert status == 200
    assert body == INDEX.replace(b"</head>", FIGURES + b"</head>")
    assert headers["etag"] == '"e1"'  # a revalidated page is the same page with the same tags


@pytest.mark.parametrize("path", ["/", "/Lessons"])
def test_home_and_lessons_get_the_widget_tags_only(path):
    assert {""} | {"Lessons"} == set(NO_FIGURE)
    app = Preload(_streamlit_like(), figures=FIGURES, others=OTHERS)
    assert _page(app, path)[2] == INDEX.replace(b"</head>", OTHERS + b"</head>")


def test_a_gzip_page_is_answered_gzip_with_the_tags():
    app = Preload(_streamlit_like(gzipped=True), figures=FIGURES, others=OTHERS)
    status, headers, body = _page(app, "/Annealing")
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == INDEX.replace(b"</head>", FIGURES + b"</head>")


def test_under_a_base_url_path_the_page_is_its_last_part():
    app = Preload(_streamlit_like(), figures=FIGURES, others=OTHERS, base_url="rbfviz")
    assert OTHERS in _page(app, "/rbfviz")[2]
    assert OTHERS in _page(app, "/rbfviz/Lessons")[2]
    assert FIGURES in _page(app, "/rbfviz/Explorer")[2]


@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"<html><head><title>docs</title></head><body></body></html>", b"text/html"),  # the docs site
        (INDEX, b"application/json"),
        (b"passed", b"text/plain"),
    ],
)
def test_other_answers_pass_unchanged(body, content_type):
    app = Preload(_streamlit_like(body, content_type), figures=FIGURES, others=OTHERS)
    assert _page(app, "/app/static/docs/index.html")[2] == body


def test_other_methods_and_statuses_pass_unchanged():
    app = Preload(_streamlit_like(), figures=FIGURES, others=OTHERS)
    assert _page(app, "/Explorer", method="HEAD")[2] == INDEX

    async def not_modified(scope, receive, send):
        headers = [(b"content-type", b"text/html")]
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    status, _, body = _request(Preload(not_modified, figures=FIGURES, others=OTHERS), "/Explorer")
    assert (status, body) == (304, b"")


@pytest.fixture
def static(tmp_path):
    js = tmp_path / "static" / "js"
    js.mkdir(parents=True)
    (tmp_path / "index.html").write_bytes(INDEX)
    files = {
        "PlotlyChart.p1.js": b'import{a}from"./shared.abc.js";import"./wrap.w1.js";var x=1;',
        "wrap.w1.js": b'import{b}from"./deep.d1.js";export const c=1;',
        "deep.d1.js": b'import{c}from"./wrap.w1.js";export const b=2;',  # a cycle
        "shared.abc.js": b"export const a=1;",
        "Slider.s1.js": b'import{b}from"./deep.d1.js";const s="import(\\"./lazy.l1.js\\")";',
        "lazy.l1.js": b"export default 1;",
    }
    for name, text in files.items():
        (js / name).write_bytes(text)
    return tmp_path


def test_static_imports_are_followed_transitively_once(static):
    assert static_imports(["PlotlyChart.p1.js"], static) == [
        "PlotlyChart.p1.js",
        "shared.abc.js",
        "wrap.w1.js",
        "deep.d1.js",
    ]
    # a dynamic import() is not a static one: loaded later, if ever
    assert static_imports(["Slider.s1.js"], static) == ["Slider.s1.js", "deep.d1.js", "wrap.w1.js"]


def test_the_tags_preload_what_the_page_does_not_list_and_evaluate_plotly(static):
    tags = preload_tags(["PlotlyChart", "Slider"], evaluate="PlotlyChart", static=static).decode()
    preloaded = re.findall(r'<link rel="modulepreload" crossorigin href="\./static/js/([^"]+)">', tags)
    assert preloaded == ["PlotlyChart.p1.js", "Slider.s1.js", "wrap.w1.js", "deep.d1.js"]  # the named first
    script = tags[tags.index("<script>") :]
    assert script.endswith("</script>") and tags.count("<script") == 1  # after the preloads
    # imported when the page's websocket opens: the bundle evaluates while the server runs the script
    assert 'addEventListener("open", () => import("./static/js/PlotlyChart.p1.js")' in script
    assert "<script" not in preload_tags(["Slider"], static=static).decode()
    with pytest.raises(RuntimeError, match="Missing.*is missing"):
        chunk_of("Missing", static)
    # a chunk this Streamlit does not have is a preload less, not a server that cannot start
    assert preload_tags(["Missing", "Slider"], static=static) == preload_tags(["Slider"], static=static)


def test_every_named_chunk_is_in_this_streamlit():
    """A Streamlit upgrade that renames a chunk fails here, not silently in the browser."""
    names = [PLOTLY, *SIDEBAR]
    chunks = static_imports([chunk_of(name) for name in names])
    assert all((preload.STATIC / "static" / "js" / chunk).is_file() for chunk in chunks)
    (middleware,) = preload.preload_middleware()
    figures, others = middleware.kwargs["figures"].decode(), middleware.kwargs["others"].decode()
    assert chunk_of(PLOTLY) in figures and chunk_of(PLOTLY) not in others
    assert all(chunk_of(name) in figures and chunk_of(name) in others for name in SIDEBAR)
    assert (preload.STATIC / "index.html").read_bytes().count(preload.MARKER) == 1
