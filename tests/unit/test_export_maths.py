"""The lesson pack's equations as MathML (rbfviz.views.export.maths): every equation of every Lessons step
converts completely (no LaTeX source left, well-formed, symbols as operators, letters as identifiers),
keeps its source as alttext, and splits where it puts statements side by side; LaTeX that cannot be drawn
is a ValueError, never a page with source in it. How it looks: tests/e2e/test_e2e_export.py."""

import re
from xml.etree import ElementTree

import pytest

from rbfviz.views.export.maths import equation_html, mathml, parts
from rbfviz.views.lessons.arrays import STEPS

NS = "{http://www.w3.org/1998/Math/MathML}"
EQUATIONS = [equation for step in STEPS for equation in step.equations]


def tree(markup: str) -> ElementTree.Element:
    return ElementTree.fromstring(markup)


def test_the_lessons_have_equations():
    assert len(EQUATIONS) >= 9 and all(step.equations for step in STEPS)


@pytest.mark.parametrize("latex", [part for equation in EQUATIONS for part in parts(equation)])
def test_every_lesson_equation_becomes_mathml_with_no_latex_left(latex):
    root = tree(mathml(latex))
    assert root.tag == f"{NS}math" and root.get("display") == "block"
    assert root.get("alttext") == latex
    texts = [el.text for el in root.iter() if el.text]
    assert texts, "nothing to draw"
    assert not any("\\" in text or "$" in text for text in texts), texts
    # a brace is drawn only as a fence (\{ \}), never as a group's source
    assert not any("{" in (el.text or "") for el in root.iter() if el.tag != f"{NS}mo")
    for identifier in root.iter(f"{NS}mi"):
        # an identifier is a letter or a function name; a symbol is an operator (drawn with its spacing)
        assert all(ch.isalpha() for ch in identifier.text), identifier.text


def test_sim_is_the_relation_not_the_ascii_tilde():
    root = tree(mathml(r"u \sim \mathcal{N}(0, 1)"))
    operators = [el.text for el in root.iter(f"{NS}mo")]
    assert "\u223c" in operators
    assert "~" not in "".join(el.text or "" for el in root.iter())
    assert [el.text for el in root.iter(f"{NS}mi")][:2] == ["u", "\U0001d4a9"]  # 𝒩 stays a letter


@pytest.mark.parametrize("latex, symbol", [(r"a \iff b", "\u27fa"), (r"\{x : y\}", ":")])
def test_a_relation_typed_as_an_identifier_becomes_an_operator(latex, symbol):
    root = tree(mathml(latex))
    assert symbol in [el.text for el in root.iter(f"{NS}mo")]
    assert symbol not in [el.text for el in root.iter(f"{NS}mi")]


def test_the_alttext_is_the_escaped_source():
    markup = mathml(r'\text{"a"} < b')
    assert 'alttext="\\text{&quot;a&quot;} &lt; b"' in markup
    assert tree(markup).get("alttext") == r'\text{"a"} < b'


@pytest.mark.parametrize(
    "latex, message",
    [
        (r"\frac{1}{", "is not LaTeX that can be drawn"),
        (r"x \notacommand y", r"has LaTeX that MathML cannot draw: \notacommand"),
        (r"\text{a < b}", "did not become well-formed MathML"),
    ],
)
def test_latex_that_cannot_be_drawn_is_a_value_error(latex, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        mathml(latex)


def test_parts_split_at_top_level_quads_and_keep_a_lone_command_with_the_next_part():
    assert parts(r"a = 1, \qquad b = 2") == ["a = 1,", "b = 2"]
    assert parts(r"x \quad\Rightarrow\quad c") == ["x", r"\Rightarrow c"]
    assert parts(r"\text{x \quad y} = \frac{a \qquad b}{c}") == [r"\text{x \quad y} = \frac{a \qquad b}{c}"]
    assert parts(r"a \quadrature b") == [r"a \quadrature b"]
    assert parts(r"\{a\} \qquad b") == [r"\{a\}", "b"]


@pytest.mark.parametrize("equation", EQUATIONS)
def test_an_equation_is_one_box_of_its_parts_and_says_all_of_its_source(equation):
    box = tree(equation_html(equation))
    assert box.tag == "div" and box.get("class") == "equation"
    maths = list(box)
    assert all(m.tag == f"{NS}math" for m in maths)
    assert [m.get("alttext") for m in maths] == parts(equation)
    # the parts are the whole equation: only the spacing commands between them are left out
    joined = re.sub(r"\\q?quad(?![A-Za-z])|\s", "", equation)
    assert "".join(re.sub(r"\s", "", m.get("alttext")) for m in maths) == joined
