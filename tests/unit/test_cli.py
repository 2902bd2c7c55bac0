"""The command line: JSON keys, human summary, reproduce outputs, exit codes, the command registry."""

import json
import math
import re
import runpy
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S

from rbfviz import cli

ANNEAL_KEYS = (
    "sigmas",
    "centers",
    "kmeans_centers",
    "error",
    "slope",
    "sigma_exact_predicted",
    "sigma_exact_measured",
    "nan_rows",
)


def python_m(argv: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    """``python -m rbfviz *argv`` run in this process (rbfviz/__main__.py, as the interpreter runs it):
    (exit code, stdout, stderr). test_app_command_explains_where_the_app_lives starts the real
    interpreter; the others run here, without a cold torch import each."""
    monkeypatch.setattr(sys, "argv", ["rbfviz", *argv])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        runpy.run_module("rbfviz", run_name="__main__", alter_sys=True)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_anneal_json_via_python_m(monkeypatch, capsys):
    code, stdout, stderr = python_m(
        [
            "anneal",
            "--dataset",
            "moons",
            "--n",
            "200",
            "--k",
            "2",
            "--kind",
            "entmax15",
            "--seed",
            "0",
            "--num-sigmas",
            "25",
            "--json",
        ],
        monkeypatch,
        capsys,
    )
    assert code == 0, stderr
    result = json.loads(stdout)
    for key in ANNEAL_KEYS:
        assert key in result
    assert len(result["sigmas"]) == 25 and len(result["error"]) == 25
    assert len(result["centers"]) == 25 and len(result["centers"][0]) == 2
    assert result["kind"] == "entmax15" and result["dataset"] == "moons" and result["n"] == 200
    assert set(result["slope"]) == {"slope", "intercept", "sigma_min", "sigma_max", "n_points"}
    # the JSON is standard (no NaN tokens): missing values are null
    json.loads(stdout, parse_constant=lambda name: pytest.fail(f"non-standard JSON constant {name}"))


def test_anneal_human_summary(capsys):
    assert (
        cli.main(
            [
                "anneal",
                "--dataset",
                "blobs",
                "--n",
                "150",
                "--num-sigmas",
                "15",
                "--dtype",
                "float32",
                "--noise",
                "2.0",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert text.startswith("blobs (n=150, noise 2, seed 0), k=4, softmax, float32")
    for phrase in ("σ_c predicted", "g_min", "√g_min/2", "slope", "NaN rows"):
        assert phrase in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["anneal", "--k", "0"], "positive integer"),
        (["anneal", "--n", "abc"], "positive integer"),
        (["anneal", "--dataset", "nope"], "invalid choice"),
        (["anneal", "--kind", "gauss"], "invalid choice"),
        (["anneal", "--noise", "-1"], ">= 0"),
        (["anneal", "--noise", "nan"], ">= 0"),
        (["anneal", "--seed", "-3"], "non-negative"),
        (["anneal", "--n", "50", "--k", "60"], "k must be between 1 and the number of points"),
        (["anneal", "--dataset", "iris", "--n", "200"], "at most 150"),
        (["anneal", "--num-sigmas", "1"], "at least 2"),
        (["reproduce"], "--out"),
        (["reproduce", "--out", "x", "--kinds", "softmax,hard"], "subset"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_arguments_exit_2_without_traceback(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_arguments_through_python_m_exit_2(monkeypatch, capsys):
    code, _, stderr = python_m(["anneal", "--n", "10", "--k", "11"], monkeypatch, capsys)
    assert code == 2
    assert "k must be between" in stderr and "Traceback" not in stderr


def test_reproduce_writes_summary_figure_and_table(tmp_path, capsys):
    out = tmp_path / "repro"
    assert (
        cli.main(
            [
                "reproduce",
                "--out",
                str(out),
                "--datasets",
                "moons",
                "--kinds",
                "softmax,entmax15,naive",
                "--dtypes",
                "float64",
                "--n",
                "150",
                "--num-sigmas",
                "15",
                "--table",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    assert [(s["dataset"], s["kind"], s["dtype"]) for s in summary["studies"]] == [
        ("moons", "softmax", "float64"),
        ("moons", "entmax15", "float64"),
        ("moons", "naive", "float64"),
    ]
    assert set(summary["reference_errors"]["moons"]) == {"softmax", "entmax15"}
    table = (out / "results.md").read_text()
    collapse, splits, family = table.split("\n\n")
    assert collapse.startswith("| data (k) | map | dtype |") and collapse.count("\n") == 4
    assert captured.out.strip() == table.strip()
    # the split table: one row per split of the float64 softmax and entmax15 paths (not naive)
    header, rule, *rows = splits.strip().split("\n")
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "data (k)",
        "map",
        "split",
        "stack m →",
        "σ predicted",
        "σ measured in",
        "error",
        "in step",
        "σ √r-linearised",
        "error (√r)",
    ]
    records = summary["splits"]
    assert len(rows) == len(records) >= 2 and {r["kind"] for r in records} == {"softmax", "entmax15"}
    for row, record in zip(rows, records):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[:3] == [f"moons ({record['k']})", record["kind"], str(record["number"])]
        assert float(cells[4]) == pytest.approx(record["sigma_predicted"], abs=5e-4)
        low, high = (float(v) for v in cells[5].strip("(]").split(","))
        assert low < high and low == pytest.approx(record["sigma_measured"], abs=5e-4)
        error = 100 * (record["sigma_predicted"] / record["sigma_measured"] - 1)
        assert float(cells[6].rstrip(" %")) == pytest.approx(error, abs=0.05)
    # moons with k = 2: split 1 is the first split, predicted by the first-split formula
    first = next(s for s in summary["studies"] if s["kind"] == "softmax")
    assert records[0]["sigma_predicted"] == pytest.approx(first["sigma_critical_predicted"], rel=1e-12)
    assert records[0]["sigma_measured"] == pytest.approx(first["sigma_critical_measured"], rel=1e-12)
    html = (out / "moons.html").read_text()
    assert "<html>" in html and "plotly" in html.lower()
    assert 'src="https://cdn' not in html  # plotly.js is embedded: the page works offline
    assert "moons" in captured.err and "done in" in captured.err  # progress on stderr
    # the α-entmax table: σ*(α) predicted against measured at C*, one row per α, a column per dtype
    header, rule, *rows = family.strip().split("\n")
    assert [c.strip() for c in header.strip("|").split("|")] == [
        "data (k)",
        "g_min",
        "α",
        "σ*(α) = √((α−1)·g_min/2)",
        "measured float64",
    ]
    g_min = summary["studies"][0]["g_min"]
    assert [r["alpha"] for r in summary["family"]] == [1.25, 1.5, 1.75, 2.0] and len(rows) == 4
    for row, record in zip(rows, summary["family"]):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert record["g_min"] == pytest.approx(g_min, rel=1e-12)
        assert record["predicted"] == pytest.approx(math.sqrt((record["alpha"] - 1) * g_min / 2), rel=1e-12)
        assert float(cells[3]) == pytest.approx(record["predicted"], abs=5e-5)
        assert record["within_float64"] and cells[4] == f"{record['measured_float64']:.4f}"
        assert abs(record["measured_float64"] - record["predicted"]) <= record["step_float64"]


def test_a_command_is_its_own_module_added_by_one_name(monkeypatch, capsys):
    module = types.ModuleType("rbfviz.cli.fakecmd")

    def register(subparsers):
        parser = subparsers.add_parser("hello", help="a test command")
        parser.add_argument("--times", type=int, default=1)
        parser.set_defaults(handler=lambda args: print("hello " * args.times) or 0)

    module.register = register
    monkeypatch.setitem(sys.modules, "rbfviz.cli.fakecmd", module)
    monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS, "fakecmd"))
    assert cli.main(["hello", "--times", "2"]) == 0
    assert capsys.readouterr().out.strip() == "hello hello"


def test_every_command_has_its_file_and_help_lists_them_in_order(capsys):
    folder = Path(cli.__file__).parent
    assert {p.stem for p in folder.glob("*.py")} == {"__init__", "arguments", *cli.COMMANDS}
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    shown = capsys.readouterr().out
    listed = re.findall(r"^    (\w+)", shown, flags=re.M)  # a command's name; its wrapped help is further in
    assert listed == list(cli.COMMANDS) == ["anneal", "reproduce", "app", "deep", "classify", "export"]


@pytest.mark.parametrize("missing", ["does_not_exist", "broken"])
def test_a_listed_command_that_cannot_be_imported_is_not_hidden(monkeypatch, missing):
    def broken(name, *args, **kwargs):
        if name == "rbfviz.cli.broken":
            raise ModuleNotFoundError("No module named 'somethingelse'", name="somethingelse")
        return original(name, *args, **kwargs)

    original = cli.importlib.import_module
    monkeypatch.setattr(cli.importlib, "import_module", broken)
    monkeypatch.setattr(cli, "COMMANDS", (missing,))
    with pytest.raises(ModuleNotFoundError, match="somethingelse" if missing == "broken" else missing):
        cli.build_parser()


def test_app_command_starts_streamlit_on_the_repositorys_app(monkeypatch):
    from rbfviz.cli import app

    calls = []
    monkeypatch.setattr(app.subprocess, "call", lambda argv, cwd: calls.append((argv, cwd)) or 0)
    assert cli.main(["app", "--port", "8600", "--address", "0.0.0.0"]) == 0
    ((argv, cwd),) = calls
    root = Path(__file__).resolve().parents[2]
    assert argv[1:5] == ["-m", "streamlit", "run", str(root / "app.py")] and Path(cwd) == root
    assert argv[5:] == ["--server.port=8600", "--server.address=0.0.0.0"]


def test_app_command_explains_where_the_app_lives(tmp_path):
    """Installed without the repository, `rbfviz app` says what to do instead of failing obscurely.

    The entry point in a real interpreter: ``python -m rbfviz`` from a copy of the package alone."""
    import shutil

    shutil.copytree(
        Path(__file__).resolve().parents[2] / "rbfviz",
        tmp_path / "rbfviz",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    proc = subprocess.run(
        [sys.executable, "-m", "rbfviz", "app"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_TIMEOUT_S,
    )
    assert proc.returncode == 2
    assert "lives in the repository" in proc.stderr and "Traceback" not in proc.stderr
