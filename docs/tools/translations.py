"""The translation catalogs: extract the messages from the code, update each language's .po, compile
the .mo files the app reads, and check that nothing is missing (rbfviz.i18n explains the messages).

    python docs/tools/translations.py extract   # code -> rbfviz/locale/rbfviz.pot -> each .po (new
                                                # messages empty, changed ones fuzzy); then translate them
    python docs/tools/translations.py compile   # each .po -> its .mo
    python docs/tools/translations.py check     # what CI checks (tests/unit/test_catalogs.py): exit 1
                                                # and one line per problem

Babel does the work (its Python extractor with the keywords below). Messages are extracted from the
library, the app and the page scripts; file names are kept as the messages' locations, line numbers
are not, so a moved line does not change the catalogs.
"""

from __future__ import annotations

import io
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rbfviz.i18n import DOMAIN, LOCALE_DIR  # noqa: E402

SOURCES = ("app.py", "pages", "rbfviz", "ui")
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
LOCALES = ("pt_BR",)
# gettext's own names, and ours: a Translator called as tr(...), N_plural(singular, plural), and the
# message of an error raised as Invalid(message, **fields) (or its subclass rbfviz.loader.DataError)
KEYWORDS = {**DEFAULT_KEYWORDS, "tr": None, "N_plural": (1, 2), "Invalid": None, "DataError": None}
COMMENT_TAGS = ("TRANSLATORS:",)
# fixed header dates: a new extract changes the catalogs only where a message changed
_FIXED_DATE = datetime(2026, 12, 1, tzinfo=timezone.utc)
_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}(?!\})")


def po_path(locale: str) -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(locale: str) -> Path:
    return po_path(locale).with_suffix(".mo")


def extract() -> Catalog:
    """Every message of the code, as a template catalog (sorted, file names without line numbers)."""
    catalog = Catalog(project="rbfviz", domain=DOMAIN, fuzzy=False, creation_date=_FIXED_DATE)
    for source in SOURCES:
        path = ROOT / source
        found = (
            _extract_file(path)
            if path.is_file()
            else extract_from_dir(
                path,
                method_map=[("**.py", "python")],
                keywords=KEYWORDS,
                comment_tags=COMMENT_TAGS,
                strip_comment_tags=True,
            )
        )
        for filename, _lineno, message, comments, context in found:
            where = (Path(source) / filename).as_posix() if path.is_dir() else source
            catalog.add(message, None, [(where, None)], auto_comments=comments, context=context)
    return catalog


def _extract_file(path: Path):
    from babel.messages.extract import extract

    with path.open("rb") as handle:
        for lineno, message, comments, context in extract(
            "python", handle, keywords=KEYWORDS, comment_tags=COMMENT_TAGS, strip_comment_tags=True
        ):
            yield path.name, lineno, message, comments, context


def _po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=100, sort_output=True, include_lineno=False, omit_header=False)
    return out.getvalue()


def _mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def read(locale: str) -> Catalog:
    with po_path(locale).open("rb") as handle:
        return read_po(handle, locale=locale, domain=DOMAIN)


def update() -> None:
    """Write the template, and merge it into each language's .po (its translations kept)."""
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(_po_bytes(template))
    for locale in LOCALES:
        path = po_path(locale)
        if path.exists():
            catalog = read(locale)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=locale, domain=DOMAIN, project="rbfviz", fuzzy=False)
            catalog.language_team = catalog.last_translator = "rbfviz"

        catalog.update(template, no_fuzzy_matching=False)
        catalog.revision_date = catalog.creation_date = _FIXED_DATE
        catalog.obsolete.clear()  # messages gone from the code leave the catalog
        path.write_bytes(_po_bytes(catalog))
        print(f"{path.relative_to(ROOT)}: {sum(1 for m in catalog if m.id)} messages")


def compile_all() -> None:
    for locale in LOCALES:
        mo_path(locale).write_bytes(_mo_bytes(read(locale)))
        print(f"{mo_path(locale).relative_to(ROOT)} written")


def _fields(text) -> set[str]:
    texts = text if isinstance(text, tuple | list) else (text,)
    return {name for t in texts if t for name in _FIELD.findall(t)}


def problems() -> list[str]:
    """What is wrong with the catalogs, one line each; empty when the code's messages are all translated."""
    out = []
    code = {m.id if not isinstance(m.id, tuple) else m.id[0] for m in extract() if m.id}
    for locale in LOCALES:
        if not po_path(locale).exists():
            return [f"{po_path(locale).relative_to(ROOT)} is missing: run extract"]
        catalog = read(locale)
        have = {m.id if not isinstance(m.id, tuple) else m.id[0]: m for m in catalog if m.id}
        for missing in sorted(code - set(have)):
            out.append(f"{locale}: not in the catalog (run extract): {missing[:90]!r}")
        for gone in sorted(set(have) - code):
            out.append(f"{locale}: in the catalog but no longer in the code (run extract): {gone[:90]!r}")
        for key, message in sorted(have.items()):
            strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
            if message.fuzzy:
                out.append(f"{locale}: fuzzy: {key[:90]!r}")
            elif not all(strings):
                out.append(f"{locale}: untranslated: {key[:90]!r}")
            elif _fields(strings) != _fields(message.id):
                out.append(f"{locale}: the translation's {{fields}} differ from the message's: {key[:90]!r}")
        if not mo_path(locale).exists() or mo_path(locale).read_bytes() != _mo_bytes(catalog):
            out.append(f"{mo_path(locale).relative_to(ROOT)} is not the compiled .po: run compile")
    return out


def main(argv: list[str]) -> int:
    if argv == ["extract"]:
        update()
    elif argv == ["compile"]:
        compile_all()
    elif argv == ["check"]:
        found = problems()
        print("\n".join(found) or "catalogs complete")
        return 1 if found else 0
    else:
        print(__doc__.strip().splitlines()[0] + "\nusage: translations.py extract | compile | check")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
