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
import streamlit.testing.v1.app_test as app_test_module
from hang import HANG_TIMEOUT_S
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from rbfviz.classroom import format_code, normalise_code
from rbfviz.views.lessons.arrays import STEPS, prepare
from rbfviz.views.lessons.class_session import distribution
from ui import classroom

LESSONS = "pages/8_Lessons.py"

pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


@pytest.fixture(autouse=True)
def class_database(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    monkeypatch.setenv("RBFVIZ_DATABASE_URL", url)
    monkeypatch.delenv("RBFVIZ_PUBLIC_URL", raising=False)
    return url


@pytest.fixture
def media(monkeypatch):
    """The media-file managers AppTest creates (one per run): they hold the download generators."""
    managers = []

    class Recording(MediaFileManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            managers.append(self)

    monkeypatch.setattr(app_test_module, "MediaFileManager", Recording)
    return managers


def texts(elements) -> str:
    return " ".join(str(e.value) for e in elements)


def open_lessons(query: dict) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=HANG_TIMEOUT_S)
    at.query_params.update(query)
    at.switch_page(LESSONS).run()
    assert not at.exception, at.exception
    return at


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
    code, secret = teacher.session_state[classroom.TEACHER_KEY]
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
        seats.add(student.session_state[classroom.SEAT_KEY])
        assert student.query_params["seat"] == student.session_state[classroom.SEAT_KEY]
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
    tally = classroom.class_store().tally(code, teacher.session_state[classroom.TEACHER_KEY][1])
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
    assert classroom.TEACHER_KEY not in teacher.session_state
    assert classroom.class_store().count_rows()["rbfviz_answers"] == 0
    students[0].run()
    assert "No class room" in texts(students[0].error)


def download(at: AppTest, media, label: str) -> bytes:
    """The bytes the download button ``label`` delivers when clicked (its deferred generator)."""
    buttons = [b for b in at.get("download_button") if b.proto.label == label]
    assert len(buttons) == 1, [b.proto.label for b in at.get("download_button")]
    entry = media[-1]._deferred_callables[buttons[0].proto.deferred_file_id]
    data = entry["callable"]()
    return data if isinstance(data, bytes) else data.encode("utf-8")


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
    assert classroom.TEACHER_KEY not in copied.session_state


def test_the_join_link_uses_the_configured_public_address(monkeypatch):
    monkeypatch.setenv("RBFVIZ_PUBLIC_URL", "https://rbfviz.example.edu/class/")
    teacher = open_lessons({"presenter": "1"})
    [b for b in teacher.button if b.proto.label == "Start a class session"][0].click().run()
    code, _ = teacher.session_state[classroom.TEACHER_KEY]
    assert f"https://rbfviz.example.edu/class/Lessons?room={code}" in texts(teacher.markdown)
