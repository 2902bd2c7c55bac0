"""The Lessons page and its class session in Brazilian Portuguese: every step's title, task, question and
options on screen are the catalog's Portuguese, no common English word is left in the page's own text, the
same page in English is still English, and a room holds a teacher in English and a student in Portuguese
answering the same question (the student reads it in Portuguese, the teacher counts the answer)."""

import html
from urllib.parse import parse_qsl, urlsplit

import pytest
from app_page import open_page, page_path
from streamlit.testing.v1 import AppTest
from test_app_class_session import figure_counts, start_class

from rbfviz.classroom import format_code
from rbfviz.i18n import translator
from rbfviz.views.lessons.arrays import STEPS, VIEW_NAMES, prepare
from ui import classroom, session_keys

LESSONS = page_path("Lessons")
PT = translator("pt-BR")
# words of English sentences that Portuguese text does not contain (with their spaces)
ENGLISH_WORDS = (" the ", " and ", " of ", " is ", " with ", " to ", " your ", " this ")
# the lessons are computed once per test module: all of them on one pytest-xdist worker
pytestmark = pytest.mark.xdist_group("lessons")


@pytest.fixture(autouse=True)
def class_database(tmp_path, monkeypatch):
    monkeypatch.setenv("RBFVIZ_DATABASE_URL", f"sqlite:///{tmp_path / 'class.sqlite3'}")
    monkeypatch.delenv("RBFVIZ_PUBLIC_URL", raising=False)


def main_text(at: AppTest) -> str:
    """The words of the page's main area a reader sees: headings, text, notices, widget labels and
    options, buttons and links (not the CSS blocks, not the sidebar, whose controls other pages own)."""
    main = at.main
    parts = [e.value for e in (*main.title, *main.header, *main.subheader, *main.caption)]
    parts += [e.value for e in main.markdown if not e.value.lstrip().startswith("<style>")]
    parts += [e.value for e in (*main.info, *main.success, *main.warning, *main.error)]
    parts += [b.proto.label for b in main.button] + [b.proto.help for b in main.button if b.proto.help]
    parts += [link.proto.label for link in main.get("page_link")]
    parts += [m.label for m in main.metric] + [e.label for e in main.expander]
    parts += [d.proto.label for d in main.get("download_button")]
    for widget in (*main.radio, *main.selectbox, *main.number_input, *main.text_input):
        parts.append(widget.label)
        parts += [widget.help] if widget.help else []
    for widget in (*main.radio, *main.selectbox):
        parts += list(widget.options)
    return "\n".join(str(part) for part in parts)


def english_words_in(text: str) -> list[str]:
    flat = " " + " ".join(text.split()).lower() + " "
    return [word for word in ENGLISH_WORDS if word in flat]


@pytest.mark.parametrize("number", range(1, len(STEPS) + 1))
def test_every_step_is_portuguese(number):
    step = STEPS[number - 1]
    at = open_page(LESSONS, {"lang": "pt-BR", "lesson": str(number)})
    lesson = prepare(step, PT)
    assert at.main.title[0].value == "Lições: do K-Means a uma rede RBF, e de volta"
    assert at.main.header[0].value == f"Passo {number} de {len(STEPS)} · {PT(step.title)}"
    assert lesson.title != step.title and lesson.prompt != step.question.prompt
    assert lesson.task in [m.value for m in at.main.markdown]
    assert "Primeiro, preveja" in [s.value for s in at.main.subheader]
    view = PT(VIEW_NAMES[step.view])
    (link,) = [
        link
        for link in at.main.get("page_link")
        if link.proto.label == f"**Abrir {view} com estas configurações**"
    ]
    assert "lang=pt-BR" in link.proto.query_string  # the lesson link opens the view in Portuguese
    if step.question.is_choice:
        (radio,) = at.main.radio
        assert radio.label == lesson.prompt
        shown = [radio.format_func(i) for i in range(len(lesson.options))]
        assert shown == list(lesson.options) == [PT(option) for option in step.question.options]
    else:
        # a text field: a typed decimal comma is read (ui.language.number_field)
        box = at.text_input(key=f"lesson_{step.key}_answer")
        assert box.label == lesson.prompt and "conta como certo" in box.help
    # every step title in the step chooser
    assert [at.main.selectbox[0].format_func(i) for i in range(len(STEPS))] == [
        f"{i + 1} · {PT(s.title)}" for i, s in enumerate(STEPS)
    ]
    text = main_text(at)
    assert english_words_in(text) == [], text


def test_a_typed_answer_that_is_not_a_number_says_so_in_portuguese():
    at = open_page(LESSONS, {"lang": "pt-BR", "lesson": "3"})
    at.text_input(key="lesson_anneal_answer").set_value("meio").run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Digite um número, como 0,25."]
    assert [b for b in at.button if b.key == "lesson_anneal_check"][0].disabled


def test_a_checked_answer_and_its_explanation_are_portuguese():
    at = open_page(LESSONS, {"lang": "pt-BR", "lesson": "3"})
    lesson = prepare(STEPS[2], PT)
    typed = PT.number(round(lesson.answer, 2), ".2f")
    assert "," in typed  # typed as a Brazilian writes it
    at.text_input(key="lesson_anneal_answer").set_value(typed).run()
    [b for b in at.button if b.key == "lesson_anneal_check"][0].click().run()
    assert not at.exception
    assert at.success[0].value.startswith("Certo: a resposta é ")
    assert lesson.explanation in [m.value for m in at.main.markdown]
    assert "," in lesson.explanation.split("σ_c = √λ_max = ")[1][:8]  # 0,529: the decimal comma
    assert english_words_in(main_text(at)) == []


def test_the_same_step_in_english_stays_english():
    at = open_page(LESSONS, {"lang": "en", "lesson": "1"})
    assert at.main.title[0].value == "Lessons: from K-Means to an RBF network and back"
    assert at.main.header[0].value == f"Step 1 of {len(STEPS)} · {STEPS[0].title}"
    assert at.main.radio[0].label == STEPS[0].question.prompt
    assert "Predict first" in [s.value for s in at.main.subheader]


def send_answer(student: AppTest, key: str, option: int) -> None:
    student.radio(key=f"class_answer_{key}").set_value(option)  # inside the form: sent with it
    student.button(key=f"send_class_answer_{key}").click().run()
    assert not student.exception, student.exception


def test_a_teacher_in_english_and_a_student_in_portuguese_share_one_question():
    teacher, code = start_class()  # English: no lang in the teacher's address
    join = [m.value for m in teacher.markdown if f"room={code}" in m.value]
    assert join and "lang=en" in join[0]  # the projected link opens in the teacher's language
    student = open_page(LESSONS, {"room": code, "lang": "pt-BR"})
    assert any("Esperando o professor" in i.value for i in student.info)
    teacher.button(key="class_ask").click().run()
    student.run()
    voronoi_en, voronoi_pt = prepare(STEPS[0]), prepare(STEPS[0], PT)
    assert f"**Passo 1: {voronoi_pt.prompt}**" in [m.value for m in student.markdown]
    radio = student.radio(key="class_answer_voronoi")
    assert radio.label == "Sua resposta"
    assert [radio.format_func(i) for i in range(3)] == [
        f"{chr(65 + i)} · {o}" for i, o in enumerate(voronoi_pt.options)
    ]
    send_answer(student, "voronoi", 1)
    assert any(s.value.startswith("Sua resposta foi registrada: ") for s in student.success)
    teacher.run()
    assert figure_counts(teacher) == [0, 1, 0]  # the student's answer, on the teacher's question
    assert [m.value for m in teacher.metric if m.label == "Answered"] == ["1"]
    assert voronoi_en.options[1] in " ".join(
        m.value for m in teacher.markdown
    )  # the teacher's options: English
    teacher.button(key="class_reveal").click().run()
    student.run()
    assert any(s.value.startswith("Certo: a resposta é “one-hot") for s in student.success)
    assert voronoi_pt.explanation in [m.value for m in student.markdown]
    assert english_words_in(main_text(student)) == [], main_text(student)


def test_a_portuguese_student_types_a_number_answer_with_a_decimal_comma():
    teacher, code = start_class({"lesson": "3"})
    student = open_page(LESSONS, {"room": code, "lang": "pt-BR", "lesson": "3"})
    teacher.button(key="class_ask").click().run()
    student.run()
    student.run()
    anneal = prepare(STEPS[2])
    typed = PT.number(anneal.answer, ".3f")
    assert "," in typed
    student.text_input(key="class_answer_anneal").set_value(typed)
    student.button(key="send_class_answer_anneal").click().run()
    assert not student.exception, student.exception
    assert any(s.value.startswith("Sua resposta foi registrada") for s in student.success), student.error
    tally = classroom.class_store().tally(code, teacher.session_state[session_keys.CLASS_TEACHER][1])
    assert list(tally.values) == [pytest.approx(float(f"{anneal.answer:.3f}"))]  # "2,043" read as 2.043


def test_a_teachers_portuguese_join_link_opens_in_portuguese():
    teacher = open_page(LESSONS, {"presenter": "1", "lang": "pt-BR"})
    start = teacher.button(key="start_class_session")
    assert start.proto.label == "Iniciar uma sessão de aula"
    start.click().run()
    code, _ = teacher.session_state[session_keys.CLASS_TEACHER]
    banner = " ".join(m.value for m in teacher.markdown)
    assert "**Entre na turma:**" in banner
    (link,) = [m.value for m in teacher.markdown if f"room={code}" in m.value]
    query = dict(parse_qsl(urlsplit(html.unescape(link.split(">")[1].split("<")[0])).query))
    assert query == {"room": code, "lang": "pt-BR"}
    teacher.button(key="class_ask").click().run()  # the teacher's screen, a question asked: Portuguese
    assert [m.label for m in teacher.metric] == ["Alunos na sala", "Responderam", "Pergunta"]
    assert english_words_in(main_text(teacher)) == [], main_text(teacher)
    student = open_page(LESSONS, query)  # the join link as a student's phone opens it
    assert any(f"Você está na sala **{format_code(code)}**" in i.value for i in student.info)
    assert main_text(student) and english_words_in(main_text(student)) == []


def test_the_stores_refusals_are_told_in_the_readers_language():
    student = open_page(LESSONS, {"room": "0000-0000", "lang": "pt-BR"})
    assert [e.value for e in student.error] == [
        "Nenhuma sala tem este código (ou ela já foi encerrada). Confira o código no projetor."
    ]
    assert session_keys.CLASS_TEACHER not in student.session_state
