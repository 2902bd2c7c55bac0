"""AppTests of the Stability, Equivalence, Gaussian mixture and Neural network pages in Brazilian Portuguese
(``lang=pt-BR``): each runs without an exception, its key headings are Portuguese, the visible text of
the page's own body (titles, headers, markdown, captions, notices, metrics, widget labels, buttons, tabs,
expanders) has none of the common English words, its figures' titles and legends are Portuguese and use
",." as separators; the same page without ``lang`` still speaks English. The sidebar and the shared
page frame (ui.page) are another part of the translation and are not read here. n = 120."""

import json
import re
import time

import pytest
from app_page import open_page, page_path
from hang import HANG_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from ui import session_keys as keys

SMALL = {"dataset": "moons", "n": "120"}
PT = dict(SMALL, lang="pt-BR")
# Words that only English writes (surrounded by spaces: "a" or "do" would also be Portuguese).
ENGLISH_WORDS = (" the ", " and ", " of ", " is ", " with ", " to ", " which ", " every ", " from ")
# Each page: its menu label, a heading it shows in English and the same heading in Portuguese.
PAGES = {
    "Stability": (
        "Stability: which maps survive small σ, in which precision",
        "Estabilidade: quais mapas sobrevivem a σ pequeno, e em qual precisão",
    ),
    "Equivalence": (
        "Equivalence: a gradient step is a centroid step",
        "Equivalência: um passo de gradiente é um passo de centróide",
    ),
    "Gaussian mixture": (
        "Gaussian mixture: softmax is its E-step",
        "Mistura gaussiana: o softmax é o seu passo E",
    ),
    "Neural network": (
        "K-Means inside a neural network, trained live",
        "K-Means dentro de uma rede neural, treinada ao vivo",
    ),
}
# Elements of the page's body whose ``value`` is text, and those whose ``label`` is.
VALUE_ELEMENTS = (
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "info",
    "warning",
    "error",
    "success",
)
LABEL_ELEMENTS = ("metric", "button", "slider", "select_slider", "radio", "selectbox", "tab", "expander")


def body_text(at: AppTest) -> list[str]:
    """Every piece of visible text of the page's body (not the sidebar): values, labels, help texts."""
    texts = []
    for kind in VALUE_ELEMENTS:
        texts += [str(e.value) for e in at.main.get(kind)]
    for kind in LABEL_ELEMENTS:
        for e in at.main.get(kind):
            texts.append(str(e.label))
            texts.append(str(getattr(e, "help", None) or ""))
            if kind == "metric":
                texts.append(str(e.proto.help or ""))
    return [t for t in texts if t]


def english_in(texts: list[str]) -> list[str]:
    """The texts that contain one of ENGLISH_WORDS (LaTeX left out: formulas are not words)."""
    return [t for t in texts if any(w in f" {t.lower()} " for w in ENGLISH_WORDS) and not t.startswith("$$")]


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def figure_words(spec: dict) -> list[str]:
    """A figure's title, axis titles, annotations and legend names."""
    layout = spec["layout"]
    words = [((layout.get("title") or {}).get("text") or "")]
    words += [
        ((axis.get("title") or {}).get("text") or "")
        for key, axis in layout.items()
        if re.match(r"^[xy]axis\d*$", key) and isinstance(axis, dict)
    ]
    words += [a.get("text", "") for a in layout.get("annotations", [])]
    words += [t.get("name", "") for t in spec["data"] if t.get("showlegend", True)]
    return [w for w in words if w]


# The second setting shows the pages' notices: annealing's start, a map other than softmax, a data set
# the classifier does not offer.
NOTICES = {"dataset": "blobs", "n": "120", "init": "anneal", "kind": "naive", "lang": "pt-BR"}


@pytest.mark.parametrize("query", [PT, NOTICES], ids=["moons", "notices"])
@pytest.mark.parametrize("label", list(PAGES))
def test_page_in_portuguese_has_no_english_sentence(label, query):
    english, portuguese = PAGES[label]
    at = open_page(page_path(label), query)
    texts = body_text(at)
    assert portuguese in texts and english not in texts
    assert not english_in(texts), english_in(texts)
    specs = figures(at)
    for spec in specs:
        assert spec["layout"].get("separators") == ",.", spec["layout"].get("separators")
        words = figure_words(spec)
        assert not english_in(words), english_in(words)


@pytest.mark.parametrize("label", list(PAGES))
def test_page_without_lang_stays_english(label):
    english, portuguese = PAGES[label]
    at = open_page(page_path(label), SMALL)
    texts = body_text(at)
    assert english in texts and portuguese not in texts
    assert english_in(texts)  # a page of English sentences


def test_stability_figures_and_table_in_portuguese():
    at = open_page(page_path("Stability"), PT, session={keys.FAMILY_OPEN: True})  # the family's panel open
    words = [w for spec in figures(at) for w in figure_words(spec)]
    assert "<b>linhas NaN (%)</b>" in words and "σ (log; esfria →)" in words
    assert any(w.startswith("medido, float") for w in words)  # the α-entmax family's legend
    columns = list(at.dataframe[0].value.columns)
    assert "mapa" in columns and "% de linhas NaN" in columns
    assert any("Colapso exato" in s.value for s in at.subheader)


def test_mixture_table_and_metrics_in_portuguese():
    at = open_page(page_path("Gaussian mixture"), PT)
    labels = [m.label for m in at.metric]
    assert "log-verossimilhança por ponto" in labels
    value = {m.label: m.value for m in at.metric}["σ_j aprendido (σ fixo)"]
    assert "," in value  # the learned spreads, with the decimal comma
    columns = list(at.table[0].value.columns)
    assert "centro RBF c_j em σ" in columns
    (figure,) = figures(at)
    names = [t.get("name", "") for t in figure["data"]]
    assert "pontos (cor misturada por r)" in names and "círculo de raio σ" in names


def test_equivalence_metric_and_figures_in_portuguese():
    at = open_page(page_path("Equivalence"), PT)
    assert any(m.label.startswith("após 25 passos") for m in at.metric)
    words = [w for spec in figures(at) for w in figure_words(spec)]
    assert "descida do gradiente" in words and "passo t" in words and "limite" in words


def test_network_training_in_portuguese():
    """The low-σ comparison trained in Portuguese: its progress, table and figure in Portuguese."""
    at = open_page(page_path("Neural network"), PT)
    at.select_slider(key="low_epochs").set_value(20)
    at.slider(key="low_k").set_value(6)
    [b for b in at.button if "Treinar os três mapas" in b.label][0].click().run()
    deadline = time.perf_counter() + HANG_TIMEOUT_S
    while not at.dataframe:
        assert time.perf_counter() < deadline, "the low-σ comparison did not finish"
        time.sleep(0.2)
        at.run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert list(table["mapa"]) == ["exp/soma ingênuo", "softmax", "entmax-1.5"]
    assert table["passos pulados (NaN)"].tolist() == ["20 de 20", "0 de 20", "0 de 20"]
    texts = body_text(at)
    assert not english_in(texts), english_in(texts)
    (spec,) = figures(at)
    words = figure_words(spec)
    # long panel titles break into lines between words (curves_figure): read them joined
    joined = [word.replace("</b><br><b>", " ") for word in words]
    assert "<b>acurácia de teste (uma linha NaN conta como erro)</b>" in joined
    assert not english_in(words), english_in(words)
