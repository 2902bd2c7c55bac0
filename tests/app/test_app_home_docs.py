"""The Home page's link to the documentation site (app.py; the site is served from static/docs/)."""

from __future__ import annotations

import shutil
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def _home_in(folder: Path, built: bool, lang: str | None = None) -> AppTest:
    """app.py copied into ``folder`` (it finds the site next to itself), with or without a built site."""
    shutil.copy(ROOT / "app.py", folder / "app.py")
    if built:
        (folder / "static" / "docs").mkdir(parents=True)
        (folder / "static" / "docs" / "index.html").write_text("<html></html>", encoding="utf-8")
    at = AppTest.from_file(str(folder / "app.py"), default_timeout=TIMEOUT)
    if lang is not None:
        at.query_params["lang"] = lang
    at.run()
    assert not at.exception, at.exception
    return at


def _texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_home_links_to_the_built_site(tmp_path):
    text = _texts(_home_in(tmp_path, built=True))
    # relative to the Home page, so it works under a server.baseUrlPath and behind a proxy
    assert "[Open the documentation](app/static/docs/index.html)" in text
    assert "not built" not in text


def test_home_in_portuguese_links_to_the_sites_portuguese_copy(tmp_path):
    text = _texts(_home_in(tmp_path, built=True, lang="pt-BR"))
    assert "(app/static/docs/pt-BR/index.html)" in text


def test_the_sites_portuguese_copy_is_where_home_links():
    """The built site (mkdocs-static-i18n) has the page Home links to in Portuguese."""
    import pytest

    site = ROOT / "static" / "docs"
    if not (site / "index.html").is_file():
        pytest.skip("the documentation is not built (mkdocs build)")
    assert (site / "pt-BR" / "index.html").is_file()


def test_home_says_how_to_build_the_site_when_it_is_missing(tmp_path):
    text = _texts(_home_in(tmp_path, built=False))
    assert "app/static/docs" not in text
    assert "The documentation is not built on this server" in text and "mkdocs build" in text


def test_static_serving_is_on_for_the_site():
    config = (ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    assert "\nenableStaticServing = true\n" in config
    assert "site_dir: static/docs" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
