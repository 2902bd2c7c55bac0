"""This session's language: the translator every Streamlit call of a page uses for its words.

    tr = language.current()          # a rbfviz.i18n.Translator
    st.subheader(tr("One step from the same start"))

The language is a shared control (``Controls.lang``, ``lang=`` in the address; ui.state reads it, with
the browser's language, ``st.context.locale``, as its default), so every link the app draws carries it.
Each session has its own: a server shows students their own language at the same time. The sidebar's
switch is ``language_switch``.
"""

from __future__ import annotations

import streamlit as st

from rbfviz.i18n import LANGUAGES, Translator, language_of_locale, translator

from . import session_keys as keys
from . import sidebar_mark

SWITCH_LABEL = "Idioma · Language"  # in both languages: a visitor finds it whichever is on screen


def current() -> Translator:
    """The translator of this session's language (its controls' ``lang``; before the controls are read,
    the browser's language)."""
    ctrl = st.session_state.get(keys.CONTROLS)
    if ctrl is not None:
        return translator(ctrl.lang)
    return translator(language_of_locale(st.context.locale))


def language_switch(lang: str, on_change, args) -> None:
    """The sidebar's language menu, each language named in itself."""
    tr = translator(lang)
    key = keys.widget("lang")
    sidebar_mark.shown("lang", key, lang)
    st.selectbox(
        SWITCH_LABEL,
        options=list(LANGUAGES),
        format_func=LANGUAGES.get,
        key=key,
        on_change=on_change,
        args=args,
        help=tr("English or Brazilian Portuguese; in the address: `lang`."),
    )


def number_field(label: str, key: str, tr: Translator, help: str | None = None) -> None:
    """A decimal number a reader types, read back with ``typed_number(key, tr)``: Streamlit's number input
    in English; in a language that writes a decimal comma, a text field, because Chromium's number input
    drops a typed comma ("0,529" becomes 529). Either way "0.529" is accepted."""
    if tr.decimal_comma:
        st.text_input(label, key=key, help=help, placeholder=tr.number(0.5, ".1f"))
    else:
        st.number_input(label, value=None, min_value=0.0, step=0.01, format="%.4f", key=key, help=help)


def typed_number(key: str, tr: Translator) -> float | None:
    """The number in ``number_field`` ``key``: None when it is empty; a ValueError naming the text when it is
    not a number (an empty text is no answer yet)."""
    value = st.session_state.get(key)
    if value is None or isinstance(value, int | float):
        return value
    if not str(value).strip():
        return None
    return tr.parse_number(value)
