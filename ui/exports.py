"""Downloads on every view: points with responsibilities (CSV), annealing trajectories (JSON), each
figure as a standalone HTML file, and the view's reproducibility receipt (a runnable .py file).

Every file is generated only when its button is clicked (Streamlit's deferred download data), so
a rerun costs nothing; the generators are plain functions of values already computed.

    download_row(ctrl, [
        figure_download(fig, "explorer_plane"),
        receipt_download(lambda: receipt.explorer_receipt(receipt_params(ctrl), numbers), "Explorer"),
    ], key="explorer")
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Callable

import streamlit as st

from rbfviz.loader import points_to_csv

from . import upload as uploads
from .state import UPLOAD, Controls


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


def figure_download(fig, name: str, label: str = "Figure (HTML)") -> Download:
    """fig: a figure, or a function returning one (built only when the button is pressed)."""
    return Download(
        label,
        f"rbfviz_{name}.html",
        "text/html",
        lambda: figure_html(fig() if callable(fig) else fig),
        help="The figure as shown, as a standalone HTML file: opens offline in any browser, "
        "with zoom and hover.",
    )


def points_download(X, resp, labels=None, name: str = "points") -> Download:
    """Points with their responsibilities (x, y, r_0..r_{k-1}[, label]); formula-safe CSV."""
    import numpy as np

    finite = bool(np.isfinite(np.asarray(resp, dtype=np.float64)).all())
    return Download(
        "Points and r (CSV)",
        f"rbfviz_{name}.csv",
        "text/csv",
        lambda: points_to_csv(X, resp, labels),
        help="Columns x, y, r_0 … r_{k−1} (the responsibilities shown)"
        + (" and label (the K-Means cluster of each point)." if labels is not None else ".")
        if finite
        else "Not available: some rows of r are NaN here (the naive map broke).",
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
    """make_receipt() -> rbfviz.views.receipt.Receipt; the file is its ``to_python()``."""

    def make() -> bytes:
        return make_receipt().to_python().encode("utf-8")

    return Download(
        "Receipt (.py)",
        f"rbfviz_receipt_{view.lower()}.py",
        "text/x-python",
        make,
        help="Every parameter, the package versions and a short Python script using the rbfviz "
        "library that recomputes this view's numbers and prints them next to the shown ones.",
    )


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
    if ctrl.dataset == UPLOAD:
        upload = uploads.current()
        if upload is not None:
            params.update(
                file_name=upload.name,
                file_sha256=hashlib.sha256(upload.data).hexdigest(),
                columns=upload.columns,
            )
        params.pop("noise")
    params.update(extra)
    return params


def download_row(ctrl: Controls, items: list[Download], key: str) -> None:
    """A row of download buttons (hidden in presenter mode: a projector needs no downloads)."""
    if ctrl.presenter or not items:
        return
    cols = st.columns(len(items))
    for i, (col, item) in enumerate(zip(cols, items)):
        with col:
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
