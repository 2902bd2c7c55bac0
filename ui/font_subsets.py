"""Streamlit's fonts as the app sends them: cut to the icons and the scripts the app draws (ui/fonts/,
made by ``python docs/tools/fonts.py make``, which explains the cut), answered by ui/compression.py's
middleware at the addresses of Streamlit's own files.

A first visit otherwise downloads 0.4-0.8 MB of woff2 that no compression shrinks: Material Symbols
(375 kB, loaded by Streamlit on every page for a hundred icons out of 4,000) and the text fonts of the
page. A subset is sent only in place of the very file it was made from (its SHA-256 in the manifest):
with another Streamlit the app sends Streamlit's own fonts, and says so once in the log.

The fonts' addresses carry a content hash and are cached "immutable" by the browser, as Streamlit's
own. So a browser that once got a subset keeps it for that address: the same Streamlit version served
without this middleware (another app on the same host and port) would draw icons outside the subset as
their names.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import streamlit

log = logging.getLogger("rbfviz.app")

STREAMLIT_STATIC = Path(streamlit.__file__).resolve().parent / "static" / "static"
FONT_DIR = Path(__file__).resolve().parent / "fonts"
MANIFEST = FONT_DIR / "manifest.json"
CONTENT_TYPE = "font/woff2"


class FontSubsets:
    """The subsets of ``manifest`` (a ui/fonts/manifest.json), each for the Streamlit file it was made
    from. ``body(rel, source)``: the subset's bytes for the static file ``rel`` (e.g.
    ``media/MaterialSymbols-Rounded.<hash>.woff2``) at ``source``, or None (send Streamlit's file)."""

    def __init__(self, manifest: Path = MANIFEST):
        entries = json.loads(manifest.read_text(encoding="utf-8"))["fonts"] if manifest.is_file() else {}
        self.folder = manifest.parent
        self.entries: dict[str, dict] = entries
        self._bodies: dict[str, bytes | None] = {}

    def __contains__(self, rel: str) -> bool:
        return rel in self.entries

    def body(self, rel: str, source: Path) -> bytes | None:
        """Read once per file and kept (10-100 kB each); None when ``source`` is not the file the subset
        was made from."""
        if rel not in self._bodies:
            self._bodies[rel] = self._read(rel, source)
        return self._bodies[rel]

    def _read(self, rel: str, source: Path) -> bytes | None:
        entry = self.entries[rel]
        if not source.is_file():  # another Streamlit: the address is not one of its files
            return None
        if hashlib.sha256(source.read_bytes()).hexdigest() != entry["source_sha256"]:
            log.warning(
                "%s differs from the font ui/fonts/%s was cut from: sending Streamlit's own "
                "(run `python docs/tools/fonts.py make` for this Streamlit)",
                rel,
                entry["file"],
            )
            return None
        return (self.folder / entry["file"]).read_bytes()
