"""Every message the code hands to the translator as a literal is in the extracted catalog.

Babel's Python extractor reads a call's first argument only while it is not inside another call of a
translation keyword: ``tr("{a} of {b}", a=tr("x"))`` gives the catalog the outer message and loses
"x", and a bare ``tr`` among ``tr.ngettext(...)``'s arguments makes Babel read the plural as a plain
message. The catalogs' own test (extract, compare) cannot see a message that was never extracted, so
this walks the code's syntax trees and looks every literal first argument of ``tr``, ``N_``,
``Invalid``, ``gettext``, ``ngettext`` and ``N_plural`` up in rbfviz/locale/rbfviz.pot (plurals with
their plural form).
"""

import ast
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("app.py", "pages", "ui", "rbfviz")
KEYWORDS = {"tr", "N_", "Invalid", "gettext", "ngettext", "N_plural"}
PLURAL = {"ngettext", "N_plural"}


def catalog() -> tuple[set[str], dict[str, str]]:
    """(singular messages, {plural message's singular: its plural}) of the template."""
    with (ROOT / "rbfviz" / "locale" / "rbfviz.pot").open("rb") as handle:
        messages = [m for m in read_po(handle) if m.id]
    singular = {m.id for m in messages if isinstance(m.id, str)}
    plural = {m.id[0]: m.id[1] for m in messages if isinstance(m.id, tuple)}
    return singular, plural


def literal_calls():
    """(file, line, keyword, first literal, second literal or None) of every keyword call in the code."""
    for source in SOURCES:
        path = ROOT / source
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                first = node.args[0]
                if name in KEYWORDS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                    second = node.args[1] if len(node.args) > 1 else None
                    other = second.value if isinstance(second, ast.Constant) else None
                    yield file.relative_to(ROOT), node.lineno, name, first.value, other


def test_every_literal_message_is_extracted():
    singular, plural = catalog()
    missing = []
    for file, line, name, message, other in literal_calls():
        if name in PLURAL and isinstance(other, str):
            if plural.get(message) != other:
                missing.append(f"{file}:{line} plural {message!r}")
        elif message not in singular:
            missing.append(f"{file}:{line} {message!r}")
    assert not missing, "not in rbfviz.pot (a message inside another's arguments?):\n" + "\n".join(missing)
