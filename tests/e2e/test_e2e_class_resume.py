"""The teacher never loses the room, in Chromium: a reload mid-question, a second browser with the resume
link, a student with the teacher's address but no secret, a server restart on a SQLite file that survives
it; and the student's panel on a phone (390 × 844, touch).

Each person is a browser context of their own (no shared cookies or storage). The teacher's secret is read
from the teacher's cookie, only to check that nothing the projector shows carries it."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
from browser import SCREENSHOTS
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from test_e2e_class_session import mark_window, not_reloaded, wait_until

from harness.settings import ARTIFACTS
from harness.streamlit_server import StreamlitServer
from harness.student import HANG_TIMEOUT_MS, Student
from rbfviz.classroom import format_code, normalise_code
from rbfviz.views.lessons.arrays import STEPS, prepare
from ui.classroom import TEACHER_COOKIE

pytestmark = pytest.mark.e2e

LESSON = prepare(STEPS[0])
OPTIONS = LESSON.step.question.options
# "Ask the class" reads "Ask again" once the step's question was asked
TEACHER_BUTTONS = (
    re.compile(r"^Ask (the class|again)$"),
    "Reveal the answer",
    "Close without revealing",
    "End the session",
)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
# every visible box of the student's panel and of the join form: tag, label and size (CSS px)
TARGETS_JS = """(selector) => Array.from(document.querySelectorAll(selector)).filter((el) => {
    const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0;
  }).map((el) => { const r = el.getBoundingClientRect();
    return { what: el.tagName + " " + (el.innerText || el.getAttribute("aria-label") || el.name || "").trim()
      .slice(0, 40), width: r.width, height: r.height, right: r.right }; })"""
TOO_WIDE_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = Array.from(document.querySelectorAll("[data-testid='stMain'] *")).filter((el) => {
    const r = el.getBoundingClientRect(); return r.width > 0 && r.right > width + 0.5;
  }).map((el) => el.tagName + "." + el.className).slice(0, 10);
  return { scroll: document.documentElement.scrollWidth, width, wide };
}"""


def person(browser, name: str, **context_args) -> Student:
    context = browser.new_context(**{"viewport": {"width": 1600, "height": 1000}, **context_args})
    who = Student(context.new_page(), SCREENSHOTS, name)
    who.page.set_default_timeout(HANG_TIMEOUT_MS)
    return who


def start_room(teacher: Student, url: str) -> str:
    """The teacher starts a session on Lessons in presenter mode; returns the room's code."""
    teacher.open(f"{url}/Lessons?presenter=1")
    teacher.page.get_by_role("button", name="Start a class session").click()
    link_box = teacher.page.locator(".rbfviz-room-link")
    expect(link_box).to_contain_text("/Lessons?room=")
    code = normalise_code(dict(parse_qsl(urlsplit(link_box.inner_text().strip()).query))["room"])
    assert code is not None
    return code


def teacher_secret(teacher: Student) -> str:
    """The secret in the teacher's cookie (the browser wrote it when the session started)."""
    wait_until(lambda: any(c["name"] == TEACHER_COOKIE for c in teacher.page.context.cookies()))
    (cookie,) = [c for c in teacher.page.context.cookies() if c["name"] == TEACHER_COOKIE]
    assert cookie["path"] == "/_stcore" and cookie["sameSite"] == "Strict"
    assert cookie["expires"] > time.time() + 23 * 3600  # as long as the room lives (24 h)
    return cookie["value"]


def projected(who: Student) -> str:
    """Everything a projector shows of the page: its address, its visible text, the QR code's link."""
    alt = who.page.locator("[class*='st-key-class_banner'] img").get_attribute("alt") or ""
    return " ".join([who.page.url, who.page.locator("body").inner_text(), alt])


def answer(who: Student, pick: int) -> None:
    expect(who.page.get_by_text(LESSON.prompt)).to_be_visible()
    who.page.locator("[data-testid='stMain']").get_by_text(f"{chr(65 + pick)} · {OPTIONS[pick]}").click()
    who.page.get_by_role("button", name="Send my answer").click()
    expect(who.page.get_by_text("Your answer is in")).to_be_visible()


def controls(who: Student) -> list[str]:
    return [label for label in TEACHER_BUTTONS if who.page.get_by_role("button", name=label).count()]


def test_the_teacher_reloads_mid_question_resumes_elsewhere_and_a_student_cannot(server, browser):
    teacher = person(browser, "resume_teacher", viewport={"width": 1920, "height": 1080})
    students = [person(browser, f"resume_student_{i}", **PHONE) for i in range(2)]
    others = []
    try:
        code = start_room(teacher, server.url)
        secret = teacher_secret(teacher)
        assert secret not in projected(teacher) and format_code(secret) not in projected(teacher)
        for who in students:
            who.open(f"{server.url}/Lessons?room={code}")
            expect(who.page.get_by_text("Waiting for the teacher")).to_be_visible()
            mark_window(who)
        teacher.page.get_by_role("button", name="Ask the class").click()
        answer(students[0], (int(LESSON.answer) + 1) % len(OPTIONS))
        answer(students[1], int(LESSON.answer))
        wait_until(lambda: teacher.metric("Answered") == "2")

        # the teacher reloads mid-question: the room comes back, with the answers and every control
        teacher.page.reload()
        teacher.wait_for_run(since={"origin": None, "clock": 0})
        expect(teacher.page.get_by_text("is back, with its answers")).to_be_visible()
        expect(teacher.page.locator(".rbfviz-room-code")).to_have_text(format_code(code))
        wait_until(lambda: teacher.metric("Answered") == "2" and teacher.metric("Question") == "open")
        assert controls(teacher) == list(TEACHER_BUTTONS)
        assert secret not in projected(teacher)
        teacher.page.get_by_role("button", name="Reveal the answer").click()
        for who in students:  # every student sees the reveal, without a reload
            expect(who.page.get_by_role("heading", name="Why")).to_be_visible()
            assert not_reloaded(who)
        expect(students[0].page.get_by_text("Not quite")).to_be_visible()
        expect(students[1].page.get_by_text("Right: the answer is")).to_be_visible()
        teacher.screenshot("reloaded_revealed")

        # a student types the teacher's address (as projected) into their own browser: no controls
        copycat = person(browser, "resume_copycat")
        others.append(copycat)
        copycat.open(teacher.page.url)
        expect(copycat.page.get_by_role("button", name="Start a class session")).to_be_visible()
        assert controls(copycat) == [] and "is back" not in copycat.text()

        # the teacher asks for the resume link (folded away, then a toggle), and opens it elsewhere
        # (the room's panel refreshes by itself: a click that lands during its rerun is asked again)
        link = teacher.page.locator("[data-testid='stCode']").filter(has_text="resume=")
        show = "Show my resume link here (not on the projector)"
        for _ in range(4):
            if not teacher.page.get_by_text(show).is_visible():
                teacher.page.get_by_text("Resume this room later, or on another device").click()
            if not teacher.page.locator("label", has_text=show).locator("input").is_checked():
                teacher.page.get_by_text(show).click()
            try:  # a rerun takes about a second: a click still unanswered after 10 s was lost
                link.wait_for(state="visible", timeout=10_000)
                break
            except PlaywrightTimeoutError:
                continue
        expect(link).to_be_visible()
        resume = link.inner_text().strip()
        assert format_code(secret) in resume and resume.startswith(server.url)
        laptop = person(browser, "resume_other_device")
        others.append(laptop)
        laptop.open(resume)
        expect(laptop.page.locator(".rbfviz-room-code")).to_have_text(format_code(code))
        wait_until(lambda: laptop.metric("Answered") == "2" and laptop.metric("Question") == "revealed")
        assert controls(laptop) == list(TEACHER_BUTTONS)
        wait_until(lambda: "resume=" not in laptop.page.url)  # the secret leaves the address at once
        assert secret not in projected(laptop)
        laptop.page.get_by_role("button", name="Ask again").click()  # the controls work from there
        expect(students[0].page.get_by_role("button", name="Send my answer")).to_be_visible()
        for who in (teacher, laptop, copycat, *students):
            assert not who.problems(), (who.name, who.problems())
    finally:
        for who in (teacher, *students, *others):
            who.page.context.close()


@pytest.fixture
def class_file(tmp_path) -> dict[str, str]:
    return {"RBFVIZ_DATABASE_URL": f"sqlite:///{tmp_path / 'class.sqlite3'}"}


def start_server(env: dict, port: int | None, name: str) -> StreamlitServer:
    ARTIFACTS.mkdir(exist_ok=True)
    srv = StreamlitServer(ARTIFACTS / f"e2e-server-{name}.log", port=port, env=env)
    try:
        srv.wait_healthy(HANG_TIMEOUT_MS / 1000)
    except Exception:
        srv.stop()
        raise
    return srv


CONNECTED = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"


def test_the_room_survives_a_server_restart(chromium_path, browser, class_file):
    """The server restarts on the same SQLite file and address. The pages reconnect by themselves, no
    reload: the teacher's page finds the room from its cookie, its panel keeps refreshing (a student who
    joins after the restart is counted) and takes clicks (the reveal reaches the students)."""
    first = start_server(class_file, None, "restart_first")
    teacher = person(browser, "restart_teacher")
    pupil = person(browser, "restart_student", **PHONE)
    late = person(browser, "restart_late_student", **PHONE)
    second = None
    try:
        code = start_room(teacher, first.url)
        teacher_secret(teacher)
        pupil.open(f"{first.url}/Lessons?room={code}")
        teacher.page.get_by_role("button", name="Ask the class").click()
        answer(pupil, 1)
        wait_until(lambda: teacher.metric("Answered") == "1")
        for who in (teacher, pupil):
            mark_window(who)
        first.stop()
        for who in (teacher, pupil):  # each page sees the server gone before the new one starts
            expect(who.page.locator(CONNECTED)).to_have_count(0)
        second = start_server(class_file, first.port, "restart_second")  # same address, same file
        for who in (teacher, pupil):
            expect(who.page.locator(CONNECTED)).to_have_count(1)
            who.wait_for_run()
        expect(teacher.page.locator(".rbfviz-room-code")).to_have_text(format_code(code))
        assert controls(teacher) == list(TEACHER_BUTTONS)
        expect(pupil.page.get_by_text("Your answer is in")).to_be_visible()  # the student's seat and answer
        late.open(f"{second.url}/Lessons?room={code}")
        answer(late, 0)
        wait_until(lambda: teacher.metric("Answered") == "2" and teacher.metric("Question") == "open")
        teacher.page.get_by_role("button", name="Reveal the answer").click()
        wait_until(lambda: teacher.metric("Question") == "revealed")
        for who in (pupil, late):
            expect(who.page.get_by_role("heading", name="Why")).to_be_visible()
        verdict = "Right: the answer is" if int(LESSON.answer) == 1 else "Not quite"
        expect(pupil.page.get_by_text(verdict)).to_be_visible()  # the answer given before the restart
        for who in (teacher, pupil):
            assert not_reloaded(who), who.name
        assert not teacher.problems(), teacher.problems()
    finally:
        for who in (teacher, pupil, late):
            who.page.context.close()
        first.stop()
        if second is not None:
            second.stop()


def test_the_student_panel_on_a_phone(server, browser):
    teacher = person(browser, "phone_teacher")
    phone = person(browser, "phone_student", **PHONE)
    try:
        code = start_room(teacher, server.url)
        phone.open(f"{server.url}/Lessons")
        field = phone.page.get_by_role("textbox", name="Join a class: the room code")
        field.tap()
        field.fill(format_code(code).lower().replace("-", " "))  # as read aloud, in lower case
        sizes = phone.page.evaluate(TARGETS_JS, "[class*='st-key-class_touch_join'] :is(button, input)")
        assert sizes and all(box["height"] >= 44 for box in sizes), sizes
        with phone.rerun():
            phone.page.get_by_role("button", name="Join the class").tap()
        expect(phone.page.get_by_text(f"You are in class room {format_code(code)}")).to_be_visible()
        assert phone.query()["room"] == code
        teacher.page.get_by_role("button", name="Ask the class").click()
        expect(phone.page.get_by_text(LESSON.prompt)).to_be_visible()
        phone.wait_for_layout()
        panel = "[class*='st-key-class_touch_student']"
        sizes = phone.page.evaluate(
            TARGETS_JS, f"{panel} :is(button, input:not([type='radio']), [role='radiogroup'] label)"
        )
        assert len(sizes) == len(OPTIONS) + 1, "\n".join(map(str, sizes))  # every option, the send button
        assert all(box["height"] >= 44 and box["width"] >= 44 for box in sizes), sizes
        wide = phone.page.evaluate(TOO_WIDE_JS)
        assert wide["scroll"] <= wide["width"] == 390 and not wide["wide"], wide
        phone.screenshot("phone_question")
        phone.page.locator(panel).get_by_text(f"{chr(65 + 1)} · {OPTIONS[1]}").tap()
        phone.page.get_by_role("button", name="Send my answer").tap()
        expect(phone.page.get_by_text("Your answer is in")).to_be_visible()
        wait_until(lambda: teacher.metric("Answered") == "1")
        wide = phone.page.evaluate(TOO_WIDE_JS)
        assert wide["scroll"] <= wide["width"] and not wide["wide"], wide
        phone.keepsake("phone_answered")
        assert not phone.problems(), phone.problems()
    finally:
        teacher.page.context.close()
        phone.page.context.close()
