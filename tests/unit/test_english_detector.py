"""The English detector of the languages' browser test (tests/e2e/english.py): Portuguese sentences (the
glossary's words, the catalog's translations) are never English; English sentences and labels (the
catalog's messages) are; the terms that stay English in every language do not make a sentence English."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("english", ROOT / "tests" / "e2e" / "english.py")
english = sys.modules.setdefault("english", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(english)

PO = ROOT / "rbfviz" / "locale" / "pt_BR" / "LC_MESSAGES" / "rbfviz.po"

PORTUGUESE = [
    "Explorador: um σ, suave contra rígida",
    "Passo a passo",
    "Recozimento determinístico: os centros enquanto o σ cai",
    "Quantos grupos?",
    "Mistura gaussiana",
    "A atribuição rígida do K-Means é o limite do softmax quando σ → 0.",
    "Em palavras: 487 de 500 pontos são one-hot em σ = 0,0529.",
    "Cada ponto é colorido pelas suas responsabilidades; as arestas de Voronoi são as do K-Means.",
    "O entmax-1.5 dá zeros exatos abaixo de σ* = √g_min/2; o softmax só chega lá em ponto flutuante.",
    "A perda L_σ e a distorção J dos centróides, com a taxa de aprendizado η = 1/(2N_j).",
    "Baixar os pontos (CSV) · Baixar a figura (PNG) · Baixar a figura (SVG)",
    "Recibo de reprodutibilidade: o código Python que recalcula estes números.",
    "Entrar na turma: digite o código da sala que o professor mostra.",
    "Revelar a resposta",
    "Modo apresentação",
    "Sementes e ruído: os dados mudam a cada semente.",
    "Seus próprios dados: envie um arquivo CSV com duas colunas numéricas.",
    "Precisão: float32 ou float64",
    "Inicialização: k-means++, k pontos sorteados ou pontos mais distantes",
    "Mapa: softmax, entmax-1.5, sparsemax, α-entmax ou exp/soma ingênua",
    "O parâmetro de URL `lang=xx` não é um idioma deste app (en, pt-BR); mostrando Português (Brasil).",
    "Reproduzir · Pausar · Passo E · Passo M · Passo de Lloyd",
    "O EM da mistura gaussiana aprende σ_j e π_j; a rede RBF os mantém fixos.",
    "A sonda mostra o vetor r de um ponto do plano; ela segue o σ.",
    "Idioma · Language",
    "Mova σ com o controle deslizante (arraste, ou selecione e use as setas, Page Up/Down, Home e End).",
]
ENGLISH = [
    "Explorer: one σ, soft vs hard",
    "Rest the pointer on the plane, or tap it, to see that location's responsibilities r; they follow σ.",
    "The URL holds these controls and σ: copy it to share this view with them.",
    "K-Means' hard assignment is the limit of softmax as σ → 0.",
    "In words: 487 of 500 points are one-hot at σ = 0.0529.",
    "Start a class session",
    "Send my answer",
    "Your answer is in",
    "Reveal the answer",
    "Presenter mode",
    "Download the points",
    "Points",
    "k random points",
    "entmax-1.5 gives exact zeros below σ*; softmax only gets there in floating point.",
    "Seed (for the starting centres)",
    "Clusters k",  # a label of one English word and a name
]


@pytest.mark.parametrize("sentence", PORTUGUESE)
def test_portuguese_is_not_english(sentence):
    assert english.english_segments(sentence) == []


@pytest.mark.parametrize("sentence", ENGLISH)
def test_english_is_found(sentence):
    assert english.english_segments(sentence) != []


def test_only_the_english_lines_of_a_mixed_page_are_reported():
    page = "Explorador: um σ, suave contra rígida\nShow the points and their centres\nModo apresentação\n"
    assert english.english_segments(page) == ["Show the points and their centres"]


def test_terms_that_stay_english_and_addresses_are_not_english_words():
    assert english.english_words("softmax, entmax-1.5, K-Means, k-means++, CSV, JSON, float32, NaN") == []
    assert english.english_words("abra /Explorer?lang=pt-BR&dataset=moons ou lang=en") == []
    assert english.english_words("{count} de {total} pontos em `steps=EM`") == []


def _catalog():
    with PO.open("rb") as handle:
        return [m for m in read_po(handle, locale="pt_BR") if m.id]


def _forms(value) -> list[str]:
    return [v for v in (value if isinstance(value, tuple | list) else (value,)) if v]


def test_no_translation_in_the_catalog_reads_as_english():
    """Every Portuguese translation the app shows passes (no false alarm on the real texts)."""
    flagged = {
        text: found
        for message in _catalog()
        for text in _forms(message.string)
        if (found := english.english_segments(text))
    }
    assert flagged == {}


def test_the_catalogs_english_sentences_are_found():
    """Of the catalog's English messages of four words or more, at least 90 % read as English (the
    rest are mostly names and notation)."""
    long = [text for message in _catalog() for text in _forms(message.id) if len(english._words(text)) >= 4]
    assert long, "the catalog has no sentences"
    found = [text for text in long if english.english_segments(text)]
    missed = sorted(set(long) - set(found))
    assert len(found) >= 0.9 * len(long), f"{len(found)} of {len(long)} found; missed: {missed[:20]}"
