"""AppTests of what a sweep of the Portuguese app found left in English: the words inside the Annealing
and Neural network formulas, the Step by step table's numbers (a decimal comma), the language switch's
help text; each also in English, unchanged. n = 120."""

import pytest
from app_page import open_page, page_path

SMALL = {"dataset": "blobs", "n": "120"}
PT = dict(SMALL, lang="pt-BR")


def formulas(at) -> str:
    return "\n".join(str(e.value) for e in at.main.get("latex"))


@pytest.mark.parametrize(
    ("label", "english", "portuguese"),
    [
        ("Annealing", [r"\text{map}"], [r"\text{mapa}"]),
        (
            "Neural network",
            [r"\text{map}", r"\text{loss}", r"\text{classify}", r"\text{mean}"],
            [r"\text{mapa}", r"\text{perda}", r"\text{classificar}", r"\text{média}"],
        ),
    ],
)
def test_the_formulas_words_follow_the_language(label, english, portuguese):
    pt = formulas(open_page(page_path(label), PT))
    en = formulas(open_page(page_path(label), SMALL))
    assert all(w in pt for w in portuguese) and not any(w in pt for w in english)
    assert all(w in en for w in english)


def test_the_step_tables_numbers_have_the_languages_decimal_separator():
    for query, separator in ((PT, ","), (SMALL, ".")):
        at = open_page(page_path("Step by step"), query)
        table = next(df.value for df in at.dataframe if "L_σ" in df.value.columns)
        assert all(separator in v for v in list(table["L_σ"]) + list(table["J"])), table


def test_the_language_switchs_help_follows_the_language():
    helps = {}
    for query in (PT, SMALL):
        at = open_page(page_path("Explorer"), query)
        switch = next(s for s in at.sidebar.selectbox if s.label == "Idioma · Language")
        helps[query.get("lang", "en")] = switch.help
    assert helps["en"] == "English or Brazilian Portuguese; in the address: `lang`."
    assert helps["pt-BR"] == "Português do Brasil ou inglês; no endereço: `lang`."


def test_the_alpha_control_writes_alpha_with_the_languages_decimal_separator():
    """Streamlit's slider shows "1.30" in any language: in Portuguese α is a select slider of the same
    values that shows "1,30"; moving it sets α and the address as the English slider does."""
    at = open_page(page_path("Explorer"), dict(PT, kind="entmax", alpha="1.3"))
    control = at.select_slider(key="w_alpha")
    assert control.value == 1.3 and control.format_func(1.3) == "1,30"
    assert control.options[0] == "1,05" and control.options[-1] == "2,00"  # as shown: ALPHA_MIN to ALPHA_MAX
    control.set_value(1.55).run()
    assert not at.exception
    assert at.query_params["alpha"] == "1.55" and at.query_params["kind"] == "entmax"
    english = open_page(page_path("Explorer"), dict(SMALL, kind="entmax", alpha="1.3"))
    assert english.slider(key="w_alpha").value == 1.3
