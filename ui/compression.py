"""Streamlit's front-end files sent compressed, by the app's own process: an ASGI middleware for
``st.App`` (app.py passes it in, so ``streamlit run app.py`` and the container both use it).

Why here and not in Streamlit: Streamlit 1.67's server (Starlette + uvicorn) compresses its answers
with gzip, except the ``/static/...`` files on purpose (streamlit/web/server/starlette/
starlette_gzip_middleware.py: it would recompress the same bytes on every request). Those files are
most of a first visit (7.4 MB of a view's 8.6-10 MB, 4.7 MB of it Plotly) and never change for a
Streamlit version: their names carry a content hash and they are sent "immutable". So each is
compressed once per process and kept in memory:

* files made by ``deploy/precompress`` (Zopfli's gzip, Brotli quality 11), when ``precompressed``
  names its output folder: the image builds them (Dockerfile), so the container spends no CPU on it;
* otherwise gzip level 9, computed on the file's first request (0.25 s of CPU for Plotly's 4.7 MB,
  in a worker thread; concurrent first requests wait for the one computation).

Brotli is offered by Chromium only over HTTPS and to localhost; over plain HTTP a browser gets gzip.
A browser that accepts neither, a file that is not text (fonts and images are compressed already) or
a file that compression would not shrink is left to Streamlit, unchanged.

Fonts are compressed already (woff2), and most of their bytes are glyphs the app never draws: the
middleware answers Streamlit's icon and text fonts with subsets (ui.font_subsets), 0.4-0.8 MB less
per first visit.
"""

from __future__ import annotations

import asyncio
import gzip
import mimetypes
from pathlib import Path

import streamlit
from anyio import to_thread
from starlette.middleware import Middleware
from streamlit import config
from streamlit.web.server.starlette.starlette_server_config import STATIC_ASSET_CACHE_MAX_AGE_SECONDS

from . import font_subsets
from .font_subsets import FontSubsets

# deploy/precompress compresses the same types
TEXT_SUFFIXES = frozenset({".js", ".mjs", ".css", ".json", ".svg", ".html", ".txt"})
GZIP_LEVEL = 9
STATIC_DIR = Path(streamlit.__file__).resolve().parent / "static" / "static"
# where the image keeps deploy/precompress's output (Dockerfile); absent in a checkout unless made with
# `deploy/precompress build/precompressed`
PRECOMPRESSED_DIR = Path(__file__).resolve().parents[1] / "build" / "precompressed"


def compression_middleware() -> list[Middleware]:
    """The middleware list for app.py's ``st.App``: CompressedStatic, with the image's precompressed
    files when they are there, under this server's base URL path."""
    folder = PRECOMPRESSED_DIR if (PRECOMPRESSED_DIR / "manifest.tsv").is_file() else None
    base_url = config.get_option("server.baseUrlPath") or ""
    return [Middleware(CompressedStatic, precompressed=folder, base_url=base_url)]


def accepted_encodings(header: str) -> set[str]:
    """The content codings an Accept-Encoding header allows (those with q > 0), lower-cased."""
    accepted = set()
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name and q > 0:
            accepted.add(name.strip().lower())
    return accepted


def read_manifest(folder: Path) -> dict[str, tuple[int, set[str]]]:
    """deploy/precompress's manifest.tsv: URL path → (the source file's size, the encodings made)."""
    rows = {}
    for line in (folder / "manifest.tsv").read_text().splitlines():
        url, _type, size, encodings = line.split("\t")
        rows[url] = (int(size), set(encodings.split(",")))
    return rows


class CompressedStatic:
    """ASGI middleware answering GET/HEAD ``{base}/static/<file>`` compressed; everything else passes.

    precompressed: deploy/precompress's output folder, or None (gzip computed here, once per file).
    base_url: Streamlit's server.baseUrlPath ("" or e.g. "rbfviz").
    fonts: the fonts answered cut to what the app draws (default: ui/fonts/, ui.font_subsets)."""

    def __init__(
        self,
        app,
        precompressed: Path | None = None,
        base_url: str = "",
        static_dir: Path = STATIC_DIR,
        fonts: FontSubsets | None = None,
    ):
        self.app = app
        self.fonts = FontSubsets() if fonts is None else fonts
        self.static_dir = static_dir
        self.prefix = "/" + "/".join(p for p in (base_url.strip("/"), "static") if p) + "/"
        self.precompressed = precompressed
        self.manifest = read_manifest(precompressed) if precompressed else {}
        self._bodies: dict[tuple[str, str], bytes | None] = {}
        self._pending: dict[tuple[str, str], asyncio.Future] = {}

    async def __call__(self, scope, receive, send):
        answer = None
        if (
            scope["type"] == "http"
            and scope["method"] in ("GET", "HEAD")
            and scope["path"].startswith(self.prefix)
        ):
            answer = await self._font(scope) or await self._compressed(scope)
        if answer is None:
            await self.app(scope, receive, send)
            return
        encoding, body, content_type = answer
        headers = [(b"content-type", content_type.encode())]
        if encoding:
            headers += [(b"content-encoding", encoding.encode()), (b"vary", b"Accept-Encoding")]
        headers += [
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", f"public, immutable, max-age={STATIC_ASSET_CACHE_MAX_AGE_SECONDS}".encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    async def _font(self, scope) -> tuple[None, bytes, str] | None:
        """(no encoding, the subset's bytes, its type) for a font ui.font_subsets has cut, or None."""
        rel = scope["path"][len(self.prefix) :]
        if rel not in self.fonts:
            return None
        body = await to_thread.run_sync(self.fonts.body, rel, self.static_dir / rel)
        return (None, body, font_subsets.CONTENT_TYPE) if body is not None else None

    async def _compressed(self, scope) -> tuple[str, bytes, str] | None:
        """(encoding, body, content type) for this request, or None to let Streamlit answer."""
        rel = scope["path"][len(self.prefix) :]
        source = (self.static_dir / rel).resolve()
        if (
            source.suffix not in TEXT_SUFFIXES
            or not source.is_relative_to(self.static_dir)
            or not source.is_file()
        ):
            return None
        headers = dict(scope.get("headers") or ())
        accepted = accepted_encodings(headers.get(b"accept-encoding", b"").decode("latin-1"))
        for encoding in ("br", "gzip"):
            if encoding in accepted:
                body = await self._body(rel, source, encoding)
                if body is not None:
                    content_type = mimetypes.guess_type(source.name)[0] or "application/octet-stream"
                    if content_type.startswith("text/"):  # as Starlette's FileResponse says it
                        content_type += "; charset=utf-8"
                    return encoding, body, content_type
        return None

    async def _body(self, rel: str, source: Path, encoding: str) -> bytes | None:
        key = (rel, encoding)
        if key in self._bodies:
            return self._bodies[key]
        if key in self._pending:  # another request is compressing it: wait for that one
            return await asyncio.shield(self._pending[key])
        future = self._pending[key] = asyncio.get_running_loop().create_future()
        try:
            body = await to_thread.run_sync(self._make, rel, source, encoding)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            del self._pending[key]
            raise
        self._bodies[key] = body
        del self._pending[key]
        future.set_result(body)
        return body

    def _make(self, rel: str, source: Path, encoding: str) -> bytes | None:
        """The compressed bytes (precompressed if made from this very file, else gzip here), or None."""
        data = source.read_bytes()
        made = self.manifest.get(f"/static/{rel}")
        if made and made[0] == len(data) and encoding in made[1]:
            return (
                self.precompressed / "static" / (rel + (".br" if encoding == "br" else ".gz"))
            ).read_bytes()
        if encoding != "gzip":
            return None
        body = gzip.compress(data, GZIP_LEVEL, mtime=0)
        return body if len(body) < len(data) else None
