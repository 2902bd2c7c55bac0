"""The browser's side of the σ scrubber and of the plane editor, as JavaScript text: one drawing code path
for the app and for the offline interactive page.

* ``download.js`` – ``rbfvizDownloadFigure(gd, format, name)``: a drawn figure as PNG or SVG.
* ``probe.js``    – the probe: a location's responsibilities from the centres and σ of the level on
                    screen (``probeResponsibilities``, the maps of ``rbfviz.maps``) and its panel.
* ``scrub.css``   – the scrubber's controls, numbers and caption, in the colours of the --st-* custom
                    properties (Streamlit sets them on every component; the offline page sets them).
* ``scrub.js``    – the scrubber (a labelled σ range input that redraws a Plotly figure from the
                    levels of an ``rbfviz.views.common.scrub`` payload). Its default export,
                    ``mountScrubber(component)``, is what Streamlit's component frame calls (ui/scrub.py);
                    the offline page (``rbfviz.views.export``) calls it with the same arguments.
* ``plotly.js``   – ``loadPlotly()``: Streamlit's own Plotly bundle, shared by the two components.
* ``plane_edit.js`` – the plane editor (place and drag centres, draw and erase points): its default
                    export ``mountPlaneEditor(component)`` is ui/plane_edit.py's component.

``scrubber_script(plotly_chunk)`` is download.js, probe.js, plotly.js and scrub.js, with the library's
colours filled in; ``editor_script(plotly_chunk)`` is plotly.js and plane_edit.js.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..layout import FIELD_LEGEND, THEME_INK
from ..palette import INK_COLORS

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def download_script() -> str:
    """download.js: defines rbfvizDownloadFigure (a plain function declaration)."""
    return (_HERE / "download.js").read_text(encoding="utf-8").replace("__THEME_INK__", THEME_INK)


@lru_cache(maxsize=4)
def scrubber_script(plotly_chunk: str = "") -> str:
    """download.js, probe.js then scrub.js, as one ES module whose default export is ``mountScrubber``.

    plotly_chunk: the file name of the Plotly bundle scrub.js imports when ``window.Plotly`` is not
    set yet (the app: Streamlit's own chunk); "" where the page defines window.Plotly first."""
    js = _plotly_loader(plotly_chunk) + (_HERE / "scrub.js").read_text(encoding="utf-8")
    js = js.replace("__INK_COLORS__", json.dumps(sorted(INK_COLORS)))
    js = js.replace("__FIELD_LEGEND__", json.dumps(FIELD_LEGEND))
    return download_script() + (_HERE / "probe.js").read_text(encoding="utf-8") + js


def _plotly_loader(plotly_chunk: str) -> str:
    """plotly.js: ``loadPlotly()``, importing ``plotly_chunk`` when window.Plotly is not set yet."""
    return (_HERE / "plotly.js").read_text(encoding="utf-8").replace("__PLOTLY_CHUNK__", plotly_chunk)


@lru_cache(maxsize=2)
def editor_script(plotly_chunk: str) -> str:
    """plotly.js then plane_edit.js, as one ES module whose default export is ``mountPlaneEditor``."""
    return _plotly_loader(plotly_chunk) + (_HERE / "plane_edit.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def scrubber_css() -> str:
    """scrub.css: the stylesheet of the elements scrub.js builds."""
    return (_HERE / "scrub.css").read_text(encoding="utf-8")
