"""Lessons: ten short steps through the result. Each step opens a view in the right state with one
click, asks for a prediction, checks it, and only then explains, with the equation.

The lesson content (texts, settings, computed answers) is plain data in rbfviz.views.lessons.arrays."""

import streamlit as st

from rbfviz.views.lessons.arrays import STEPS, VIEW_NAMES, Prepared, check, prepare, step_facts
from ui import classroom, exports, language, state
from ui import session_keys as keys
from ui.compute import TTL
from ui.page import PAGES, panel, room_query, setup_page

VIEW_PATHS = {label: path for path, label, _ in PAGES}
STEP_BY_KEY = {step.key: step for step in STEPS}


@st.cache_data(max_entries=len(STEPS), ttl=TTL, show_spinner=False)
def facts(key: str) -> dict:
    """A step's numbers: computed once for every reader, whatever their language."""
    return step_facts(STEP_BY_KEY[key])


def prepared(key: str) -> Prepared:
    """A step with its texts in this reader's language (its numbers from the cache)."""
    return prepare(STEP_BY_KEY[key], tr, facts(key))


def current_step() -> int:
    """The step shown: ?lesson=N in the URL (1-based) when present and valid, else the session's."""
    text = st.query_params.get("lesson")
    if text is not None and text.strip().isdigit() and 1 <= int(text) <= len(STEPS):
        st.session_state[keys.LESSON_STEP] = int(text) - 1
    return int(st.session_state.get(keys.LESSON_STEP, 0))


def go_to(index: int) -> None:
    st.session_state[keys.LESSON_STEP] = index
    st.query_params["lesson"] = str(index + 1)


def on_pick() -> None:
    go_to(st.session_state[keys.LESSON_CHOICE])


ctx = setup_page("Lessons")
tr = ctx.tr
st.title(tr("Lessons: from K-Means to an RBF network and back"))
st.markdown(
    tr(
        "Ten short steps. In each: **open the view** with one click (it opens in exactly the state the step "
        "needs), **predict** the answer to the question, **check** it, then read why. Every number in a "
        "question or an answer is computed by the rbfviz library on the step's own data."
    )
)
if not ctx.ctrl.presenter:  # a projector needs no downloads
    pack = exports.lesson_pack_download(tr)
    st.download_button(
        pack.label,
        data=pack.make,
        file_name=pack.file_name,
        mime=pack.mime,
        key="dl_lesson_pack",
        on_click="ignore",
        help=pack.help,
        icon=":material/download:",
    )

seat = None
with panel(tr("The class session")):
    seat = classroom.seat_for_this_session(ctx.ctrl.presenter)

index = current_step()
step = STEPS[index]
st.session_state[keys.LESSON_CHOICE] = index
nav = st.columns([4, 1, 1], vertical_alignment="bottom")
nav[0].selectbox(
    tr("Step"),
    range(len(STEPS)),
    key=keys.LESSON_CHOICE,
    on_change=on_pick,
    format_func=lambda i: f"{i + 1} · {tr(STEPS[i].title)}",
)
nav[1].button(
    tr("← Previous"),
    key="lesson_previous",
    on_click=go_to,
    args=(index - 1,),
    disabled=index == 0,
    width="stretch",
)
nav[2].button(
    tr("Next →"),
    key="lesson_next",
    on_click=go_to,
    args=(index + 1,),
    disabled=index == len(STEPS) - 1,
    width="stretch",
)

with panel(tr("This step")):
    with st.spinner(tr("Computing this step's numbers…")):
        lesson = prepared(step.key)
    st.header(
        tr("Step {number} of {total} · {title}", number=index + 1, total=len(STEPS), title=lesson.title)
    )
    with st.container(border=True):
        st.markdown(lesson.task)
        room = room_query()  # a student in a class stays in it in the view and on the way back
        query = {**state.lesson_query(lesson, ctx.ctrl.presenter, ctx.ctrl.lang), **room}
        st.page_link(
            VIEW_PATHS[step.view],
            label=tr("**Open the {view} view with these settings**", view=tr(VIEW_NAMES[step.view])),
            icon=":material/open_in_new:",
            query_params=query,
        )
        st.caption(
            tr(
                "Then come back to answer: **Back to the class** at the top of the view (or Lessons in the "
                "sidebar) keeps you in the room. Changing the controls in the view is part of the exercise."
            )
            if room
            else tr(
                "Then come back here (sidebar: Lessons) to answer. Changing the controls in the view is part "
                "of the exercise. The link is also a lesson link to share: it opens the view in this state."
            )
        )

    if seat is not None:
        st.subheader(tr("Ask the class") if seat.role == "teacher" else tr("Your answer"))
        if seat.role == "teacher":
            classroom.teacher_panel(seat, index, prepared, ctx.ctrl)
        else:
            classroom.student_panel(seat, index, prepared, go_to)
        st.stop()  # the class panel takes the place of the private predict-and-check below

    st.subheader(tr("Predict first"))
    answer_key = f"lesson_{step.key}_answer"
    verdict_key = keys.lesson_verdict(step.key)
    if step.question.is_choice:
        response = st.radio(
            lesson.prompt,
            range(len(step.question.options)),
            index=None,
            key=answer_key,
            format_func=lambda i: lesson.options[i],
        )
    else:
        language.number_field(
            lesson.prompt,
            answer_key,
            tr,
            help=tr(
                "A number{unit}; within {percent:.0f}% of the exact value counts as right.",
                unit=lesson.unit,
                percent=100 * step.question.rel_tol,
            ),
        )
        try:
            response = language.typed_number(answer_key, tr)
        except ValueError:
            response = None
            st.error(tr("Type a number, such as {example}.", example=tr.number(0.25, ".2f")))
    if st.button(
        tr("Check my answer"), key=f"lesson_{step.key}_check", type="primary", disabled=response is None
    ):
        st.session_state[verdict_key] = response  # the checked response: its verdict in today's language

    checked = st.session_state.get(verdict_key)
    verdict = None if checked is None else check(lesson, checked)
    if verdict is None or not verdict.answered:
        st.caption(tr("The explanation appears once you have answered."))
    else:
        (st.success if verdict.correct else st.warning)(verdict.message)
        st.subheader(tr("Why"))
        st.markdown(lesson.explanation)
        for equation in lesson.equations:
            st.latex(equation)
        if index < len(STEPS) - 1:
            st.button(
                tr("Next step: {title} →", title=tr(STEPS[index + 1].title)),
                on_click=go_to,
                args=(index + 1,),
                key=f"lesson_{step.key}_next",
            )
