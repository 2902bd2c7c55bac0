"""The ten Lessons steps as one offline HTML page: a student works through them alone, with no server.

    html = lesson_pack(public_url=None, tr=translator("pt-BR"))   # in Brazilian Portuguese

Each step has its task, the step's view as an interactive σ figure (its settings, opening at the step's σ;
the payload is ``build.view_payload``'s, the app's), its question with the options or a number box,
"Check my answer", and once answered the verdict, the explanation and the equations.

The verdicts are the library's (``rbfviz.views.lessons.arrays.check``): for a choice question the page holds
``check``'s verdict for every option; for a number it holds the answer, the tolerance and check's two
messages, and applies check's rule (|value − answer| ≤ rel_tol·|answer|; the value written as Python's
``{:.4g}``) to what is typed. tests/e2e/test_e2e_export.py answers every step in Chromium and compares
each verdict and explanation with ``check``'s.

The equations are MathML (``maths.equation_html``), converted when the file is made: the browser draws
them with no script, font file or network; each keeps its LaTeX source as its alttext.

Every word of the page (the lessons' texts, its headings and buttons, the verdicts) is in ``tr``'s
language, and so is ``<html lang>``; a typed number's verdict writes it in the language's decimal
separator, as ``check`` does.
"""

from __future__ import annotations

import html
import json
import re

from ...i18n import ENGLISH, Translator, translator
from ..lessons.arrays import STEPS, VIEW_NAMES, Prepared, check, prepare
from .build import Setting, view_payload
from .maths import equation_html
from .page import app_link, bundle_for, html_page, made_html, scrubber_holder

# A value whose ``{:.4g}`` text appears nowhere else in a wrong-answer message: its place there is
# where the page writes the typed value.
_PROBE = 987654321.0


def inline_html(text: str) -> str:
    """The lessons' Markdown (paragraphs, *emphasis*, **strong**) as HTML; everything else is text.
    A star after a letter (σ*) is not emphasis."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        body = html.escape(" ".join(paragraph.split()), quote=False)
        body = re.sub(r"(?<!\w)\*\*(\S(?:.*?\S)?)\*\*(?!\w)", r"<strong>\1</strong>", body)
        body = re.sub(r"(?<![\w*])\*(\S(?:[^*]*?\S)?)\*(?![\w*])", r"<em>\1</em>", body)
        out.append(f"<p>{body}</p>")
    return "\n".join(out)


def step_setting(prepared: Prepared) -> Setting:
    """The step's view and settings as a ``build.Setting``, at the step's σ."""
    settings = dict(prepared.step.settings)
    kind = settings.pop("kind")
    alpha = settings.pop("alpha", None)
    if kind.startswith("entmax:"):
        kind, alpha = "entmax", float(kind.split(":", 1)[1])
    return Setting(prepared.step.view.lower(), kind=kind, alpha=alpha, sigma=prepared.sigma, **settings)


def verdicts(prepared: Prepared) -> dict:
    """What the page needs to give ``check``'s verdict on any response, taken from ``check`` itself."""
    question = prepared.step.question
    unanswered = check(prepared, None).message
    if question.is_choice:
        return {
            "choice": True,
            "unanswered": unanswered,
            "options": [
                {"correct": v.correct, "message": v.message}
                for v in (check(prepared, i) for i in range(len(question.options)))
            ],
        }
    right = check(prepared, prepared.answer)
    wrong = check(prepared, _PROBE)
    probe_text = translator(prepared.lang).number(_PROBE, ".4g")
    assert right.correct and not wrong.correct and wrong.message.count(probe_text) == 1
    return {
        "choice": False,
        "unanswered": unanswered,
        "not_finite": check(prepared, float("inf")).message,
        "answer": prepared.answer,
        "rel_tol": question.rel_tol,
        "right": right.message,
        "wrong": wrong.message.split(probe_text),  # [before, after] the typed value
        "decimal_comma": translator(prepared.lang).decimal_comma,
    }


def _question_html(index: int, prepared: Prepared, tr: Translator) -> str:
    question = prepared.step.question
    name = f"step-{index}-answer"
    prompt = html.escape(prepared.prompt)
    if question.is_choice:
        options = "".join(
            f'<label class="option"><input type="radio" name="{name}" value="{i}"> '
            f"{html.escape(text)}</label>"
            for i, text in enumerate(prepared.options)
        )
        field = f"<fieldset><legend>{prompt}</legend>{options}</fieldset>"
    else:
        hint = tr(
            "A number{unit}; within {percent:.0f}% of the exact value counts as right.",
            unit=prepared.unit,
            percent=100 * question.rel_tol,
        )
        field = (
            f'<label for="{name}">{prompt}</label> '
            f'<input id="{name}" name="{name}" type="number" step="any" inputmode="decimal" '
            f'aria-describedby="{name}-hint">'
            f'<p class="hint" id="{name}-hint">{html.escape(hint)}</p>'
        )
    return (
        f'<form class="question" data-step="{index}" novalidate>'
        f"<h3>{html.escape(tr('Predict first'))}</h3>{field}"
        f'<button type="submit" class="check">{html.escape(tr("Check my answer"))}</button></form>'
        f'<p class="verdict" role="status" id="step-{index}-verdict"></p>'
    )


def _why_html(index: int, prepared: Prepared, tr: Translator) -> str:
    equations = "".join(equation_html(eq) for eq in prepared.equations)
    return (
        f'<div class="why" id="step-{index}-why" hidden><h3>{html.escape(tr("Why"))}</h3>'
        f'<div class="explanation">{inline_html(prepared.explanation)}</div>{equations}</div>'
    )


def lesson_pack(public_url: str | None = None, progress=None, tr: Translator = ENGLISH) -> str:
    """The ten steps as one page in ``tr``'s language; progress(done, total) per step prepared."""
    payloads: dict[str, bytes] = {}  # payload id -> bytes; steps with the same view and settings share one
    ids: dict[bytes, str] = {}
    sections, checks, nav = [], [], []
    for index, step in enumerate(STEPS, start=1):
        prepared = prepare(step, tr)
        setting = step_setting(prepared)
        payload = view_payload(setting, tr=tr)
        payload_id = ids.setdefault(payload, f"rbfviz-payload-{len(ids) + 1}")
        payloads[payload_id] = payload
        link = app_link(public_url, setting.view, {**setting.view_query(), "lang": tr.lang})
        link_html = ""
        if link:
            anchor = f'<a href="{html.escape(link)}" target="_blank" rel="noopener">'
            link_html = " " + tr(
                "{a}Open it in the app{end} (needs the network) for every panel and control.",
                a=anchor,
                end="</a>",
            )
        note = tr(
            "Below: the {view} view with this step's settings ({data}, n = {n}, k = {k}, {kind}, {dtype}), "
            "at σ = {sigma:.3g}. The other panels a task may name are in the app.",
            view=tr(VIEW_NAMES[step.view]),
            data=setting.data_name,
            n=str(setting.n),
            k=str(setting.k),
            kind=setting.kind_spec,
            dtype=setting.dtype,
            sigma=prepared.sigma,
        )
        heading = tr(
            "Step {number} of {total} · {title}", number=index, total=len(STEPS), title=prepared.title
        )
        sections.append(
            "\n".join(
                [
                    f'<section class="step" id="step-{index}" aria-labelledby="step-{index}-title">',
                    f'<h2 id="step-{index}-title">{html.escape(heading)}</h2>',
                    f'<div class="task">{inline_html(prepared.task)}</div>',
                    f'<p class="note">{html.escape(note, quote=False)}{link_html}</p>',
                    scrubber_holder(
                        payload_id,
                        prepared.sigma,
                        setting.dataset,
                        tr("Step {number}: the figure", number=index),
                        tr,
                    ),
                    _question_html(index, prepared, tr),
                    _why_html(index, prepared, tr),
                    "</section>",
                ]
            )
        )
        checks.append(verdicts(prepared))
        nav.append(f'<li><a href="#step-{index}">{html.escape(prepared.title)}</a></li>')
        if progress:
            progress(index, len(STEPS))
    intro = tr(
        "Ten short steps. In each: look at the figure (move σ with its slider: drag it, or use the arrow "
        "keys), **predict** the answer to the question, **check** it, then read why. Every number in a "
        "question or an answer was computed by the rbfviz library on the step's own data; this file needs "
        "no network."
    )
    heading = tr("Lessons: from K-Means to an RBF network and back")
    steps_label = tr("Steps")
    body = "\n".join(
        [
            f"<h1>{html.escape(heading)}</h1>",
            inline_html(intro).replace("<p>", '<p class="caption">', 1),
            f'<nav aria-label="{html.escape(steps_label)}"><ol class="steps">' + "".join(nav) + "</ol></nav>",
            *sections,
        ]
    )
    views = ", ".join(tr(VIEW_NAMES[view]) for view in dict.fromkeys(s.view for s in STEPS))
    made = made_html(
        {"lessons": tr.ngettext("{n} step", "{n} steps", len(STEPS)), "views": views},
        None,
        app_link(public_url, "Lessons", {"lang": tr.lang}),
        bundle_for(payloads.values())[0],
        tr=tr,
    )
    script = "const CHECKS = " + json.dumps(checks, allow_nan=False) + ";\n" + LESSON_JS
    return html_page(tr("Lessons") + " · rbfviz", body, made, payloads, extra_js=script, tr=tr)


# The page's side of check(): the verdict for the response in a step's form, from CHECKS (one entry per
# step, from ``verdicts``); formatG is Python's "{:.4g}" (round half to even on the exact value).
LESSON_JS = r"""
function formatG(x, precision = 4) {
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, exponentText] = Math.abs(x).toExponential(99).split("e");
  const all = mantissa.replace(".", "");
  let kept = BigInt(all.slice(0, precision));
  const rest = all.slice(precision);
  let exponent = Number(exponentText);
  if (rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || kept % 2n === 1n))) kept += 1n;
  let digits = kept.toString();
  if (digits.length > precision) { digits = digits.slice(0, precision); exponent += 1; }
  if (exponent < -4 || exponent >= precision) {
    const m = (digits[0] + "." + digits.slice(1)).replace(/\.?0+$/, "");
    return `${sign}${m}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  let fixed;
  if (exponent >= 0) {
    fixed = digits.slice(0, exponent + 1) + "." + digits.slice(exponent + 1);
  } else {
    fixed = "0." + "0".repeat(-exponent - 1) + digits;
  }
  return sign + fixed.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
}

// {answered, correct, message} for a step's response: an option index, a number, or null
function verdict(check, response) {
  if (response === null) return { answered: false, correct: false, message: check.unanswered };
  if (check.choice) return { answered: true, ...check.options[response] };
  if (!Number.isFinite(response)) return { answered: false, correct: false, message: check.not_finite };
  const correct = Math.abs(response - check.answer) <= check.rel_tol * Math.abs(check.answer);
  const typed = check.decimal_comma ? formatG(response).replace(".", ",") : formatG(response);
  const message = correct ? check.right : check.wrong[0] + typed + check.wrong[1];
  return { answered: true, correct, message };
}

function responseOf(form, check) {
  if (check.choice) {
    const picked = form.querySelector("input[type=radio]:checked");
    return picked ? Number(picked.value) : null;
  }
  const text = form.querySelector("input[type=number]").value.trim();
  return text === "" ? null : Number(text);
}

for (const form of document.querySelectorAll("form.question")) {
  const index = Number(form.dataset.step);
  const check = CHECKS[index - 1];
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const result = verdict(check, responseOf(form, check));
    const out = document.getElementById(`step-${index}-verdict`);
    out.textContent = result.message;
    out.className = "verdict " + (!result.answered ? "unanswered" : result.correct ? "right" : "wrong");
    out.dataset.correct = String(result.correct);
    if (result.answered) {
      document.getElementById(`step-${index}-why`).hidden = false;
      focusWideEquations();
    }
  });
}

// An equation too wide for the screen scrolls sideways in its box; such a box takes the keyboard focus,
// so that the arrow keys scroll it too.
function focusWideEquations() {
  for (const box of document.querySelectorAll(".why:not([hidden]) .equation")) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
}
window.addEventListener("resize", focusWideEquations);
window.rbfvizLessons = { verdict, formatG, CHECKS, focusWideEquations };
"""
