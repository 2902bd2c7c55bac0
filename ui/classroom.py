"""Ask the class, on the Lessons page: a teacher's class session and the students who join it.

Roles, and why a student cannot take the teacher's controls:

* The teacher, in presenter mode, starts a session. The room's code and the teacher's secret live in
  this browser session's memory (``st.session_state``), never in the address; the projector shows
  the code, the join link and its QR code, none of which carries the secret.
* The teacher gets the room back (``resume``) from the secret alone: this browser keeps it in a
  cookie (``TEACHER_COOKIE``, sent only with the app's websocket request, so a reload, a new tab or
  a restarted server finds the room again), and the teacher can save it as a resume link or code,
  shown only behind a control of its own, for another device. A resume link's secret is taken out of
  the address on its first run.
* A student opens the join link (``/Lessons?room=CODE``) and is in the room, with no name: the app
  draws an anonymous seat id and writes it into the student's own address (``&seat=…``), so a
  browser that reconnects to another replica keeps its seat and its next answer replaces the old one.
  An address with ``room=`` never shows teacher controls, and the teacher's actions all need the
  secret, which the store checks. A student can also type the room's code (``join_form``).

Every screen speaks the reader's language (``language.current()``), and the room does not care: the
store holds question keys, each student's page shows the question in the student's own language, and
the teacher's counts are of the same question. The join link carries the teacher's language (``lang=``),
which a student can switch in the sidebar.

Both panels are fragments that rerun by themselves (``run_every``): the teacher's every
TEACHER_REFRESH seconds (counts and distribution), the student's every STUDENT_REFRESH seconds (a cheap
read: the question, its state, the student's own answer, the correct answer once revealed).
"""

from __future__ import annotations

import html
import io
import json
import time
from dataclasses import dataclass
from typing import Callable
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st
from sqlalchemy.exc import SQLAlchemyError

from rbfviz.classroom import (
    ClassError,
    Store,
    format_code,
    normalise_code,
)
from rbfviz.classroom.store import CLOSED, OPEN, REVEALED, Room, Tally
from rbfviz.i18n import N_, Translator, explain
from rbfviz.views.lessons.arrays import STEPS, Prepared, check, step_data
from rbfviz.views.lessons.class_session import answers_csv, distribution, distribution_figure, question_spec

from . import language, settings
from . import session_keys as keys
from .page import ROOM_PARAM, SEAT_PARAM, chart, class_seat

RESUME_PARAM = "resume"
TEACHER_COOKIE = "rbfviz_teacher"  # the secret of the room this browser's teacher started last
TEACHER_REFRESH = 1.5  # seconds
STUDENT_REFRESH = 2.0
STEP_BY_KEY = {step.key: i for i, step in enumerate(STEPS)}
CODE_CSS = """<style>
.rbfviz-room-code { font: 700 3.4rem/1.1 ui-monospace, "DejaVu Sans Mono", monospace; letter-spacing: .12em; }
.rbfviz-room-link { font-size: 1.25rem; word-break: break-all; }
</style>"""
# On a phone every control of the student's panel and of the join form is a 44 px target (WCAG 2.5.5):
# the buttons, the text and number fields, and each answer option's whole row.
TOUCH_CSS = """<style>
[class*='st-key-class_touch'] button { min-height: 44px; min-width: 44px; }
[class*='st-key-class_touch'] input:not([type='radio']) { min-height: 44px; }
[class*='st-key-class_touch'] [role='radiogroup'] label { min-height: 44px; width: 100%; align-items: center }
</style>"""
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
PUBLIC_URL_DOCS = "app/static/docs/teach/class-sessions.html#public-url"
QUESTION_STATES = {OPEN: N_("open"), REVEALED: N_("revealed"), CLOSED: N_("closed")}


@dataclass(frozen=True)
class Seat:
    """This session's place in a class: role "teacher" (secret set) or "student" (seat set)."""

    role: str
    code: str
    secret: str | None = None
    seat: str | None = None


def store_problem(exc: BaseException) -> str:
    """A message for a failed store call, in the reader's language: ClassError's own words; a database
    failure by type only."""
    tr = language.current()
    if isinstance(exc, ClassError):
        return explain(exc, tr)
    return tr("The class store cannot be reached ({error}); try again in a moment.", error=type(exc).__name__)


@st.cache_resource(show_spinner=False)
def class_store() -> Store:
    """The process's one Store (a connection pool) on ``settings.current().database_url``; rooms live
    ``class_ttl_hours`` (RBFVIZ_DATABASE_URL, RBFVIZ_DATA_DIR, RBFVIZ_CLASS_TTL_HOURS)."""
    now = settings.current()
    return Store(now.database_url, ttl_seconds=now.class_ttl_hours * 3600)


@st.cache_data(max_entries=len(STEPS), show_spinner=False)
def step_scale(key: str):
    """The σ range of a step's view (the range a number question's answers must lie in)."""
    step = STEPS[STEP_BY_KEY[key]]
    return step_data(step.settings).scale


def lessons_address() -> str:
    """The Lessons page's address as students reach it: RBFVIZ_PUBLIC_URL (when a proxy hides it from
    the app) or else the address of the teacher's own browser (relative if unknown)."""
    public = settings.current().public_url
    if public:
        return f"{public}/Lessons"
    parts = urlsplit(st.context.url or "")
    if not parts.scheme or not parts.netloc:
        return "/Lessons"
    prefix = parts.path.rsplit("/", 1)[0]  # drop the page's name, keep any base path
    return f"{parts.scheme}://{parts.netloc}{prefix}/Lessons"


def join_link(code: str, lang: str) -> str:
    """The link projected for students: the Lessons page with ?room=CODE (and nothing secret), in the
    teacher's language ``lang`` (a student can switch)."""
    return f"{lessons_address()}?{urlencode({ROOM_PARAM: code, 'lang': lang})}"


def resume_link(secret: str, lang: str) -> str:
    """The teacher's private way back: the Lessons page in presenter mode with ?resume=SECRET, on the
    same address as the join link, in the teacher's language."""
    query = {"presenter": "1", RESUME_PARAM: format_code(secret), "lang": lang}
    return f"{lessons_address()}?{urlencode(query)}"


def is_local(link: str) -> bool:
    """Whether a link's host is this machine (localhost, 127.x): no student's device can reach it."""
    host = urlsplit(link).hostname or ""
    return host in LOCAL_HOSTS or host.startswith("127.")


def teacher_cookie() -> str | None:
    """The teacher's secret this browser sent with its websocket request (None if none)."""
    return st.context.cookies.get(TEACHER_COOKIE)


def _cookie_path() -> str:
    """The path of the app's websocket (``<base>/_stcore``): the only request that needs the cookie."""
    path = urlsplit(st.context.url or "").path
    return f"{path.rsplit('/', 1)[0]}/_stcore"


def _send_cookie() -> None:
    """Write (or delete) the teacher's cookie in the browser, once, if a callback asked for it."""
    pending = st.session_state.pop(keys.CLASS_COOKIE_WRITE, None)
    if pending is None:
        return
    secret, seconds = pending
    value = f"{TEACHER_COOKIE}={secret}; Path={_cookie_path()}; Max-Age={int(seconds)}; SameSite=Strict"
    st.html(
        f"<script>document.cookie = {json.dumps(value)} + "
        "(location.protocol === 'https:' ? '; Secure' : '');</script>",
        unsafe_allow_javascript=True,
    )


def _become_teacher(room: Room) -> None:
    st.session_state[keys.CLASS_TEACHER] = (room.code, room.secret)
    st.session_state[keys.CLASS_COOKIE_WRITE] = (room.secret, max(room.expires_at - time.time(), 0))


def _forget_teacher() -> None:
    st.session_state.pop(keys.CLASS_TEACHER, None)
    st.session_state[keys.CLASS_COOKIE_WRITE] = ("", 0)


def qr_png(link: str) -> bytes:
    """The link as a QR code (PNG, 8 pixels a module, quiet zone of 2)."""
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()


# --- whose page is this ----------------------------------------------------------------------------


def seat_for_this_session(presenter: bool) -> Seat | None:
    """Join the room in the address (a student), or return the teacher's session (resumed from a
    resume link or this browser's cookie if need be), or show the ways into a class: the join field,
    the button that starts a session (presenter mode) and the resume field. Shows the room's banner.
    None when not in a class."""
    tr = language.current()
    text = st.query_params.get(ROOM_PARAM)
    if text is not None:
        return _student_seat(text)
    _resume_from_link_or_cookie()
    _send_cookie()
    teacher = st.session_state.get(keys.CLASS_TEACHER)
    if teacher is not None:
        code, secret = teacher
        if st.session_state.pop(keys.CLASS_RESUMED, None) == code:
            st.success(
                tr("Your class room {code} is back, with its answers.", code=format_code(code)),
                icon=":material/undo:",
            )
        _teacher_banner(code)
        _resume_later(code, secret)
        return Seat("teacher", code, secret=secret)
    with st.container(border=True, key="class_start"):
        query = join_form("lessons")
        if query is not None:
            st.query_params.update(query)
            st.rerun()
        if presenter:
            st.button(
                tr("Start a class session"),
                key="start_class_session",
                icon=":material/groups:",
                on_click=_start_session,
                type="primary",
                help=tr(
                    "Students join with a link, a QR code or the room's code, answer each step's question "
                    "from their own device, and this page shows the class's answers. No names are asked or "
                    "stored."
                ),
            )
        with st.expander(tr("Resume a class you started (teachers)"), icon=":material/key:"):
            with st.form("class_resume", border=False):
                st.text_input(
                    tr("Your resume code"),
                    key="class_resume_code",
                    type="password",
                    max_chars=64,
                    placeholder="XXXX-XXXX-XXXX-XXXX",
                    help=tr(
                        "The 16-character code of your resume link (saved when you started the session). "
                        "It is typed as a password: it does not show on the projector."
                    ),
                )
                st.form_submit_button(
                    tr("Resume my class"), key="resume_class_submit", on_click=_resume_typed
                )
        _show_message()
    return None


def _start_session() -> None:
    st.session_state[keys.CLASS_MESSAGE] = None
    try:
        room = class_store().create_room()
    except (ClassError, SQLAlchemyError, OSError, ValueError) as exc:
        st.session_state[keys.CLASS_MESSAGE] = store_problem(exc)
        return
    _become_teacher(room)


def _resume(secret: str) -> str | None:
    """Make this session the teacher of the room of ``secret``; returns why not, or None."""
    try:
        room = class_store().resume(secret)
    except (ClassError, SQLAlchemyError, OSError, ValueError) as exc:
        return store_problem(exc)
    _become_teacher(room)
    st.session_state[keys.CLASS_RESUMED] = room.code
    return None


def _resume_typed() -> None:
    st.session_state[keys.CLASS_MESSAGE] = _resume(st.session_state.get("class_resume_code") or "")


def _resume_from_link_or_cookie() -> None:
    """A resume link (?resume=SECRET, taken out of the address at once) or, once per session, the
    cookie of the room this browser's teacher started last (forgotten if that room has ended)."""
    link = st.query_params.get(RESUME_PARAM)
    if link is not None:
        del st.query_params[RESUME_PARAM]
        st.session_state[keys.CLASS_MESSAGE] = _resume(link)
        st.session_state[keys.CLASS_COOKIE_TRIED] = True
    elif keys.CLASS_TEACHER not in st.session_state and not st.session_state.get(keys.CLASS_COOKIE_TRIED):
        st.session_state[keys.CLASS_COOKIE_TRIED] = True
        cookie = teacher_cookie()
        if cookie and _resume(cookie) is not None:
            _forget_teacher()


def _resume_later(code: str, secret: str) -> None:
    """The teacher's private way back to the room (another device, or this one after a restart),
    folded away and never drawn until asked for: it is projected."""
    tr = language.current()
    lang = tr.lang
    showing = bool(st.session_state.get("class_resume_show"))  # stays open while the link is shown
    with st.expander(
        tr("Resume this room later, or on another device"), icon=":material/key:", expanded=showing
    ):
        st.markdown(
            tr(
                "This browser gets the room back by itself after a reload or a restart of the app. On "
                "another device (or if this browser forgets it), open your **resume link** or type the "
                "**resume code** on Lessons, *Resume a class you started*. Anyone who has it controls this "
                "room: keep it off the projector."
            )
        )
        st.download_button(
            tr("Save my resume link (text file)"),
            data=lambda: _resume_note(code, secret, tr),
            file_name=f"rbfviz_resume_{code}.txt",
            mime="text/plain",
            key="class_resume_save",
            on_click="ignore",
            icon=":material/download:",
            help=tr("A small text file with your resume link and code; nothing is shown on the screen."),
        )
        if st.toggle(tr("Show my resume link here (not on the projector)"), key="class_resume_show"):
            st.markdown(tr("Resume code"))
            st.code(format_code(secret), language=None)
            st.markdown(tr("Resume link"))
            st.code(resume_link(secret, lang), language=None)


def _resume_note(code: str, secret: str, tr) -> str:
    return tr(
        "rbfviz class room {code}: the teacher's resume link. Keep it private: it gives the room's controls "
        'to whoever opens it.\n\n{link}\n\nResume code (Lessons, "Resume a class you started"): {secret}\n',
        code=format_code(code),
        link=resume_link(secret, tr.lang),
        secret=format_code(secret),
    )


def _show_message() -> None:
    """The last refused action's message; it stays (the panels refresh by themselves) until the next
    action."""
    message = st.session_state.get(keys.CLASS_MESSAGE)
    if message:
        st.error(message)


def join_form(where: str) -> dict[str, str] | None:
    """A "Join a class" field for the room's code as printed (with or without the dash, any case).

    Returns the query of the room's Lessons page once a code of an open room was sent (the page goes
    there), else None; a code that is not one, or of no open room, gets a message."""
    tr = language.current()
    st.html(TOUCH_CSS)
    with st.container(key=f"class_touch_join_{where}"):
        with st.form(f"class_join_{where}", border=False):
            st.text_input(
                tr("Join a class: the room code"),
                key=f"class_join_code_{where}",
                max_chars=32,
                placeholder="7KQ2-XM9D",
                autocomplete="off",
            )
            sent = st.form_submit_button(
                tr("Join the class"),
                key=f"join_class_submit_{where}",
                type="primary",
                icon=":material/groups:",
            )
    if not sent:
        return None
    typed = st.session_state.get(f"class_join_code_{where}") or ""
    code = normalise_code(typed)
    if code is None:
        st.error(
            tr(
                "“{typed}” is not a room code: a code has 8 letters and digits, like 7KQ2-XM9D (the dash is "
                "optional). Check the code on the projector.",
                typed=typed.strip()[:32],
            )
            if typed.strip()
            else tr("Type the room code shown on the projector, like 7KQ2-XM9D.")
        )
        return None
    seat = class_seat()
    if not _join(code, seat):
        return None
    return {ROOM_PARAM: code, SEAT_PARAM: seat, "lang": tr.lang}


def _join(code: str, seat: str) -> bool:
    """Join this browser's seat to the room; False, with the store's problem shown, when it cannot."""
    try:
        class_store().join(code, seat)
    except (ClassError, SQLAlchemyError, OSError, ValueError) as exc:
        st.error(store_problem(exc))
        return False
    st.session_state[keys.CLASS_JOINED] = code
    return True


def _student_seat(text: str) -> Seat | None:
    tr = language.current()
    code = normalise_code(text)
    if code is None:
        st.error(tr("This link's class room code is not valid. Check the code on the projector."))
        return None
    seat = class_seat()
    if st.query_params.get(SEAT_PARAM) != seat:
        st.query_params[SEAT_PARAM] = seat
    if st.session_state.get(keys.CLASS_JOINED) != code and not _join(code, seat):
        return None
    st.info(
        tr(
            "You are in class room **{code}**, anonymously: no name is asked or stored. Answer the teacher's "
            "question below; the answer appears here when the teacher reveals it.",
            code=format_code(code),
        ),
        icon=":material/groups:",
    )
    return Seat("student", code, seat=seat)


def _teacher_banner(code: str) -> None:
    tr = language.current()
    link = join_link(code, tr.lang)
    st.html(CODE_CSS)
    with st.container(border=True, key="class_banner"):
        text, picture = st.columns([3, 1], vertical_alignment="center")
        with text:
            st.markdown(
                tr(
                    "**Join the class:** open the link, scan the code, or type the room's code on Lessons. "
                    "Room"
                )
            )
            st.markdown(f"<div class='rbfviz-room-code'>{format_code(code)}</div>", unsafe_allow_html=True)
            st.markdown(f"<div class='rbfviz-room-link'>{html.escape(link)}</div>", unsafe_allow_html=True)
        with picture:
            st.image(qr_png(link), width=220, alt=tr("QR code of the join link {link}", link=link))
    if is_local(link):
        st.warning(
            tr(
                "The join link points at **{host}**, this computer: no student's phone can open it. Open "
                "this page at an address the students can reach (this computer's network address, e.g. "
                "`http://192.168.1.20:8501`), or have the app started with `RBFVIZ_PUBLIC_URL` set to it: "
                "see [Ask the class: the join link and RBFVIZ_PUBLIC_URL]({docs}).",
                host=urlsplit(link).hostname,
                docs=PUBLIC_URL_DOCS,
            ),
            icon=":material/wifi_off:",
        )


# --- the teacher's panel ---------------------------------------------------------------------------


def teacher_panel(seat: Seat, index: int, prepared: Callable[[str], Prepared], ctrl) -> None:
    """Ask this step's question, watch the answers come in, reveal; download the answers; end."""
    _teacher_fragment(seat.code, seat.secret, index, prepared, ctrl)


def _act(action: Callable, *args) -> None:
    st.session_state[keys.CLASS_MESSAGE] = None
    try:
        action(*args)
    except (ClassError, SQLAlchemyError) as exc:
        st.session_state[keys.CLASS_MESSAGE] = store_problem(exc)


def _ask(code: str, secret: str, key: str, prepared: Callable[[str], Prepared]) -> None:
    _act(class_store().open_question, code, secret, question_spec(prepared(key), step_scale(key)))


def _end(code: str, secret: str) -> None:
    _act(class_store().clear_room, code, secret)
    if not st.session_state.get(keys.CLASS_MESSAGE):
        _forget_teacher()


@st.fragment(run_every=TEACHER_REFRESH)
def _teacher_fragment(code: str, secret: str, index: int, prepared, ctrl) -> None:
    if st.session_state.get(keys.CLASS_TEACHER) != (code, secret):  # the session was ended
        st.rerun(scope="app")
    tr = language.current()
    step = STEPS[index]
    store = class_store()
    try:
        tally = store.tally(code, secret)
    except (ClassError, SQLAlchemyError) as exc:
        st.error(store_problem(exc))
        if isinstance(exc, ClassError):  # the room expired: forget it
            _forget_teacher()
            st.button(tr("Start again"), key="start_class_again", on_click=lambda: None)
        return
    this = tally.question == step.key
    is_open = this and tally.state == OPEN
    buttons = st.columns(4)
    buttons[0].button(
        tr("Ask the class") if not this else tr("Ask again"),
        key="class_ask",
        icon=":material/campaign:",
        type="primary",
        disabled=is_open,
        on_click=_ask,
        args=(code, secret, step.key, prepared),
        help=tr("Open this step's question: every student's page shows it, and their answers appear here."),
    )
    buttons[1].button(
        tr("Reveal the answer"),
        key="class_reveal",
        icon=":material/visibility:",
        disabled=not is_open,
        on_click=_act,
        args=(store.reveal, code, secret),
        help=tr(
            "Mark the correct answer here and on every student's page, with the explanation. No more answers "
            "are taken."
        ),
    )
    buttons[2].button(
        tr("Close without revealing"),
        key="class_close",
        disabled=not is_open,
        on_click=_act,
        args=(store.close_question, code, secret),
    )
    buttons[3].button(
        tr("End the session"),
        key="class_end",
        icon=":material/delete:",
        on_click=_end,
        args=(code, secret),
        help=tr(
            "Delete the room and every answer now (they are deleted after {hours:.3g} h anyway).",
            hours=store.ttl_seconds / 3600,
        ),
    )
    _show_message()
    numbers = st.columns(3)
    numbers[0].metric(tr("Students in the room"), tally.present)
    numbers[1].metric(tr("Answered"), tally.answered if this else 0)
    state = QUESTION_STATES.get(tally.state)
    numbers[2].metric(tr("Question"), tr(state) if state else "—")
    if tally.question is None:
        st.caption(tr("No question asked yet: **Ask the class** opens this step's question."))
    elif not this:
        other = STEPS[STEP_BY_KEY[tally.question]]
        st.caption(
            tr(
                "The room is on step {number} ({title}). **Ask the class** moves it to this step.",
                number=STEP_BY_KEY[tally.question] + 1,
                title=tr(other.title),
            )
        )
    if this:
        lesson = prepared(step.key)
        options = lesson.options
        fig = distribution_figure(tally, options, lesson.unit, tr=tr)
        chart(fig, ctrl, "class_answers", description=describe_tally(tally, options, tr))
        if options:
            st.markdown("  \n".join(f"**{chr(65 + i)}** · {text}" for i, text in enumerate(options)))
        if tally.state == REVEALED:
            st.success(tr("Revealed: {answer}.", answer=lesson.answer_text))
            st.markdown(lesson.explanation)
            for equation in lesson.equations:
                st.latex(equation)
    st.download_button(
        tr("The class's answers (CSV)"),
        data=lambda: answers_csv(
            store.answer_rows(code, secret), {key: prepared(key) for key in STEP_BY_KEY}
        ),
        file_name=f"rbfviz_class_{code}.csv",
        mime="text/csv",
        key="class_csv",
        on_click="ignore",
        icon=":material/download:",
        help=tr(
            "Every answer in this room, one line each, anonymous: step, question, answer, correct, seconds "
            "after the question opened."
        ),
    )


def describe_tally(tally: Tally, options: tuple[str, ...], tr: Translator) -> str:
    """One sentence on the answers for screen readers (the correct one only once revealed), in ``tr``'s
    language."""
    dist = distribution(tally)
    head = tr.ngettext(
        "{answered} of {n} student in the room answered",
        "{answered} of {n} students in the room answered",
        tally.present,
        answered=tally.answered,
    )
    if options:
        parts = [f"{chr(65 + i)}: {int(n)}" for i, n in enumerate(dist.counts)]
    else:
        parts = [
            tr.format("{lo:.3g}–{hi:.3g}: {count}", lo=lo, hi=hi, count=int(n))
            for lo, hi, n in zip(dist.edges[:-1], dist.edges[1:], dist.counts)
            if n
        ]
    text = f"{head}" + (f"; {', '.join(parts)}" if parts else "")
    if tally.answer is not None:
        correct = chr(65 + int(tally.answer)) if options else tr.number(tally.answer, ".4g")
        text += tr(". Correct: {answer}", answer=correct)
    return text + "."


# --- the student's panel ---------------------------------------------------------------------------


def student_panel(seat: Seat, index: int, prepared: Callable[[str], Prepared], go_to: Callable) -> None:
    """The room's open question, the student's answer, then the reveal; follows the teacher's step."""
    st.html(TOUCH_CSS)
    with st.container(key="class_touch_student"):
        _student_fragment(seat.code, seat.seat, index, prepared, go_to)


def _send(code: str, seat: str, key: str, field: str) -> None:
    st.session_state[keys.CLASS_MESSAGE] = None
    tr = language.current()
    try:
        value = language.typed_number(field, tr)
    except ValueError:
        st.session_state[keys.CLASS_MESSAGE] = tr(
            "Type a number, such as {example}.", example=tr.number(0.25, ".2f")
        )
        return
    if value is None:
        st.session_state[keys.CLASS_MESSAGE] = tr("Choose or enter an answer first.")
        return
    try:
        class_store().submit(code, seat, key, value)
    except (ClassError, SQLAlchemyError) as exc:
        st.session_state[keys.CLASS_MESSAGE] = store_problem(exc)


@st.fragment(run_every=STUDENT_REFRESH)
def _student_fragment(code: str, seat: str, index: int, prepared, go_to) -> None:
    tr = language.current()
    try:
        view = class_store().view(code, seat)
    except (ClassError, SQLAlchemyError) as exc:
        st.error(store_problem(exc))
        return
    if view.question != st.session_state.get(keys.CLASS_SEEN):
        st.session_state[keys.CLASS_SEEN] = view.question
        if view.question is not None and STEP_BY_KEY[view.question] != index:
            go_to(STEP_BY_KEY[view.question])  # follow the teacher to the asked step
            st.rerun(scope="app")
    if view.question is None:
        st.info(tr("Waiting for the teacher to ask a question. This panel updates by itself."))
        return
    step = STEPS[STEP_BY_KEY[view.question]]
    lesson = prepared(step.key)  # the room's question key, in this student's own language
    question = step.question
    st.markdown(
        tr("**Step {number}: {prompt}**", number=STEP_BY_KEY[view.question] + 1, prompt=lesson.prompt)
    )
    if view.state == OPEN:
        field = f"class_answer_{step.key}"
        with st.form(f"class_form_{step.key}", border=False):
            if question.is_choice:
                st.radio(
                    tr("Your answer"),
                    range(len(question.options)),
                    index=None,
                    key=field,
                    format_func=lambda i: f"{chr(65 + i)} · {lesson.options[i]}",
                )
            else:
                language.number_field(
                    tr("Your answer{unit}", unit=lesson.unit),
                    field,
                    tr,
                    help=tr(
                        "A number from {low:.4g} to {high:.4g}{unit}.",
                        low=view.low,
                        high=view.high,
                        unit=lesson.unit,
                    ),
                )
            st.form_submit_button(
                tr("Send my answer"),
                key=f"send_class_answer_{step.key}",
                type="primary",
                on_click=_send,
                args=(code, seat, step.key, field),
            )
        _show_message()
    if view.mine is not None:
        said = (
            lesson.options[int(view.mine)]
            if question.is_choice
            else tr("{value:.4g}{unit}", value=view.mine, unit=lesson.unit)
        )
        if view.state == OPEN:
            st.success(
                tr(
                    "Your answer is in: {said}. You can change it until the teacher reveals the answer.",
                    said=said,
                )
            )
        elif view.state == CLOSED:
            st.info(tr("The teacher has closed this question. Your answer: {said}.", said=said))
    elif view.state == CLOSED:
        st.info(tr("The teacher has closed this question."))
    if view.state == REVEALED:
        if view.mine is not None:
            verdict = check(lesson, int(view.mine) if question.is_choice else view.mine)
            (st.success if verdict.correct else st.warning)(verdict.message)
        else:
            st.info(tr("You did not answer; {answer}.", answer=lesson.answer_text))
        st.subheader(tr("Why"))
        st.markdown(lesson.explanation)
        for equation in lesson.equations:
            st.latex(equation)
