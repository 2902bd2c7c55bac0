"""LaTeX equations as MathML, for the offline pages: the browser draws MathML itself (MathML Core, in
Chromium, Edge, Firefox and Safari), so an equation needs no script, no font file and no network.

    mathml("\\bar x_j = \\frac{\\sum_i r_{ij} x_i}{\\sum_i r_{ij}}")  # '<math display="block" ...>...</math>'
    equation_html(latex)  # a <div class="equation"> of its parts: side by side, or one under another

An equation that states several things side by side, spaced by ``\\quad`` or ``\\qquad``, becomes one
MathML element per part, so that on a narrow screen the parts wrap onto lines of their own (page.css)
instead of running off the screen.

The conversion is latex2mathml's, with two corrections for what its version here gets wrong in the lessons'
LaTeX: it reads ``\\sim`` as the ASCII tilde (U+223C, the relation, is what LaTeX draws), and it types some
relations (⟺, :) as identifiers, which draws them with no space around. A LaTeX command it does not know
would come out as its own source; that, and MathML that is not well-formed, raise ValueError instead.
"""

from __future__ import annotations

import html
import re
import unicodedata
from xml.etree import ElementTree

from latex2mathml.converter import convert

# latex2mathml's \thicksim is U+223C as an operator, the character LaTeX's \sim draws.
_SIM = re.compile(r"\\sim(?![A-Za-z])")
# an identifier holding one character that is not a letter (⟺ as &#x027FA;, or ":"): an operator
_SYMBOL_IDENTIFIER = re.compile(r"<mi>(&#x[0-9A-Fa-f]+;|[^<&\w])</mi>")


def _is_letter(entity_or_char: str) -> bool:
    return unicodedata.category(html.unescape(entity_or_char)).startswith("L")


def _as_operator(match: re.Match) -> str:
    symbol = match.group(1)
    return match.group(0) if _is_letter(symbol) else f"<mo>{symbol}</mo>"


def mathml(latex: str) -> str:
    """One LaTeX equation (math mode, no $ delimiters) as a display MathML element; its LaTeX source is the
    element's alttext. Raises ValueError if the LaTeX does not convert completely."""
    try:
        converted = convert(_SIM.sub(r"\\thicksim", latex), display="block")
    except Exception as exc:  # latex2mathml raises its own errors, and IndexError on unbalanced braces
        raise ValueError(f"the equation {latex!r} is not LaTeX that can be drawn: {exc!r}") from exc
    converted = _SYMBOL_IDENTIFIER.sub(_as_operator, converted)
    try:
        root = ElementTree.fromstring(converted)
    except ElementTree.ParseError as exc:
        raise ValueError(f"the equation {latex!r} did not become well-formed MathML: {exc}") from exc
    leftover = [el.text for el in root.iter() if el.text and "\\" in el.text]
    if leftover:
        raise ValueError(f"the equation {latex!r} has LaTeX that MathML cannot draw: {', '.join(leftover)}")
    alttext = html.escape(latex, quote=True)
    return converted.replace("<math ", f'<math alttext="{alttext}" ', 1)


def parts(latex: str) -> list[str]:
    """The equation split at each ``\\quad`` or ``\\qquad`` outside braces: the statements it puts side by
    side. A part that is one command alone (``\\quad\\Rightarrow\\quad``) goes with the part after it."""
    pieces, depth, start = [], 0, 0
    for match in re.finditer(r"\\q?quad(?![A-Za-z])|\\[{}]|[{}]", latex):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token.startswith("\\q") and depth == 0:
            pieces.append(latex[start : match.start()].strip())
            start = match.end()
    pieces.append(latex[start:].strip())
    out, carried = [], ""
    for piece in filter(None, pieces):
        if re.fullmatch(r"\\[A-Za-z]+", piece):
            carried += piece + " "
        else:
            out.append(carried + piece)
            carried = ""
    return out + ([carried.strip()] if carried else [])


def equation_html(latex: str) -> str:
    """The equation as a block of MathML elements, one per part (``parts``)."""
    return '<div class="equation">' + "".join(mathml(part) for part in parts(latex)) + "</div>"
