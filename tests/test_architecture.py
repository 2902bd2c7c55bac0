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


# --- who imports what: the library, the tests, the benchmarks, the pages -----------------------------

# The app: what a user runs (the app, its pages, ui/, the command line); the product adds what builds the
# documents.
APP_ROOTS = ("app.py", "pages", "ui", "rbfviz/__init__.py", "rbfviz/__main__.py", "rbfviz/cli")
PRODUCT_ROOTS = (*APP_ROOTS, "docs/tools")
SKIPPED = {".git", "artifacts", "static", "build", ".venv", "venv", "node_modules"}


def _python_files(*folders: str) -> list[Path]:
    found = []
    for name in folders:
        path = ROOT / name
        candidates = [path] if path.is_file() else sorted(path.rglob("*.py"))
        found += [p for p in candidates if not SKIPPED & set(p.relative_to(ROOT).parts)]
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute dotted names; ``from a import b`` gives a and a.b; relative
    imports resolved against the file's package)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return {n for n in names if n}


def _with_parents(name: str) -> set[str]:
    """Importing a.b.c runs a/__init__.py and a/b/__init__.py too."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _library_modules() -> set[str]:
    return {_module_name(p) for p in _python_files("rbfviz")}


def test_no_library_module_exists_only_for_the_tests():
    """Every module in rbfviz/ is reached from the product (the app, its pages, ui/, the command line, the
    documents' tools) by imports, not only from tests/, bench/ or harness/: code that only tests use
    lives with them (harness/ when the benchmarks use it too)."""
    library = _library_modules()
    reached, todo = set(), [p for p in _python_files(*PRODUCT_ROOTS)]
    files = {_module_name(p): p for p in _python_files("rbfviz")}
    from rbfviz.cli import COMMANDS  # the command line imports its commands by name

    reached |= {f"rbfviz.cli.{name}" for name in COMMANDS}
    todo += [files[f"rbfviz.cli.{name}"] for name in COMMANDS]
    while todo:
        path = todo.pop()
        for name in _imports(path):
            for module in _with_parents(name) & library - reached:
                reached.add(module)
                todo.append(files[module])
    by_tests = set().union(*(_imports(p) for p in _python_files("tests", "bench", "harness")))
    only_for_tests = sorted(m for m in library - reached if m in by_tests)
    assert not only_for_tests, (
        f"rbfviz modules that only tests, benchmarks or harness/ import: {only_for_tests}"
    )


def test_tests_and_benchmarks_import_neither_each_other_nor_a_page_script():
    """What both need is in harness/; a page script is run by Streamlit (or AppTest), never imported;
    and neither the library nor the app imports harness/."""
    pages = {f"pages.{p.stem}" for p in (ROOT / "pages").glob("*.py")} | {"pages", "app"}
    test_modules = {p.stem for p in _python_files("tests")}  # on sys.path by pytest: imported by file name
    bench_modules = {p.stem for p in _python_files("bench")} | {"bench"}
    wrong = []
    for path in _python_files("tests"):
        bad = {n for n in _imports(path) if n.split(".")[0] in bench_modules - test_modules or n in pages}
        wrong += [f"{path.relative_to(ROOT)} imports {sorted(bad)}"] if bad else []
    for path in _python_files("bench", "harness"):
        bad = {n for n in _imports(path) if n.split(".")[0] in test_modules | {"tests"} or n in pages}
        wrong += [f"{path.relative_to(ROOT)} imports {sorted(bad)}"] if bad else []
    for path in _python_files(*APP_ROOTS, "rbfviz"):
        bad = {n for n in _imports(path) if n.split(".")[0] in {"harness", "tests", "bench"}}
        wrong += [f"{path.relative_to(ROOT)} imports {sorted(bad)}"] if bad else []
    assert not wrong, "\n".join(wrong)


def test_the_import_checks_see_imports():
    """The two checks above read real imports: a page's, a test's and a benchmark's are found."""
    assert "ui.page" in set().union(*(_imports(p) for p in _python_files("pages")))
    assert "harness.streamlit_server" in _imports(ROOT / "tests" / "e2e" / "conftest.py")
    assert "harness.streamlit_client.StreamlitSession" in _imports(ROOT / "bench" / "load.py")
    relative = _imports(ROOT / "rbfviz" / "nn" / "__init__.py")  # `from .training import ...`
    assert any(n.startswith("rbfviz.nn.") for n in relative)


def test_every_test_file_is_under_a_testpath():
    """A test file outside pytest.ini's testpaths would never run under the README's command."""
    import configparser

    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    paths = [ROOT / path for path in ini["pytest"]["testpaths"].split()]
    assert all(path.exists() for path in paths), paths
    outside = [
        str(f.relative_to(ROOT))
        for f in (ROOT / "tests").rglob("test_*.py")
        if not any(f == path or path in f.parents for path in paths)
    ]
    assert not outside, outside


def test_one_views_package_per_page_named_like_the_page():
    """rbfviz/views/ holds one package per page file (pages/<N>_<Name>.py -> rbfviz/views/<name>/), plus
    common/ and export/ (the σ views and the lessons as offline pages, for several pages' downloads)."""
    pages = {p.stem.split("_", 1)[1].lower() for p in (ROOT / "pages").glob("[0-9]_*.py")}
    packages = {p.parent.name for p in (ROOT / "rbfviz" / "views").glob("*/__init__.py")}
    assert packages == pages | {"common", "export"}


def test_page_files_are_numbered_in_menu_order():
    from ui.page import PAGES

    files = [path for path, *_ in PAGES if path.startswith("pages/")]
    assert files == sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("[0-9]_*.py"))
    assert [int(Path(f).name.split("_", 1)[0]) for f in files] == list(range(1, len(files) + 1))


# --- the environment is read in one place ----------------------------------------------------------


def python_files(*tops: str) -> list[Path]:
    found = []
    for top in tops:
        path = ROOT / top
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def environment_reads(path: Path) -> list[str]:
    """Where a module touches the environment: os.environ / os.environb / os.getenv / os.putenv /
    os.unsetenv, as attributes or imported by name ("file:line what")."""
    import ast

    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Attribute) and node.attr in names:
            found.append((node.lineno, f"….{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {a.name}") for a in node.names if a.name in names]
    return [f"{path.relative_to(ROOT)}:{line} {what}" for line, what in found]


def test_the_library_reads_no_environment():
    """rbfviz/ takes arguments; the app's settings (ui/settings.py) read the environment for it."""
    reads = [read for path in python_files("rbfviz") for read in environment_reads(path)]
    assert reads == [], reads


def test_the_app_reads_the_environment_only_in_its_settings_module():
    """Every RBFVIZ_* variable (and any other) of the app goes through ui/settings.py."""
    settings = ROOT / "ui" / "settings.py"
    app = [p for p in python_files("ui", "pages", "app.py") if p != settings]
    assert len(app) > 10  # the scan sees the app's modules and pages
    reads = [read for path in app for read in environment_reads(path)]
    assert reads == [], reads
    assert environment_reads(settings)  # and the settings module does read it


def test_every_rbfviz_variable_named_in_the_app_is_a_setting():
    """A name like RBFVIZ_SOMETHING in the app's code (a constant for a test, a message) is one of the
    settings module's variables: no second spelling, no variable read some other way."""
    import re

    from ui.settings import VARIABLE_NAMES

    for path in python_files("ui", "pages", "app.py"):
        for name in re.findall(r"RBFVIZ_[A-Z0-9_]*[A-Z0-9]", path.read_text()):
            where = path.relative_to(ROOT)
            assert name in VARIABLE_NAMES, f"{where} names {name}, which ui/settings.py does not read"


def test_session_state_keys_are_spelled_once():
    """Every session-state key (_rbfviz_…) is a constant of ui/session_keys.py: the app and the tests
    import it instead of retyping it."""
    import re

    home = ROOT / "ui" / "session_keys.py"
    assert re.search(r"[\"']_rbfviz_controls[\"']", home.read_text())
    for path in python_files("ui", "pages", "app.py", "tests", "bench"):
        if path == home:
            continue
        typed = re.findall(r"[\"']_rbfviz_\w*", path.read_text())
        assert typed == [], f"{path.relative_to(ROOT)} spells {typed}: import it from ui.session_keys"
