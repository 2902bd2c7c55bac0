"""One scrubbed view as a self-contained HTML page: it opens from file:// (a USB stick, a course page's
uploaded file, an <iframe>) with no network, and moves through σ as the app does.

    html = interactive_page(payload, "explorer", settings, sigma=0.42, dataset="blobs")
    html = view_page(Setting("annealing"))            # builds the payload first (the command line)

The page holds plotly.js (the smallest bundle that draws its figures, gzip-compressed and base64-encoded:
the browser inflates it with DecompressionStream, as it inflates the payload), the payload, and the σ
scrubber's own code (rbfviz/views/common/web/scrub.js), called through the same entry point as in the app.
Nothing is fetched: no CDN, no fonts. A section at the end says what made the file: the settings, the σ
range, the rbfviz and package versions, the date, and a link to the same view in the app when a public
address is given.

The page's words are in the language of the translator given (``tr``, English by default), and its
``<html lang>`` says which.
"""

from __future__ import annotations

import base64
import html
import json
import re
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode

from zlib_ng import gzip_ng

from ...i18n import ENGLISH, N_, Translator
from ..common.receipt import PARAMETER_ORDER, package_versions
from ..common.scrub import read_payload
from ..common.web import scrubber_css, scrubber_script

_HERE = Path(__file__).resolve().parent

# view -> (the page's name in the app's menu and address, its title, what to do on the page); the title
# and the guide are catalog messages, the name is also the page's address
VIEW_PAGES = {
    "explorer": (
        "Explorer",
        N_("Explorer: one σ, soft vs hard"),
        N_(
            "Move σ with the slider (drag it, or focus it and use the arrow keys, Page Up/Down, Home and "
            "End). The background is the soft field, dark lines the hard Voronoi edges; points mix the "
            "cluster colours by their responsibilities r. The numbers beside the plot follow σ."
        ),
    ),
    "annealing": (
        "Annealing",
        N_("Annealing: from the data mean to K-Means as σ falls"),
        N_(
            "Press ▶ Play to run the whole annealing, one frame per σ level, or move σ with the slider "
            "(arrow keys too). Dotted lines are each centre's whole path, solid lines its trail so far; × "
            "are the K-Means centroids."
        ),
    ),
    "stability": (
        "Stability",
        N_("Stability: which maps survive small σ, in which precision"),
        N_(
            "Move σ with the slider (arrow keys too): the left panel shows where the naive softmax breaks "
            "(NaN rows, grey), the right where entmax-1.5 is exactly one-hot (K-Means)."
        ),
    ),
    "equivalence": (
        "Equivalence",
        N_("Equivalence: a gradient step is a centroid step"),
        N_(
            "Move σ with the slider (arrow keys too): one gradient step on the RBF loss with η_j = 1/(2N_j) "
            "lands on the soft centroid x̄_j; as σ falls, that is Lloyd's step."
        ),
    ),
}

_LABELS = {
    "dataset": N_("data set"),
    "n": N_("points n"),
    "noise": N_("noise"),
    "seed": N_("seed"),
    "file_name": N_("file"),
    "file_sha256": N_("file SHA-256"),
    "columns": N_("columns"),
    "k": N_("clusters k"),
    "init": N_("initialisation"),
    "picks": N_("picked points"),
    "kind": N_("map"),
    "dtype": N_("precision"),
    "sigma": N_("σ at export"),
    "steps": N_("steps"),
    "lessons": N_("lessons"),
    "views": N_("views"),
}


def _label(key: str, tr: Translator) -> str:
    return tr(_LABELS[key]) if key in _LABELS else key


# plotly.js in the page: the smallest bundle that draws every trace type of the page's figures, both
# plotly.js 4.1.1 (the plotly Python package's version). The partial one is the npm package
# plotly.js-cartesian-dist-min@4.1.1 (MIT, plotly-cartesian.LICENSE; plotly-cartesian.min.js has
# SHA-256 79542150855a52c567260e3137095dbe2b744e6d702a5cabe67da246942fba7a), stored gzip-compressed:
# 0.50 MB in place of the full bundle's 1.47 MB. The full one (WebGL traces: the Explorer above 1,500
# points) is the plotly Python package's own plotly.min.js.
CARTESIAN_TRACES = frozenset(
    (
        "bar",
        "box",
        "contour",
        "heatmap",
        "histogram",
        "histogram2d",
        "histogram2dcontour",
        "image",
        "pie",
        "scatter",
        "scatterternary",
        "violin",
    )
)
PLOTLY_VERSION = "4.1.1"


@lru_cache(maxsize=2)
def plotly_bundle(partial: bool = True) -> tuple[str, str]:
    """(name, bundle gzip-compressed and base64-encoded): the cartesian partial bundle (about 0.66 MB in
    the page), or with partial=False the full one (about 2.0 MB)."""
    if partial:
        data = (_HERE / "plotly-cartesian.min.js.gz").read_bytes()
        return f"plotly.js (cartesian) {PLOTLY_VERSION}", base64.b64encode(data).decode("ascii")
    import plotly

    source = (Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js").read_bytes()
    found = re.search(rb"plotly\.js v(\d+\.\d+\.\d+)", source[:400])
    version = found.group(1).decode() if found else "unknown"
    return f"plotly.js {version}", base64.b64encode(
        gzip_ng.compress(source, compresslevel=9, mtime=0)
    ).decode()


def trace_types(payload: bytes) -> set[str]:
    """Every trace type a payload's levels draw (a trace without one is a scatter, as in Plotly)."""
    header = read_payload(payload)
    traces = list(header["figure"]["data"])
    for frame in header["frames"]:
        for path, value in frame["set"]:
            if path[0] != "data":
                continue
            if len(path) == 1:
                traces += list(value)
            elif len(path) == 2:
                traces.append(value)
            elif path[2:] == ["type"]:
                traces.append({"type": value})
    return {trace.get("type", "scatter") for trace in traces if isinstance(trace, dict)}


def app_link(public_url: str | None, view: str, query: dict) -> str | None:
    """The same view in the app: ``public_url`` (the address students reach, e.g. RBFVIZ_PUBLIC_URL, which
    the caller reads), the view's page and its settings as URL parameters; None without an address."""
    if not public_url or not public_url.strip():
        return None
    page = VIEW_PAGES[view][0] if view in VIEW_PAGES else view
    address = f"{public_url.strip().rstrip('/')}/{page}"
    return f"{address}?{urlencode(query)}" if query else address


def _value(key: str, value, tr: Translator = ENGLISH) -> str:
    if isinstance(value, float):
        return tr.number(value, ".6g")
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or tr("none")
    return str(value)


def settings_html(
    settings: dict, sigma_range: tuple[float, float, int] | None, tr: Translator = ENGLISH
) -> str:
    """The settings as a definition list, in the receipt's order; the σ range as its last entry."""
    keys = [key for key in PARAMETER_ORDER if key in settings and settings[key] not in (None, (), [])]
    keys += [key for key in settings if key not in keys and settings[key] not in (None, (), [])]
    rows = [
        f"<div><dt>{html.escape(_label(key, tr))}</dt>"
        f"<dd>{html.escape(_value(key, settings[key], tr))}</dd></div>"
        for key in keys
    ]
    if sigma_range is not None:
        high, low, count = sigma_range
        levels = tr("{high:.3g} down to {low:.3g}, {count} levels", high=high, low=low, count=str(count))
        name = tr("σ range")
        rows.append(f"<div><dt>{html.escape(name)}</dt><dd>{html.escape(levels)}</dd></div>")
    return '<dl class="settings">' + "".join(rows) + "</dl>"


def made_html(
    settings: dict,
    sigma_range,
    link: str | None,
    bundle: str,
    versions: dict | None = None,
    tr: Translator = ENGLISH,
) -> str:
    """What made the file: settings, versions, date, the plotly.js bundle inside, the link back to the app;
    in ``tr``'s language."""
    versions = package_versions() if versions is None else versions
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    version_list = ", ".join(
        f"{name} {html.escape(str(v))}" for name, v in versions.items() if name != "rbfviz"
    )
    text = tr(
        "Made by rbfviz {version} on {made}, with {versions}; {bundle} is inside this file. Every figure, "
        "number and sentence was computed by the rbfviz library when the file was made; the page only "
        "selects and draws them, with no network (the Explorer's probe computes one location's "
        "responsibilities from the centres stored for each σ, with the library's formulas).",
        version=str(versions.get("rbfviz", "")),
        made=made,
        versions=version_list,
        bundle=bundle,
    )
    parts = [settings_html(settings, sigma_range, tr), f"<p>{html.escape(text, quote=False)}</p>"]
    if link:
        anchor = f'<a href="{html.escape(link)}" target="_blank" rel="noopener">'
        parts.append(
            "<p>"
            + tr(
                "{a}Open the same view in the app{end} (needs the network), to change the data, k, the map "
                "or the precision.",
                a=anchor,
                end="</a>",
            )
            + "</p>"
        )
    return "\n  ".join(parts)


def scrubber_holder(
    payload_id: str, sigma: float | None, dataset: str, label: str, tr: Translator = ENGLISH
) -> str:
    """The element a figure is mounted into (the page's script reads its data- attributes)."""
    sigma_attr = "" if sigma is None else f' data-sigma="{float(sigma):.12g}"'
    drawing = tr("Drawing the figure…")
    return (
        f'<div class="rbfviz-scrubber" data-payload="{html.escape(payload_id)}"{sigma_attr} '
        f'data-dataset="{html.escape(dataset)}" role="group" aria-label="{html.escape(label)}">'
        f'<p class="loading">{html.escape(drawing)}</p></div>'
    )


def payload_script(payload_id: str, payload: bytes) -> str:
    return (
        f'<script type="application/octet-stream" id="{html.escape(payload_id)}">'
        + base64.b64encode(payload).decode("ascii")
        + "</script>"
    )


def page_css() -> str:
    return (_HERE / "page.css").read_text(encoding="utf-8")


def html_page(
    title: str,
    body: str,
    made: str,
    payloads: dict[str, bytes],
    extra_js: str = "",
    tr: Translator = ENGLISH,
) -> str:
    """The page around ``body``: styles, plotly.js, the payloads (id -> bytes), the scrubber's code; its
    ``<html lang>`` and its own words in ``tr``'s language."""
    version, plotly_b64 = bundle_for(payloads.values())
    template = (_HERE / "page.html").read_text(encoding="utf-8")
    from ... import __version__

    parts = {
        "__LANG__": tr.lang,
        "__MADE_HEADING__": html.escape(tr("How this file was made")),
        "__OPEN_ERROR__": json.dumps(
            tr(
                "This browser could not open the figure ({error}). Open the file in a current Chrome, Edge, "
                "Firefox or Safari.",
                error="{error}",
            )
        ),
        "__GENERATOR__": f"rbfviz {__version__}",
        "__TITLE__": html.escape(title),
        "__SCRUB_CSS__": scrubber_css(),
        "__PAGE_CSS__": page_css(),
        "__BODY__": body,
        "__MADE__": made,
        "__PLOTLY_VERSION__": html.escape(version),
        "__PLOTLY_GZIP_BASE64__": plotly_b64,
        "__PAYLOADS__": "\n".join(payload_script(key, data) for key, data in payloads.items()),
        "__SCRUBBER_JS__": scrubber_script(""),
        "__EXTRA_JS__": extra_js,
    }
    # one pass, so that no part's text is read as another placeholder
    pattern = re.compile("|".join(re.escape(key) for key in parts))
    return pattern.sub(lambda match: parts[match.group(0)], template)


def bundle_for(payloads) -> tuple[str, str]:
    """``plotly_bundle`` for a page of these payloads: the partial one if it draws all their traces."""
    types = set().union(*(trace_types(data) for data in payloads))
    return plotly_bundle(partial=types <= CARTESIAN_TRACES)


def sigma_range(payload: bytes) -> tuple[float, float, int]:
    sigmas = read_payload(payload)["sigmas"]
    return float(max(sigmas)), float(min(sigmas)), len(sigmas)


def interactive_page(
    payload: bytes,
    view: str,
    settings: dict,
    sigma: float | None,
    dataset: str,
    link: str | None = None,
    notes: tuple[str, ...] = (),
    versions: dict | None = None,
    tr: Translator = ENGLISH,
) -> str:
    """One view's page. payload: the view's rbfviz.views.common.scrub payload (every σ level); settings:
    the view's parameters (a receipt's ``params``: dataset, n, noise, seed, k, init, kind, dtype, sigma,
    ...); sigma: the σ it opens at (None: the payload's initial level); dataset: the data set's name for
    the figure's file names; link: the same view in the app (``app_link``) or None; notes: sentences shown
    under the figure (e.g. that a sample of the points is drawn), in ``tr``'s language as the page."""
    page, title, guide = VIEW_PAGES[view]
    name = tr(page)
    caption = ", ".join(
        f"{_label(key, tr)} {_value(key, settings[key], tr)}"
        for key in ("dataset", "file_name", "n", "k", "kind", "dtype")
        if settings.get(key) is not None
    )
    noscript = tr("This page draws its figure with JavaScript: turn it on to see the figure.")
    body = "\n".join(
        [
            f"<h1>{html.escape(tr(title))}</h1>",
            f'<p class="caption">{html.escape(caption)}. {html.escape(tr(guide))}</p>',
            f'<noscript><p class="scrub-error">{html.escape(noscript)}</p></noscript>',
            scrubber_holder(
                "rbfviz-payload", sigma, dataset, tr("{view}: the figure at every σ", view=name), tr
            ),
            *(f'<p class="note">{html.escape(note)}</p>' for note in notes),
        ]
    )
    made = made_html(settings, sigma_range(payload), link, bundle_for([payload])[0], versions, tr)
    return html_page(f"{name} · rbfviz", body, made, {"rbfviz-payload": payload}, tr=tr)


def view_page(setting, public_url: str | None = None, progress=None, tr: Translator = ENGLISH) -> str:
    """``interactive_page`` of a ``build.Setting``, its payload built here (the command line's path); the
    page's words in ``tr``'s language."""
    from ..common.plane import MAX_DRAWN_POINTS
    from .build import view_payload

    payload = view_payload(setting, progress, tr=tr)
    sigma = setting.sigma_or_default()
    settings = dict(
        dataset=setting.dataset,
        n=setting.n,
        noise=setting.noise,
        seed=setting.seed,
        k=setting.k,
        init=setting.init if setting.view in ("explorer", "equivalence") else None,
        kind=setting.kind_spec,
        dtype=setting.dtype,
        sigma=sigma,
    )
    notes = ()
    if setting.n > MAX_DRAWN_POINTS and setting.view in ("explorer", "stability"):
        notes = (
            tr(
                "Drawn: a seeded sample of {drawn:,} of the {n:,} points; every number counts all {n:,}.",
                drawn=MAX_DRAWN_POINTS,
                n=setting.n,
            ),
        )
    link = app_link(public_url, setting.view, {**setting.view_query(), "lang": tr.lang})
    return interactive_page(payload, setting.view, settings, sigma, setting.dataset, link, notes, tr=tr)
