"""The app's shell in the reader's language (AppTest): the Home page, the sidebar (labels, tooltips,
captions, the σ control), the menu, the language switch and the notices of a bad ``lang``, and a decimal
number typed with a comma in Portuguese. The views' own words are tested with each view."""

from __future__ import annotations

import pytest
from app_page import app, ok, page_path

from rbfviz.i18n import translator
from ui import session_keys as keys
from ui.page import HELP, HOME_TITLE, PAGES

PT = translator("pt-BR")
# Words that give an English sentence away; none is a Portuguese word (" a " and " do " would be)
ENGLISH_WORDS = (" the ", " and ", " of ", " is ", " with ", " to ")


def sidebar_text(at) -> list[str]:
    """Every word the sidebar shows: its controls' labels, tooltips and options, its markdown (headings),
    captions, expanders and menu links."""
    side = at.sidebar
    texts = []
    for kind in ("selectbox", "number_input", "text_input", "slider", "radio", "toggle", "select_slider"):
        for widget in side.get(kind):
            texts += [widget.proto.label, widget.proto.help]
            if kind in ("selectbox", "radio"):
                texts += list(widget.options)  # as shown (format_func applied)
    texts += [m.value for m in side.markdown if not m.value.startswith("<style>")]
    texts += [c.value for c in side.caption]
    texts += [e.proto.label for e in side.get("expander")]
    texts += [link.proto.label for link in side.get("page_link")]
    texts += [u.proto.label + " " + u.proto.help for u in side.get("file_uploader")]
    return [t for t in texts if t]


def english_in(texts: list[str]) -> list[str]:
    """The texts that read as English sentences (a common English word in them)."""
    return [t for t in texts if any(word in f" {t.lower()} " for word in ENGLISH_WORDS)]


def test_home_in_portuguese():
    """lang=pt-BR: the Home page's title, headings and paragraphs, the menu and the whole sidebar speak
    Portuguese; the same page in English speaks English."""
    at = app({"lang": "pt-BR"})
    at.run()
    ok(at)
    assert [t.value for t in at.title] == ["O K-Means é o limite σ → 0 de uma rede RBF"]
    headings = [h.value for h in at.subheader]
    assert {"Uma convenção, usada em toda parte", "Visualizações", "Em sala de aula", "Documentação"} <= set(
        headings
    )
    shown = "\n".join(m.value for m in at.main.markdown) + "\n".join(c.value for c in at.main.caption)
    assert "Uma rede de funções de base radial (RBF)" in shown and "- **Lições** percorrem" in shown
    assert "A radial-basis-function" not in shown and "walk through the result" not in shown
    links = [link.proto.label for link in at.main.get("page_link")]
    assert "**Explorador** — o plano em um σ: campo suave, pontos, centros, os números" in links
    side = sidebar_text(at)
    assert {"Início", "Explorador", "Recozimento", "Quantos grupos", "Mistura gaussiana", "Lições"} <= set(
        side
    )
    assert {
        "Conjunto de dados",
        "Pontos n",
        "Semente dos dados",
        "Ruído (unidades do gerador)",
        "Mapa",
    } <= set(side)
    assert PT(HELP["dataset"]) in side and "**Temperatura** (logits z = −‖x − c‖² / (2σ²))" in side
    assert not english_in(side + headings + [t.value for t in at.title] + links), english_in(side)
    # the dataset menu's names too (options shown by format_func)
    assert "luas" in side and "blobs de tamanhos diferentes" in side

    english = app({"lang": "en"})
    english.run()
    ok(english)
    assert [t.value for t in english.title] == [HOME_TITLE]
    side = sidebar_text(english)
    assert {"Home", "Explorer", "Dataset", "Points n", "Noise (generator units)"} <= set(side)
    assert HELP["dataset"] in side


def test_every_page_title_follows_the_language():
    """setup_page translates the English page names (PAGES) for the menu; the page config's title too."""
    for _, name, _ in PAGES:
        assert PT(name) != name or name == "K-Means", name


def test_switching_language_in_the_sidebar_keeps_every_other_control():
    at = app({"dataset": "moons", "k": "4", "kind": "entmax15", "seed": "7"})
    at.run()
    ok(at)
    before = dict(at.query_params)
    assert before["lang"] == "en"
    at.selectbox(key=keys.widget("lang")).set_value("pt-BR").run()
    ok(at)
    after = dict(at.query_params)
    assert after["lang"] == "pt-BR"
    assert {k: v for k, v in after.items() if k != "lang"} == {k: v for k, v in before.items() if k != "lang"}
    assert [t.value for t in at.title] == ["O K-Means é o limite σ → 0 de uma rede RBF"]
    assert at.selectbox(key=keys.widget("dataset")).label == "Conjunto de dados"
    at.selectbox(key=keys.widget("lang")).set_value("en").run()
    assert dict(at.query_params) == before


def test_an_unknown_language_gives_a_notice_and_falls_back():
    at = app({"lang": "xx", "k": "4"})
    at.run()
    ok(at)
    notices = [w.value for w in at.warning]
    assert any("`lang=xx`" in note and "English" in note for note in notices), notices
    assert at.query_params["lang"] == "en" and at.query_params["k"] == "4"
    assert [t.value for t in at.title] == [HOME_TITLE]


@pytest.mark.parametrize("typed", ["0,35", "0.35", " 0,35 "])
def test_noise_typed_with_a_decimal_comma_in_portuguese(typed):
    """Chromium's number input drops a typed comma ("0,35" would become 35): in Portuguese the noise is a
    text read by tr.parse_number, with the same key, control and address as the English number input."""
    at = app({"lang": "pt-BR", "dataset": "moons"})
    at.run()
    noise = at.text_input(key=keys.widget("noise"))
    assert noise.label == "Ruído (unidades do gerador)" and noise.value == "0,1"
    noise.set_value(typed).run()
    ok(at)
    assert at.query_params["noise"] == "0.35"
    assert at.text_input(key=keys.widget("noise")).value == "0,35"
    assert not at.warning


@pytest.mark.parametrize("typed", ["abc", "12,5", "-1"])
def test_a_bad_typed_noise_keeps_the_old_one_and_says_why(typed):
    at = app({"lang": "pt-BR", "dataset": "moons"})
    at.run()
    at.text_input(key=keys.widget("noise")).set_value(typed).run()
    ok(at)
    assert at.query_params["noise"] == "0.1"
    notices = [w.value for w in at.warning]
    said = f"“{typed}” não é um número de 0 a 10: Ruído (unidades do gerador) continua 0,1."
    assert said in notices, notices


def test_noise_stays_a_number_input_in_english():
    at = app({"dataset": "moons"})
    at.run()
    at.number_input(key=keys.widget("noise")).set_value(0.35).run()
    ok(at)
    assert at.query_params["noise"] == "0.35"


def test_the_sigma_control_and_its_captions_in_portuguese():
    """A page whose σ is in the sidebar (Gaussian mixture): the select slider's values with a decimal
    comma, the captions with the language's numbers."""
    at = app({"lang": "pt-BR"})
    at.switch_page(page_path("Gaussian mixture")).run()
    assert not at.exception, at.exception
    sigma = at.sidebar.select_slider(key=keys.widget("sigma"))
    assert sigma.label == "σ (escala log)"
    shown = sigma.format_func(sigma.value)
    assert "," in shown or "." not in str(sigma.value), shown
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.startswith("Primeira bifurcação σ_c: softmax ") for c in captions), captions
    assert not english_in(captions), captions


def test_a_sigma_out_of_range_is_explained_in_portuguese():
    at = app({"lang": "pt-BR", "sigma": "100"})
    at.switch_page(page_path("Gaussian mixture")).run()
    assert not at.exception, at.exception
    notices = [w.value for w in at.warning]
    assert any(n.startswith("σ = 100 está fora do intervalo deste conjunto de dados [0,") for n in notices), (
        notices
    )


def test_an_upload_and_a_bad_file_are_told_in_portuguese():
    at = app({"lang": "pt-BR", "dataset": "spiral"})
    at.run()
    at.file_uploader(key="upload_file").set_value(
        ("ruim.csv", b"x,y\n1,2\n3,quatro\n5,6\n", "text/csv")
    ).run()
    assert not at.exception, at.exception
    (error,) = [e.value for e in at.error]
    assert error.startswith('**ruim.csv não foi carregado.** Linha 3, coluna "y": "quatro" não é um número.')
    assert error.endswith("Nada mais mudou: a visualização continua mostrando os dados espiral.")
    assert at.query_params["dataset"] == "spiral"
    good = b"a;b;rotulo\n1,5;2,5;x\n3,5;4;y\n0;1;z\n"
    at.file_uploader(key="upload_file").set_value(("bom.csv", good, "text/csv")).run()
    assert not at.exception, at.exception
    (success,) = [s.value for s in at.success]
    assert success.startswith("Carregado: bom.csv: 3 pontos, x = a, y = b.")
    assert "Os valores são separados por ponto e vírgula." in success
    assert "Colunas sem números foram ignoradas: rotulo." in success
    captions = [c.value for c in at.sidebar.caption]
    assert "**bom.csv: 3 pontos, x = a, y = b** (em uso)." in captions, captions
