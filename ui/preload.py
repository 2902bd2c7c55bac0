"""A view's first open without waiting for Streamlit's lazily loaded Plotly: an ASGI middleware for
``st.App`` (app.py passes it in) that adds two tags to the page Streamlit answers every app address
with (its index.html).

Streamlit's front end loads the code of each kind of element only when an element of that kind first
arrives over the websocket: Plotly's bundle (its ``PlotlyChart`` chunk, 4.7 MB of JavaScript, about a
second of the main thread to evaluate on this project's machine) when the first figure's element
arrives, after Streamlit's own bundle has run, the websocket has opened, the page's script has run and
the elements before the figure (the sidebar's widgets) have pulled their own chunks.

So the page of a view asks, in its HTML:

* ``<link rel="preload" as="script" crossorigin>`` for Plotly's chunk: the browser fetches it alongside
  Streamlit's own bundle, and keeps it, without compiling it;
* one ``import()`` of that chunk as soon as Streamlit's websocket is open (EVALUATE_JS): Plotly is
  evaluated (a long task of the main thread) while the server runs the page's script, from the fetched
  copy, so the first figure is drawn as soon as its data arrives. The figure code (ui/scrub.py's
  component, st.plotly_chart) finds it loaded. Evaluated any earlier, it would hold back the websocket.

Nothing else is preloaded. A ``<link rel="modulepreload">`` for Plotly and for the chunk of every kind
of widget the sidebar draws (tried: about a hundred files) made the browser fetch and compile them
before Streamlit's own bundle had run, and the websocket opened 0.4-0.5 s after a trivial page's
(docs/contribute/benchmarks.md, "First open"); the widgets' chunks are fetched when their elements
arrive, as on any Streamlit page.

Home and Lessons open without a Plotly figure: their page is left as it is, so a class joining on
Lessons does not download Plotly before it needs it (the class's answers, a figure drawn later, load
it then, as any lazily loaded element). The tags are hints: the page works the same if the browser
ignores them, and a Plotly chunk this Streamlit does not have leaves the page unchanged with a warning
in the log (tests/unit/test_preload.py checks the name against the pinned version).
"""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import streamlit
from starlette.middleware import Middleware
from streamlit import config

log = logging.getLogger("rbfviz.app")

STATIC = Path(streamlit.__file__).resolve().parent / "static"
# Streamlit's index.html loads its bundle with this tag: an HTML answer without it is another page
MARKER = b'<script type="module" crossorigin src="./static/js/index.'
PLOTLY = "PlotlyChart"
# the last part of the address of the pages that open without a Plotly figure: Home and Lessons
NO_FIGURE = ("", "Lessons")


def chunk_of(name: str, static: Path = STATIC) -> str:
    """File name of Streamlit's front-end chunk ``name`` (``name.<hash>.js``)."""
    found = sorted(path.name for path in (static / "static" / "js").glob(f"{name}.*.js"))
    if not found:
        raise RuntimeError(f"Streamlit's front-end chunk {name}.*.js is missing from {static}.")
    return found[0]


# Runs before Streamlit's bundle (a classic script): the first websocket the page opens (Streamlit's,
# which asks for the script run as it opens) imports the chunk once it is open; later ones are plain.
EVALUATE_JS = """(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      window.WebSocket = Native;
      this.addEventListener("open", () => import("./static/js/__CHUNK__").catch(() => {}), { once: true });
    }
  };
})();"""


def preload_tags(evaluate: str = PLOTLY, static: Path = STATIC) -> bytes:
    """The tags for index.html: chunk ``evaluate`` fetched with the page (a preload, not compiled), then
    imported once the websocket is open. Empty (a warning in the log) if this Streamlit has no such chunk."""
    try:
        chunk = chunk_of(evaluate, static)
    except RuntimeError as exc:  # hints less: the page loads the chunk itself when it needs it
        log.warning("no preload for %s: %s", evaluate, exc)
        return b""
    return (
        f'<link rel="preload" as="script" crossorigin href="./static/js/{chunk}">'
        + "<script>"
        + EVALUATE_JS.replace("__CHUNK__", chunk)
        + "</script>"
    ).encode()


def preload_middleware() -> list[Middleware]:
    """The middleware list for app.py's ``st.App``: Preload with this Streamlit's Plotly chunk, under
    this server's base URL path."""
    base_url = config.get_option("server.baseUrlPath") or ""
    return [Middleware(Preload, tags=preload_tags(), base_url=base_url)]


class Preload:
    """ASGI middleware: Streamlit's index.html, as answered to a GET of any page but those of NO_FIGURE,
    with ``tags`` added before its ``</head>``. Every other answer, and any HTML that is not Streamlit's
    page, passes unchanged."""

    def __init__(self, app, tags: bytes, base_url: str = ""):
        self.app = app
        self.tags = tags
        self.prefix = "/" + base_url.strip("/") if base_url.strip("/") else ""

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET" or self._page(scope["path"]) in NO_FIGURE:
            await self.app(scope, receive, send)
            return
        start = None
        parts: list[bytes] = []

        async def capture(message):
            nonlocal start
            if message["type"] == "http.response.start" and _is_html(message):
                start = message  # held until the body is complete
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                headers, body = _with_tags(start["headers"], b"".join(parts), self.tags)
                await send({**start, "headers": headers})
                await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)

    def _page(self, path: str) -> str:
        """The page's name in an address (its last part below the base URL path; "" for Home)."""
        if self.prefix and path.startswith(self.prefix):
            path = path[len(self.prefix) :]
        return path.strip("/").rsplit("/", 1)[-1]


def _with_tags(headers: list, body: bytes, tags: bytes) -> tuple[list, bytes]:
    """(headers, body) of an HTML answer with ``tags`` before ``</head>`` if it is Streamlit's page
    (gzip-compressed or not), else as they were."""
    encoding = _header(headers, b"content-encoding")
    if encoding not in (None, b"gzip", b"identity"):
        return headers, body
    html = gzip.decompress(body) if encoding == b"gzip" else body
    if MARKER not in html or b"</head>" not in html:
        return headers, body
    html = html.replace(b"</head>", tags + b"</head>", 1)
    body = gzip.compress(html, 6, mtime=0) if encoding == b"gzip" else html
    # the ETag stays: the tags follow from the same Streamlit files, so a 304 answers the page with tags
    kept = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    return [*kept, (b"content-length", str(len(body)).encode())], body


def _header(headers: list, name: bytes) -> bytes | None:
    return next((value.lower() for key, value in headers if key.lower() == name), None)


def _is_html(message) -> bool:
    content_type = _header(message.get("headers", []), b"content-type") or b""
    return message.get("status") == 200 and content_type.startswith(b"text/html")
