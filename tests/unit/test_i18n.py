"""rbfviz.i18n: one translator per language, numbers in the language's separators, plural forms, the
browser's locale, errors told in the reader's language, and no translator shared between readers."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rbfviz.i18n import (
    ENGLISH,
    LANGUAGES,
    Invalid,
    explain,
    language_of_locale,
    translator,
)
from rbfviz.validate import check_k

PT = translator("pt-BR")


def test_english_is_the_code_s_own_text_and_portuguese_comes_from_the_catalog():
    assert translator("en")("Clusters k") == "Clusters k"
    assert PT("Clusters k") == "Grupos k"


def test_numbers_take_the_language_s_separators():
    message = "{n:,} points at σ = {sigma:.3g}"
    assert ENGLISH(message, n=1500, sigma=0.25) == "1,500 points at σ = 0.25"
    assert PT.format(message, n=1500, sigma=0.25) == "1.500 points at σ = 0,25"
    assert PT.number(0.529) == "0,529" and ENGLISH.number(0.529) == "0.529"
    assert PT.separators == ",." and ENGLISH.separators == ".,"  # Plotly: decimal, then thousands


def test_only_numbers_change_strings_and_flags_stay():
    assert PT.format("{name} {flag}", name="1.5 a.b", flag=True) == "1.5 a.b True"


@given(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False))
def test_a_number_written_in_portuguese_reads_back(value):
    assert PT.parse_number(PT.number(value, ".12g")) == pytest.approx(float(f"{value:.12g}"), rel=1e-12)


def test_parse_number_takes_a_point_or_a_comma_in_portuguese_and_a_point_in_english():
    assert PT.parse_number("0,529") == PT.parse_number("0.529") == 0.529
    assert PT.parse_number("1.500,25") == 1500.25
    assert ENGLISH.parse_number(" 0.529 ") == 0.529
    with pytest.raises(ValueError, match="'abc' is not a number"):
        PT.parse_number("abc")


def test_plural_forms_follow_the_count():
    assert PT.ngettext("{n} point", "{n} points", 1) == "1 ponto"
    assert PT.ngettext("{n} point", "{n} points", 2) == "2 pontos"
    assert PT.ngettext("{n} point", "{n} points", 0) == "0 ponto"  # pt-BR: 0 and 1 are singular
    assert ENGLISH.ngettext("{n} point", "{n} points", 0) == "0 points"


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("pt", "pt-BR"), ("pt-BR", "pt-BR"), ("pt-PT", "pt-BR"), ("pt_br", "pt-BR"), ("PT", "pt-BR")]
    + [("en-US", "en"), ("es", "en"), ("", "en"), (None, "en"), ("ptx", "en")],
)
def test_the_browser_s_locale_chooses_portuguese_for_any_pt(locale, lang):
    assert language_of_locale(locale) == lang


def test_an_unknown_language_is_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match="en, pt-BR"):
        translator("fr")
    assert set(LANGUAGES) == {"en", "pt-BR"}


def test_an_invalid_error_is_english_as_a_value_error_and_translated_by_explain():
    with pytest.raises(Invalid) as raised:
        check_k(9, 5)
    error = raised.value
    assert isinstance(error, ValueError)
    assert str(error) == "k must be between 1 and the number of points (5), got k=9."
    assert explain(error, PT) == "k deve estar entre 1 e o número de pontos (5); recebido k=9."
    assert explain(ValueError("outside"), PT) == "outside"


def test_two_readers_at_the_same_time_each_keep_their_language():
    """The server's threads each hold their session's translator: no global state to leak."""
    seen: dict[str, set[str]] = {"en": set(), "pt-BR": set()}
    barrier = threading.Barrier(2)

    def read(lang):
        tr = translator(lang)
        barrier.wait()
        for _ in range(2000):
            seen[lang].add(tr("Clusters k"))

    threads = [threading.Thread(target=read, args=(lang,)) for lang in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"en": {"Clusters k"}, "pt-BR": {"Grupos k"}}
