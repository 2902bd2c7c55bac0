"""The documentation's build hooks (docs/tools/hooks.py): generated tables go where a page's markers are."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "tools" / "hooks.py")
hooks = sys.modules.setdefault("docs_hooks", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(hooks)

RESULTS = """| a | b |
|---|---|
| 1 | 2 |

| split | σ |
|---|---|
| 1 | 0.5 |

| α | σ* |
|---|---|
| 1.5 | 0.1 |
"""
PAGE = SimpleNamespace(file=SimpleNamespace(src_path="maths/claims.md"))


def test_results_split_into_the_three_named_tables():
    tables = hooks.split_tables(RESULTS)
    assert list(tables) == ["collapse", "splits", "alpha"]
    assert tables["splits"] == "| split | σ |\n|---|---|\n| 1 | 0.5 |"


def test_a_results_file_with_another_number_of_tables_is_an_error():
    with pytest.raises(PluginError, match="wrote 2 tables"):
        hooks.split_tables(RESULTS.rsplit("\n\n", 1)[0])


def test_markers_are_replaced_and_code_is_left_alone(monkeypatch):
    monkeypatch.setattr(hooks, "_tables", hooks.split_tables(RESULTS))
    monkeypatch.setattr(hooks, "_run_note", "computed now")
    page = (
        "Made: <!-- reproduce:note -->.\n\n<!-- reproduce:alpha -->\n\nThe marker `<!-- reproduce:NAME -->`."
    )
    out = hooks.on_page_markdown(page, page=PAGE, config=None, files=None)
    table = "| α | σ* |\n|---|---|\n| 1.5 | 0.1 |"
    assert out == f"Made: computed now.\n\n{table}\n\nThe marker `<!-- reproduce:NAME -->`."


def test_computed_markers_are_replaced(monkeypatch):
    monkeypatch.setattr(hooks, "_computed", {})
    monkeypatch.setattr(hooks, "_computed_tables", lambda: {"how-many": lambda: "| table |"})
    out = hooks.on_page_markdown("A\n\n<!-- computed:how-many -->\n", page=PAGE, config=None, files=None)
    assert out == "A\n\n| table |\n"


def test_an_unknown_marker_is_an_error(monkeypatch):
    monkeypatch.setattr(hooks, "_tables", hooks.split_tables(RESULTS))
    with pytest.raises(PluginError, match="unknown marker reproduce:nothing"):
        hooks.on_page_markdown("<!-- reproduce:nothing -->", page=PAGE, config=None, files=None)
    monkeypatch.setattr(hooks, "_computed_tables", lambda: {"how-many": lambda: "| table |"})
    with pytest.raises(PluginError, match="unknown marker computed:nothing"):
        hooks.on_page_markdown("<!-- computed:nothing -->", page=PAGE, config=None, files=None)
