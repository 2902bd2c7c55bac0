"""The class's answers as the teacher sees them (rbfviz.views.lessons.class_session): each lesson
question as the
store checks it, the distribution against separately written counting, the figure hiding the correct
answer until it is revealed, and the CSV."""

import csv
import io
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from rbfviz.classroom.store import Tally
from rbfviz.views.common.layout import validated
from rbfviz.views.lessons.arrays import STEPS, prepare, step_data
from rbfviz.views.lessons.class_session import (
    CORRECT_COLOR,
    HISTOGRAM_BINS,
    answers_csv,
    distribution,
    distribution_figure,
    question_spec,
)


def tally(kind, values, answer=None, n_options=0, low=None, high=None) -> Tally:
    return Tally(
        code="7KQ2XM0D",
        question="q",
        state="revealed" if answer is not None else "open",
        kind=kind,
        low=low,
        high=high,
        n_options=n_options,
        present=len(values) + 1,
        joined=len(values) + 2,
        values=tuple(values),
        answer=answer,
        expires_at=0.0,
    )


@pytest.mark.parametrize("step", STEPS, ids=lambda s: s.key)
def test_every_lesson_question_is_a_store_question_its_answer_passes(step):
    prepared = prepare(step)
    scale = step_data(step.settings).scale
    spec = question_spec(prepared, scale)  # QuestionSpec checks the answer against its own bounds
    assert spec.key == step.key and spec.answer == prepared.answer
    if step.question.is_choice:
        assert (spec.kind, spec.n_options) == ("choice", len(step.question.options))
    else:
        assert (spec.kind, spec.low, spec.high) == ("number", scale.low, scale.high)
        assert scale.low < prepared.answer < scale.high


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.integers(0, 4), max_size=200))
def test_choice_counts_match_a_plain_count(picks):
    dist = distribution(tally("choice", [float(p) for p in picks], n_options=5))
    assert dist.counts.tolist() == [picks.count(i) for i in range(5)]


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.floats(0.02, 4.0), max_size=200))
def test_number_histogram_matches_a_plain_loop_on_geometric_bins(values):
    low, high = 0.02, 4.0
    dist = distribution(tally("number", values, low=low, high=high))
    ratio = (high / low) ** (1 / HISTOGRAM_BINS)
    assert np.allclose(dist.edges, [low * ratio**b for b in range(HISTOGRAM_BINS + 1)], rtol=1e-12)
    expected = [0] * HISTOGRAM_BINS
    for v in values:
        b = min(int(math.floor(math.log(v / low) / math.log(ratio) + 1e-12)), HISTOGRAM_BINS - 1)
        # a value on an edge (to rounding) goes to the bin numpy's comparison puts it in
        if v < dist.edges[b]:
            b -= 1
        elif b + 1 < HISTOGRAM_BINS and v >= dist.edges[b + 1]:
            b += 1
        expected[b] += 1
    assert dist.counts.tolist() == expected
    assert dist.counts.sum() == len(values)


def test_the_figure_marks_the_answer_only_once_revealed():
    options = ("first", "second", "third")
    hidden = distribution_figure(tally("choice", [0.0, 1.0, 1.0], n_options=3), options)
    validated(hidden)
    assert CORRECT_COLOR not in str(hidden.to_dict()) and "✓" not in str(hidden.to_dict())
    assert list(hidden.data[0].y) == [1, 2, 0]
    shown = distribution_figure(tally("choice", [0.0, 1.0, 1.0], answer=2.0, n_options=3), options)
    validated(shown)
    assert list(shown.data[0].marker.color).index(CORRECT_COLOR) == 2 and shown.data[0].x[2] == "C ✓"
    # the count printed above the tallest bar stays inside the plot
    assert shown.layout.yaxis.range[1] >= 1.15 * max(shown.data[0].y) and shown.data[0].cliponaxis is False

    number = tally("number", [0.1, 0.5, 0.55], low=0.02, high=4.0)
    hidden = distribution_figure(number, unit=" (data units)")
    validated(hidden)
    assert not hidden.layout.shapes and sum(hidden.data[0].y) == 3
    shown = distribution_figure(replace(number, answer=0.5, state="revealed"))
    validated(shown)
    assert shown.layout.shapes[0].x0 == 0.5 and shown.layout.xaxis.type == "log"


def test_the_csv_is_anonymous_and_says_what_each_answer_was():
    by_key = {step.key: prepare(step) for step in STEPS[:3]}
    voronoi, anneal = by_key["voronoi"], by_key["anneal"]
    rows = [("voronoi", voronoi.answer, 3.25), ("voronoi", 0.0, 4.0), ("anneal", anneal.answer * 2, 10.0)]
    table = list(csv.reader(io.StringIO(answers_csv(rows, by_key).decode())))
    assert table[0] == ["step", "question", "answer", "correct", "seconds_after_open"]
    assert [r[3] for r in table[1:]] == ["yes", "no", "no"]
    assert table[1][2] == voronoi.step.question.options[int(voronoi.answer)]
    assert float(table[3][2]) == pytest.approx(anneal.answer * 2, rel=1e-5)
    assert table[1][4] == "3.2" or table[1][4] == "3.3"
    raw = answers_csv([("=cmd|' /C calc'!A0", 1.0, 0.0)], by_key).decode()
    assert "\n'=cmd" in raw  # an unknown key is written formula-safe


def test_the_figures_words_and_numbers_follow_the_language():
    from rbfviz.i18n import translator

    pt = translator("pt-BR")
    choice = tally("choice", [0.0, 1.0, 1.0], n_options=3)
    english, portuguese = (
        distribution_figure(choice, ("a", "b", "c")),
        distribution_figure(choice, ("a", "b", "c"), tr=pt),
    )
    validated(portuguese)
    assert (english.layout.yaxis.title.text, english.layout.xaxis.title.text) == ("students", "option")
    assert (portuguese.layout.yaxis.title.text, portuguese.layout.xaxis.title.text) == ("alunos", "opção")
    assert (english.layout.separators, portuguese.layout.separators) == (".,", ",.")
    number = replace(tally("number", [0.1, 0.5], low=0.02, high=4.0), answer=0.5, state="revealed")
    shown = distribution_figure(number, unit=pt(" (data units)"), tr=pt)
    validated(shown)
    assert shown.layout.xaxis.title.text == "resposta (unidades dos dados)"
    assert shown.layout.annotations[0].text == "resposta 0,5" and shown.layout.separators == ",."
