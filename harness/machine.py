"""What machine a benchmark ran on, printed at its top; and ``--no-avx512``, to run it as an AVX2 machine.

Every script in bench/ calls ``start()`` once, first thing in its ``main``::

    argv = machine.start(argv)   # handles --no-avx512, prints the header, returns the other arguments

The header names the CPU model, whether it has AVX-512, numpy's float64 and float32 ``exp`` rates (the
yardstick: numpy vectorises float64 ``exp`` only in its AVX-512 dispatch group, X86_V4, so a machine
without AVX-512 runs it scalar, several times slower) and the load average.

``--no-avx512`` (anywhere on a benchmark's command line) turns numpy's and torch's AVX-512 kernels off
and runs the benchmark again in a fresh interpreter, as a laptop without AVX-512 would run it: both
libraries pick their kernels when they are imported, so the variables must be set before that, in a
new process. The same environment, set by hand, does the same for any command (servers and test
runs included); every subprocess a benchmark starts inherits it::

    NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" ATEN_CPU_CAPABILITY=avx2 python bench/...

This module imports numpy only inside ``describe()``, so it can be imported before anything else.
"""

from __future__ import annotations

import os
import sys
import time

FLAG = "--no-avx512"
# numpy 2.x's AVX-512 dispatch groups (X86_V4 holds its float64 exp) and torch's kernel level
NO_AVX512 = {"NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR", "ATEN_CPU_CAPABILITY": "avx2"}


def cpu_model() -> str:
    """The first ``model name`` of /proc/cpuinfo (or the platform's processor string elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown"


def has_avx512() -> bool:
    """The processor has AVX-512 Foundation (``avx512f`` in /proc/cpuinfo), whatever the libraries use."""
    try:
        with open("/proc/cpuinfo") as f:
            return any("avx512f" in line.split() for line in f if line.startswith("flags"))
    except OSError:
        return False


def playing_avx2() -> bool:
    """This process runs with numpy's and torch's AVX-512 kernels turned off (``NO_AVX512`` is set)."""
    return all(os.environ.get(name) == value for name, value in NO_AVX512.items())


def exp_rate(dtype: str, n: int = 1_000_000, repeats: int = 7) -> float:
    """numpy's ``exp`` throughput in values per second on n values in [-20, 0] of dtype, best of repeats
    (one thread: numpy's ufuncs do not thread)."""
    import numpy as np

    x = np.linspace(-20.0, 0.0, n).astype(dtype)
    out = np.empty_like(x)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        np.exp(x, out=out)
        best = min(best, time.perf_counter() - t)
    return n / best


def numpy_uses_avx512() -> bool:
    """numpy dispatches to its AVX-512 kernels in this process."""
    from numpy._core._multiarray_umath import __cpu_features__

    return bool(__cpu_features__.get("X86_V4", False))


def load_text() -> str:
    """The load average now (1, 5, 15 min), as the header and a benchmark's lines print it."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def describe() -> dict:
    """The machine's figures: CPU model, AVX-512 present and in use, numpy's exp rates, load average."""
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "avx512": has_avx512(),
        "numpy_avx512": numpy_uses_avx512(),
        "playing_avx2": playing_avx2(),
        "exp_float64_per_s": exp_rate("float64"),
        "exp_float32_per_s": exp_rate("float32"),
        "load_average": list(os.getloadavg()),
    }


def header(facts: dict) -> str:
    """``describe()``'s figures as three lines for the top of a benchmark's output."""
    avx = "yes" if facts["avx512"] else "no"
    if facts["playing_avx2"]:
        in_use = "yes" if facts["numpy_avx512"] else "no"
        avx += f" (turned off for this run, {FLAG}; numpy's AVX-512 kernels in use: {in_use})"
    load = ", ".join(f"{x:.2f}" for x in facts["load_average"])
    return (
        f"machine: {facts['cpu']}, {facts['cores']} cores; AVX-512: {avx}\n"
        f"numpy exp, one thread, 10^6 values: float64 {facts['exp_float64_per_s'] / 1e6:.0f} M/s, "
        f"float32 {facts['exp_float32_per_s'] / 1e6:.0f} M/s\n"
        f"load average (1, 5, 15 min): {load}"
    )


def start(argv: list[str] | None = None) -> list[str]:
    """Call first in a benchmark's ``main``: with ``--no-avx512`` in the arguments (argv, or
    sys.argv[1:] when None) and the environment not yet set, set it and replace this process by a fresh
    interpreter running the same command; otherwise print the header and return the arguments without
    the flag (sys.argv too loses it, for parsers that read it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if FLAG in args and not playing_avx2():
        os.environ.update(NO_AVX512)
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, *sys.argv])
    args = [a for a in args if a != FLAG]
    sys.argv[1:] = [a for a in sys.argv[1:] if a != FLAG]
    print(header(describe()), flush=True)
    return args


if __name__ == "__main__":  # python harness/machine.py [--no-avx512]: the header alone
    start()
