"""Every file, folder, README section and Markdown anchor that a document, a comment, a docstring or a
help text points to exists (docs/tools/check_references.py), and the checker finds planted bad ones."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "check_references", ROOT / "docs" / "tools" / "check_references.py"
)
check_references = sys.modules.setdefault("check_references", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(check_references)


def test_every_reference_in_the_repository_leads_somewhere():
    broken = check_references.check(ROOT)
    assert not broken, "\n".join(str(b) for b in broken)


def test_the_checker_reads_every_kind_of_text_file():
    files = set(check_references.tracked_files(ROOT))
    kinds = ("README.md", "Dockerfile", "deploy/run-local", "deploy/compose.yaml", "deploy/haproxy.cfg")
    kinds += ("requirements-dev.txt", "ui/page.py", "docs/teach/views.md", "examples/tour.ipynb")
    for name in kinds:
        assert name in files, name
    assert not any(name.endswith(".png") for name in files)


def _repository(root: Path) -> Path:
    (root / "docs" / "teach").mkdir(parents=True)
    (root / "ui").mkdir()
    (root / "README.md").write_text("# Title\n\n## Set-up: two commands\n\ntext\n")
    (root / "docs" / "teach" / "views.md").write_text(
        "# What each view shows\n\n## The views at a glance\n\n## Explorer {#the-plane}\n\n"
        "```bash\n# not a heading\n```\n\n## Explorer\n"
    )
    (root / "docs" / "teach" / "lessons.md").write_text("# Lessons\n")
    (root / "ui" / "page.py").write_text("")
    return root


def test_planted_bad_references_are_found_and_good_ones_pass(tmp_path):
    root = _repository(tmp_path)
    text = "\n".join(
        [
            "see ui/page.py and docs/teach/views.md#the-views-at-a-glance",  # good
            "docs/teach/views.md#the-plane and docs/teach/views.md#explorer",  # explicit id, a heading's id
            'README, "Set-up: two commands" and README.md',  # good
            "patterns: tests/unit/test_*.py, docs/images/<name>.png",  # patterns, skipped
            "a moved file: ui/pages.py",  # bad
            "a renamed heading: docs/teach/views.md#the-views",  # bad
            "a heading inside code: docs/teach/views.md#not-a-heading",  # bad
            'a README section that is gone: (README, "A bigger class")',  # bad
            "README: Tests",  # bad
            "outside: /work/shared/notes/theory.md and ../shared/tools/container-smoke",  # two bad
        ]
    )
    broken = check_references.find_references("bench/note.py", text, root)
    assert [(b.line, b.reference) for b in broken] == [
        (5, "ui/pages.py"),
        (6, "docs/teach/views.md#the-views"),
        (7, "docs/teach/views.md#not-a-heading"),
        (8, 'README, "A bigger class"'),
        (9, "README: Tests"),
        (10, "/work/shared/notes/theory.md"),
        (10, "../shared/tools/container-smoke"),
    ]
    assert "no heading with the id 'the-views'" in broken[1].why


def test_a_docs_page_may_link_relative_to_itself_and_nobody_else_may(tmp_path):
    root = _repository(tmp_path)
    assert check_references.find_references("docs/teach/views.md", "[Lessons](lessons.md)", root) == []
    # "docs/lessons.md" from a page in docs/teach/ is neither at the root nor beside the page
    broken = check_references.find_references("docs/teach/views.md", "docs/lessons.md", root)
    assert [b.reference for b in broken] == ["docs/lessons.md"]
    assert [b.reference for b in check_references.find_references("ui/x.py", "docs/lessons.md", root)] == [
        "docs/lessons.md"
    ]


def test_main_reports_and_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        check_references, "check", lambda: [check_references.Broken("a.py", 3, "ui/x.py", "no such file")]
    )
    assert check_references.main() == 1
    assert "a.py:3: ui/x.py (no such file)\n1 broken references" in capsys.readouterr().out
