"""``python -m rbfviz export``: every view writes its offline page (the payload inside is the library's,
``view_payload``, which is the app's), bad settings fail with the library's message and exit code 2, and
``--out`` into a folder that does not exist creates it and says so. The lesson pack's command is run by
tests/e2e/test_e2e_export.py, which opens what it writes."""

import base64
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hang import HANG_TIMEOUT_S

import rbfviz
from rbfviz.cli import main
from rbfviz.i18n import translator
from rbfviz.views.common.receipt import package_versions
from rbfviz.views.common.scrub import read_payload
from rbfviz.views.export.build import Setting, view_payload

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--dataset", "moons", "--n", "80", "--k", "2"]


def embedded_payload(page: str) -> bytes:
    found = re.search(r'<script type="application/octet-stream" id="rbfviz-payload">([^<]*)</script>', page)
    return base64.b64decode(found.group(1))


@pytest.mark.parametrize("view", ["explorer", "annealing", "stability", "equivalence"])
def test_every_view_exports(tmp_path, capsys, view):
    out = tmp_path / f"{view}.html"
    assert (
        main(["export", "--view", view, *SMALL, "--kind", "entmax", "--alpha", "1.7", "--out", str(out)]) == 0
    )
    page = out.read_text(encoding="utf-8")
    setting = Setting(view, dataset="moons", n=80, k=2, kind="entmax", alpha=1.7)
    assert embedded_payload(page) == view_payload(setting)
    assert "<dt>map</dt><dd>entmax:1.7</dd>" in page
    # what made the file: the settings, the σ range, the versions
    assert "<dt>data set</dt><dd>moons</dd>" in page and "<dt>clusters k</dt><dd>2</dd>" in page
    sigmas = read_payload(embedded_payload(page))["sigmas"]
    assert f"<dd>{max(sigmas):.3g} down to {min(sigmas):.3g}, {len(sigmas)} levels</dd>" in page
    assert f'<meta name="generator" content="rbfviz {rbfviz.__version__}">' in page
    versions = package_versions()
    made = re.search(r"<p>Made by rbfviz (.*?) on \d{4}-\d\d-\d\d \d\d:\d\d UTC, with (.*?);", page)
    assert made.group(1) == versions["rbfviz"]
    assert made.group(2) == ", ".join(f"{name} {v}" for name, v in versions.items() if name != "rbfviz")
    assert f"numpy {np.__version__}" in made.group(2)
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.stat().st_size < 3_000_000
    assert "http://" not in page.split("<script", 1)[0] and "https://" not in page.split("<script", 1)[0]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--k", "40"], "k must be an integer from 2 to 10, got k=40."),
        (["--n", "3"], "n must be between 5 and 5000, got 3."),
        (["--dtype", "float16"], "dtype must be one of float64, float32, got 'float16'."),
        (["--kind", "entmax"], 'kind="entmax" needs alpha'),
        (["--kind", "entmax", "--alpha", "3"], "alpha must be a number in [1.05, 2.0]"),
        (["--kind", "sparse"], "kind='sparse' is not a known map; allowed: softmax, entmax15, naive"),
        (["--sigma", "-1"], "sigma must be a positive finite number, got -1.0."),
        (["--noise", "50"], "noise must be a number from 0 to 10, got 50.0."),
    ],
)
def test_a_bad_setting_is_one_clear_line_and_exit_code_2(tmp_path, capsys, arguments, message):
    out = tmp_path / "x.html"
    with pytest.raises(SystemExit) as stop:
        main(["export", "--view", "explorer", *arguments, "--out", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("rbfviz export: error: ") and message in err, err
    assert "Traceback" not in err and not out.exists()


def test_a_bad_choice_is_argparses_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["export", "--view", "gaussian", "--out", "x.html"])
    assert stop.value.code == 2
    assert "invalid choice: 'gaussian'" in capsys.readouterr().err


def test_out_into_a_missing_folder_creates_it(tmp_path, capsys):
    out = tmp_path / "course" / "week 3" / "equivalence.html"
    assert main(["export", "--view", "equivalence", *SMALL, "--out", str(out)]) == 0
    assert out.is_file()
    assert f"created the folder {out.parent}" in capsys.readouterr().err


def test_out_that_is_a_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["export", "--view", "equivalence", *SMALL, "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert "is a folder; give a file name" in capsys.readouterr().err


@pytest.mark.parametrize("address", ["rbfviz.example.edu", "ftp://rbfviz.example.edu", "https://x.edu/?a=1"])
def test_a_public_url_students_cannot_open_is_refused(tmp_path, capsys, address):
    out = tmp_path / "x.html"
    with pytest.raises(SystemExit) as stop:
        main(["export", "--view", "explorer", *SMALL, "--public-url", address, "--out", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "is not an address students can open: give http(s)://host[/path]" in err, err
    assert not out.exists()


def test_out_that_cannot_be_written_is_one_clear_line(tmp_path, capsys):
    """A file where the folder should be: the command stops before building, without a traceback."""
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    for out in (tmp_path / "notes.txt" / "week 3" / "x.html", tmp_path / "notes.txt" / "x.html"):
        with pytest.raises(SystemExit) as stop:
            main(["export", "--view", "explorer", *SMALL, "--out", str(out)])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("rbfviz export: error: ") and str(out.parent) in err, err
        assert "σ levels" not in err  # refused before the build
        assert "Traceback" not in err


def test_the_command_runs_as_python_dash_m(tmp_path):
    out = tmp_path / "annealing.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "rbfviz",
            "export",
            "--view",
            "annealing",
            *SMALL,
            "--out",
            str(out),
            "--public-url",
            "https://rbfviz.example.edu",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
    )
    assert proc.returncode == 0, proc.stderr
    page = out.read_text(encoding="utf-8")
    assert 'href="https://rbfviz.example.edu/Annealing?dataset=moons&amp;n=80' in page


def test_a_view_exports_in_portuguese(tmp_path):
    """``--lang pt-BR``: <html lang="pt-BR">, the page's own words and numbers and its figures' words in
    Portuguese (the payload the app's page sends in pt-BR); without --lang the page is English."""
    out = tmp_path / "explorador.html"
    assert main(["export", "--view", "explorer", *SMALL, "--lang", "pt-BR", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith('<!doctype html>\n<html lang="pt-BR">')
    setting = Setting("explorer", dataset="moons", n=80, k=2)
    assert embedded_payload(page) == view_payload(setting, tr=translator("pt-BR"))
    assert embedded_payload(page) != view_payload(setting)
    assert "<h1>Explorador: um σ, suave vs rígido</h1>" in page
    assert "<dt>conjunto de dados</dt><dd>moons</dd>" in page and "<dt>grupos k</dt><dd>2</dd>" in page
    assert '<h2 id="made-heading">Como este arquivo foi feito</h2>' in page
    sigmas = read_payload(embedded_payload(page))["sigmas"]
    levels = f"de {max(sigmas):.3g} até {min(sigmas):.3g}, {len(sigmas)} níveis".replace(".", ",")
    assert f"<dd>{levels}</dd>" in page
    assert "Feito pelo rbfviz" in page and "Made by" not in page and "How this file was made" not in page
    english = tmp_path / "explorer.html"
    assert main(["export", "--view", "explorer", *SMALL, "--out", str(english)]) == 0
    assert english.read_text(encoding="utf-8").startswith('<!doctype html>\n<html lang="en">')


def test_an_unknown_language_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["export", "--lessons", "--lang", "fr", "--out", str(tmp_path / "x.html")])
    assert exit_.value.code == 2 and "invalid choice: 'fr'" in capsys.readouterr().err
