"""The documentation's link checker (docs/tools/check_links.py) on a small site with known links."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("check_links", ROOT / "docs" / "tools" / "check_links.py")
check_links = sys.modules.setdefault("check_links", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(check_links)


def _write(root: Path, name: str, body: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    _write(
        tmp_path,
        "index.html",
        '<h1 id="top">Home</h1>'
        '<a href="teach/views.html">ok</a>'
        '<a href="teach/views.html#explorer">ok, anchor</a>'
        '<a href="#top">ok, same page</a>'
        '<a href="teach/">ok, folder with index.html</a>'
        '<a href="teach/missing.html">missing file</a>'
        '<a href="teach/views.html#nowhere">missing anchor</a>'
        '<a href="/teach/views.html">absolute</a>'
        '<a href="../outside.html">outside</a>'
        '<a href="https://example.org/x">external</a>'
        '<a href="mailto:someone@example.org">external mail</a>'
        '<img src="images/shot.png" alt="">'
        '<img src="images/gone.png" alt="">'
        '<script src="assets/app.js"></script>'
        '<a href="teach/views.html?x=1#named">ok, query and named anchor</a>',
    )
    _write(
        tmp_path,
        "teach/views.html",
        '<h2 id="explorer">Explorer</h2><a name="named"></a><a href="../index.html#top">ok</a>',
    )
    _write(tmp_path, "teach/index.html", '<a href="views%20copy.html">missing, quoted</a>')
    _write(tmp_path, "404.html", '<a href="/anything.html">root-relative, skipped</a>')
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "shot.png").write_bytes(b"\x89PNG")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("", encoding="utf-8")
    (tmp_path.parent / "outside.html").write_text("<html></html>", encoding="utf-8")
    return tmp_path


def test_every_broken_internal_link_is_found_and_nothing_else(site):
    broken, external, pages = check_links.check_site(site)
    found = {(b.page, b.target) for b in broken}
    assert found == {
        ("index.html", "teach/missing.html"),
        ("index.html", "teach/views.html#nowhere"),
        ("index.html", "/teach/views.html"),
        ("index.html", "../outside.html"),
        ("index.html", "images/gone.png"),
        ("teach/index.html", "views%20copy.html"),
    }
    assert external == [("index.html", "https://example.org/x"), ("index.html", "mailto:someone@example.org")]
    assert pages == 3  # 404.html is skipped


def test_main_exit_status_and_report(site, capsys):
    assert check_links.main([str(site)]) == 1
    out = capsys.readouterr().out
    assert "broken: index.html: teach/views.html#nowhere (no id 'nowhere' in teach/views.html)" in out
    assert "3 pages checked, 6 broken internal links, 2 external links not checked" in out


def test_a_clean_site_passes(tmp_path, capsys):
    _write(tmp_path, "index.html", '<a id="a" href="#a">self</a><a href="other.html">other</a>')
    _write(tmp_path, "other.html", '<a href="index.html#a">back</a>')
    assert check_links.main([str(tmp_path)]) == 0
    assert "0 broken internal links" in capsys.readouterr().out


def test_a_missing_site_is_an_error(tmp_path, capsys):
    assert check_links.main([str(tmp_path / "nothing")]) == 1
    assert "no built site" in capsys.readouterr().err
