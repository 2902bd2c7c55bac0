"""The figure Plotly holds in Chromium (gd.data and gd.layout of the σ scrubber's plot), read as plain
JSON, and compared with a figure dict (rbfviz.views.common.scrub.figure_at: the figure the app draws at a
level). The browser tests of the scrubber, in the app and in the offline pages, read and compare it so.

    shown = page.evaluate(FIGURE_JS, None)      # or a selector of the element holding the scrubber
    assert_figure_is(shown, figure_at(header, shown["level"]))
"""

from __future__ import annotations

import numpy as np

# (holder selector or null) -> the plot's level, its traces (typed arrays as lists), images, annotations
# ([text, x, y]) and title
FIGURE_JS = """(holder) => {
  const root = holder ? document.querySelector(holder) : document;
  const gd = root.querySelector("div.scrub-plot");
  const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain)
    : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
  return { level: Number(gd.dataset.level), data: plain(gd.data),
           images: (gd.layout.images || []).map((i) => i.source),
           annotations: (gd.layout.annotations || []).map((a) => [a.text, a.x, a.y]),
           title: gd.layout.title && gd.layout.title.text };
}"""


def assert_figure_is(shown: dict, want: dict) -> None:
    """Every trace's points (x, y, customdata) and per-point colours, the images and the title that
    Chromium holds are the figure dict's."""
    assert len(shown["data"]) == len(want["data"])
    for got, python in zip(shown["data"], want["data"]):
        for key in ("x", "y", "customdata"):
            if key in python:
                np.testing.assert_array_equal(
                    np.asarray(got[key], dtype=np.float64),
                    np.asarray(python[key], dtype=np.float64),
                    err_msg=key,
                )
        colour = python.get("marker", {}).get("color")
        if isinstance(colour, list):
            assert got["marker"]["color"] == colour
    assert shown["images"] == [image["source"] for image in want["layout"].get("images", [])]
    title = want["layout"].get("title")
    # scrub.js breaks a long title onto two lines where the plot is narrow; the words stay the same
    drawn = shown["title"].replace("<br>", " ") if shown["title"] else shown["title"]
    assert drawn == (title.get("text") if isinstance(title, dict) else None)
