"""The documentation in two languages: every page of *Teach with it* has its Brazilian Portuguese page
(docs/teach/<page>.pt-BR.md, mkdocs-static-i18n's suffix structure) with the same screenshots, the
same generated tables and the same code blocks as the English one; the Portuguese navigation names
every title of the section; a Portuguese page gets its tables in Portuguese words and separators."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TEACH = ROOT / "docs" / "teach"
ENGLISH_PAGES = sorted(p for p in TEACH.glob("*.md") if not p.name.endswith(".pt-BR.md"))
_spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "tools" / "hooks.py")
hooks = sys.modules.setdefault("docs_hooks", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(hooks)

IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")
MARKER = re.compile(r"<!--\s*(?:computed|reproduce):[\w-]+\s*-->")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
# the address page's tables are English only: its Portuguese page explains them and links to them
ENGLISH_ONLY_MARKERS = {"address.md": {"<!-- computed:address -->", "<!-- computed:not-in-address -->"}}


def _portuguese(page: Path) -> Path:
    return page.with_name(page.stem + ".pt-BR.md")


@pytest.mark.parametrize("page", ENGLISH_PAGES, ids=lambda p: p.name)
def test_every_teaching_page_has_its_portuguese_page_with_the_same_figures_and_tables(page):
    translated = _portuguese(page)
    assert translated.is_file(), f"{translated.relative_to(ROOT)} is missing"
    english, portuguese = page.read_text(encoding="utf-8"), translated.read_text(encoding="utf-8")
    assert IMAGE.findall(portuguese) == IMAGE.findall(english)
    expected = [m for m in MARKER.findall(english) if m not in ENGLISH_ONLY_MARKERS.get(page.name, set())]
    assert MARKER.findall(portuguese) == expected


@pytest.mark.parametrize("page", ENGLISH_PAGES, ids=lambda p: p.name)
def test_the_portuguese_pages_commands_are_the_english_ones(page):
    """Code blocks (commands, code) are the same in both languages, comments aside."""

    def commands(text: str) -> list[str]:
        return [re.sub(r"#.*|<!--.*?-->", "", block).split() for block in FENCE.findall(text)]

    if not _portuguese(page).is_file():
        pytest.skip("no Portuguese page (the test above fails)")
    english = commands(page.read_text(encoding="utf-8"))
    portuguese = commands(_portuguese(page).read_text(encoding="utf-8"))
    # an HTML example's visible words (its title attribute, a placeholder) may be translated
    assert len(portuguese) == len(english)
    for en, pt in zip(english, portuguese):
        if en and en[0] != "<iframe":
            assert pt == en


def test_the_portuguese_navigation_names_every_title_of_the_section():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8").replace("!!python", "#"))
    plugin = next(p["i18n"] for p in config["plugins"] if isinstance(p, dict) and "i18n" in p)
    portuguese = next(lang for lang in plugin["languages"] if lang["locale"] == "pt-BR")
    teach = next(item["Teach with it"] for item in config["nav"] if "Teach with it" in item)
    titles = ["Teach with it", *(next(iter(item)) for item in teach if isinstance(item, dict))]
    assert [t for t in titles if t not in portuguese["nav_translations"]] == []


def test_a_portuguese_page_gets_its_tables_in_portuguese(monkeypatch):
    monkeypatch.setattr(hooks, "_computed", {})
    monkeypatch.setattr(hooks, "_computed_tables_in", lambda lang: {"how-many": lambda: f"| {lang} |"})
    english = SimpleNamespace(file=SimpleNamespace(src_path="teach/how-many-clusters.md", locale="en"))
    portuguese = SimpleNamespace(
        file=SimpleNamespace(src_path="teach/how-many-clusters.pt-BR.md", locale="pt-BR")
    )
    marker = "<!-- computed:how-many -->"
    assert hooks.on_page_markdown(marker, page=portuguese, config=None, files=None) == "| pt-BR |"
    assert hooks.on_page_markdown(marker, page=english, config=None, files=None) == "| en |"


def test_the_portuguese_tables_are_the_english_numbers_in_portuguese_separators():
    spec = importlib.util.spec_from_file_location("docs_computed", ROOT / "docs" / "tools" / "computed.py")
    computed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(computed)
    swap = str.maketrans(".,", ",.")
    number = re.compile(r"\d[\d.,]*\d|\d")
    # not "how-many": it anneals every data set (minutes); the site's build makes it
    for name in ("soft-vs-lloyd", "five-steps"):
        # (a map's name, entmax-1.5, is the same in both languages)
        english, portuguese = (
            t().replace("entmax-1.5", "entmax") for t in (computed.TABLES[name], computed.TABLES_PT_BR[name])
        )
        assert english != portuguese
        # the numbers, read in order, are the same once pt-BR's separators are swapped back
        assert [n.translate(swap) for n in number.findall(portuguese)] == number.findall(english), name
        assert portuguese.count("|") == english.count("|")
