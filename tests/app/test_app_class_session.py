"""AppTests of "Ask the class" on the Lessons page: a teacher (presenter mode) and three students, each
an AppTest session of its own, sharing one class store (an SQLite file per test).

The teacher's and the students' panels rerun by themselves in a browser (fragments with run_every);
AppTest does not run timers, so each side's ``run()`` stands for the next refresh. The browser test
(tests/e2e/test_e2e_class_session.py) checks that the refresh happens without a reload."""

import base64
import csv
import io
import json

import numpy as np
import pytest
from app_page import app, download, open_page, page_path
from streamlit.testing.v1 import AppTest

from rbfviz.classroom import format_code, normalise_code
from rbfviz.views.lessons.arrays import STEPS, prepare
from rbfviz.views.lessons.class_session import distribution
from ui import classroom, session_keys

LESSONS = page_path("Lessons")


@pytest.fixture(autouse=True)
def class_database(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    monkeypatch.setenv("RBFVIZ_DATABASE_URL", url)
    monkeypatch.delenv("RBFVIZ_PUBLIC_URL", raising=False)
    return url


def texts(elements) -> str:
    return " ".join(str(e.value) for e in elements)


def open_lessons(query: dict) -> AppTest:
    return open_page(LESSONS, query)


def teacher_controls(at: AppTest) -> set[str]:
    return {b.key for b in at.button if b.key and b.key.startswith("class_")} | {
        b.key for b in at.get("download_button") if b.key == "class_csv"
    }


def start_class(query=None) -> tuple[AppTest, str]:
    teacher = open_lessons({"presenter": "1", **(query or {})})
    start = [b for b in teacher.button if b.proto.label == "Start a class session"]
    assert len(start) == 1
    start[0].click().run()
    assert not teacher.exception, teacher.exception
    code, secret = teacher.session_state[session_keys.CLASS_TEACHER]
    banner = texts(teacher.markdown)
    assert format_code(code) in banner and f"/Lessons?room={code}" in banner
    assert secret not in banner and secret not in str(dict(teacher.query_params))
    return teacher, code


def figure_counts(at: AppTest) -> list[int]:
    """The bar heights of the class's answers as drawn."""
    data = json.loads(at.get("plotly_chart")[-1].proto.spec)["data"][0]["y"]
    if isinstance(data, dict):  # base64 typed array
        return np.frombuffer(base64.b64decode(data["bdata"]), data["dtype"]).astype(int).tolist()
    return [int(v) for v in data]


def test_a_teacher_and_three_students(media):
    teacher, code = start_class()
    assert {"class_ask", "class_reveal", "class_close", "class_end", "class_csv"} <= teacher_controls(teacher)
    students = [open_lessons({"room": format_code(code).lower()}) for _ in range(3)]
    seats = set()
    for student in students:
        assert teacher_controls(student) == set()
        assert "Start a class session" not in [b.proto.label for b in student.button]
        assert format_code(code) in texts(student.info)
        assert "Waiting for the teacher" in texts(student.info)
        seats.add(student.session_state[session_keys.CLASS_SEAT])
        assert student.query_params["seat"] == student.session_state[session_keys.CLASS_SEAT]
    assert len(seats) == 3
    teacher.run()
    assert teacher.metric[0].value == "3"  # students in the room

    # step 1 (a choice): ask, answer, count, reveal
    lesson = prepare(STEPS[0])
    teacher.button(key="class_ask").click().run()
    assert not teacher.exception
    picks = [0, 1, 1]
    for student, pick in zip(students, picks):
        student.run()
        assert lesson.prompt in texts(student.markdown)
        student.radio(key="class_answer_voronoi").set_value(pick)
        [b for b in student.button if b.proto.label == "Send my answer"][0].click().run()
        assert not student.exception, student.exception
        assert "Your answer is in" in texts(student.success)
    students[0].radio(key="class_answer_voronoi").set_value(2)  # a change of mind replaces
    [b for b in students[0].button if b.proto.label == "Send my answer"][0].click().run()
    picks[0] = 2
    teacher.run()
    assert [m.value for m in teacher.metric[:2]] == ["3", "3"]
    assert figure_counts(teacher) == np.bincount(picks, minlength=3).tolist()
    assert "✓" not in str(teacher.get("plotly_chart")[-1].proto.spec)  # the answer is hidden
    for student in students:
        assert lesson.explanation not in texts(student.markdown)
    teacher.button(key="class_reveal").click().run()
    assert "✓" in str(teacher.get("plotly_chart")[-1].proto.spec)
    assert lesson.answer_text in texts(teacher.success)
    for student, pick in zip(students, picks):
        student.run()
        assert lesson.explanation in texts(student.markdown)
        feedback = texts(student.success) + texts(student.warning)
        assert ("Right" if pick == int(lesson.answer) else "Not quite") in feedback
        assert not [b for b in student.button if b.proto.label == "Send my answer"]

    # step 3 (a number in data units): the students' pages follow the teacher's step
    teacher.query_params["lesson"] = "3"
    teacher.run()
    teacher.button(key="class_ask").click().run()
    anneal = prepare(STEPS[2])
    numbers = [anneal.answer * 0.5, anneal.answer, anneal.answer * 1.01]
    for student, value in zip(students, numbers):
        student.run()  # the fragment sees the new question and moves the page to step 3
        student.run()
        assert student.query_params["lesson"] == "3"
        student.number_input(key="class_answer_anneal").set_value(value)
        [b for b in student.button if b.proto.label == "Send my answer"][0].click().run()
        assert "Your answer is in" in texts(student.success), texts(student.error)
    teacher.run()
    tally = classroom.class_store().tally(code, teacher.session_state[session_keys.CLASS_TEACHER][1])
    assert sorted(tally.values) == pytest.approx(sorted(numbers))
    assert figure_counts(teacher) == distribution(tally).counts.tolist()
    assert sum(figure_counts(teacher)) == 3

    # the CSV: every answer, anonymous
    rows = list(csv.DictReader(io.StringIO(download(teacher, media, "The class's answers (CSV)").decode())))
    assert len(rows) == 6 and set(rows[0]) == {"step", "question", "answer", "correct", "seconds_after_open"}
    assert not any(seat in str(rows) for seat in seats)

    # end: everything deleted, students told
    teacher.button(key="class_end").click().run()
    teacher.run()
    assert session_keys.CLASS_TEACHER not in teacher.session_state
    assert classroom.class_store().count_rows()["rbfviz_answers"] == 0
    students[0].run()
    assert "No class room" in texts(students[0].error)


def test_a_student_with_a_bad_code_gets_a_message_and_no_controls():
    for code in ("NOPE", "0000-0000", "'; DROP TABLE rbfviz_rooms; --"):
        at = open_lessons({"room": code})
        assert not at.exception
        assert "class room" in texts(at.error)
        assert teacher_controls(at) == set()
    assert normalise_code("0000-0000") == "00000000"


def test_the_projector_address_gives_no_teacher_controls():
    teacher, code = start_class()
    copied = open_lessons(dict(teacher.query_params))  # a student copies the teacher's address
    assert teacher_controls(copied) == set()
    assert "Start a class session" in [b.proto.label for b in copied.button]  # only a room of their own
    assert session_keys.CLASS_TEACHER not in copied.session_state


def test_the_join_link_uses_the_configured_public_address(monkeypatch):
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", "https://rbfviz.example.edu/class/")
    teacher = open_lessons({"presenter": "1"})
    [b for b in teacher.button if b.proto.label == "Start a class session"][0].click().run()
    code, _ = teacher.session_state[session_keys.CLASS_TEACHER]
    assert f"https://rbfviz.example.edu/class/Lessons?room={code}" in texts(teacher.markdown)


# --- the teacher comes back ------------------------------------------------------------------------


def every_text(at: AppTest) -> str:
    """Everything the page draws as text (markdown, captions, code, alerts, metrics, labels)."""
    parts = [texts(at.markdown), texts(at.caption), texts(at.code), texts(at.info), texts(at.success)]
    parts += [texts(at.warning), texts(at.error), " ".join(str(m.value) for m in at.metric)]
    parts += [b.proto.label for b in at.button] + [str(dict(at.query_params))]
    return " ".join(parts)


def cookie_writes(at: AppTest) -> list[str]:
    """The cookie scripts (ui.classroom._send_cookie) this run sent to the browser."""
    return [h.proto.body for h in at.get("html") if classroom.TEACHER_COOKIE in h.proto.body]


def ask_and_answer(teacher: AppTest, code: str, pick: int = 1) -> AppTest:
    teacher.button(key="class_ask").click().run()
    student = open_lessons({"room": code})
    student.radio(key="class_answer_voronoi").set_value(pick)
    [b for b in student.button if b.proto.label == "Send my answer"][0].click().run()
    assert "Your answer is in" in texts(student.success)
    return student


def test_a_reloaded_teacher_gets_the_room_back_from_this_browsers_cookie(monkeypatch):
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    (written,) = cookie_writes(teacher)  # the start wrote the cookie, once
    assert f"{classroom.TEACHER_COOKIE}={secret}; Path=/_stcore;" in written and "SameSite=Strict" in written
    teacher.run()
    assert cookie_writes(teacher) == []
    student = ask_and_answer(teacher, code)

    monkeypatch.setattr(classroom, "teacher_cookie", lambda: secret)  # the reloaded tab sends the cookie
    reloaded = open_lessons({"presenter": "1", "lesson": "1"})
    assert reloaded.session_state[session_keys.CLASS_TEACHER] == (code, secret)
    assert {"class_ask", "class_reveal", "class_close", "class_end", "class_csv"} <= teacher_controls(
        reloaded
    )
    assert format_code(code) in texts(reloaded.markdown) and "is back" in texts(reloaded.success)
    assert [m.value for m in reloaded.metric] == ["1", "1", "open"]  # the question state, the answers
    reloaded.button(key="class_reveal").click().run()
    student.run()
    assert prepare(STEPS[0]).explanation in texts(student.markdown)


def test_a_stale_cookie_is_forgotten_and_gives_no_controls(monkeypatch):
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    teacher.button(key="class_end").click().run()
    teacher.run()
    monkeypatch.setattr(classroom, "teacher_cookie", lambda: secret)
    reloaded = open_lessons({"presenter": "1"})
    assert teacher_controls(reloaded) == set() and session_keys.CLASS_TEACHER not in reloaded.session_state
    assert "Start a class session" in [b.proto.label for b in reloaded.button]
    (deleted,) = cookie_writes(reloaded)
    assert f"{classroom.TEACHER_COOKIE}=;" in deleted and "Max-Age=0" in deleted
    assert not reloaded.error  # nothing to tell: the browser simply had an old room


def test_the_resume_link_gives_the_room_back_and_leaves_the_address(monkeypatch):
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    ask_and_answer(teacher, code, pick=2)
    elsewhere = open_lessons({"presenter": "1", "resume": format_code(secret).lower()})  # another device
    assert elsewhere.session_state[session_keys.CLASS_TEACHER] == (code, secret)
    assert "resume" not in elsewhere.query_params
    assert {"class_ask", "class_reveal", "class_end", "class_csv"} <= teacher_controls(elsewhere)
    assert figure_counts(elsewhere) == [0, 0, 1]
    assert secret not in every_text(elsewhere) and format_code(secret) not in every_text(elsewhere)


def test_a_wrong_resume_code_gets_a_message_and_no_controls():
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    wrong = secret[:-1] + ("0" if secret[-1] != "0" else "1")
    for query, message in (
        ({"resume": wrong}, "No open class room has this resume code"),
        ({"resume": "hello"}, "A resume code has 16 letters and digits"),
        ({"resume": code}, "A resume code has 16"),  # the projected room code is not the secret
    ):
        at = open_lessons({"presenter": "1", **query})
        assert teacher_controls(at) == set() and session_keys.CLASS_TEACHER not in at.session_state
        assert message in texts(at.error)
        assert "resume" not in at.query_params


def test_the_teacher_types_the_resume_code():
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    at = open_lessons({})  # not even in presenter mode: a phone
    field = at.text_input(key="class_resume_code")
    assert field.proto.type == field.proto.PASSWORD  # typed as dots: nothing to read on the projector
    field.input("not-it")
    [b for b in at.button if b.proto.label == "Resume my class"][0].click().run()
    assert "A resume code has 16" in texts(at.error) and teacher_controls(at) == set()
    at.text_input(key="class_resume_code").input(" " + format_code(secret).lower() + " ")
    [b for b in at.button if b.proto.label == "Resume my class"][0].click().run()
    assert at.session_state[session_keys.CLASS_TEACHER] == (code, secret)
    assert {"class_ask", "class_reveal", "class_end"} <= teacher_controls(at)


def test_the_resume_link_is_drawn_only_when_the_teacher_asks():
    teacher, code = start_class()
    secret = teacher.session_state[session_keys.CLASS_TEACHER][1]
    assert secret not in every_text(teacher) and format_code(secret) not in every_text(teacher)
    saved = [b for b in teacher.get("download_button") if b.key == "class_resume_save"]
    assert len(saved) == 1  # a file: nothing on the screen
    teacher.toggle(key="class_resume_show").set_value(True).run()
    shown = texts(teacher.code)
    assert format_code(secret) in shown
    assert f"/Lessons?presenter=1&resume={format_code(secret)}" in shown
    teacher.toggle(key="class_resume_show").set_value(False).run()
    assert format_code(secret) not in every_text(teacher)


# --- the join link and the join field ----------------------------------------------------------------


@pytest.mark.parametrize("public", ["http://localhost:8501", "http://127.0.0.1:8501/", "http://[::1]:8501"])
def test_a_join_link_on_this_computer_warns_the_teacher(monkeypatch, public):
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", public)
    teacher, _ = start_class()
    (warning,) = [w.value for w in teacher.warning if "RBFVIZ_PUBLIC_URL" in w.value]
    assert "no student's phone can open it" in warning
    assert classroom.PUBLIC_URL_DOCS in warning


def test_a_reachable_join_link_has_no_warning(monkeypatch):
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", "http://192.168.1.20:8501")
    teacher, _ = start_class()
    assert not [w for w in teacher.warning if "RBFVIZ_PUBLIC_URL" in w.value]


def join(at: AppTest, where: str, typed: str) -> AppTest:
    at.text_input(key=f"class_join_code_{where}").input(typed)
    [b for b in at.button if b.proto.label == "Join the class"][0].click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("shape", [str.upper, str.lower, lambda c: c.replace("-", ""), lambda c: f"  {c} "])
def test_a_student_types_the_code_as_printed(shape):
    _, code = start_class()
    at = join(open_lessons({}), "lessons", shape(format_code(code)))
    assert (
        at.query_params["room"] == code
        and at.query_params["seat"] == at.session_state[session_keys.CLASS_SEAT]
    )
    at.run()
    assert f"You are in class room **{format_code(code)}**" in texts(at.info)
    assert teacher_controls(at) == set()


def test_the_join_field_on_home_opens_the_lesson_in_the_room():
    _, code = start_class()
    at = app().run()
    join(at, "home", format_code(code).lower())
    assert at.query_params["room"] == code
    assert f"You are in class room **{format_code(code)}**" in texts(at.info)


def test_bad_codes_in_the_join_field_get_a_clear_message():
    start_class()
    at = open_lessons({})
    for typed, message in (
        ("", "Type the room code"),
        ("7KQ2", "is not a room code: a code has 8 letters and digits"),
        ("'; DROP TABLE rbfviz_rooms; --", "is not a room code"),
        ("ZZZZ-ZZZZ", "No class room has this code"),
    ):
        join(at, "lessons", typed)
        assert message in texts(at.error), (typed, texts(at.error))
        assert "room" not in at.query_params and teacher_controls(at) == set()


# --- a student stays in the room -----------------------------------------------------------------------


def link_queries(at: AppTest, where) -> dict[str, dict[str, str]]:
    """Each page link's label and query (as a dict)."""
    return {
        link.proto.label: dict(pair.split("=", 1) for pair in link.proto.query_string.split("&") if pair)
        for link in where.get("page_link")
    }


def test_every_link_a_student_is_shown_keeps_the_room():
    _, code = start_class()
    student = open_lessons({"room": code})
    seat = student.session_state[session_keys.CLASS_SEAT]
    menu = link_queries(student, student.sidebar)
    assert len(menu) == 10  # Home and the nine pages
    assert all(q.get("room") == code and q.get("seat") == seat for q in menu.values()), menu
    (view_link,) = [q for label, q in link_queries(student, student.main).items() if "Open the" in label]
    assert view_link["room"] == code and view_link["seat"] == seat and view_link["dataset"] == "blobs"

    explorer = open_page(page_path("Explorer"), view_link)  # the student follows it
    back = [q for label, q in link_queries(explorer, explorer.main).items() if "Back to the class" in label]
    assert back == [{**back[0], "room": code, "seat": seat}]
    assert all(q.get("room") == code for q in link_queries(explorer, explorer.sidebar).values())
    home = app({"room": code, "seat": seat})
    home.run()
    assert all(q.get("room") == code for q in link_queries(home, home.main).values())


def test_links_outside_a_class_carry_no_room():
    at = open_lessons({"room": "NOPE"})
    assert all("room" not in q for q in link_queries(at, at.sidebar).values())
    assert not [label for label in link_queries(at, at.main) if "Back to the class" in label]
