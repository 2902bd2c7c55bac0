"""A figure for every σ of the slider in one payload, so the browser scrubs σ without the server.

The server builds the view's figure, its numbers and its one-sentence description at every σ of
the grid (``ScrubLevel``), once per setting. ``scrub_payload`` stores them compactly:

* the first level's figure in full (the *base*),
* for every level, only what differs from the base: a list of (path, value) pairs such as
  (["data", 0, "marker", "color"], colours) or (["layout", "images", 0, "source"], png_uri),
* for every level, the HTML of the numbers beside the plot and the "In words" sentence.

The browser (rbfviz/views/common/web/scrub.js) applies a level's pairs to the base and hands the result to
Plotly: it selects and draws; it computes nothing but the probe's responsibilities (below).
``read_payload`` and ``figure_at`` are the same steps in Python, so tests check that every level rebuilds
exactly the figure the server built.

Binary layout (then gzip-compressed as a whole; the browser inflates it with DecompressionStream):

    b"RBFS" | uint32 little-endian header length | header JSON (UTF-8) | zero padding to 8 | blobs

Arrays are not written into the JSON. A numeric array becomes {"$blob": i} with the i-th entry of
header["blobs"] = {"offset", "dtype" ("f8", "f4", "u1", ...), "shape"} pointing into the blob
section (each blob starts on an 8-byte boundary, so the browser can view it as a typed array without
copying). A list of "rgb(r,g,b)" (or "#rrggbb", "#RRGGBB") colours becomes a uint8 (n, 3) blob with
"as": "rgb" (or "hex", "HEX").

The probe (``Probe``): with it the header also holds "probe" = {"kind", "alpha", "colors", "centers"}, the
map, its α, the cluster colours and the centres at every σ (S, k, 2) float64, read from one trace of every
level's figure. The browser computes the responsibilities of any location on the plane from them
(rbfviz/views/common/web/probe.js), at the level on screen, without the server.

The words of the browser's side (Play, Pause, the status lines, the probe's, its accessible names) are in
the header too, in the reader's language: "ui" (``scrub_texts``), with "decimal", the decimal separator
the browser writes σ with. "texts" (σ written as the server formats it, ".3g") stay in English, since
they name the downloaded files.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import struct
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from zlib_ng import gzip_ng

from rbfviz.i18n import ENGLISH, Translator
from rbfviz.validate import entmax_alpha
from rbfviz.views.common.palette import cluster_colors, hex_strings, rgb_strings
from rbfviz.views.common.presenter import _decoded

MAGIC = b"RBFS"
VERSION = 1
# zlib-ng's deflate level for a payload. The Explorer's new setting (about 1 MB before it: half of it the
# field images' PNGs in base64, most of the rest the points' r): level 4 takes 3-4 ms less than level 6
# (9-11 against 12-14.5 ms without AVX-512) for 1.2 % more bytes (5-6 kB of 400-480 kB); level 2 would
# save 1.4 ms more for 3.8 % more bytes.
PAYLOAD_LEVEL = 4
# Arrays shorter than this stay JSON lists (axis ranges, a few centres): Plotly expects plain arrays
# there, and a blob would save nothing.
MIN_BLOB = 8
_RGB = re.compile(r"^rgb\((\d{1,3}),(\d{1,3}),(\d{1,3})\)$")
_HEX = re.compile(r"^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$")
_HEX_UPPER = re.compile(r"^#([0-9A-F]{2})([0-9A-F]{2})([0-9A-F]{2})$")
_DTYPES = {
    "float64": "f8",
    "float32": "f4",
    "uint8": "u1",
    "uint16": "u2",
    "uint32": "u4",
    "int8": "i1",
    "int16": "i2",
    "int32": "i4",
}


@dataclass(frozen=True)
class ScrubLevel:
    """What the view shows at one σ: the figure, the HTML of the numbers beside it, one sentence."""

    figure: go.Figure
    side_html: str = ""
    caption: str = ""


@dataclass(frozen=True)
class ScrubPatch:
    """What the view shows at one σ, given as changes to the first level's figure instead of a figure.

    sets: (path, value) pairs, each value in the form the first level's figure holds at that path
    after ``_plain`` (numpy arrays, plain lists and strings), e.g. (("data", 0, "x"), x (n,) float64).
    ``scrub_payload`` applies them to the first level's figure and diffs the result like a full
    figure's, so a patch that describes the same figure gives the same payload bytes, without
    building and serialising a Plotly figure per σ.
    """

    sets: tuple
    side_html: str = ""
    caption: str = ""


@dataclass(frozen=True)
class Probe:
    """The probe of a plane: the browser shows the responsibilities of the location under the pointer.

    kind: the map spec the plane uses (as ``rbfviz.maps.responsibilities`` takes it: "softmax",
    "entmax15", "entmax:<α>", "naive", "hard"). trace: the index of the trace holding the centres
    (x, y) in every level's figure.
    """

    kind: str
    trace: int = 1


def _probe_header(probe: Probe, figures: list, blobs) -> dict:
    """The header's "probe" entry: the map, its α, the colours and the centres (S, k, 2) of every level."""
    centers = np.stack(
        [
            np.column_stack(
                [
                    np.asarray(fig["data"][probe.trace]["x"], dtype=np.float64),
                    np.asarray(fig["data"][probe.trace]["y"], dtype=np.float64),
                ]
            )
            for fig in figures
        ]
    )
    k = centers.shape[1]
    return {
        "kind": probe.kind,
        "alpha": entmax_alpha(probe.kind),
        "colors": cluster_colors(k),
        "centers": blobs.add(centers),
    }


class RGBColors:
    """Colours rgb (n, 3) uint8 standing for the list ``palette.rgb_strings(rgb)`` (form "rgb") or
    ``palette.hex_strings(rgb)`` (form "hex") in a patch: the payload stores them as a colour blob of that
    form, as it does that list, without writing and parsing n strings."""

    __slots__ = ("rgb", "form")

    def __init__(self, rgb, form: str = "rgb"):
        if form not in ("rgb", "hex"):
            raise ValueError(f"form must be 'rgb' or 'hex', got {form!r}.")
        self.rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
        self.form = form

    def strings(self) -> list[str]:
        return rgb_strings(self.rgb) if self.form == "rgb" else hex_strings(self.rgb)


def _same_colors(a, b: RGBColors, memo: dict | None) -> bool:
    """``_same(a, b.strings())``; a list of colour strings of b's form (as rgb_strings or hex_strings write
    them) is compared by its parsed values, parsed once per list when memo is given."""
    if isinstance(a, RGBColors):
        return a.form == b.form and np.array_equal(a.rgb, b.rgb)
    if not isinstance(a, list):
        return False
    if memo is not None:
        key = ("rgb", id(a))
        if key not in memo:
            memo[key] = _color_array(a)
        parsed = memo[key]
        if parsed is not None and parsed[1] == b.form:
            return np.array_equal(parsed[0], b.rgb)
    return a == b.strings()


# --- encoding ---------------------------------------------------------------------------------------


def _plain(value):
    """A figure's to_plotly_json() value with numpy arrays and scalars kept as arrays / made plain."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:  # Plotly's own typed-array form
            return _decoded(value)
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) >= MIN_BLOB and all(
            isinstance(item, (int, float, np.integer, np.floating)) and not isinstance(item, bool)
            for item in value
        ):
            return np.asarray(value, dtype=np.float64)
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return _plain(value.tolist())
        return value
    if isinstance(value, np.generic):
        return value.item()
    return value


def _same(a, b, memo: dict | None = None) -> bool:
    """a and b hold the same values (NaN equals NaN in arrays only). memo: id → whether that list or
    dict of a patch's base equals itself, so a container a patched level shares is compared once."""
    if isinstance(b, RGBColors):
        return _same_colors(a, b, memo)
    if isinstance(a, RGBColors):
        return _same_colors(b, a, memo)
    if a is b:
        if isinstance(a, np.ndarray):
            return True
        if memo is not None and isinstance(a, (dict, list)):
            if id(a) not in memo:
                memo[id(a)] = _same(a, a)  # False only if it holds a NaN scalar
            return memo[id(a)]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return (
            a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[key], b[key], memo) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        if _all_strings(a) and _all_strings(b):  # colour and text lists: compared at C speed
            return a == b
        return all(_same(x, y, memo) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _all_strings(items: list) -> bool:
    return set(map(type, items)) <= {str}


def _diff(base, other, path: list, out: list, memo: dict | None = None) -> None:
    """(path, value) pairs that turn ``base`` into ``other`` (dicts recursed by key, equal-length
    lists of dicts by index; anything else replaced whole). A key missing in ``other`` is set to None.
    memo: as in ``_same``."""
    if isinstance(base, dict) and isinstance(other, dict):
        for key in other:
            if key not in base:
                out.append((path + [key], other[key]))
            elif not _same(base[key], other[key], memo):
                _diff(base[key], other[key], path + [key], out, memo)
        for key in base:
            if key not in other:
                out.append((path + [key], None))
        return
    if (
        isinstance(base, list)
        and isinstance(other, list)
        and len(base) == len(other)
        and all(isinstance(item, dict) for item in base + other)
    ):
        for index, (a, b) in enumerate(zip(base, other)):
            if not _same(a, b, memo):
                _diff(a, b, path + [index], out, memo)
        return
    out.append((path, other))


def _patch_diff(base: dict, sets, memo: dict) -> list | None:
    """``_diff(base, _patched(base, sets))``'s pairs read from the sets themselves, without walking the
    figure, for a base without NaN numbers (``_holds_nan_number``): each set whose value differs from base's
    (``_same``), in the order ``_diff`` gives them (depth first, in the order of base's keys and list
    positions), the last set of a path winning. None (walk it)
    when a set is not a leaf of base that ``_diff`` would reach key by key: its path goes through a missing
    key or through anything but dicts and lists of dicts, ends at a list's item, is a prefix of another
    set's path, or sets a value ``_diff`` would go into (a dict, or a list of dicts in place of one as
    long)."""
    last = {tuple(path): value for path, value in sets}
    found = []
    for path, value in last.items():
        if not path or any(path[:depth] in last for depth in range(1, len(path))):
            return None
        node, order = base, []
        for depth, key in enumerate(path):
            if isinstance(node, dict) and key in node:
                order.append(_key_position(node, key))
            elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
                # ``_diff`` goes into a list of dicts only (a set of one of its items would be replaced
                # by the whole list if it were not a dict, and gone into if it were)
                if depth == len(path) - 1 or not all(isinstance(item, dict) for item in node):
                    return None
                order.append(key)
            else:
                return None
            if depth < len(path) - 1:
                node = node[key]
        old = node[path[-1]]
        if _recursed(old, value):  # ``_diff`` would give the pairs inside it, not the value whole
            return None
        if not _same(old, value, memo):
            found.append((order, list(path), value))
    found.sort(key=lambda item: item[0])
    return [(path, value) for _, path, value in found]


def _holds_nan_number(value) -> bool:
    """Whether a NaN float lies in ``value``'s dicts and lists (not in its arrays)."""
    if isinstance(value, float):
        return value != value
    if isinstance(value, dict):
        return any(_holds_nan_number(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_nan_number(item) for item in value)
    return False


def _recursed(old, new) -> bool:
    """Whether ``_diff`` goes into ``old`` and ``new`` instead of replacing one by the other: two dicts, or
    two lists of dicts of one length."""
    if isinstance(old, dict) and isinstance(new, dict):
        return True
    return (
        isinstance(old, list)
        and isinstance(new, list)
        and len(old) == len(new)
        and all(isinstance(item, dict) for item in old + new)
    )


def _key_position(node: dict, key) -> int:
    """Where ``key`` comes in ``node``'s keys (the order ``_diff`` visits them)."""
    for position, name in enumerate(node):
        if name == key:
            return position
    raise KeyError(key)


def _patched(base: dict, sets) -> dict:
    """``base`` with every (path, value) of ``sets`` set, sharing every container it leaves untouched
    (containers along a path are copied once, so ``base`` itself never changes)."""
    out = dict(base)
    copied = {(): out}
    for path, value in sets:
        target = out
        for depth, key in enumerate(path[:-1]):
            prefix = tuple(path[: depth + 1])
            if prefix not in copied:
                child = target[key]
                copied[prefix] = dict(child) if isinstance(child, dict) else list(child)
                target[key] = copied[prefix]
            target = copied[prefix]
        target[path[-1]] = value
    return out


class _Blobs:
    """Collects arrays into one byte section; returns {"$blob": i} references."""

    def __init__(self):
        self.entries: list[dict] = []
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, array: np.ndarray, as_: str | None = None) -> dict:
        array = np.ascontiguousarray(array)
        code = _DTYPES.get(array.dtype.name)
        if code is None:
            array = array.astype(np.float64)
            code = "f8"
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        entry = {"offset": self.size, "dtype": code, "shape": list(array.shape)}
        if as_:
            entry["as"] = as_
        self.entries.append(entry)
        padding = -len(data) % 8
        self.parts.append(data + b"\0" * padding)
        self.size += len(data) + padding
        return {"$blob": len(self.entries) - 1}


def _color_array(value) -> tuple[np.ndarray, str] | None:
    """A list of colours all written "rgb(r,g,b)", all "#rrggbb" or all "#RRGGBB" as ((n, 3) uint8,
    "rgb" | "hex" | "HEX"), or None if it is anything else (the browser writes them back in the same form)."""
    if not (
        isinstance(value, list) and len(value) >= MIN_BLOB and all(isinstance(item, str) for item in value)
    ):
        return None
    distinct = {item: code for code, item in enumerate(dict.fromkeys(value))}  # parse each colour once
    for form, pattern, base in (("rgb", _RGB, 10), ("hex", _HEX, 16), ("HEX", _HEX_UPPER, 16)):
        matches = [pattern.match(item) for item in distinct]
        if all(matches):
            table = np.array([[int(part, base) for part in match.groups()] for match in matches])
            if not (table <= 255).all():
                return None
            codes = np.fromiter((distinct[item] for item in value), dtype=np.intp, count=len(value))
            return table[codes].astype(np.uint8), form
    return None


def _encode(value, blobs: _Blobs):
    """JSON-ready value: arrays to blob references, colour lists to rgb blobs."""
    if isinstance(value, RGBColors):
        if len(value.rgb) >= MIN_BLOB:
            return blobs.add(value.rgb, value.form)
        value = value.strings()
    if isinstance(value, np.ndarray):
        if value.size >= MIN_BLOB:
            return blobs.add(value)
        return [_encode(item, blobs) for item in value.tolist()]
    if isinstance(value, dict):
        return {key: _encode(item, blobs) for key, item in value.items()}
    if isinstance(value, list):
        colors = _color_array(value)
        if colors is not None:
            return blobs.add(*colors)
        return [_encode(item, blobs) for item in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None  # JSON has no NaN; Plotly draws None as a gap, as it does NaN
    return value


def scrub_texts(tr: Translator = ENGLISH) -> dict[str, str]:
    """The browser side's words in ``tr``'s language (scrub.js and probe.js). A {name} in a text is filled
    in by the browser."""
    return {
        "play": tr("▶ Play"),
        "pause": tr("❚❚ Pause"),
        "downloads": tr("Download this figure"),
        "in_words": tr("In words:"),
        "error": tr("The σ figure could not be drawn ({error}). Reload the page."),
        "part": tr(
            "For now σ goes from {low} to {high} only ({count} of {total} levels): the slider's other σ "
            "levels are being computed and join it by themselves."
        ),
        "probe_group": tr("Probe: the responsibilities of one location"),
        "probe": tr("Probe"),
        "probe_hint": tr(
            "Rest the pointer on the plane, or tap it, to see that location's responsibilities r; they "
            "follow σ."
        ),
        "probe_at": tr("Probe at {where}"),
        "probe_bars": tr("responsibilities at {where}: {values}"),
        "probe_nan": tr("The centres are NaN at this σ (the naive map broke)."),
        "probe_zero": tr("0 exactly"),
        "probe_simplex": tr(
            "the same r as a point in the probability simplex (corners: one-hot at centre 0, 1, 2)"
        ),
    }


def scrub_payload(
    levels: list[ScrubLevel | ScrubPatch],
    sigmas,
    label: str | None = None,
    config: dict | None = None,
    initial: int = 0,
    select: bool = False,
    point_ids=None,
    large: bool = False,
    play_ms: int | None = None,
    part: tuple | None = None,
    probe: Probe | None = None,
    tr: Translator = ENGLISH,
) -> bytes:
    """The gzip-compressed payload of a scrubbable figure (format in the module docstring).

    levels: one ScrubLevel per σ, in the order of ``sigmas`` (a decreasing grid; the browser's
    slider shows small σ on the left); after the first, a level may be a ScrubPatch of the first's
    figure (the same bytes as the ScrubLevel of the figure it describes). label: the slider's
    accessible name (default "σ (log scale)" in ``tr``'s language). config: Plotly's config.
    initial: the level shown when the address names no σ. select: clicks, boxes and lassos on
    trace 0 are sent back to the page; point_ids (m,) maps the drawn points to data rows (when a
    subsample is drawn). large: presenter mode's larger text beside the plot. play_ms: show a Play
    button that steps through the levels from the largest σ, one every play_ms milliseconds.
    part: (positions, size) when the levels are only some of a σ grid of ``size`` levels, at these
    positions (increasing): the header then has "part" = {"levels": positions, "of": size}, and the
    browser scrubs those levels only, says the others are coming, and commits grid positions. None
    (a complete payload): no "part" key.
    probe: the plane's probe (``Probe``): the header's "probe" entry; None: no "probe" key.
    tr: the language of the browser's words ("ui") and of σ's decimal separator ("decimal").
    """
    sigmas = np.asarray(sigmas, dtype=np.float64)
    if len(levels) != len(sigmas) or not len(levels):
        raise ValueError(f"need one level per σ, got {len(levels)} levels for {len(sigmas)} σ values.")
    if not isinstance(levels[0], ScrubLevel):
        raise ValueError("the first level must be a ScrubLevel with a full figure (the others patch it).")
    base = _plain(levels[0].figure.to_plotly_json())
    # ``_diff`` gives a NaN number a pair wherever it walks past one (NaN is not NaN): patches' pairs are
    # read from their sets only where the base holds none
    readable = not _holds_nan_number(base)
    blobs = _Blobs()
    frames = []
    memo: dict = {}
    probe_figures = []
    for index, level in enumerate(levels):
        if index == 0:
            fig = base
        elif isinstance(level, ScrubPatch):
            fig = _patched(base, level.sets)
        else:
            fig = _plain(level.figure.to_plotly_json())
        if probe is not None:
            probe_figures.append(fig)
        read = readable and isinstance(level, ScrubPatch) and index
        pairs = _patch_diff(base, level.sets, memo) if read else None
        if pairs is None:
            pairs = []
            _diff(base, fig, [], pairs, memo)
        frames.append(
            {
                "set": [[path, _encode(value, blobs)] for path, value in pairs],
                "side": level.side_html,
                "caption": level.caption,
            }
        )
    header = {
        "version": VERSION,
        "label": tr("σ (log scale)") if label is None else label,
        "sigmas": sigmas.tolist(),
        "texts": [f"{s:.3g}" for s in sigmas],
        "ui": scrub_texts(tr),
        "decimal": tr.separators[0],
        "figure": _encode(base, blobs),
        "config": config or {},
        "frames": frames,
        "initial": int(initial),
        "select": bool(select),
        "point_ids": None if point_ids is None else [int(i) for i in point_ids],
        "large": bool(large),
        "play_ms": None if play_ms is None else int(play_ms),
        "blobs": blobs.entries,
    }
    if part is not None:
        positions, size = part
        if len(positions) != len(sigmas) or not all(0 <= int(i) < int(size) for i in positions):
            raise ValueError(f"part: need one grid position in [0, {size}) per level, got {positions}.")
        header["part"] = {"levels": [int(i) for i in positions], "of": int(size)}
    if probe is not None:
        header["probe"] = _probe_header(probe, probe_figures, blobs)
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    head = MAGIC + struct.pack("<I", len(text)) + text
    head += b"\0" * (-len(head) % 8)
    # zlib-ng: the standard gzip format, about as small as the standard library's at the same level, faster
    return gzip_ng.compress(head + b"".join(blobs.parts), PAYLOAD_LEVEL, mtime=0)


# --- decoding (what the browser does, for tests and tools) ----------------------------------------


def read_payload(payload: bytes) -> dict:
    """The header of a payload with every blob reference replaced by its array (rgb blobs by
    "rgb(r,g,b)" strings), as the browser sees it."""
    raw = gzip.decompress(payload)
    if raw[:4] != MAGIC:
        raise ValueError("not a scrub payload (bad magic bytes).")
    (length,) = struct.unpack("<I", raw[4:8])
    header = json.loads(raw[8 : 8 + length])
    start = 8 + length + (-(8 + length) % 8)

    def array(ref: dict):
        entry = header["blobs"][ref["$blob"]]
        dtype = np.dtype("<" + entry["dtype"])
        count = int(np.prod(entry["shape"])) if entry["shape"] else 1
        values = np.frombuffer(raw, dtype=dtype, count=count, offset=start + entry["offset"]).reshape(
            entry["shape"]
        )
        if entry.get("as") == "rgb":
            return [f"rgb({r},{g},{b})" for r, g, b in values.tolist()]
        if entry.get("as") == "hex":
            return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in values.tolist()]
        if entry.get("as") == "HEX":
            return [f"#{r:02X}{g:02X}{b:02X}" for r, g, b in values.tolist()]
        return values

    def decode(value):
        if isinstance(value, dict):
            return (
                array(value)
                if set(value) == {"$blob"}
                else {key: decode(item) for key, item in value.items()}
            )
        if isinstance(value, list):
            return [decode(item) for item in value]
        return value

    header["figure"] = decode(header["figure"])
    if "probe" in header:
        header["probe"]["centers"] = decode(header["probe"]["centers"])
    for frame in header["frames"]:
        frame["set"] = [[path, decode(value)] for path, value in frame["set"]]
    return header


def figure_at(header: dict, level: int) -> dict:
    """The figure dict of one level: the base with that level's (path, value) pairs applied."""
    import copy

    fig = copy.deepcopy(header["figure"])
    for path, value in header["frames"][level]["set"]:
        target = fig
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return fig


# --- the numbers beside the plot ------------------------------------------------------------------


def metrics_html(rows) -> str:
    """HTML of the numbers beside a plot, styled by rbfviz/views/common/web/scrub.js like Streamlit's
    st.metric.

    rows: (label, value, help) tuples; help may be "" (shown as the element's tooltip). A row whose
    label is None is a caption line (value only). Every string is escaped.
    """
    out = []
    for label, value, help_text in rows:
        title = f' title="{html.escape(help_text)}"' if help_text else ""
        if label is None:
            out.append(f'<p class="scrub-note"{title}>{html.escape(value)}</p>')
        else:
            out.append(
                f'<div class="scrub-metric"{title}><div class="scrub-metric-label">{html.escape(label)}</div>'
                f'<div class="scrub-metric-value">{html.escape(value)}</div></div>'
            )
    return "".join(out)
