"""The documentation's build hooks (docs/tools/hooks.py): generated tables go where a page's markers are."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "tools" / "hooks.py")
hooks = sys.modules.setdefault("docs_hooks", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(hooks)

RESULTS = """| a | b |
|---|---|
| 1 | 2 |

| split | σ |
|---|---|
| 1 | 0.5 |

| α | σ* |
|---|---|
| 1.5 | 0.1 |
"""
PAGE = SimpleNamespace(file=SimpleNamespace(src_path="maths/claims.md"))


def test_results_split_into_the_three_named_tables():
    tables = hooks.split_tables(RESULTS)
    assert list(tables) == ["collapse", "splits", "alpha"]
    assert tables["splits"] == "| split | σ |\n|---|---|\n| 1 | 0.5 |"


def test_a_results_file_with_another_number_of_tables_is_an_error():
    with pytest.raises(PluginError, match="wrote 2 tables"):
        hooks.split_tables(RESULTS.rsplit("\n\n", 1)[0])


def test_markers_are_replaced_and_code_is_left_alone(monkeypatch):
    monkeypatch.setattr(hooks, "_tables", hooks.split_tables(RESULTS))
    monkeypatch.setattr(hooks, "_run_note", "computed now")
    page = (
        "Made: <!-- reproduce:note -->.\n\n<!-- reproduce:alpha -->\n\nThe marker `<!-- reproduce:NAME -->`."
    )
    out = hooks.on_page_markdown(page, page=PAGE, config=None, files=None)
    table = "| α | σ* |\n|---|---|\n| 1.5 | 0.1 |"
    assert out == f"Made: computed now.\n\n{table}\n\nThe marker `<!-- reproduce:NAME -->`."


def test_computed_markers_are_replaced(monkeypatch):
    monkeypatch.setattr(hooks, "_computed", {})
    monkeypatch.setattr(hooks, "_computed_tables", lambda: {"how-many": lambda: "| table |"})
    out = hooks.on_page_markdown("A\n\n<!-- computed:how-many -->\n", page=PAGE, config=None, files=None)
    assert out == "A\n\n| table |\n"


def test_an_unknown_marker_is_an_error(monkeypatch):
    monkeypatch.setattr(hooks, "_tables", hooks.split_tables(RESULTS))
    with pytest.raises(PluginError, match="unknown marker reproduce:nothing"):
        hooks.on_page_markdown("<!-- reproduce:nothing -->", page=PAGE, config=None, files=None)
    monkeypatch.setattr(hooks, "_computed_tables", lambda: {"how-many": lambda: "| table |"})
    with pytest.raises(PluginError, match="unknown marker computed:nothing"):
        hooks.on_page_markdown("<!-- computed:nothing -->", page=PAGE, config=None, files=None)


# --- the site works with no internet ----------------------------------------------------------------

NOTEBOOK = SimpleNamespace(file=SimpleNamespace(src_path="library/tour.ipynb"))
NOTEBOOK_HTML = (
    '<head><!-- Load mathjax --> <script src=""> </script> <!-- MathJax configuration -->'
    '<script type="text/x-mathjax-config">init_mathjax();</script> <!-- End of mathjax configuration -->'
    "</head><body><p>logits $z_{ij} = -\\lVert x_i - c_j\\rVert^2 / (2\\sigma^2)$ and</p>"
    "<pre>cost = $5$</pre>"
    '<div><script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/3.2.2/es5/tex-svg.min.js"></script>'
    '<script>var price = "$1 and $2";</script></div></body>'
)


def test_a_notebook_page_gets_mathml_and_loses_the_mathjax_loaders():
    out = hooks.on_post_page(NOTEBOOK_HTML, page=NOTEBOOK, config=None)
    assert "mathjax" not in out.lower() and 'src=""' not in out
    assert out.count("<math ") == 1 and "<mi>&#x003C3;</mi>" in out  # σ, as latex2mathml writes it
    assert "\\lVert" not in out
    # a dollar sign in code or a script is not TeX
    assert "<pre>cost = $5$</pre>" in out and 'var price = "$1 and $2";' in out


def test_display_maths_is_a_block():
    out = hooks.tex_to_mathml("<p>$$x^2$$ and $y$</p>")
    assert 'display="block"' in out and 'display="inline"' in out and "$" not in out


def test_a_page_that_would_load_from_another_host_fails_the_build():
    for html in (
        '<script src="https://unpkg.com/iframe-worker/shim"></script>',
        '<link rel="stylesheet" href="//fonts.googleapis.com/css?family=Roboto">',
        '<img alt="" src="http://example.org/a.png">',
        '<script src=""></script>',
    ):
        with pytest.raises(PluginError, match="would load from outside the site"):
            hooks.on_post_page(html, page=PAGE, config=None)
    # a link that a reader may follow is fine, and so is a page's own script
    fine = '<a href="https://arxiv.org/abs/2603.04625">paper</a><script src="../assets/x.js"></script>'
    assert hooks.on_post_page(fine, page=PAGE, config=None) == fine
