"""harness/machine.py: every benchmark's header (CPU, AVX-512, numpy's exp rates, load) and --no-avx512."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "harness" / "machine.py"


def _run(*args: str, env: dict | None = None) -> str:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "ATEN_CPU_CAPABILITY")
    }
    out = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**clean, **(env or {})},
    )
    return out.stdout


def test_the_header_names_the_cpu_avx512_the_exp_rates_and_the_load():
    lines = _run().splitlines()
    assert lines[0].startswith("machine: ") and "AVX-512: " in lines[0]
    assert "turned off" not in lines[0]
    assert lines[1].startswith("numpy exp, one thread, 10^6 values: float64 ") and "float32 " in lines[1]
    assert lines[2].startswith("load average (1, 5, 15 min): ")


def test_no_avx512_reruns_the_script_with_numpys_and_torchs_avx512_turned_off():
    lines = _run("--no-avx512").splitlines()
    assert len(lines) == 3  # one header: printed by the re-executed interpreter only
    assert "turned off for this run, --no-avx512; numpy's AVX-512 kernels in use: no" in lines[0]


def test_start_strips_the_flag_and_keeps_the_other_arguments(monkeypatch, capsys):
    from harness import machine

    for name, value in machine.NO_AVX512.items():
        monkeypatch.setenv(name, value)  # as after the re-exec: no second one
    monkeypatch.setattr(sys, "argv", ["bench/x.py", "--quick", "--no-avx512", "--json", "out.json"])
    assert machine.start(None) == ["--quick", "--json", "out.json"]
    assert sys.argv == ["bench/x.py", "--quick", "--json", "out.json"]
    assert "turned off for this run" in capsys.readouterr().out


def test_load_text_is_the_three_load_averages(monkeypatch):
    from harness import machine

    monkeypatch.setattr(os, "getloadavg", lambda: (1.234, 0.5, 12.0))
    assert machine.load_text() == "1.23, 0.50, 12.00"
