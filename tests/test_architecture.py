"""The layers hold (pyproject.toml [tool.importlinter]): core < views < command line < app, each
importing only downward, with Plotly and Streamlit only where they belong."""

import subprocess
import sys
import tomllib
from pathlib import Path

from hang import HANG_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[1]


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_import_contracts_are_kept():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_every_core_module_is_under_the_core_contract():
    """A new module in rbfviz/ or rbfviz/nn/ is core, so the core contract must name it."""
    core = next(c for c in contracts() if "core" in c["name"])
    found = {"rbfviz"} | {
        f"rbfviz.{p.stem}" for p in (ROOT / "rbfviz").glob("*.py") if p.stem not in ("__init__", "__main__")
    }
    found |= {"rbfviz.nn"} | {
        f"rbfviz.nn.{p.stem}" for p in (ROOT / "rbfviz" / "nn").glob("*.py") if p.stem != "__init__"
    }
    assert found == set(core["source_modules"]), found ^ set(core["source_modules"])
    assert {"rbfviz.views", "rbfviz.cli", "plotly", "streamlit"} <= set(core["forbidden_modules"])


def test_one_views_package_per_page_named_like_the_page():
    """rbfviz/views/ holds one package per page file (pages/N_Name.py -> rbfviz/views/name/), plus common/."""
    pages = {p.stem.split("_", 1)[1].lower() for p in (ROOT / "pages").glob("[0-9]_*.py")}
    packages = {p.parent.name for p in (ROOT / "rbfviz" / "views").glob("*/__init__.py")}
    assert packages == pages | {"common"}


def test_page_files_are_numbered_in_menu_order():
    from ui.page import PAGES

    files = [path for path, *_ in PAGES if path.startswith("pages/")]
    assert files == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]_*.py"))
    assert [int(Path(f).name.split("_", 1)[0]) for f in files] == list(range(1, len(files) + 1))
