"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

* The tour notebook is executed at build time (mkdocs-jupyter) in a kernel that imports this checkout's
  ``rbfviz`` (``PYTHONPATH`` starts with the repository's root) and draws its Plotly figures as HTML
  with plotly.js embedded, not from a CDN (``PLOTLY_RENDERER=notebook``).
* The tables of the paper's claims are computed at build time by ``python -m rbfviz reproduce`` and put
  where a page has a marker ``<!-- reproduce:NAME -->`` (NAME: collapse, splits, alpha). A page never
  holds a pasted copy of them. ``RBFVIZ_DOCS_REPRODUCE=<dir>`` uses an existing run's ``results.md``
  instead (for ``mkdocs serve`` while writing); CI leaves it unset. ``<!-- reproduce:note -->`` says how
  the tables were made.
* Other tables of computed numbers come from docs/tools/computed.py, put where a page has
  ``<!-- computed:NAME -->``; on a Portuguese page (docs/teach/<page>.pt-BR.md, mkdocs-static-i18n)
  its Portuguese table (``TABLES_PT_BR``).
* The site works with no internet (a classroom): a notebook page's TeX (``$...$``, ``$$...$$``) is turned
  into MathML while the site is built (latex2mathml; browsers draw MathML themselves), the MathJax loaders
  that nbconvert and Plotly's notebook renderer put in the page are taken out, and a page that would
  still load anything from another host (a script, a stylesheet, an image, a frame) fails the build.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
# results.md holds three markdown tables, in this order, separated by blank lines
TABLES = ("collapse", "splits", "alpha")
MARKER = re.compile(r"(?<!`)<!--\s*(reproduce|computed):([\w-]+)\s*-->")  # not inside `code`

# MathJax loaders a notebook page brings: nbconvert's (mkdocs-jupyter's template; its src is empty when no
# custom URL is set) and Plotly's notebook renderer's (a CDN script before every figure)
NBCONVERT_MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", re.S)
PLOTLY_MATHJAX = re.compile(r'<script src="[^"]*/mathjax/[^"]*"></script>', re.I)
# parts of a page where a dollar sign is not TeX
NOT_TEX = re.compile(r"(<(script|style|pre|code|textarea)\b.*?</\2>|<[^>]*>)", re.S | re.I)
TEX = re.compile(r"\$\$(.+?)\$\$|(?<![\\$])\$([^$\n]+?)\$", re.S)
# a resource the browser loads by itself (not a link a reader follows): on another host, or an empty src
EXTERNAL_LOAD = re.compile(
    r"<(?:script|link|img|iframe|source|audio|video|embed)\b[^>]*?\s(?:src|href)\s*=\s*[\"']"
    r"((?:https?:)?//[^\"']*|)[\"']",
    re.I,
)

_tables: dict[str, str] = {}
_computed: dict[str, str] = {}
_run_note = ""


def on_config(config, **kwargs):
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + path if path else "")
    # Plotly figures as HTML with plotly.js embedded once per page (no CDN: the site works offline);
    # the kernel inherits the variable.
    os.environ["PLOTLY_RENDERER"] = "notebook"
    return config


def _reproduce() -> tuple[str, str]:
    """results.md of a reproduce run, and a sentence saying how it was made."""
    given = os.environ.get("RBFVIZ_DOCS_REPRODUCE")
    if given:
        return (Path(given) / "results.md").read_text(encoding="utf-8"), f"read from `{given}`"
    with tempfile.TemporaryDirectory(prefix="rbfviz-docs-reproduce-") as out:
        command = [sys.executable, "-m", "rbfviz", "reproduce", "--out", out, "--no-figures"]
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            raise PluginError(f"`rbfviz reproduce` failed ({done.returncode}):\n{done.stderr[-3000:]}")
        seconds = time.monotonic() - started
        note = f"computed while this site was built (`python -m rbfviz reproduce`, {seconds:.0f} s)"
        return (Path(out) / "results.md").read_text(encoding="utf-8"), note


def _computed_tables() -> dict:
    """docs/tools/computed.py's TABLES (imported when a page first needs one: it imports rbfviz)."""
    for folder in (ROOT, Path(__file__).resolve().parent):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    from computed import TABLES

    return TABLES


def _computed_tables_in(lang: str) -> dict:
    """The computed tables of a page in ``lang``: the English ones, or that language's."""
    if lang == "en":
        return _computed_tables()
    _computed_tables()  # puts docs/tools on sys.path
    from computed import TABLES_PT_BR

    return {"pt-BR": TABLES_PT_BR}.get(lang, {})


def split_tables(text: str) -> dict[str, str]:
    """The markdown tables of results.md by name (TABLES, in order)."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text.strip()) if b.strip().startswith("|")]
    if len(blocks) != len(TABLES):
        raise PluginError(f"rbfviz reproduce wrote {len(blocks)} tables, the docs expect {len(TABLES)}")
    return dict(zip(TABLES, blocks))


@event_priority(-110)  # after mkdocs-static-i18n's on_files (-100)
def on_files(files, config, **kwargs):
    """The tour notebook as a page again. mkdocs-jupyter makes an .ipynb a documentation page, and then
    mkdocs-static-i18n, which rebuilds every file for each language, makes it a plain file: its raw JSON
    would be copied as tour.html. Each language's build renders it into its own folder (pt-BR/…)."""
    from mkdocs_jupyter.plugin import NotebookFile

    i18n = config.plugins.get("i18n")
    folder = "" if i18n is None or i18n.current_language == i18n.default_language else i18n.current_language
    for file in list(files):
        if file.src_uri.endswith(".ipynb") and not file.is_documentation_page():
            notebook = NotebookFile(file, **config)
            if folder:
                notebook.dest_path = f"{folder}/{notebook.dest_path}"
                notebook.abs_dest_path = os.path.normpath(os.path.join(config.site_dir, notebook.dest_path))
                notebook.url = notebook._get_url(config.use_directory_urls)
            files.remove(file)
            files.append(notebook)
    return files


def on_pre_build(config, **kwargs):
    global _run_note
    if _tables:  # once per process (mkdocs serve rebuilds)
        return
    text, _run_note = _reproduce()
    _tables.update(split_tables(text))


def on_page_markdown(markdown, page, config, files, **kwargs):
    # the page's language: a translated page's file has its locale (mkdocs-static-i18n), others are English
    lang = getattr(page.file, "locale", "en")

    def table(match: re.Match) -> str:
        kind, name = match.groups()
        if kind == "computed":
            TABLES = _computed_tables_in(lang)
            if name not in TABLES:
                raise PluginError(f"{page.file.src_path}: unknown marker computed:{name} (in {lang})")
            key = name if lang == "en" else f"{name}:{lang}"
            if key not in _computed:
                _computed[key] = TABLES[name]()
            return _computed[key]
        if name == "note":
            return _run_note
        if name not in _tables:
            raise PluginError(f"{page.file.src_path}: unknown marker reproduce:{name}")
        return _tables[name]

    return MARKER.sub(table, markdown)


def tex_to_mathml(page_html: str) -> str:
    """``page_html`` with every ``$TeX$`` (inline) and ``$$TeX$$`` (display) outside tags, scripts, styles
    and code turned into MathML."""
    from latex2mathml.converter import convert

    def maths(match: re.Match) -> str:
        display, inline = match.groups()
        tex = html.unescape(display if display is not None else inline)
        return convert(tex.strip(), display="block" if display is not None else "inline")

    parts = NOT_TEX.split(page_html)
    # re.split with two groups yields [text, whole match, tag name, text, ...]: convert the text parts only
    kept = [part for i, part in enumerate(parts) if i % 3 != 2]  # text, tag-or-code, text, ...
    return "".join(TEX.sub(maths, part) if i % 2 == 0 else part for i, part in enumerate(kept))


def offline(page_html: str, notebook: bool) -> str:
    """The page as it is served: on a notebook page MathJax's loaders out and the TeX as MathML."""
    if notebook:
        page_html = tex_to_mathml(PLOTLY_MATHJAX.sub("", NBCONVERT_MATHJAX.sub("", page_html)))
    return page_html


def external_loads(page_html: str) -> list[str]:
    """The addresses of resources in ``page_html`` that would come from another host (or an empty src)."""
    return [url or "(an empty src)" for url in EXTERNAL_LOAD.findall(page_html)]


def on_post_page(output, page, config, **kwargs):
    output = offline(output, page.file.src_path.endswith(".ipynb"))
    found = external_loads(output)
    if found:
        raise PluginError(
            f"{page.file.src_path} would load from outside the site, which a classroom without internet "
            f"cannot: {sorted(set(found))}"
        )
    return output
