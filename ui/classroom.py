"""Ask the class, on the Lessons page: a teacher's class session and the students who join it.

Roles, and why a student cannot take the teacher's controls:

* The teacher, in presenter mode, starts a session. The room's code and the teacher's secret live in
  this browser session's memory only (``st.session_state``), never in the address; the projector
  shows the code, the join link and its QR code.
* A student opens the join link (``/Lessons?room=CODE``) and is in the room, with no name: the app
  draws an anonymous seat id and writes it into the student's own address (``&seat=…``), so a
  browser that reconnects to another replica keeps its seat and its next answer replaces the old one.
  An address with ``room=`` never shows teacher controls, and the teacher's actions all need the
  secret, which the store checks.

Both panels are fragments that rerun by themselves (``run_every``): the teacher's every
TEACHER_REFRESH seconds (counts and distribution), the student's every STUDENT_REFRESH seconds (a cheap
read: the question, its state, the student's own answer, the correct answer once revealed).
"""

from __future__ import annotations

import html
import io
import math
import os
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from rbfviz.classroom import (
    ClassError,
    Store,
    database_url,
    format_code,
    is_student_id,
    new_student_id,
    normalise_code,
)
from rbfviz.classroom.store import CLOSED, OPEN, REVEALED, Tally
from rbfviz.views.lessons.arrays import STEPS, Prepared, check, step_data
from rbfviz.views.lessons.class_session import answers_csv, distribution, distribution_figure, question_spec

from .page import chart

ROOM_PARAM, SEAT_PARAM = "room", "seat"
TEACHER_KEY = "_rbfviz_class_teacher"  # (code, secret)
SEAT_KEY = "_rbfviz_class_seat"
JOINED_KEY = "_rbfviz_class_joined"  # the room this session has joined
SEEN_KEY = "_rbfviz_class_seen"  # the room's question this student's page last followed
MESSAGE_KEY = "_rbfviz_class_message"
TEACHER_REFRESH = 1.5  # seconds
STUDENT_REFRESH = 2.0
STEP_BY_KEY = {step.key: i for i, step in enumerate(STEPS)}
CODE_CSS = """<style>
.rbfviz-room-code { font: 700 3.4rem/1.1 ui-monospace, "DejaVu Sans Mono", monospace; letter-spacing: .12em; }
.rbfviz-room-link { font-size: 1.25rem; word-break: break-all; }
</style>"""


@dataclass(frozen=True)
class Seat:
    """This session's place in a class: role "teacher" (secret set) or "student" (seat set)."""

    role: str
    code: str
    secret: str | None = None
    seat: str | None = None


def store_problem(exc: BaseException) -> str:
    """A message for a failed store call: ClassError's own words; a database failure by type only."""
    if isinstance(exc, ClassError):
        return str(exc)
    return f"The class store cannot be reached ({type(exc).__name__}); try again in a moment."


@st.cache_resource(show_spinner=False)
def class_store() -> Store:
    """The process's one Store (a connection pool): RBFVIZ_DATABASE_URL, else an SQLite file in
    RBFVIZ_DATA_DIR or the temporary folder; rooms live RBFVIZ_CLASS_TTL_HOURS (default 24)."""
    text = os.environ.get("RBFVIZ_CLASS_TTL_HOURS", "").strip() or "24"
    try:
        hours = float(text)
    except ValueError:
        hours = math.nan
    if not math.isfinite(hours) or hours <= 0:
        raise ValueError(f"RBFVIZ_CLASS_TTL_HOURS must be a positive number of hours, got {text!r}.")
    return Store(database_url(), ttl_seconds=hours * 3600)


@st.cache_data(max_entries=len(STEPS), show_spinner=False)
def step_scale(key: str):
    """The σ range of a step's view (the range a number question's answers must lie in)."""
    step = STEPS[STEP_BY_KEY[key]]
    return step_data(step.settings).scale


def join_link(code: str) -> str:
    """The Lessons page's address with ?room=CODE: RBFVIZ_PUBLIC_URL (the address students reach,
    when a proxy hides it from the app) or else the address of the teacher's own browser."""
    query = urlencode({ROOM_PARAM: code})
    public = os.environ.get("RBFVIZ_PUBLIC_URL", "").strip().rstrip("/")
    if public:
        return f"{public}/Lessons?{query}"
    parts = urlsplit(st.context.url or "")
    if not parts.scheme or not parts.netloc:
        return f"/Lessons?{query}"
    prefix = parts.path.rsplit("/", 1)[0]  # drop the page's name, keep any base path
    return f"{parts.scheme}://{parts.netloc}{prefix}/Lessons?{query}"


def qr_png(link: str) -> bytes:
    """The link as a QR code (PNG, 8 pixels a module, quiet zone of 2)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


# --- whose page is this ----------------------------------------------------------------------------


def seat_for_this_session(presenter: bool) -> Seat | None:
    """Join the room in the address (a student), or return the teacher's session, or show the button
    that starts one (presenter mode). Shows the room's banner. None when not in a class."""
    text = st.query_params.get(ROOM_PARAM)
    if text is not None:
        return _student_seat(text)
    teacher = st.session_state.get(TEACHER_KEY)
    if teacher is not None:
        code, secret = teacher
        _teacher_banner(code)
        return Seat("teacher", code, secret=secret)
    if presenter:
        with st.container(border=True, key="class_start"):
            st.button(
                "Start a class session",
                icon=":material/groups:",
                on_click=_start_session,
                type="primary",
                help="Students join with a link or QR code, answer each step's question from their own "
                "device, and this page shows the class's answers. No names are asked or stored.",
            )
            _show_message()
    return None


def _start_session() -> None:
    st.session_state[MESSAGE_KEY] = None
    try:
        room = class_store().create_room()
    except (ClassError, SQLAlchemyError, OSError, ValueError) as exc:
        st.session_state[MESSAGE_KEY] = store_problem(exc)
        return
    st.session_state[TEACHER_KEY] = (room.code, room.secret)


def _show_message() -> None:
    """The last refused action's message; it stays (the panels refresh by themselves) until the next
    action."""
    message = st.session_state.get(MESSAGE_KEY)
    if message:
        st.error(message)


def _student_seat(text: str) -> Seat | None:
    code = normalise_code(text)
    if code is None:
        st.error("This link's class room code is not valid. Check the code on the projector.")
        return None
    seat = st.session_state.get(SEAT_KEY)
    if seat is None:
        seat = st.query_params.get(SEAT_PARAM)
        if not is_student_id(seat):
            seat = new_student_id()
        st.session_state[SEAT_KEY] = seat
    if st.query_params.get(SEAT_PARAM) != seat:
        st.query_params[SEAT_PARAM] = seat
    if st.session_state.get(JOINED_KEY) != code:
        try:
            class_store().join(code, seat)
        except (ClassError, SQLAlchemyError, OSError, ValueError) as exc:
            st.error(store_problem(exc))
            return None
        st.session_state[JOINED_KEY] = code
    st.info(
        f"You are in class room **{format_code(code)}**, anonymously: no name is asked or stored. "
        "Answer the teacher's question below; the answer appears here when the teacher reveals it.",
        icon=":material/groups:",
    )
    return Seat("student", code, seat=seat)


def _teacher_banner(code: str) -> None:
    link = join_link(code)
    st.markdown(CODE_CSS, unsafe_allow_html=True)
    with st.container(border=True, key="class_banner"):
        text, picture = st.columns([3, 1], vertical_alignment="center")
        with text:
            st.markdown("**Join the class:** open the link or scan the code. Room")
            st.markdown(f"<div class='rbfviz-room-code'>{format_code(code)}</div>", unsafe_allow_html=True)
            st.markdown(f"<div class='rbfviz-room-link'>{html.escape(link)}</div>", unsafe_allow_html=True)
        with picture:
            st.image(qr_png(link), width=220, alt=f"QR code of the join link {link}")


# --- the teacher's panel ---------------------------------------------------------------------------


def teacher_panel(seat: Seat, index: int, prepared: Callable[[str], Prepared], ctrl) -> None:
    """Ask this step's question, watch the answers come in, reveal; download the answers; end."""
    _teacher_fragment(seat.code, seat.secret, index, prepared, ctrl)


def _act(action: Callable, *args) -> None:
    st.session_state[MESSAGE_KEY] = None
    try:
        action(*args)
    except (ClassError, SQLAlchemyError) as exc:
        st.session_state[MESSAGE_KEY] = store_problem(exc)


def _ask(code: str, secret: str, key: str, prepared: Callable[[str], Prepared]) -> None:
    _act(class_store().open_question, code, secret, question_spec(prepared(key), step_scale(key)))


def _end(code: str, secret: str) -> None:
    _act(class_store().clear_room, code, secret)
    if MESSAGE_KEY not in st.session_state:
        st.session_state.pop(TEACHER_KEY, None)


@st.fragment(run_every=TEACHER_REFRESH)
def _teacher_fragment(code: str, secret: str, index: int, prepared, ctrl) -> None:
    if st.session_state.get(TEACHER_KEY) != (code, secret):  # the session was ended
        st.rerun(scope="app")
    step = STEPS[index]
    store = class_store()
    try:
        tally = store.tally(code, secret)
    except (ClassError, SQLAlchemyError) as exc:
        st.error(store_problem(exc))
        if isinstance(exc, ClassError):  # the room expired: forget it
            st.session_state.pop(TEACHER_KEY, None)
            st.button("Start again", on_click=lambda: None)
        return
    this = tally.question == step.key
    is_open = this and tally.state == OPEN
    buttons = st.columns(4)
    buttons[0].button(
        "Ask the class" if not this else "Ask again",
        key="class_ask",
        icon=":material/campaign:",
        type="primary",
        disabled=is_open,
        on_click=_ask,
        args=(code, secret, step.key, prepared),
        help="Open this step's question: every student's page shows it, and their answers appear here.",
    )
    buttons[1].button(
        "Reveal the answer",
        key="class_reveal",
        icon=":material/visibility:",
        disabled=not is_open,
        on_click=_act,
        args=(store.reveal, code, secret),
        help="Mark the correct answer here and on every student's page, with the explanation. "
        "No more answers are taken.",
    )
    buttons[2].button(
        "Close without revealing",
        key="class_close",
        disabled=not is_open,
        on_click=_act,
        args=(store.close_question, code, secret),
    )
    buttons[3].button(
        "End the session",
        key="class_end",
        icon=":material/delete:",
        on_click=_end,
        args=(code, secret),
        help="Delete the room and every answer now (they are deleted after "
        f"{store.ttl_seconds / 3600:.3g} h anyway).",
    )
    _show_message()
    numbers = st.columns(3)
    numbers[0].metric("Students in the room", tally.present)
    numbers[1].metric("Answered", tally.answered if this else 0)
    numbers[2].metric(
        "Question", {OPEN: "open", REVEALED: "revealed", CLOSED: "closed"}.get(tally.state, "—")
    )
    if tally.question is None:
        st.caption("No question asked yet: **Ask the class** opens this step's question.")
    elif not this:
        other = STEPS[STEP_BY_KEY[tally.question]]
        st.caption(
            f"The room is on step {STEP_BY_KEY[tally.question] + 1} ({other.title}). "
            "**Ask the class** moves it to this step."
        )
    if this:
        lesson = prepared(step.key)
        options = step.question.options
        fig = distribution_figure(tally, options, step.question.unit)
        chart(fig, ctrl, "class_answers", description=describe_tally(tally, options))
        if options:
            st.markdown("  \n".join(f"**{chr(65 + i)}** · {text}" for i, text in enumerate(options)))
        if tally.state == REVEALED:
            st.success(f"Revealed: {lesson.answer_text}.")
            st.markdown(lesson.explanation)
            for equation in step.equations:
                st.latex(equation)
    st.download_button(
        "The class's answers (CSV)",
        data=lambda: answers_csv(
            store.answer_rows(code, secret), {key: prepared(key) for key in STEP_BY_KEY}
        ),
        file_name=f"rbfviz_class_{code}.csv",
        mime="text/csv",
        key="class_csv",
        on_click="ignore",
        icon=":material/download:",
        help="Every answer in this room, one line each, anonymous: step, question, answer, correct, "
        "seconds after the question opened.",
    )


def describe_tally(tally: Tally, options: tuple[str, ...]) -> str:
    """One sentence on the answers for screen readers (the correct one only once revealed)."""
    dist = distribution(tally)
    head = f"{tally.answered} of {tally.present} students in the room answered"
    if options:
        parts = [f"{chr(65 + i)}: {int(n)}" for i, n in enumerate(dist.counts)]
    else:
        parts = [
            f"{lo:.3g}–{hi:.3g}: {int(n)}"
            for lo, hi, n in zip(dist.edges[:-1], dist.edges[1:], dist.counts)
            if n
        ]
    text = f"{head}" + (f"; {', '.join(parts)}" if parts else "")
    if tally.answer is not None:
        text += f". Correct: {chr(65 + int(tally.answer)) if options else f'{tally.answer:.4g}'}"
    return text + "."


# --- the student's panel ---------------------------------------------------------------------------


def student_panel(seat: Seat, index: int, prepared: Callable[[str], Prepared], go_to: Callable) -> None:
    """The room's open question, the student's answer, then the reveal; follows the teacher's step."""
    _student_fragment(seat.code, seat.seat, index, prepared, go_to)


def _send(code: str, seat: str, key: str, field: str) -> None:
    st.session_state[MESSAGE_KEY] = None
    value = st.session_state.get(field)
    if value is None:
        st.session_state[MESSAGE_KEY] = "Choose or enter an answer first."
        return
    try:
        class_store().submit(code, seat, key, value)
    except (ClassError, SQLAlchemyError) as exc:
        st.session_state[MESSAGE_KEY] = store_problem(exc)


@st.fragment(run_every=STUDENT_REFRESH)
def _student_fragment(code: str, seat: str, index: int, prepared, go_to) -> None:
    try:
        view = class_store().view(code, seat)
    except (ClassError, SQLAlchemyError) as exc:
        st.error(store_problem(exc))
        return
    if view.question != st.session_state.get(SEEN_KEY):
        st.session_state[SEEN_KEY] = view.question
        if view.question is not None and STEP_BY_KEY[view.question] != index:
            go_to(STEP_BY_KEY[view.question])  # follow the teacher to the asked step
            st.rerun(scope="app")
    if view.question is None:
        st.info("Waiting for the teacher to ask a question. This panel updates by itself.")
        return
    step = STEPS[STEP_BY_KEY[view.question]]
    lesson = prepared(step.key)
    question = step.question
    st.markdown(f"**Step {STEP_BY_KEY[view.question] + 1}: {lesson.prompt}**")
    if view.state == OPEN:
        field = f"class_answer_{step.key}"
        with st.form(f"class_form_{step.key}", border=False):
            if question.is_choice:
                st.radio(
                    "Your answer",
                    range(len(question.options)),
                    index=None,
                    key=field,
                    format_func=lambda i: f"{chr(65 + i)} · {question.options[i]}",
                )
            else:
                st.number_input(
                    f"Your answer{question.unit}",
                    min_value=float(view.low),
                    max_value=float(view.high),
                    value=None,
                    step=0.01,
                    format="%.4f",
                    key=field,
                    help=f"A number from {view.low:.4g} to {view.high:.4g}{question.unit}.",
                )
            st.form_submit_button(
                "Send my answer", type="primary", on_click=_send, args=(code, seat, step.key, field)
            )
        _show_message()
    if view.mine is not None:
        said = question.options[int(view.mine)] if question.is_choice else f"{view.mine:.4g}{question.unit}"
        if view.state == OPEN:
            st.success(f"Your answer is in: {said}. You can change it until the teacher reveals the answer.")
        elif view.state == CLOSED:
            st.info(f"The teacher has closed this question. Your answer: {said}.")
    elif view.state == CLOSED:
        st.info("The teacher has closed this question.")
    if view.state == REVEALED:
        if view.mine is not None:
            verdict = check(lesson, int(view.mine) if question.is_choice else view.mine)
            (st.success if verdict.correct else st.warning)(verdict.message)
        else:
            st.info(f"You did not answer; {lesson.answer_text}.")
        st.subheader("Why")
        st.markdown(lesson.explanation)
        for equation in step.equations:
            st.latex(equation)
