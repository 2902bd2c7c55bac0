"""ui.compression: Streamlit's front-end files sent compressed by the app's own process.

Driven as ASGI directly (one request = one scope; the messages sent are collected), around an inner
app that answers "passed" for what the middleware leaves to Streamlit."""

import asyncio
import gzip
import threading

import pytest

from ui import compression
from ui.compression import CompressedStatic, accepted_encodings


def run_in_a_thread(coroutine):
    """asyncio.run in a thread of its own: a browser test's event loop may be running in this one."""
    result = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coroutine)))
    thread.start()
    thread.join()
    return result[0]


JS = b"function f(x) { return x * 2; }\n" * 400  # compressible text, well over the size of a gzip header


async def _inner(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"x-inner", b"1")]})
    await send({"type": "http.response.body", "body": b"passed"})


def _request(app, path, accept="gzip, deflate, br", method="GET"):
    async def run():
        sent = []

        async def send(message):
            sent.append(message)

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {
            "type": "http",
            "method": method,
            "path": path,
            "headers": [(b"accept-encoding", accept.encode())],
        }
        await app(scope, receive, send)
        return sent

    sent = run_in_a_thread(run())
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.fixture
def static(tmp_path):
    folder = tmp_path / "static"
    (folder / "js").mkdir(parents=True)
    (folder / "js" / "index.abc123.js").write_bytes(JS)
    (folder / "media").mkdir()
    (folder / "media" / "font.woff2").write_bytes(JS)  # compressible bytes, but a font is left alone
    (tmp_path / "secret.js").write_bytes(JS)
    return folder


def test_gzip_is_the_file_compressed_and_cached_for_a_year(static):
    app = CompressedStatic(_inner, static_dir=static)
    status, headers, body = _request(app, "/static/js/index.abc123.js", accept="gzip, deflate")
    assert status == 200
    assert gzip.decompress(body) == JS
    assert len(body) < len(JS) / 10
    assert headers["content-encoding"] == "gzip"
    assert headers["content-length"] == str(len(body))
    assert headers["vary"] == "Accept-Encoding"
    assert headers["cache-control"] == "public, immutable, max-age=31536000"
    assert "javascript" in headers["content-type"]  # as Streamlit says it


def test_what_it_does_not_compress_is_left_to_streamlit(static):
    app = CompressedStatic(_inner, static_dir=static)
    for path, accept in [
        ("/static/js/index.abc123.js", ""),  # the browser accepts no coding
        ("/static/js/index.abc123.js", "gzip;q=0, deflate"),  # q=0 refuses gzip
        ("/static/js/index.abc123.js", "br"),  # Brotli, and no precompressed Brotli file
        ("/static/media/font.woff2", "gzip"),  # not a text type
        ("/static/js/missing.js", "gzip"),  # no such file: Streamlit's 404 / index.html
        ("/static/../secret.js", "gzip"),  # outside Streamlit's folder
        ("/Explorer", "gzip"),  # not a front-end file
        ("/_stcore/health", "gzip"),
    ]:
        status, headers, body = _request(app, path, accept=accept)
        assert (headers.get("x-inner"), body) == ("1", b"passed"), (path, accept)


def test_head_sends_the_headers_without_the_body(static):
    app = CompressedStatic(_inner, static_dir=static)
    _, headers, body = _request(app, "/static/js/index.abc123.js", accept="gzip", method="HEAD")
    assert body == b""
    assert headers["content-encoding"] == "gzip"
    assert int(headers["content-length"]) > 0


def test_under_a_base_url_path_only_its_static_files(static):
    app = CompressedStatic(_inner, static_dir=static, base_url="/rbfviz/")
    assert _request(app, "/rbfviz/static/js/index.abc123.js")[1]["content-encoding"] == "gzip"
    assert _request(app, "/static/js/index.abc123.js")[2] == b"passed"


def _precompressed(tmp_path, size: int):
    out = tmp_path / "pre"
    (out / "static" / "js").mkdir(parents=True)
    (out / "static" / "js" / "index.abc123.js.br").write_bytes(b"BROTLI")
    (out / "static" / "js" / "index.abc123.js.gz").write_bytes(gzip.compress(JS, 9))
    line = f"/static/js/index.abc123.js\tapplication/javascript\t{size}\tgzip,br\n"
    (out / "manifest.tsv").write_text(line)
    return out


def test_precompressed_files_are_served_brotli_first(static, tmp_path):
    app = CompressedStatic(_inner, static_dir=static, precompressed=_precompressed(tmp_path, len(JS)))
    _, headers, body = _request(app, "/static/js/index.abc123.js", accept="gzip, deflate, br")
    assert (headers["content-encoding"], body) == ("br", b"BROTLI")
    _, headers, body = _request(app, "/static/js/index.abc123.js", accept="gzip, deflate")
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == JS


def test_a_precompressed_file_made_from_other_bytes_is_not_used(static, tmp_path):
    app = CompressedStatic(_inner, static_dir=static, precompressed=_precompressed(tmp_path, len(JS) + 1))
    _, headers, body = _request(app, "/static/js/index.abc123.js", accept="br, gzip")
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == JS  # made here instead


def test_concurrent_first_requests_compress_once(static, monkeypatch):
    calls = []
    release = threading.Event()
    original = CompressedStatic._make

    def slow_make(self, *args):
        calls.append(args)
        release.wait(5)
        return original(self, *args)

    monkeypatch.setattr(CompressedStatic, "_make", slow_make)
    app = CompressedStatic(_inner, static_dir=static)

    async def many():
        async def one():
            sent = []

            async def send(message):
                sent.append(message)

            scope = {
                "type": "http",
                "method": "GET",
                "path": "/static/js/index.abc123.js",
                "headers": [(b"accept-encoding", b"gzip")],
            }
            await app(scope, None, send)
            return b"".join(m.get("body", b"") for m in sent[1:])

        tasks = [asyncio.create_task(one()) for _ in range(8)]
        await asyncio.sleep(0.2)
        release.set()
        return await asyncio.gather(*tasks)

    bodies = run_in_a_thread(many())
    assert len(calls) == 1
    assert all(gzip.decompress(b) == JS for b in bodies)


@pytest.mark.parametrize(
    "header, expected",
    [
        ("gzip, deflate, br, zstd", {"gzip", "deflate", "br", "zstd"}),
        ("gzip;q=1.0, identity; q=0.5, *;q=0", {"gzip", "identity"}),
        ("br;q=0", set()),
        ("GZIP", {"gzip"}),
        ("gzip;q=x", set()),
        ("", set()),
    ],
)
def test_accepted_encodings(header, expected):
    assert accepted_encodings(header) == expected


def test_the_app_uses_the_images_precompressed_files_when_present(monkeypatch, tmp_path):
    monkeypatch.setattr(compression, "PRECOMPRESSED_DIR", tmp_path / "absent")
    (middleware,) = compression.compression_middleware()
    assert middleware.kwargs["precompressed"] is None
    pre = _precompressed(tmp_path, len(JS))
    monkeypatch.setattr(compression, "PRECOMPRESSED_DIR", pre)
    (middleware,) = compression.compression_middleware()
    assert middleware.kwargs["precompressed"] == pre
