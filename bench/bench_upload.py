"""Every view with the largest upload the sidebar accepts (rbfviz.loader.MAX_ROWS = 20,000 points) at k = 10:
what the page's first run costs, in this process (Streamlit's AppTest, no browser, no server).

    OMP_NUM_THREADS=1 python bench/bench_upload.py --no-avx512   # one thread, as the container runs
    python bench/bench_upload.py --no-avx512 --views Explorer Stability --kinds entmax15

Method: per view and map, a new AppTest of app.py opened at k = 10 with the map in its address, the
20,000 points (blobs, seed 0, n = 20,000, as a CSV of 0.37 MB) uploaded in the sidebar as a student does,
and the page's run after the upload timed: this process's CPU seconds (time.process_time: the script
thread, and the workers it starts) and wall seconds. The stores and caches are emptied before each case.
A page over the work budget (ui/budget.py) answers with its notice: its "Compute anyway" label is printed
(the estimate, rbfviz.cost), and the computation is not started. Target: the page answers within 5 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VIEWS = (
    "Explorer",
    "Step by step",
    "Annealing",
    "How many clusters",
    "Stability",
    "Equivalence",
    "Gaussian mixture",
    "Lessons",
    "Neural network",
)
KINDS = {"softmax": {}, "entmax15": {"kind": "entmax15"}, "alpha": {"kind": "entmax", "alpha": "1.3"}}
TARGET_S = 5.0


def csv_bytes(n: int) -> bytes:
    import numpy as np

    from rbfviz.datasets import make_dataset

    X, _ = make_dataset("blobs", n, 0.5, 0)
    lines = ["x,y"] + [f"{a:.6f},{b:.6f}" for a, b in np.asarray(X, dtype=np.float64)]
    return ("\n".join(lines) + "\n").encode()


def clear_everything() -> None:
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()  # the stores (ui.compute, ui.scrub_parts, ...) are cache_resource singletons


def one_case(view: str, query: dict, data: bytes, timeout: float) -> dict:
    from streamlit.testing.v1 import AppTest

    from harness.settings import APP
    from ui import page as ui_page

    clear_everything()
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.query_params.update({"k": "10", **query})
    at.switch_page(ui_page.page_path(view)).run()
    cpu, wall = time.process_time(), time.perf_counter()
    at.file_uploader(key="upload_file").set_value(("largest.csv", data, "text/csv")).run()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    asks = [b.label for b in at.button if str(b.key).startswith("budget_") and "cancel" not in str(b.key)]
    return {
        "view": view,
        "query": query,
        "n": at.query_params.get("n"),
        "cpu": cpu,
        "wall": wall,
        "asks": asks[0] if asks else "",
        "problems": [str(e.value)[:200] for e in at.exception] + [str(e.value)[:200] for e in at.error],
    }


def main() -> int:
    from harness import machine  # the machine header and --no-avx512

    machine.start()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", nargs="+", default=list(VIEWS))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()

    from rbfviz.loader import MAX_ROWS

    data = csv_bytes(MAX_ROWS)
    print(f"upload: {MAX_ROWS:,} points, {len(data) / 1e6:.2f} MB; k = 10; AppTest in this process\n")
    head = f"{'view':<20} {'map':<10} {'n':>6} {'CPU':>8} {'wall':>8}  target {TARGET_S:.0f} s"
    print(head + "\n" + "-" * len(head), flush=True)
    problems = 0
    for view in args.views:
        for kind in args.kinds:
            r = one_case(view, KINDS[kind], data, args.timeout)
            met = "met" if r["cpu"] <= TARGET_S else "NOT met"
            asks = f"  asks: {r['asks']!r}" if r["asks"] else ""
            print(
                f"{view:<20} {kind:<10} {r['n']:>6} {r['cpu']:>7.2f}s {r['wall']:>7.2f}s  {met}{asks}",
                flush=True,
            )
            for problem in r["problems"]:
                problems += 1
                print(f"  problem: {problem}")
    print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
