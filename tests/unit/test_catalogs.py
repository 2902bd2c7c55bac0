"""The translation catalogs are complete: every message of the code is in each language's catalog,
translated, not fuzzy, with the same {fields}, and the compiled .mo is the .po's (docs/tools/translations.py
check: extract, then compare)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("translations", ROOT / "docs" / "tools" / "translations.py")
translations = sys.modules.setdefault("translations", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(translations)


def test_every_message_of_the_code_is_translated_and_compiled():
    assert translations.problems() == []


def test_the_check_finds_a_message_missing_from_the_catalog(monkeypatch):
    real = translations.extract

    def with_new_message():
        catalog = real()
        catalog.add("A sentence nobody has translated yet.", locations=[("pages/1_Explorer.py", None)])
        return catalog

    monkeypatch.setattr(translations, "extract", with_new_message)
    assert any("A sentence nobody has translated yet." in line for line in translations.problems())


def test_the_check_finds_fuzzy_untranslated_and_wrong_fields(monkeypatch):
    real = translations.read

    def spoiled(locale):
        catalog = real(locale)
        catalog.add("Fuzzy {n}.", "Difuso {n}.", flags=["fuzzy"])
        catalog.add("Empty {n}.", "")
        catalog.add("Fields {sigma:.3g}.", "Campos {sgima:.3g}.")
        return catalog

    monkeypatch.setattr(translations, "read", spoiled)
    found = "\n".join(translations.problems())
    assert "fuzzy: 'Fuzzy {n}.'" in found
    assert "untranslated: 'Empty {n}.'" in found
    assert "{fields} differ" in found and "Fields {sigma:.3g}." in found
