"""Ask the class: a lesson question as the class store checks it, the class's answers as a distribution
and a figure, and the anonymous answers as CSV.

* ``question_spec(prepared, scale)``  – rbfviz.classroom.QuestionSpec of a lesson step: its options, or
                                        a number on its view's σ slider range [scale.low, scale.high].
* ``distribution(tally)``             – ``Distribution``: a count per option, or a histogram with
                                        geometric bins on the question's (logarithmic σ) scale.
* ``distribution_figure(...)``        – bars of the distribution; the correct answer is marked only
                                        once the teacher has revealed it (``tally.answer``); its words
                                        in ``tr``'s language.
* ``answers_csv(rows, prepared_by_key)`` – the answers, anonymous, one line each (formula-safe); the
                                        texts in the prepared steps' language, the columns fixed.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from rbfviz.classroom.store import CHOICE, NUMBER, QuestionSpec, Tally
from rbfviz.i18n import ENGLISH, Translator
from rbfviz.loader import csv_safe
from rbfviz.views.common.layout import base_layout, figure
from rbfviz.views.common.palette import OKABE_ITO
from rbfviz.views.explorer.arrays import SigmaScale
from rbfviz.views.lessons.arrays import Prepared, check

HISTOGRAM_BINS = 24
BAR_COLOR = OKABE_ITO[4]  # blue
CORRECT_COLOR = OKABE_ITO[2]  # bluish green


def question_spec(prepared: Prepared, scale: SigmaScale) -> QuestionSpec:
    """The store's question for a prepared lesson step. A number question (a σ, in data units) takes
    answers on its view's σ slider range, where the student can look for it."""
    question = prepared.step.question
    if question.is_choice:
        return QuestionSpec(
            prepared.step.key, CHOICE, answer=int(prepared.answer), n_options=len(question.options)
        )
    return QuestionSpec(
        prepared.step.key, NUMBER, answer=prepared.answer, low=float(scale.low), high=float(scale.high)
    )


@dataclass(frozen=True)
class Distribution:
    """counts[b] answers in bin b. For a choice, bin b is option b (edges empty); for a number, bin b
    holds edges[b] <= value < edges[b+1] (the last bin also holds edges[-1])."""

    counts: np.ndarray
    edges: np.ndarray


def distribution(tally: Tally, bins: int = HISTOGRAM_BINS) -> Distribution:
    """The tally's answers counted per option, or in ``bins`` geometric bins from low to high."""
    values = np.asarray(tally.values, dtype=np.float64)
    if tally.kind == CHOICE:
        return Distribution(np.bincount(values.astype(np.int64), minlength=tally.n_options), np.empty(0))
    edges = np.geomspace(tally.low, tally.high, bins + 1)
    counts, _ = np.histogram(np.clip(values, tally.low, tally.high), bins=edges)
    return Distribution(counts, edges)


def distribution_figure(
    tally: Tally,
    options: tuple[str, ...] = (),
    unit: str = "",
    height: int = 360,
    tr: Translator = ENGLISH,
):
    """Bars of the class's answers. The correct answer (option bar in green, or a line at the number)
    appears only when ``tally.answer`` is set, that is once revealed. ``options`` and ``unit`` are
    already in ``tr``'s language (rbfviz.views.lessons.arrays.Prepared's)."""
    dist = distribution(tally)
    layout = base_layout(height=height, y_title=tr("students"), legend="below", tr=tr)
    layout["yaxis"].update(rangemode="tozero", dtick=max(1, int(np.ceil(dist.counts.max(initial=0) / 8))))
    layout["margin"].update(b=70)
    layout["showlegend"] = False
    if tally.kind == CHOICE:
        labels = [f"{chr(65 + i)}" for i in range(tally.n_options)]
        colors = [BAR_COLOR] * tally.n_options
        if tally.answer is not None:
            colors[int(tally.answer)] = CORRECT_COLOR
            labels[int(tally.answer)] += " ✓"
        hover = [f"{label}: {text}" for label, text in zip(labels, options)] if options else labels
        trace = dict(
            type="bar",
            x=labels,
            y=dist.counts.tolist(),
            marker=dict(color=colors),
            text=dist.counts.tolist(),
            textposition="outside",
            cliponaxis=False,
            hovertext=hover,
            hoverinfo="text+y",
        )
        layout["xaxis"].update(title=dict(text=tr("option")))
        # the count above the tallest bar needs room: autorange leaves none for "outside" text
        layout["yaxis"].update(range=[0, max(1, int(dist.counts.max(initial=0))) * 1.2])
        return figure([trace], layout)
    centres = np.sqrt(dist.edges[:-1] * dist.edges[1:])
    trace = dict(
        type="bar",
        x=centres.tolist(),
        y=dist.counts.tolist(),
        width=np.diff(dist.edges).tolist(),
        marker=dict(color=BAR_COLOR, line=dict(color="white", width=1)),
        hovertemplate="σ ≈ %{x:.3g}: %{y}<extra></extra>",
    )
    layout["xaxis"].update(
        type="log",
        title=dict(text=tr("answer{unit}", unit=unit)),
        range=np.log10([tally.low, tally.high]).tolist(),
    )
    if tally.answer is not None:
        layout["shapes"] = [
            dict(
                type="line",
                xref="x",
                yref="paper",
                x0=tally.answer,
                x1=tally.answer,
                y0=0,
                y1=1,
                line=dict(color=CORRECT_COLOR, width=4),
            )
        ]
        layout["annotations"] = [
            dict(
                x=float(np.log10(tally.answer)),
                xref="x",
                yref="paper",
                y=1.0,
                yanchor="bottom",
                text=tr("answer {value:.4g}", value=tally.answer),
                showarrow=False,
                font=dict(color=CORRECT_COLOR, size=15),
            )
        ]
    return figure([trace], layout)


def answers_csv(rows, prepared_by_key: dict[str, Prepared]) -> bytes:
    """CSV of rbfviz.classroom.Store.answer_rows: step, question, answer (the option's text or the
    number), correct (yes/no), seconds after the question opened. No student id: anonymous."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["step", "question", "answer", "correct", "seconds_after_open"])
    for key, value, delay in rows:
        prepared = prepared_by_key.get(key)
        if prepared is None:  # a question of an older app version: keep the raw value
            writer.writerow([csv_safe(key), "", value, "", f"{delay:.1f}"])
            continue
        question = prepared.step.question
        text = prepared.options[int(value)] if question.is_choice else f"{value:.6g}"
        verdict = check(prepared, int(value) if question.is_choice else value)
        writer.writerow(
            [
                csv_safe(prepared.title),
                csv_safe(prepared.prompt),
                csv_safe(text),
                "yes" if verdict.correct else "no",
                f"{delay:.1f}",
            ]
        )
    return out.getvalue().encode("utf-8")
