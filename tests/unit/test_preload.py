"""ui.preload: the page of a view asks for Plotly's bundle in its HTML.

Driven as ASGI directly around an inner app that answers like Streamlit's static files: its
index.html for a page's address (plain or gzip-compressed), other HTML and JSON as they are."""

import gzip

import pytest

from tests.unit.test_compression import _request
from ui import preload
from ui.preload import NO_FIGURE, PLOTLY, Preload, chunk_of, preload_tags

INDEX = (
    b"<!DOCTYPE html><html><head><title>Streamlit</title>"
    b'<script type="module" crossorigin src="./static/js/index.abc.js"></script>'
    b'<link rel="modulepreload" crossorigin href="./static/js/shared.abc.js">'
    b"</head><body></body></html>"
)
FIGURES = b"<!--figures-->"


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
    app = Preload(_streamlit_like(), tags=FIGURES)
    status, headers, body = _page(app, path)
    assert status == 200
    assert body == INDEX.replace(b"</head>", FIGURES + b"</head>")
    assert headers["etag"] == '"e1"'  # a revalidated page is the same page with the same tags


@pytest.mark.parametrize("path", ["/", "/Lessons", "/Lessons/"])
def test_home_and_lessons_are_left_as_they_are(path):
    assert {""} | {"Lessons"} == set(NO_FIGURE)
    app = Preload(_streamlit_like(), tags=FIGURES)
    assert _page(app, path)[2] == INDEX


def test_a_gzip_page_is_answered_gzip_with_the_tags():
    app = Preload(_streamlit_like(gzipped=True), tags=FIGURES)
    status, headers, body = _page(app, "/Annealing")
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == INDEX.replace(b"</head>", FIGURES + b"</head>")


def test_under_a_base_url_path_the_page_is_its_last_part():
    app = Preload(_streamlit_like(), tags=FIGURES, base_url="rbfviz")
    assert _page(app, "/rbfviz")[2] == INDEX
    assert _page(app, "/rbfviz/Lessons")[2] == INDEX
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
    app = Preload(_streamlit_like(body, content_type), tags=FIGURES)
    assert _page(app, "/app/static/docs/index.html")[2] == body


def test_other_methods_and_statuses_pass_unchanged():
    app = Preload(_streamlit_like(), tags=FIGURES)
    assert _page(app, "/Explorer", method="HEAD")[2] == INDEX

    async def not_modified(scope, receive, send):
        headers = [(b"content-type", b"text/html")]
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    status, _, body = _request(Preload(not_modified, tags=FIGURES), "/Explorer")
    assert (status, body) == (304, b"")


@pytest.fixture
def static(tmp_path):
    js = tmp_path / "static" / "js"
    js.mkdir(parents=True)
    (tmp_path / "index.html").write_bytes(INDEX)
    (js / "PlotlyChart.p1.js").write_bytes(b'import{a}from"./shared.abc.js";var x=1;')
    return tmp_path


def test_the_tags_fetch_plotly_with_the_page_and_evaluate_it_once_the_websocket_is_open(static):
    tags = preload_tags(static=static).decode()
    # fetched alongside Streamlit's bundle, not compiled: a module preload would compete with the bundle
    assert tags.startswith(
        '<link rel="preload" as="script" crossorigin href="./static/js/PlotlyChart.p1.js">'
    )
    assert "modulepreload" not in tags
    script = tags[tags.index("<script>") :]
    assert script.endswith("</script>") and tags.count("<script") == 1  # after the preload
    # imported when the page's websocket opens: the bundle evaluates while the server runs the script
    assert 'addEventListener("open", () => import("./static/js/PlotlyChart.p1.js")' in script
    with pytest.raises(RuntimeError, match="Missing.*is missing"):
        chunk_of("Missing", static)
    # a chunk this Streamlit does not have is no tags, not a server that cannot start
    assert preload_tags("Missing", static=static) == b""


def test_the_plotly_chunk_is_in_this_streamlit():
    """A Streamlit upgrade that renames the chunk fails here, not silently in the browser."""
    assert (preload.STATIC / "static" / "js" / chunk_of(PLOTLY)).is_file()
    (middleware,) = preload.preload_middleware()
    tags = middleware.kwargs["tags"].decode()
    assert (
        f'href="./static/js/{chunk_of(PLOTLY)}"' in tags
        and f'import("./static/js/{chunk_of(PLOTLY)}")' in tags
    )
