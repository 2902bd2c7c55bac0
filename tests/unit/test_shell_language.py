"""The shared pieces in the reader's language: the panels' error message, the library's errors a user
sees (validation, CSV files, drawn points, placed centres), the σ scrubber's words and numbers."""

from __future__ import annotations

import pytest

from rbfviz.drawn import decode_points
from rbfviz.i18n import ENGLISH, Invalid, explain, translator
from rbfviz.loader import DataError, load_points
from rbfviz.validate import check_int, check_sigma_for_dtype
from rbfviz.views.common.scrub import read_payload, scrub_payload, scrub_texts
from rbfviz.views.common.sigma import log_ticks
from rbfviz.views.common.words import number, percent
from rbfviz.views.explorer.placed import parse_placed, placed_centers
from ui.page import error_message

PT = translator("pt-BR")


def test_error_message_translates_our_errors_and_names_others_by_type():
    invalid = Invalid("k must be between 1 and the number of points ({n}), got k={k}.", n=5, k=9)
    assert error_message("The plane", invalid, ENGLISH) == (
        "The plane: k must be between 1 and the number of points (5), got k=9."
    )
    assert error_message("O plano", invalid, PT) == "O plano: " + explain(invalid, PT)
    assert explain(invalid, PT) != str(invalid) and "k=9" in explain(invalid, PT)
    # a ValueError from outside rbfviz has no catalog entry: its own text
    assert error_message("O plano", ValueError("math domain error"), PT) == "O plano: math domain error"
    crash = error_message("O plano", ZeroDivisionError("x"), PT)
    assert crash.startswith("Não foi possível calcular O plano (ZeroDivisionError).")
    assert error_message("The plane", ZeroDivisionError("x"), ENGLISH) == (
        "The plane could not be computed (ZeroDivisionError). The rest of the page still works; try another "
        "setting."
    )


@pytest.mark.parametrize(
    "data, english, portuguese",
    [
        (b"", "The file is empty.", "O arquivo está vazio."),
        (b"x\n1\n2\n", "only one column", "só uma coluna"),
        (
            b"x,y\n1,2\n3,abc\n",
            'Line 3, column "y": "abc" is not a number',
            'Linha 3, coluna "y": "abc" não é',
        ),
        (b"PK\x03\x04zip", "Excel workbook (.xlsx)", "pasta de trabalho do Excel (.xlsx)"),
    ],
)
def test_a_csv_files_error_is_told_in_either_language(data, english, portuguese):
    with pytest.raises(DataError) as caught:
        load_points(data)
    assert isinstance(caught.value, ValueError) and english in str(caught.value)
    assert portuguese in explain(caught.value, PT)


def test_a_csv_files_notes_in_either_language():
    loaded = load_points(b"a;b;label\n1,5;2,5;x\n3,5;4;y\n")
    assert "Values are separated by semicolons." in loaded.notes
    assert loaded.notes == loaded.notes_in(ENGLISH)
    shown = loaded.notes_in(PT)
    assert "Os valores são separados por ponto e vírgula." in shown
    assert "A primeira linha foi lida como nomes de colunas: a, b, label." in shown
    assert "Colunas sem números foram ignoradas: label." in shown


def test_validation_drawn_and_placed_errors_are_translatable():
    for raise_it in (
        lambda: check_int(0, "n", 3, 10),
        lambda: check_sigma_for_dtype(1e-30, "float32"),
        lambda: decode_points("0.a"),
        lambda: parse_placed("1,2,3"),
        lambda: placed_centers([(0.0, 0.0)], 3),
    ):
        with pytest.raises(Invalid) as caught:
            raise_it()
        english, portuguese = str(caught.value), explain(caught.value, PT)
        assert english == explain(caught.value, ENGLISH) and portuguese != english, english
    with pytest.raises(Invalid) as caught:
        check_sigma_for_dtype(1e-30, "float32")
    assert "2*sigma**2 = 2e-60" in str(caught.value) and "2*sigma**2 = 2e-60" in explain(caught.value, PT)


def test_the_scrubbers_words_and_decimal_separator_travel_in_the_payload():
    import plotly.graph_objects as go

    from rbfviz.views.common.scrub import ScrubLevel

    levels = [ScrubLevel(go.Figure(), "", "one"), ScrubLevel(go.Figure(), "", "two")]
    english = read_payload(scrub_payload(levels, [0.5, 0.25]))
    portuguese = read_payload(scrub_payload(levels, [0.5, 0.25], tr=PT))
    assert english["ui"] == scrub_texts(ENGLISH) and english["ui"]["play"] == "▶ Play"
    assert portuguese["ui"]["play"] == "▶ Reproduzir" and portuguese["ui"]["pause"] == "❚❚ Pausar"
    assert (english["decimal"], portuguese["decimal"]) == (".", ",")
    assert (english["label"], portuguese["label"]) == ("σ (log scale)", "σ (escala log)")
    # σ as the server writes it (file names, the address) stays the same in both
    assert english["texts"] == portuguese["texts"] == ["0.5", "0.25"]
    # every {field} the browser fills in is still there in Portuguese
    for key, text in english["ui"].items():
        assert sorted(part.split("}")[0] for part in text.split("{")[1:]) == sorted(
            part.split("}")[0] for part in portuguese["ui"][key].split("{")[1:]
        ), key


def test_words_numbers_and_sigma_ticks_take_the_language_s_separator():
    assert (number(0.529), number(0.529, tr=PT)) == ("0.529", "0,529")
    assert (percent(0.125), percent(0.125, tr=PT)) == ("12.5%", "12,5%")
    assert number(float("nan"), tr=PT) == "NaN"
    assert log_ticks(0.05, 0.2)[1] == ["0.05", "0.1", "0.2"]
    assert log_ticks(0.05, 0.2, PT)[1] == ["0,05", "0,1", "0,2"]


def test_no_message_is_translated_where_the_catalog_cannot_see_it():
    """Babel extracts the literal first argument of tr(...), N_(...), Invalid(...): a message given to a
    translator made in the same expression, ``translator(lang)("...")`` or ``language.current()("...")``,
    is never extracted, so it stays English on every screen."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    hidden = re.compile(r"(translator\([^()]*\)|current\(\))\(\s*([\"']|$)")  # "(" may end the line
    found = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("rbfviz", "ui", "pages")
        for path in sorted((root / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if hidden.search(line)
    ]
    found += [
        f"app.py:{n}"
        for n, line in enumerate((root / "app.py").read_text().splitlines(), 1)
        if hidden.search(line)
    ]
    assert not found, found
