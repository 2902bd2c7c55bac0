"""A view's first open without waiting for Streamlit's lazily loaded code: an ASGI middleware for
``st.App`` (app.py passes it in) that adds preload tags to the page Streamlit answers every app
address with (its index.html).

Streamlit's front end loads the code of each kind of element only when an element of that kind first
arrives over the websocket: Plotly's bundle (its ``PlotlyChart`` chunk, 4.7 MB of JavaScript, a second
of the main thread to evaluate on this project's machine) when the first figure's element arrives,
after Streamlit's own bundle has run, the websocket has opened and the page's script has run; the
sidebar's kinds of widget (ui.page.setup_page) each pull a chunk and the chunks it imports, in
waves. Measured on the views (bench/bench_first_open.py), Plotly's bundle arrived 1.7-3.8 s after
the page's start (1.1-1.6 s on a page with one figure and no sidebar) and was evaluated only then.

So the page of a view asks, in its HTML:

* ``<link rel="modulepreload">`` for Plotly's chunk, the chunk of each kind of widget every page's
  sidebar draws and of the components (``BidiComponent``), and every chunk those import: the browser
  fetches them alongside Streamlit's own bundle instead of in waves after the script has run;
* one ``import()`` of Plotly's chunk as soon as Streamlit's websocket is open (EVALUATE_JS): Plotly
  is evaluated (a long task of the main thread) while the server runs the page's script, so the
  first figure is drawn as soon as its data arrives. The figure code (ui/scrub.py's component,
  st.plotly_chart) finds it loaded. Evaluated any earlier, it would hold back the websocket itself.

Home and Lessons open without a Plotly figure: they get the widgets' preloads only, so a class
joining on Lessons does not download Plotly before it needs it (the class's answers, a figure drawn
later, load it then, as any lazily loaded element). Preloads are hints: the page works the same if
the browser ignores them, so a chunk name this Streamlit does not have is left out with a warning in
the log (tests/unit/test_preload.py checks that every name is found for the pinned version).
"""

from __future__ import annotations

import gzip
import logging
import re
from pathlib import Path

import streamlit
from starlette.middleware import Middleware
from streamlit import config

log = logging.getLogger("rbfviz.app")

STATIC = Path(streamlit.__file__).resolve().parent / "static"
# Streamlit's index.html loads its bundle with this tag: an HTML answer without it is another page
MARKER = b'<script type="module" crossorigin src="./static/js/index.'
PLOTLY = "PlotlyChart"
# The kinds of element the sidebar of every page draws (ui.page.setup_page: the presenter toggle,
# data set and map select boxes, n/seed/noise number inputs, the k slider, the precision radio, the
# upload field, the page menu's links) and the components (the σ scrubber, the figure tools); the
# download row below each view.
SIDEBAR = (
    "BidiComponent",
    "PageLink",
    "Checkbox",
    "Selectbox",
    "NumberInput",
    "Slider",
    "Radio",
    "FileUploader",
    "DownloadButton",
)
# the last part of the address of the pages that open without a Plotly figure: Home and Lessons
NO_FIGURE = ("", "Lessons")

_STATIC_IMPORT = re.compile(rb'(?:\bfrom|\bimport)\s*"\./([^"/]+\.js)"')


def chunk_of(name: str, static: Path = STATIC) -> str:
    """File name of Streamlit's front-end chunk ``name`` (``name.<hash>.js``)."""
    found = sorted(path.name for path in (static / "static" / "js").glob(f"{name}.*.js"))
    if not found:
        raise RuntimeError(f"Streamlit's front-end chunk {name}.*.js is missing from {static}.")
    return found[0]


def static_imports(chunks: list[str], static: Path = STATIC) -> list[str]:
    """``chunks`` and every chunk they import statically, transitively, in the order found."""
    folder = static / "static" / "js"
    found: dict[str, None] = {}
    todo = list(chunks)
    while todo:
        name = todo.pop(0)
        if name not in found:
            found[name] = None
            todo += [m.decode() for m in _STATIC_IMPORT.findall((folder / name).read_bytes())]
    return list(found)


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


def preload_tags(names: list[str], evaluate: str | None = None, static: Path = STATIC) -> bytes:
    """The tags for index.html: a modulepreload per chunk of ``names`` and its imports (but those the
    page lists already), then, if given, chunk ``evaluate`` imported once the websocket is open."""
    listed = set(re.findall(r'"\./static/js/([^"/]+\.js)"', (static / "index.html").read_text("utf-8")))
    named = []
    for name in names:
        try:
            named.append(chunk_of(name, static))
        except RuntimeError as exc:  # a hint less: the page loads that chunk itself when it needs it
            log.warning("no preload for %s: %s", name, exc)
    chunks = static_imports(named, static)
    tags = "".join(
        f'<link rel="modulepreload" crossorigin href="./static/js/{chunk}">'
        for chunk in chunks
        if chunk not in listed
    )
    if evaluate:
        tags += "<script>" + EVALUATE_JS.replace("__CHUNK__", chunk_of(evaluate, static)) + "</script>"
    return tags.encode()


def preload_middleware() -> list[Middleware]:
    """The middleware list for app.py's ``st.App``: Preload with this Streamlit's chunks, under this
    server's base URL path."""
    base_url = config.get_option("server.baseUrlPath") or ""
    return [
        Middleware(
            Preload,
            figures=preload_tags([PLOTLY, *SIDEBAR], evaluate=PLOTLY),
            others=preload_tags(list(SIDEBAR)),
            base_url=base_url,
        )
    ]


class Preload:
    """ASGI middleware: Streamlit's index.html, as answered to a GET of any page, with ``figures``
    (or, for the pages of NO_FIGURE, ``others``) added before its ``</head>``. Every other answer,
    and any HTML that is not Streamlit's page, passes unchanged."""

    def __init__(self, app, figures: bytes, others: bytes, base_url: str = ""):
        self.app = app
        self.figures = figures
        self.others = others
        self.prefix = "/" + base_url.strip("/") if base_url.strip("/") else ""

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        tags = self.others if self._page(scope["path"]) in NO_FIGURE else self.figures
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
                headers, body = _with_tags(start["headers"], b"".join(parts), tags)
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
