"""Downloads on every view: points with responsibilities (CSV), annealing trajectories (JSON), each
figure as a standalone HTML file, and the view's reproducibility receipt (a runnable .py file).
Every figure can also be saved as PNG or SVG from buttons under it (``figure_tools``; the σ
scrubber has the same buttons): the browser renders the figure as shown, nothing runs on the server.

Every file is generated only when its button is clicked (Streamlit's deferred download data), so
a rerun costs nothing; the generators are plain functions of values already computed.

    download_row(ctrl, [
        figure_download(fig, "explorer_plane"),
        receipt_download(lambda: explorer_receipt(receipt_params(ctrl), numbers), "Explorer"),
    ], key="explorer")
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass
from typing import Callable

import streamlit as st

from rbfviz.bounded_store import BoundedStore
from rbfviz.i18n import ENGLISH, Translator, translator
from rbfviz.loader import points_to_csv
from rbfviz.views.common.web import download_script

from . import language, settings
from . import upload as uploads
from .state import DRAWN, UPLOAD, Controls

# The browser's side of a PNG or SVG download (rbfviz/views/common/web/download.js), shared with the σ
# scrubber.
DOWNLOAD_JS = download_script()
# One click handler for every figure's buttons (installed once per browser tab): the figure is the
# Plotly chart in the same keyed container (ui.page.chart puts both there).
_TOOLS_JS = (
    DOWNLOAD_JS
    + """
if (!window.rbfvizFigureTools) {
  window.rbfvizFigureTools = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".rbfviz-figure-tools button[data-format]");
    if (!button) return;
    const tools = button.closest(".rbfviz-figure-tools");
    const holder = button.closest("[class*='st-key-" + tools.dataset.holder + "']");
    const gd = holder && holder.querySelector("[data-testid='stPlotlyChart'] .js-plotly-plot");
    if (gd && window.Plotly) rbfvizDownloadFigure(gd, button.dataset.format, tools.dataset.name);
  });
}
"""
)
FIGURE_HOLDER = "rbfviz_figure_"


def slug(text) -> str:
    """Lower-case letters, digits and dots; everything else one hyphen (for file names)."""
    return re.sub(r"[^a-z0-9.]+", "-", str(text).lower()).strip("-")


def figure_file_name(view: str, what: str, dataset: str, sigma: float | None) -> str:
    """rbfviz_<view>_<figure>_<data set>[_sigma-<σ>], without an extension."""
    parts = ["rbfviz", slug(view), slug(what), slug(dataset)]
    if sigma is not None:
        parts.append(f"sigma-{float(sigma):.3g}")
    return "_".join(part for part in parts if part)


def figure_tools(key: str, file_name: str, what: str) -> None:
    """PNG and SVG buttons for the Plotly chart in the container ``st.container(key=FIGURE_HOLDER + key)``.

    Real buttons (keyboard, screen readers); the script only runs the browser's download. ``what``: the
    figure, in the reader's language.
    """
    tr = language.current()
    group = html.escape(tr("Download {what}", what=what))
    heading = html.escape(tr("Download figure"))
    labels = {
        fmt: html.escape(tr("Download {what} as {format}", what=what, format=fmt.upper()))
        for fmt in ("png", "svg")
    }
    st.html(
        f'<div class="rbfviz-figure-tools" role="group" aria-label="{group}" '
        f'data-holder="{html.escape(FIGURE_HOLDER + key)}" data-name="{html.escape(file_name)}">'
        f"<span>{heading}</span>"
        + "".join(
            f'<button type="button" data-format="{fmt}" aria-label="{label}">{fmt.upper()}</button>'
            for fmt, label in labels.items()
        )
        + f"</div><script>{_TOOLS_JS}</script>",
        unsafe_allow_javascript=True,
    )


@dataclass(frozen=True)
class Download:
    """One download button: label, file name, MIME type, and the function that makes the bytes."""

    label: str
    file_name: str
    mime: str
    make: Callable[[], bytes]
    help: str = ""
    disabled: bool = False


def figure_html(fig) -> bytes:
    """The figure as one standalone HTML file with plotly.js inside (opens offline, zoom and hover work)."""
    return fig.to_html(
        include_plotlyjs=True, full_html=True, config={"displaylogo": False, "responsive": True}
    ).encode("utf-8")


def figure_download(fig, name: str, label: str | None = None) -> Download:
    """fig: a figure, or a function returning one (built only when the button is pressed). label: the
    button's, in the reader's language (default "Figure (HTML)")."""
    tr = language.current()
    return Download(
        label or tr("Figure (HTML)"),
        f"rbfviz_{name}.html",
        "text/html",
        lambda: figure_html(fig() if callable(fig) else fig),
        help=tr(
            "The figure as shown, as a standalone HTML file: opens offline in any browser, with zoom and "
            "hover."
        ),
    )


def interactive_page_download(payload: bytes, view: str, ctrl: Controls, params: dict, notes=()) -> Download:
    """The view as one self-contained HTML file that works offline: every σ level of its scrubbed figure
    (``payload``, the bytes the page's scrubber draws), the numbers and "In words" per level, the σ control,
    the settings and versions (``params``, as a receipt lists them), and a link back to this view when
    RBFVIZ_PUBLIC_URL is set (rbfviz.views.export.page)."""
    from rbfviz.views.export.page import app_link, interactive_page

    public = settings.current().public_url
    link = app_link(public, view, ctrl.to_query())
    dataset = ctrl.dataset

    def make() -> bytes:  # the page's words in the reader's language, as the payload's
        page = interactive_page(
            payload, view, params, ctrl.sigma, dataset, link, tuple(notes), tr=translator(ctrl.lang)
        )
        return page.encode("utf-8")

    tr = language.current()
    return Download(
        tr("Interactive page (HTML)"),
        f"rbfviz_{view}_{slug(dataset)}_interactive.html",
        "text/html",
        make,
        help=tr(
            "This view as one HTML file that works anywhere with no network and no server: every σ of "
            "the slider, the numbers beside the figure and the sentence in words. Open it in a browser, "
            "put it on a USB stick, or upload it to Moodle or Canvas (see the teachers' guide)."
        ),
    )


def lesson_pack_download(tr: Translator = ENGLISH) -> Download:
    """The ten Lessons steps as one offline HTML file (rbfviz.views.export.lesson_pack), built on click,
    in ``tr``'s language."""
    from rbfviz.views.export.lesson_pack import lesson_pack

    public = settings.current().public_url
    tr = language.current()
    return Download(
        tr("Lesson pack (HTML)"),
        "rbfviz_lessons.html",
        "text/html",
        lambda: lesson_pack(public_url=public, tr=tr).encode("utf-8"),
        help=tr(
            "The ten steps as one HTML file for students to work through alone, with no network: each "
            "step's figure at every σ, its question, the check of the answer and the explanation. Preparing "
            "it takes about a minute (ten views at every σ)."
        ),
    )


def points_download(X, resp, labels=None, name: str = "points", finite: bool | None = None) -> Download:
    """Points with their responsibilities (x, y, r_0..r_{k-1}[, label]); formula-safe CSV.

    resp: (n, k), or a function returning it (computed only when the button is pressed); then
    ``finite`` says whether every row of it is finite (else the button is disabled)."""
    import numpy as np

    if finite is None:
        finite = bool(np.isfinite(np.asarray(resp, dtype=np.float64)).all())
    tr = language.current()
    if not finite:
        help = tr("Not available: some rows of r are NaN here (the naive map broke).")
    elif labels is not None:
        help = tr(
            "Columns x, y, r_0 … r_{last} (the responsibilities shown) and label (the K-Means cluster of "
            "each point).",
            last="{k−1}",
        )
    else:
        help = tr("Columns x, y, r_0 … r_{last} (the responsibilities shown).", last="{k−1}")
    return Download(
        tr("Points and r (CSV)"),
        f"rbfviz_{name}.csv",
        "text/csv",
        lambda: points_to_csv(X, resp() if callable(resp) else resp, labels),
        help=help,
        disabled=not finite,
    )


def json_download(make_dict: Callable[[], dict], name: str, label: str, help: str) -> Download:
    return Download(
        label,
        f"rbfviz_{name}.json",
        "application/json",
        lambda: json.dumps(make_dict(), indent=1, allow_nan=False).encode("utf-8"),
        help=help,
    )


def receipt_download(make_receipt: Callable, view: str) -> Download:
    """make_receipt() -> rbfviz.views.common.receipt.Receipt; the file is its ``to_python()``."""

    def make() -> bytes:
        return make_receipt().to_python().encode("utf-8")

    tr = language.current()
    return Download(
        tr("Receipt (.py)"),
        f"rbfviz_receipt_{view.lower()}.py",
        "text/x-python",
        make,
        help=tr(
            "Every parameter, the package versions and a short Python script using the rbfviz library "
            "that recomputes this view's numbers and prints them next to the shown ones."
        ),
    )


_FILE_SHA256 = BoundedStore(max_entries=64)  # an uploaded file's digest -> its SHA-256


def file_sha256(upload) -> str:
    """The SHA-256 of an uploaded file's bytes (``ui.upload.Upload``), computed once per file and process:
    every run of a view that offers a receipt lists it (a settled σ too), and a 5 MB file takes
    milliseconds to hash. Keyed by the file's own digest, so no file bytes are kept; 64 files at most."""
    return _FILE_SHA256.get_or_compute(upload.file_digest, lambda: hashlib.sha256(upload.data).hexdigest())


def receipt_params(ctrl: Controls, **extra) -> dict:
    """The parameters a receipt lists (and its snippet uses), from the controls. Call it in the page
    script (it reads the session's upload), not inside a download generator (which runs elsewhere)."""
    params = dict(
        dataset=ctrl.dataset,
        n=ctrl.n,
        noise=ctrl.noise,
        seed=ctrl.seed,
        k=ctrl.k,
        init=ctrl.init,
        picks=ctrl.start_picks(),
        kind=ctrl.kind,
        dtype=ctrl.dtype,
        sigma=float(ctrl.sigma),
    )
    if ctrl.dataset == DRAWN:
        params["points"] = ctrl.drawn
    if ctrl.start_placed():
        params["placed"] = [list(centre) for centre in ctrl.start_placed()]
    if ctrl.dataset == UPLOAD:
        upload = uploads.current()
        if upload is not None:
            params.update(
                file_name=upload.name,
                file_sha256=file_sha256(upload),
                columns=upload.columns,
            )
        params.pop("noise")
    params.update(extra)
    return params


def download_row(ctrl: Controls, items: list[Download], key: str) -> None:
    """A row of download buttons (hidden in presenter mode: a projector needs no downloads)."""
    if ctrl.presenter or not items:
        return
    # one horizontal block, the buttons sharing its width as columns would: a settle sends this row again,
    # and columns cost a block message each
    with st.container(horizontal=True):
        for i, item in enumerate(items):
            st.download_button(
                item.label,
                data=item.make,
                file_name=item.file_name,
                mime=item.mime,
                key=f"dl_{key}_{i}",
                on_click="ignore",
                help=item.help or None,
                disabled=item.disabled,
                icon=":material/download:",
                width="stretch",
            )
