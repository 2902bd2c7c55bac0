"""Every file, folder, section and anchor that the repository's texts point to exists.

    python docs/tools/check_references.py          # prints each broken reference; exit code 1 if any

A document, a comment, a docstring or a help text that names a repository path (``ui/settings.py``,
``docs/deploy/operator.md#environment-variables``, ``deploy/run-local``), a section of the README
(``README, "Set-up: two commands"``) or a place outside the repository (``/work/…``, ``../shared/…``)
is a promise to the reader. This checks each one in every text file git tracks
(tests/docs/test_docs_references.py runs it), so that a file moved or a heading renamed fails the
tests instead of leaving a dead pointer.

What counts as a reference (``find_references``):

* a path that starts at one of the repository's top-level folders or files (``TOP``), outside a
  pattern (``tests/unit/test_*.py`` and ``docs/images/<name>.png`` are patterns, not paths); in a
  Markdown file under docs/ a path may also be relative to that file (as MkDocs reads its links);
* ``PATH.md#anchor``: the anchor must be a heading's id in that Markdown file (Python-Markdown's own
  slugify, as MkDocs makes them) or an explicit ``{#id}`` / ``id="..."``;
* ``README, "<section>"``, ``README's "<section>"`` and ``README: <Section>``: a heading of README.md;
* an absolute path under /work/ or a path into ../shared/: outside the repository, so nobody who
  clones it can follow it (``OUTSIDE_ALLOWED`` lists the one file that must run such a tool).

The links between the site's pages are checked by ``mkdocs build --strict`` and check_links.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOP = (
    ".ci/",
    "app.py",
    "bench/",
    "CITATION.cff",
    "deploy/",
    "Dockerfile",
    "docs/",
    "examples/",
    "harness/",
    "LICENSE",
    "mkdocs.yml",
    "pages/",
    "pyproject.toml",
    "pytest.ini",
    "rbfviz/",
    "README.md",
    "requirements-dev.txt",
    "requirements.txt",
    "tests/",
    "ui/",
)
TEXT_SUFFIXES = {
    ".cfg", ".css", ".html", ".ini", ".ipynb", ".js", ".lua", ".md", ".py", ".sh", ".toml", ".txt",
    ".yaml", ".yml", ".cff", "",
}  # fmt: skip
# files not read: the screenshots' recorded page text (not written by people), and this checker's own
# test, whose planted bad references are its point
NOT_TEXT = re.compile(r"^(docs/images/|tests/docs/" r"test_docs_references\.py$)")  # split: see NOT_PATHS
# .ci/run runs the CI host's container smoke test, which lives beside the repository
OUTSIDE_ALLOWED = {".ci/run"}
# text that looks like a path and is not one, each with the reason
# (the strings are split so that this file does not name them itself)
NOT_PATHS = {
    ("Dockerfile", "docs" + "/p"): "the end of a sed address range and its print command",
    ("tests/unit/test_bench_machine.py", "bench" + "/x.py"): "a made-up sys.argv[0] in a test",
}

_TOP = "|".join(re.escape(top) + (r"[\w.\-/]*[\w\-/]" if top.endswith("/") else r"\b") for top in TOP)
PATH = re.compile(rf"(?<![\w./~$@-])(?:{_TOP})(?:#[\w\-]+)?")
README_SECTION = re.compile(
    r"""README(?:\.md)?(?:'s|,|:)\s*["“]([^"”\n]+)["”]|README(?:\.md)?: ([A-Z][\w\-]*(?: [A-Z][\w\-]*)*)"""
)
OUTSIDE = re.compile(r"(?<![\w.])(?:/work/[\w.\-/]+|(?:\.\./)+shared/[\w.\-/]+)")
PATTERN_NEXT = set("*<{[")  # a path followed by one of these is a pattern (a glob, a placeholder)


@dataclass(frozen=True)
class Broken:
    """One reference that leads nowhere: where it is (file and line) and why."""

    file: str
    line: int
    reference: str
    why: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reference} ({self.why})"


def tracked_files(root: Path = ROOT) -> list[str]:
    """The text files git tracks under ``root`` (paths relative to it), else every file there."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, text=True
        ).stdout
        names = [name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts]
    return sorted(
        name
        for name in names
        if Path(name).suffix in TEXT_SUFFIXES and not NOT_TEXT.match(name) and (root / name).is_file()
    )


@cache
def anchors(markdown_file: Path) -> frozenset[str]:
    """The ids of a Markdown file's headings as MkDocs makes them, and its explicit ids."""
    from markdown.extensions.toc import slugify, unique

    found: set[str] = set()
    ids: set[str] = set()
    in_code = False
    for line in markdown_file.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        if in_code:
            continue
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            text = heading.group(1)
            explicit = re.search(r"\{[^}]*#([\w\-]+)[^}]*\}\s*$", text)
            if explicit:
                found.add(explicit.group(1))
                continue
            text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", text)  # the heading's plain text
            found.add(unique(slugify(text, "-"), ids))
    found.update(re.findall(r"""\bid=["']([\w\-]+)["']""", markdown_file.read_text(encoding="utf-8")))
    return frozenset(found)


def readme_sections(root: Path = ROOT) -> set[str]:
    return {
        m.group(1).strip()
        for m in re.finditer(r"^#{1,6}\s+(.+?)\s*$", (root / "README.md").read_text(encoding="utf-8"), re.M)
    }


def _check_path(reference: str, source: str, root: Path) -> str | None:
    """Why ``reference`` (a path, maybe with #anchor) named in ``source`` leads nowhere; None if it exists."""
    path, _, anchor = reference.partition("#")
    candidates = [root / path]
    if source.endswith(".md") and source.startswith("docs/"):
        candidates.append((root / source).parent / path)  # as MkDocs reads a page's link
    if source == "mkdocs.yml":
        candidates.append(root / "docs" / path)  # its nav names pages in docs_dir
    target = next((c for c in candidates if c.exists()), None)
    if target is None:
        return "no such file or folder"
    if anchor and target.suffix == ".md" and anchor not in anchors(target.resolve()):
        return f"no heading with the id '{anchor}' in {path}"
    return None


def find_references(source: str, text: str, root: Path = ROOT) -> list[Broken]:
    """The broken references in ``text``, the content of the file ``source`` (relative to ``root``)."""
    broken = []
    sections = None
    for number, line in enumerate(text.splitlines(), 1):
        for match in PATH.finditer(line):
            if line[match.end() : match.end() + 1] in PATTERN_NEXT or (source, match.group(0)) in NOT_PATHS:
                continue
            why = _check_path(match.group(0), source, root)
            if why:
                broken.append(Broken(source, number, match.group(0), why))
        for match in README_SECTION.finditer(line):
            section = (match.group(1) or match.group(2)).strip()
            if section.startswith("<"):
                continue  # a placeholder, as in this module's docstring
            sections = sections if sections is not None else readme_sections(root)
            if section not in sections:
                broken.append(Broken(source, number, match.group(0), "README.md has no such section"))
        if source not in OUTSIDE_ALLOWED:
            for match in OUTSIDE.finditer(line):
                broken.append(Broken(source, number, match.group(0), "outside the repository"))
    return broken


def check(root: Path = ROOT) -> list[Broken]:
    """Every broken reference in every tracked text file under ``root``."""
    broken = []
    for name in tracked_files(root):
        try:
            text = (root / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        broken.extend(find_references(name, text, root))
    return broken


def main() -> int:
    broken = check()
    for item in broken:
        print(item)
    print(f"{len(broken)} broken references")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
