"""Languages: the words on screen in English or Brazilian Portuguese, one translator per reader.

    from rbfviz.i18n import ENGLISH, N_, translator

    tr = translator("pt-BR")
    tr("{n:,} points at σ = {sigma:.3g}", n=1500, sigma=0.25)   # "1.500 pontos em σ = 0,25"
    tr.ngettext("{n} point", "{n} points", 1)                     # "1 ponto"
    LABEL = N_("Clusters k")    # marked for the catalog where declared; shown as tr(LABEL)

Why a translator object and not ``gettext.install``: one server process serves students in different
languages at the same time, and a process-wide ``_`` would show one student's language on another's
page. So whatever draws text takes a ``Translator`` argument (English by default), and the app passes
each session's own.

Messages are whole sentences with named ``str.format`` fields, so a translator can reorder them. A
number given as a field is written with the language's decimal and thousands separators
(pt-BR: ``0,529`` and ``1.500``); ``separators`` is the same rule for Plotly's layout. A message with
fields is formatted, so its literal braces are doubled (``{{``); a message without fields is returned
as it is.

The catalogs are gettext's: ``rbfviz/locale/rbfviz.pot`` (extracted from the code by Babel),
``rbfviz/locale/<locale>/LC_MESSAGES/rbfviz.po`` (the translation) and its compiled ``.mo``.
``python docs/tools/translations.py extract`` and ``... compile`` update them
(docs/contribute/translations.md).
"""

from __future__ import annotations

import functools
import gettext
import string
from dataclasses import dataclass, field
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "rbfviz"
DEFAULT_LANGUAGE = "en"
# The languages offered: their code in the address (lang=), their gettext locale and their own name.
LANGUAGES = {"en": "English", "pt-BR": "Português (Brasil)"}
_GETTEXT_LOCALE = {"en": "en", "pt-BR": "pt_BR"}
_DECIMAL_COMMA = {"pt-BR"}


def N_(message: str) -> str:
    """Mark ``message`` for the catalog where it is declared (a label, a lesson's text); it is translated
    later, where it is shown, by ``tr(message)``."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Mark a plural pair for the catalog where it is declared; shown with ``tr.ngettext(*pair, n)``."""
    return singular, plural


def check_language(lang: str) -> str:
    """``lang`` if it is one of LANGUAGES; a ValueError naming the allowed codes otherwise."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGUAGES)}.")
    return lang


def language_of_locale(locale: str | None) -> str:
    """The language for a browser's locale (``navigator.language``, e.g. "pt-BR", "pt_PT", "en-US"):
    Portuguese for any "pt", English for anything else or nothing."""
    if locale and locale.replace("_", "-").split("-")[0].strip().lower() == "pt":
        return "pt-BR"
    return DEFAULT_LANGUAGE


class _NumberFormatter(string.Formatter):
    """str.format, with numbers in the language's separators: "." and "," swapped where the decimal
    separator is a comma. Booleans and strings are left alone."""

    def __init__(self, decimal_comma: bool):
        super().__init__()
        self.decimal_comma = decimal_comma

    def format_field(self, value, format_spec: str) -> str:
        text = super().format_field(value, format_spec)
        if self.decimal_comma and isinstance(value, int | float) and not isinstance(value, bool):
            text = text.translate(_SWAP_SEPARATORS)
        return text


_SWAP_SEPARATORS = str.maketrans({".": ",", ",": "."})


@dataclass(frozen=True)
class Translator:
    """One language's messages and number format. Call it (or ``gettext``) for a message, ``ngettext``
    for one whose words follow a count; ``number`` formats a number alone."""

    lang: str
    catalog: gettext.NullTranslations = field(compare=False, repr=False)

    @property
    def decimal_comma(self) -> bool:
        return self.lang in _DECIMAL_COMMA

    @property
    def separators(self) -> str:
        """Plotly's ``layout.separators``: the decimal separator, then the thousands separator."""
        return ",." if self.decimal_comma else ".,"

    def gettext(self, message: str, /, **fields) -> str:
        """``message`` in this language, its named fields filled in (numbers in its separators)."""
        text = self.catalog.gettext(message)
        return self.format(text, **fields) if fields else text

    __call__ = gettext

    def ngettext(self, singular: str, plural: str, n: int, /, **fields) -> str:
        """The form of the message that suits the count ``n`` (also a field ``{n}``)."""
        text = self.catalog.ngettext(singular, plural, n)
        return self.format(text, n=n, **fields)

    def format(self, text: str, /, **fields) -> str:
        """``text.format(**fields)`` with numbers in this language's separators."""
        return _NumberFormatter(self.decimal_comma).format(text, **fields)

    def number(self, value: float, format_spec: str = ".3g") -> str:
        """One number as this language writes it: ``tr.number(0.529)`` is "0,529" in pt-BR."""
        return self.format("{value:" + format_spec + "}", value=value)

    def parse_number(self, text: str) -> float:
        """A number typed by a reader: "0.529" in either language, and "0,529" in a decimal-comma one.
        Raises ValueError (naming the text) when it is not a number."""
        cleaned = str(text).strip().replace(" ", "")
        if self.decimal_comma and "," in cleaned:
            cleaned = cleaned.replace(".", "").replace(",", ".")
        try:
            return float(cleaned)
        except ValueError:
            raise ValueError(f"{text!r} is not a number.") from None


@functools.cache
def translator(lang: str = DEFAULT_LANGUAGE) -> Translator:
    """The translator of ``lang`` (one of LANGUAGES), its catalog read once per process. English is the
    source language: its messages are the code's own."""
    check_language(lang)
    if lang == DEFAULT_LANGUAGE:
        return Translator(lang, gettext.NullTranslations())
    catalog = gettext.translation(DOMAIN, LOCALE_DIR, languages=[_GETTEXT_LOCALE[lang]])
    return Translator(lang, catalog)


ENGLISH = Translator(DEFAULT_LANGUAGE, gettext.NullTranslations())


class Invalid(ValueError):
    """A ValueError that can be told in the reader's language: ``message`` is a catalog message (English,
    with named fields) and ``fields`` fill it in. ``str(error)`` is the English sentence, so code and
    tests that know only ValueError read it as before; the app shows ``explain(error, tr)``.

        raise Invalid("k must be at least {low}, got {k}.", low=2, k=k)
    """

    def __init__(self, message: str, /, **fields):
        self.message = message
        self.fields = fields
        super().__init__(ENGLISH.format(message, **fields) if fields else message)


def explain(error: BaseException, tr: Translator = ENGLISH) -> str:
    """An error's message in ``tr``'s language: an ``Invalid`` is translated, anything else is its own
    text (a message from outside rbfviz has no entry in our catalogs)."""
    if isinstance(error, Invalid):
        return tr(error.message, **error.fields)
    return str(error)
