"""Ask the class in Chromium: a teacher and a student, two browser contexts (two separate people, no
shared cookies or storage) against one real server.

The student answers; the teacher's count and bar chart change without a reload; the teacher reveals;
the student sees the answer and the explanation without a reload. Neither page is ever reloaded: a
marker set on each window at the start must still be there at the end."""

import json
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
from browser import SCREENSHOTS
from playwright.sync_api import expect

from harness.student import HANG_TIMEOUT_MS, Student
from rbfviz.classroom import normalise_code
from rbfviz.i18n import translator
from rbfviz.views.lessons.arrays import STEPS, prepare

pytestmark = pytest.mark.e2e

# ms: the panels refresh every 1.5–2 s, far slower on a busy machine: the bound only catches a hang
REFRESH_TIMEOUT = HANG_TIMEOUT_MS
BARS_JS = """() => {
  const gd = document.querySelector("[class*='st-key-rbfviz_figure_class_answers'] .js-plotly-plot");
  return gd && gd.data ? JSON.stringify({ x: Array.from(gd.data[0].x), y: Array.from(gd.data[0].y) }) : null;
}"""


def bars(who: Student) -> dict | None:
    text = who.page.evaluate(BARS_JS)
    return json.loads(text) if text else None


def wait_until(condition, timeout_s: float = REFRESH_TIMEOUT / 1000) -> None:
    """Poll condition() (a page refreshing by itself) until true; fail after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the page did not update by itself in time"
        time.sleep(0.25)


def mark_window(who: Student) -> None:
    who.page.evaluate("() => { window.__rbfvizNoReload = true; }")


def not_reloaded(who: Student) -> bool:
    return who.page.evaluate("() => window.__rbfvizNoReload === true")


def test_teacher_and_student_in_two_browsers(server, browser, student):
    lesson = prepare(STEPS[0])
    teacher_context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        teacher = Student(teacher_context.new_page(), SCREENSHOTS, "class_session_teacher")
        teacher.page.set_default_timeout(HANG_TIMEOUT_MS)
        teacher.open(f"{server.url}/Lessons?presenter=1")
        teacher.page.get_by_role("button", name="Start a class session").click()
        link_box = teacher.page.locator(".rbfviz-room-link")
        expect(link_box).to_contain_text("/Lessons?room=", timeout=REFRESH_TIMEOUT)
        link = link_box.inner_text().strip()
        code = normalise_code(dict(parse_qsl(urlsplit(link).query))["room"])
        assert code is not None and link.startswith(server.url)
        expect(teacher.page.locator("[class*='st-key-class_banner'] img")).to_be_visible()
        mark_window(teacher)

        student.open(link)
        expect(student.page.get_by_text("Waiting for the teacher")).to_be_visible(timeout=REFRESH_TIMEOUT)
        assert "seat" in student.query()
        for label in ("Ask the class", "Reveal the answer", "End the session", "Start a class session"):
            assert student.page.get_by_role("button", name=label).count() == 0
        mark_window(student)
        wait_until(lambda: teacher.metric("Students in the room") == "1")

        teacher.page.get_by_role("button", name="Ask the class").click()
        # the student's panel shows the question by itself
        expect(student.page.get_by_text(lesson.prompt)).to_be_visible(timeout=REFRESH_TIMEOUT)
        pick = (int(lesson.answer) + 1) % len(lesson.step.question.options)  # a wrong answer
        options = lesson.step.question.options
        student.page.locator("[data-testid='stMain']").get_by_text(
            f"{chr(65 + pick)} · {options[pick]}"
        ).click()
        student.page.get_by_role("button", name="Send my answer").click()
        expect(student.page.get_by_text("Your answer is in")).to_be_visible(timeout=REFRESH_TIMEOUT)

        # the teacher's count and bars change without a reload
        wait_until(lambda: teacher.metric("Answered") == "1")
        teacher.page.wait_for_function(
            f"() => {{ const b = ({BARS_JS})(); return b && JSON.parse(b).y[{pick}] === 1; }}"
        )
        shown = bars(teacher)
        assert shown["y"] == [1 if i == pick else 0 for i in range(len(shown["y"]))]
        assert not any("✓" in label for label in shown["x"])  # the answer is hidden before the reveal
        teacher.screenshot("answered")

        teacher.page.get_by_role("button", name="Reveal the answer").click()
        teacher.page.wait_for_function(f"() => {{ const b = ({BARS_JS})(); return b && b.includes('✓'); }}")
        assert bars(teacher)["x"][int(lesson.answer)].endswith("✓")
        # the student sees the answer and the explanation without a reload
        expect(student.page.get_by_text("Not quite")).to_be_visible(timeout=REFRESH_TIMEOUT)
        expect(student.page.get_by_role("heading", name="Why")).to_be_visible()
        assert lesson.answer_text in student.text()
        assert student.page.get_by_role("button", name="Send my answer").count() == 0
        assert not_reloaded(teacher) and not_reloaded(student)
        assert not teacher.problems() and not student.problems(), (teacher.problems(), student.problems())
        student.keepsake("revealed")
        teacher.keepsake("revealed")
    finally:
        teacher_context.close()


def test_a_teacher_in_english_and_a_student_who_switches_to_portuguese(server, browser, student):
    """The join link opens in the teacher's language; the student switches to Portuguese in the sidebar and
    stays in the room; the question arrives in Portuguese; the teacher's count (in English) has the
    student's answer."""
    pt = translator("pt-BR")
    lesson = prepare(STEPS[0], pt)
    teacher_context = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        teacher = Student(teacher_context.new_page(), SCREENSHOTS, "class_session_teacher_en")
        teacher.page.set_default_timeout(HANG_TIMEOUT_MS)
        teacher.open(f"{server.url}/Lessons?presenter=1&lang=en")
        teacher.page.get_by_role("button", name="Start a class session").click()
        link_box = teacher.page.locator(".rbfviz-room-link")
        expect(link_box).to_contain_text("/Lessons?room=", timeout=REFRESH_TIMEOUT)
        link = link_box.inner_text().strip()
        assert dict(parse_qsl(urlsplit(link).query))["lang"] == "en"

        student.open(link)
        expect(student.page.get_by_text("Waiting for the teacher")).to_be_visible(timeout=REFRESH_TIMEOUT)
        student.select("Idioma · Language", "Português (Brasil)")
        expect(student.page.get_by_text("Esperando o professor")).to_be_visible(timeout=REFRESH_TIMEOUT)
        query = student.query()
        assert query["lang"] == "pt-BR" and query["room"] == dict(parse_qsl(urlsplit(link).query))["room"]
        assert "seat" in query
        wait_until(lambda: teacher.metric("Students in the room") == "1")

        teacher.page.get_by_role("button", name="Ask the class").click()
        expect(student.page.get_by_text(lesson.prompt)).to_be_visible(timeout=REFRESH_TIMEOUT)
        pick = int(lesson.answer)
        student.page.locator("[data-testid='stMain']").get_by_text(
            f"{chr(65 + pick)} · {lesson.options[pick]}"
        ).click()
        student.page.get_by_role("button", name="Enviar minha resposta").click()
        expect(student.page.get_by_text("Sua resposta foi registrada")).to_be_visible(timeout=REFRESH_TIMEOUT)

        wait_until(lambda: teacher.metric("Answered") == "1")
        teacher.page.wait_for_function(
            f"() => {{ const b = ({BARS_JS})(); return b && JSON.parse(b).y[{pick}] === 1; }}"
        )
        teacher.page.get_by_role("button", name="Reveal the answer").click()
        expect(student.page.get_by_text("Certo: a resposta é")).to_be_visible(timeout=REFRESH_TIMEOUT)
        expect(student.page.get_by_role("heading", name="Por quê")).to_be_visible()
        assert not teacher.problems() and not student.problems(), (teacher.problems(), student.problems())
        student.keepsake("portuguese_revealed")
    finally:
        teacher_context.close()
