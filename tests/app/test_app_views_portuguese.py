"""AppTests of the Explorer, Step by step, Annealing and How many clusters pages in Brazilian Portuguese
(``lang=pt-BR``): each runs without an exception, shows its key headings in Portuguese and no common
English word in the text it draws in the main area (titles, headings, paragraphs, captions, notices,
metrics, widget labels); the σ payloads a page sends carry Portuguese titles and words. Opened without
``lang`` the same pages still show their English text.

The sidebar and the pieces every page shares (ui.page, ui.exports, the "On the plane" tools of
ui.plane_tools) are checked by their own tests."""

from __future__ import annotations

import json
import re

import pytest
from app_page import ok, open_page, page_path
from streamlit.testing.v1 import AppTest

from rbfviz.views.common.scrub import read_payload
from ui import session_keys as keys

# Words that give an English sentence away; none of them is Portuguese.
ENGLISH_WORDS = (" the ", " and ", " of ", " is ", " with ", " to ")

SMALL = {"dataset": "blobs", "n": "120", "k": "3", "seed": "0"}
# page: (query, the title in English, in Portuguese, more Portuguese the page must show)
PAGES = {
    "Explorer": (
        SMALL,
        "Explorer: one σ, soft vs hard",
        "Explorador: um σ, suave vs rígido",
        ["Campo sob os pontos", "O que as cores são", "Escolha os centros iniciais clicando em pontos"],
    ),
    "Step by step": (
        {**SMALL, "steps": "EML"},
        "Step by step: E-step, M-step, Lloyd step",
        "Passo a passo: passo E, passo M, passo de Lloyd",
        ["Passos dados", "Passo E", "Iteração mostrada", "Velocidade (passos por segundo)"],
    ),
    "Annealing": (
        SMALL,
        "Annealing: from the data mean to K-Means as σ falls",
        "Recozimento: da média dos dados ao K-Means enquanto σ cai",
        [
            "1 · Os centros no plano",
            "2 · Bifurcações: onde os centros se dividem",
            "Reinícios contra recozimento",
        ],
    ),
    "How many clusters": (
        {"dataset": "moons", "n": "120"},
        "How many clusters? Three answers",
        "Quantos grupos? Três respostas",
        ["Melhor silhueta", "Por que as três podem discordar", "2 · O cotovelo de J(k)"],
    ),
}


def visible_text(at: AppTest) -> list[str]:
    """Every text a reader sees in the page's main area (not the sidebar): titles, headings, markdown,
    captions, notices, metric labels and values, and the labels and help of buttons and widgets."""
    main = at.main
    texts = []
    for kind in (
        "title",
        "header",
        "subheader",
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
    ):
        texts += [str(element.value) for element in main.get(kind)]
    for metric in main.get("metric"):
        texts += [metric.label, str(metric.value), metric.proto.help]
    for kind in ("button", "slider", "select_slider", "radio", "selectbox", "text_input", "number_input"):
        for widget in main.get(kind):
            if widget.key == keys.PLANE_MODE:
                continue
            texts += [widget.label, getattr(widget.proto, "help", "")]
            if kind in ("radio", "selectbox"):
                texts += [str(option) for option in widget.options]
    texts += [expander.label for expander in main.expander]
    return [text for text in texts if text and not text.startswith("<style>")]


def english_words(texts: list[str]) -> list[str]:
    """The texts that hold a common English word."""
    return [text for text in texts if any(word in f" {text.lower()} " for word in ENGLISH_WORDS)]


@pytest.mark.parametrize("label", list(PAGES))
def test_a_page_in_portuguese_has_no_english_sentence(label):
    query, english_title, title, more = PAGES[label]
    at = open_page(page_path(label), {**query, "lang": "pt-BR"})
    ok(at)
    assert [t.value for t in at.title] == [title]
    texts = visible_text(at)
    joined = "\n".join(texts)
    for text in more:
        assert text in joined, f"{text!r} not on the {label} page"
    assert english_title not in joined
    assert english_words(texts) == []


@pytest.mark.parametrize("label", list(PAGES))
def test_the_same_page_without_lang_is_english(label):
    query, english_title, title, _ = PAGES[label]
    at = open_page(page_path(label), query)
    ok(at)
    assert [t.value for t in at.title] == [english_title]
    assert title not in "\n".join(visible_text(at))


def payload_text(at: AppTest, index: int = 0) -> str:
    """The words inside the ``index``-th σ payload the page sends: its figure, side numbers and "In
    words" texts at every level, as JSON text."""
    header = read_payload(at.get("bidi_component")[index].proto.bytes)
    return json.dumps(header, ensure_ascii=False, default=str)


@pytest.mark.parametrize(
    ("label", "english", "portuguese"),
    [
        (
            "Explorer",
            ["RBF centres c_j", "K-Means centroids", "Centres shown"],
            ["centros RBF c_j", "Centros mostrados"],
        ),
        (
            "Annealing",
            ["RBF centres c_j at σ", "whole path as σ falls"],
            ["centros RBF c_j em σ", "trajetória inteira"],
        ),
    ],
)
def test_the_sigma_payload_is_in_the_page_s_language(label, english, portuguese):
    query = PAGES[label][0]
    portuguese_payload = payload_text(open_page(page_path(label), {**query, "lang": "pt-BR"}))
    english_payload = payload_text(open_page(page_path(label), query))
    for text in portuguese:
        assert text in portuguese_payload and text not in english_payload
    for text in english:
        assert text in english_payload and text not in portuguese_payload
    # the numbers in the words have a decimal comma in Portuguese ("σ = 0,529"), a point in English
    assert re.search(r"σ = \d+,\d", portuguese_payload) and not re.search(r"σ = \d+,\d", english_payload)
