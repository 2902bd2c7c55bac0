"""Streamlit's fonts cut to what the app draws (docs/tools/fonts.py makes ui/fonts/, ui/font_subsets.py
serves them through ui/compression.py's middleware): made from this Streamlit's very files, holding every
icon and character the code uses, each glyph kept as it was drawn, and answered in place of Streamlit's
file only when that file is the one the subset was cut from."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from ui.compression import CompressedStatic
from ui.font_subsets import FONT_DIR, MANIFEST, STREAMLIT_STATIC, FontSubsets

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("fonts_tool", ROOT / "docs" / "tools" / "fonts.py")
fonts = sys.modules.setdefault("fonts_tool", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(fonts)

from test_compression import _inner, _request  # noqa: E402  the same ASGI driver


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))["fonts"]


def test_the_subsets_fit_this_streamlit_and_this_code():
    assert fonts.problems() == []


def test_the_check_finds_an_icon_or_a_character_the_subsets_lack(monkeypatch):
    real_icons, real_characters = fonts.icons_used, fonts.app_characters
    monkeypatch.setattr(fonts, "icons_used", lambda: {**real_icons(), "app": real_icons()["app"] | {"pets"}})
    monkeypatch.setattr(fonts, "app_characters", lambda: real_characters() | {"Ж"})  # Cyrillic: in the font
    found = fonts.problems()
    assert any("'pets'" in line for line in found), found
    assert any("U+0416" in line for line in found), found


def test_the_streamlit_and_app_icons_are_found_where_they_are_written():
    used = fonts.icons_used()
    assert {"keyboard_double_arrow_left", "more_vert", "check_circle"} <= used["streamlit"]
    assert {"home", "download", "groups"} <= used["app"]  # ui/page.py's menu, the download buttons


def _glyph(font: TTFont, name: str):
    glyph = font["glyf"][name]
    coordinates, ends, flags = glyph.getCoordinates(font["glyf"])
    return list(coordinates), list(ends), font["hmtx"][name]


def test_each_icon_is_the_original_glyph_behind_the_same_ligature():
    entry = _manifest()[f"media/{fonts.source_font(fonts.ICON_FONT).name}"]
    original = TTFont(fonts.source_font(fonts.ICON_FONT))
    subset = TTFont(FONT_DIR / entry["file"])
    before, after = fonts.ligatures(original), fonts.ligatures(subset)
    assert len(before) > 4000 and set(entry["icons"]) <= set(after)
    # and nothing else: the other ligatures left are another name of a kept icon (home_filled, ...)
    assert {after[name] for name in after} == {after[name] for name in entry["icons"]}
    assert {"home", "keyboard_double_arrow_left"} <= set(after)
    for name in entry["icons"]:
        assert _glyph(subset, after[name]) == _glyph(original, before[name]), name
    assert entry["not_in_the_font"] == ["star_filled"]  # named by Streamlit, drawn another way there


@pytest.mark.parametrize("stem", fonts.TEXT_FONTS)
def test_each_kept_character_is_the_original_glyph_and_advance(stem):
    entry = _manifest()[f"media/{fonts.source_font(stem).name}"]
    original = TTFont(fonts.source_font(stem))
    subset = TTFont(FONT_DIR / entry["file"])
    before, after = original.getBestCmap(), subset.getBestCmap()
    assert set(after) == set(fonts.text_codepoints()) & set(before)
    assert {ord(c) for c in "Aaçãσ—≤"} <= set(after) and ord("Ж") not in after
    for code in after:
        assert _glyph(subset, after[code]) == _glyph(original, before[code]), hex(code)
    assert [a.axisTag for a in subset["fvar"].axes] == [a.axisTag for a in original["fvar"].axes]
    assert "GPOS" in subset and "gvar" in subset  # kerning and the weights' outlines kept


def _one_font(tmp_path, source_bytes: bytes):
    static = tmp_path / "static"
    (static / "media").mkdir(parents=True)
    (static / "media" / "Icons.abc.woff2").write_bytes(source_bytes)
    folder = tmp_path / "fonts"
    folder.mkdir()
    (folder / "Icons.subset.woff2").write_bytes(b"SUBSET")
    entry = {"file": "Icons.subset.woff2", "source_sha256": hashlib.sha256(b"ORIGINAL").hexdigest()}
    (folder / "manifest.json").write_text(json.dumps({"fonts": {"media/Icons.abc.woff2": entry}}))
    return static, FontSubsets(folder / "manifest.json")


def test_a_font_is_answered_with_its_subset_cached_like_streamlits(tmp_path):
    static, subsets = _one_font(tmp_path, b"ORIGINAL")
    app = CompressedStatic(_inner, static_dir=static, fonts=subsets)
    status, headers, body = _request(app, "/static/media/Icons.abc.woff2", accept="gzip, br")
    assert (status, body) == (200, b"SUBSET")
    assert headers["content-type"] == "font/woff2" and headers["content-length"] == "6"
    assert headers["cache-control"] == "public, immutable, max-age=31536000"
    assert "content-encoding" not in headers  # woff2 is compressed already
    _, headers, body = _request(app, "/static/media/Icons.abc.woff2", method="HEAD")
    assert body == b"" and headers["content-length"] == "6"


def test_a_font_other_than_the_one_cut_is_left_to_streamlit(tmp_path):
    static, subsets = _one_font(tmp_path, b"ANOTHER STREAMLIT'S FONT")
    app = CompressedStatic(_inner, static_dir=static, fonts=subsets)
    _, headers, body = _request(app, "/static/media/Icons.abc.woff2")
    assert (headers.get("x-inner"), body) == ("1", b"passed")
    (static / "media" / "Icons.abc.woff2").unlink()
    app = CompressedStatic(_inner, static_dir=static, fonts=FontSubsets(tmp_path / "fonts" / "manifest.json"))
    assert _request(app, "/static/media/Icons.abc.woff2")[2] == b"passed"


def test_the_app_answers_streamlits_icon_font_with_the_committed_subset():
    app = CompressedStatic(_inner)  # the app's defaults: Streamlit's files, ui/fonts/
    source = fonts.source_font(fonts.ICON_FONT)
    _, headers, body = _request(app, f"/static/media/{source.name}")
    assert body == (FONT_DIR / _manifest()[f"media/{source.name}"]["file"]).read_bytes()
    assert len(body) < source.stat().st_size / 20
    assert source.is_relative_to(STREAMLIT_STATIC)
