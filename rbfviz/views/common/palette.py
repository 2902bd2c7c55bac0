"""Cluster colours: one colour per cluster index j, the same in every view.

The first eight are the Okabe–Ito palette (Okabe & Ito 2008), designed to stay distinguishable
under the common colour-vision deficiencies; the last two extend it for k up to ``MAX_CLUSTERS``.
Black is left out of the cluster colours: it marks K-Means centroids and Voronoi edges.

* ``cluster_colors(k)``   -> list of k hex strings, cluster j -> ``cluster_colors(k)[j]``.
* ``cluster_rgb(k)``      -> (k, 3) uint8 array of the same colours.
* ``mix_colors(resp)``    -> (n, 3) uint8: each row's colours mixed with weights r_ij (rows of
                             NaN, i.e. a broken "naive" map, become ``NAN_RGB`` grey).
* ``rgb_strings(rgb)``    -> ["rgb(r,g,b)", ...] for Plotly marker colours.
* ``tex_color(tex, color)`` -> a LaTeX term coloured like a figure's curve (KaTeX ``\\color``), so an
                          equation beside a figure names each curve by its colour.
* ``INK_COLORS``          the near-black colours of marks that are not clusters (centroids, edges,
                          arrows, σ lines): on a dark theme they are drawn in the theme's text colour
                          (ui.page.chart and rbfviz/views/common/web/scrub.js), except on a field image, which
                          stays light.
"""

from __future__ import annotations

import re

import numpy as np

OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
    "#999999",  # grey
)
# Two extra colours (Paul Tol's "muted" wine and indigo) for k = 9, 10.
_EXTRA = ("#882255", "#332288")
CLUSTER_COLORS = OKABE_ITO + _EXTRA
MAX_CLUSTERS = len(CLUSTER_COLORS)

# Marks that are not clusters.
KMEANS_COLOR = "#000000"
EDGE_RGB = (40, 40, 40)
NAN_RGB = (120, 120, 120)
NAN_COLOR = "rgb(120,120,120)"

# Black and the dark greys the builders use for marks that are not clusters, lower-case as written.
# Under 3:1 against a dark theme's background, so a dark theme draws them in its text colour.
INK_COLORS = frozenset(
    {
        "#000000",
        "#000",
        "black",
        "#111111",
        "#222222",
        "#333333",
        "#444444",
        "#555555",
        "rgb(0,0,0)",
        "rgb(40,40,40)",
    }
)


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    color = color.lstrip("#")
    return tuple(int(color[i : i + 2], 16) for i in (0, 2, 4))


def cluster_colors(k: int) -> list[str]:
    """Hex colours of clusters 0..k-1 (1 <= k <= MAX_CLUSTERS)."""
    if not 1 <= int(k) <= MAX_CLUSTERS:
        raise ValueError(f"k must be between 1 and {MAX_CLUSTERS} for distinct cluster colours, got {k}.")
    return list(CLUSTER_COLORS[: int(k)])


def cluster_rgb(k: int) -> np.ndarray:
    """(k, 3) uint8 RGB of clusters 0..k-1."""
    return np.array([hex_to_rgb(c) for c in cluster_colors(k)], dtype=np.uint8)


def mix_colors(resp) -> np.ndarray:
    """Colours mixed by responsibilities: row i is Σ_j r_ij · colour_j (sRGB, rounded).

    resp: (n, k) rows on the simplex. A row containing NaN (the naive map's 0/0) becomes
    ``NAN_RGB`` grey instead of propagating NaN. Returns (n, 3) uint8.
    """
    resp = np.asarray(resp, dtype=np.float64)
    if resp.ndim != 2:
        raise ValueError(f"resp must have shape (n, k), got {resp.shape}.")
    palette = cluster_rgb(resp.shape[1]).astype(np.float64)
    bad = ~np.isfinite(resp).all(axis=1)
    mixed = np.where(bad[:, None], 0.0, resp) @ palette
    mixed[bad] = NAN_RGB
    return np.clip(np.rint(mixed), 0, 255).astype(np.uint8)


def rgb_strings(rgb) -> list[str]:
    """(n, 3) uint8 -> ["rgb(r,g,b)", ...]."""
    return [f"rgb({r},{g},{b})" for r, g, b in np.asarray(rgb, dtype=np.int64).tolist()]


def hex_strings(rgb) -> list[str]:
    """(n, 3) uint8 -> ["#rrggbb", ...] (shorter in JSON than "rgb(r,g,b)")."""
    text = np.ascontiguousarray(rgb, dtype=np.uint8).tobytes().hex()
    return ["#" + text[i : i + 6] for i in range(0, len(text), 6)]


def fade(rgb, amount: float) -> np.ndarray:
    """Blend colours toward white: amount 0 keeps them, 1 gives white. Works on any (..., 3) array."""
    rgb = np.asarray(rgb, dtype=np.float64)
    return np.clip(np.rint(rgb + (255.0 - rgb) * amount), 0, 255).astype(np.uint8)


def tex_color(tex: str, color: str) -> str:
    """``tex`` in ``color`` (a "#rrggbb" of a figure's curve) for KaTeX: ``\\color{#rrggbb}{tex}``.

    The figures' term colours are the Okabe-Ito blue #0072B2 (contrast 5.2:1 on white, 3.6:1 on the dark
    theme's #0E1117) and vermillion #D55E00 (3.9:1, 4.9:1): no one colour reaches 4.5:1 on both, so keep
    words (\\text) out of coloured terms; the curves keep the same colours on both themes. An ink colour
    (``INK_COLORS``) is left to the theme's text colour, as the figures draw ink curves on the dark theme."""
    if not (isinstance(color, str) and re.fullmatch(r"#[0-9A-Fa-f]{6}", color)):
        raise ValueError(f"color must be a '#rrggbb' string, got {color!r}.")
    if color.lower() in INK_COLORS:
        return f"{{{tex}}}"
    return rf"{{\color{{{color}}}{{{tex}}}}}"
