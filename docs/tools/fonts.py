"""Streamlit's fonts cut to what the app draws: the subsets ui/font_subsets.py serves in their place.

    python docs/tools/fonts.py make    # Streamlit's fonts -> ui/fonts/*.woff2 + ui/fonts/manifest.json
    python docs/tools/fonts.py check   # what CI checks (tests/unit/test_font_subsets.py): exit 1 and one
                                       # line per problem if the subsets are not made from this
                                       # Streamlit's fonts or miss an icon the code uses

A first visit downloads these fonts whole (woff2: compressed already, so no gzip or Brotli shrinks them):

* Material Symbols Rounded (375 kB): Streamlit loads it on every page at start-up (document.fonts.load)
  for its icons. It holds 4,000 icons, each drawn through a ligature (the text ``home`` in that font is
  the house); Streamlit's front end names 78 of them, the app a dozen (``:material/<name>:``). The
  subset keeps exactly those, and the letters that spell them: 10 kB.
* Source Sans (upright 170 kB; italic 138 kB, for the pages with an emphasised word) and Source Code
  (90 kB, the pages with inline code): Streamlit's text fonts, with Latin, Greek, Cyrillic, Vietnamese
  and hundreds of symbols. The subsets keep the Latin and Greek alphabets with their punctuation
  (TEXT_RANGES) and every other character the app's code and translations write (arrows, ∂, ≤, ...):
  40 % of the bytes. A character outside them (a student's name in Cyrillic, say) is drawn by the
  browser's next font in Streamlit's font list, as for any character these fonts lack.

The subsets keep the kept glyphs' outlines, advances, kerning, ligatures and variations untouched
(fontTools' subsetter; tests/unit/test_font_subsets.py compares them), so a page looks the same: in
Chromium on Linux, a few ligatures (ft, fi) come out anti-aliased a little differently (110 pixels of
the Home page at 1366 × 768, a shade of grey at a stem's edge; FreeType's automatic hinting looks at the whole
font), which tests/e2e/test_e2e_first_visit_bytes.py bounds. Source Serif and Source Code's italic are
not subset: no page of the app uses them, so no browser downloads them.

Run ``make`` after a Streamlit upgrade (the manifest records the SHA-256 of each source font; the app
serves a subset only for the very file it was made from) and after adding a ``:material/...:`` icon to
the app (``check`` names what is missing). Needs fontTools and brotli (requirements-dev.txt).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ui.font_subsets import FONT_DIR, MANIFEST, STREAMLIT_STATIC  # noqa: E402

ICON_FONT = "MaterialSymbols-Rounded"
TEXT_FONTS = ("SourceSansVF-Upright", "SourceSansVF-Italic", "SourceCodeVF-Upright")
# The code whose ``:material/<name>:`` icons the app draws
APP_SOURCES = ("app.py", "pages", "ui", "rbfviz")
ICON = re.compile(r":material/([a-z0-9_]+):")
# the characters an icon's ligature is spelled with (all of them: an icon name missing from the subset
# then shows as its plain name, as Streamlit shows an unknown one)
ICON_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
# Unicode blocks kept whole in the text fonts (inclusive): Latin (Basic, Latin-1 Supplement, Extended-A:
# the languages of Western and Central Europe), Greek, general punctuation, super- and subscripts,
# currency symbols, and the replacement character. Not the combining marks as a block: with the
# positioning rules that place each on every letter they are a fifth of a subset's bytes. Every other
# character the app writes (its code and its translations: arrows, ∂ ∇ ≤ ≈ ⟨ ⟩, x̄'s macron ...) is
# kept one by one (app_characters).
TEXT_RANGES = (
    (0x0000, 0x017F),
    (0x0370, 0x03FF),
    (0x2000, 0x206F),
    (0x2070, 0x209F),
    (0x20A0, 0x20CF),
    (0xFFFD, 0xFFFD),
)
# the files whose characters the text fonts must draw: the app's code and its translation catalogs
CATALOGS = "rbfviz/locale"


def source_font(stem: str) -> Path:
    """Streamlit's woff2 file of the font ``stem`` (``<stem>.<hash>.woff2`` in static/media)."""
    found = sorted((STREAMLIT_STATIC / "media").glob(f"{stem}.*.woff2"))
    if len(found) != 1:
        raise RuntimeError(f"expected one {stem}.*.woff2 in Streamlit's static/media, found {found}")
    return found[0]


def icons_used() -> dict[str, set[str]]:
    """The icon names Streamlit's front end and the app's code write as ``:material/<name>:``."""
    streamlit = set()
    for path in (STREAMLIT_STATIC / "js").glob("*.js"):
        streamlit |= set(ICON.findall(path.read_text(encoding="utf-8", errors="replace")))
    app = set()
    for file in _app_files():
        app |= set(ICON.findall(file.read_text(encoding="utf-8")))
    return {"streamlit": streamlit, "app": app}


def ligatures(font) -> dict[str, str]:
    """An icon font's ligatures: the text they replace → the glyph drawn (fontTools TTFont)."""
    by_glyph = {glyph: chr(code) for code, glyph in font.getBestCmap().items()}
    found = {}
    for lookup in font["GSUB"].table.LookupList.Lookup:
        for table in lookup.SubTable:
            table = getattr(table, "ExtSubTable", table)  # an extension lookup wraps the real one
            for first, entries in getattr(table, "ligatures", {}).items():
                for entry in entries:
                    parts = [first, *entry.Component]
                    if all(p in by_glyph for p in parts):
                        found["".join(by_glyph[p] for p in parts)] = entry.LigGlyph
    return found


def _app_files() -> list[Path]:
    files = []
    for top in APP_SOURCES:
        path = ROOT / top
        files += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return files + sorted((ROOT / CATALOGS).rglob("*.po"))


def app_characters() -> set[str]:
    """Every character of the app's code and translation catalogs outside TEXT_RANGES."""
    found = set()
    for path in _app_files():
        found |= set(path.read_text(encoding="utf-8"))
    return {c for c in found if not any(lo <= ord(c) <= hi for lo, hi in TEXT_RANGES)}


def text_codepoints() -> list[int]:
    """The characters the text fonts keep: TEXT_RANGES and the app's own."""
    ranges = {c for lo, hi in TEXT_RANGES for c in range(lo, hi + 1)}
    return sorted(ranges | {ord(c) for c in app_characters()})


def _subset(source: Path, unicodes: list[int], glyphs: list[str] = (), closure: bool = True) -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]  # every OpenType feature the font has (kerning, ligatures, ...)
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.layout_closure = closure  # False: a ligature is kept only if its glyph is asked for
    font = TTFont(source, recalcTimestamp=False)  # the same bytes on every run
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes, glyphs=list(glyphs))
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out)
    return out.getvalue()


def make() -> dict:
    """Write the subsets and the manifest; returns the manifest."""
    import streamlit
    from fontTools.ttLib import TTFont

    FONT_DIR.mkdir(parents=True, exist_ok=True)
    manifest = {"streamlit": streamlit.__version__, "fonts": {}}
    used = icons_used()
    names = sorted(used["streamlit"] | used["app"])
    source = source_font(ICON_FONT)
    available = ligatures(TTFont(source))
    kept = [n for n in names if n in available]
    body = _subset(
        source,
        [ord(c) for c in ICON_LETTERS],
        glyphs=[available[n] for n in kept],
        closure=False,
    )
    manifest["fonts"][_entry(source, body)] = {
        **_record(source, body),
        "icons": kept,
        "not_in_the_font": [n for n in names if n not in available],
    }
    for stem in TEXT_FONTS:
        source = source_font(stem)
        body = _subset(source, text_codepoints())
        manifest["fonts"][_entry(source, body)] = {
            **_record(source, body),
            "ranges": [f"U+{lo:04X}-{hi:04X}" for lo, hi in TEXT_RANGES],
            "characters": "".join(sorted(app_characters())),
        }
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def _entry(source: Path, body: bytes) -> str:
    (FONT_DIR / _subset_name(source)).write_bytes(body)
    return f"media/{source.name}"


def _subset_name(source: Path) -> str:
    return source.name.split(".")[0] + ".subset.woff2"


def _record(source: Path, body: bytes) -> dict:
    data = source.read_bytes()
    return {
        "file": _subset_name(source),
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "source_bytes": len(data),
        "bytes": len(body),
    }


def problems() -> list[str]:
    """Why the committed subsets do not fit this Streamlit and this code (empty: they do)."""
    from fontTools.ttLib import TTFont

    if not MANIFEST.is_file():
        return [f"{MANIFEST.relative_to(ROOT)} is missing: run `python docs/tools/fonts.py make`"]
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    found = []
    for stem in (ICON_FONT, *TEXT_FONTS):
        source = source_font(stem)
        entry = manifest["fonts"].get(f"media/{source.name}")
        if entry is None:
            found.append(f"no subset of {source.name} (another Streamlit version?): run make")
            continue
        if entry["source_sha256"] != hashlib.sha256(source.read_bytes()).hexdigest():
            found.append(f"the subset of {source.name} was made from other bytes: run make")
        if not (FONT_DIR / entry["file"]).is_file():
            found.append(f"{entry['file']} is missing: run make")
    wanted = {ord(c) for c in app_characters()}
    for stem in TEXT_FONTS:
        entry = manifest["fonts"].get(f"media/{source_font(stem).name}")
        if entry and (FONT_DIR / entry["file"]).is_file():
            has = set(TTFont(source_font(stem)).getBestCmap())
            kept = set(TTFont(FONT_DIR / entry["file"]).getBestCmap())
            for code in sorted(wanted & has - kept):
                found.append(
                    f"{chr(code)!r} (U+{code:04X}) is written by the app but not in {entry['file']}: run make"
                )
    entry = manifest["fonts"].get(f"media/{source_font(ICON_FONT).name}")
    if entry and (FONT_DIR / entry["file"]).is_file():
        have = ligatures(TTFont(FONT_DIR / entry["file"]))
        original = ligatures(TTFont(source_font(ICON_FONT)))
        used = icons_used()
        for name in sorted((used["streamlit"] | used["app"]) & set(original) - set(have)):
            found.append(f"icon {name!r} is used but not in the subset: run make")
    return found


def main(argv: list[str]) -> int:
    if argv[1:] == ["make"]:
        manifest = make()
        for url, entry in manifest["fonts"].items():
            print(f"{url}: {entry['source_bytes']:,} -> {entry['bytes']:,} bytes ({entry['file']})")
        return 0
    if argv[1:] == ["check"]:
        found = problems()
        print("\n".join(found) or "the font subsets fit this Streamlit and this code")
        return 1 if found else 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
