"""How large the offline pages are (rbfviz.views.export), against the 3 MB budget of one file, and how long
the command line takes to write them.

    python bench/bench_export.py                # each view at the defaults and at n = 5,000, the lesson pack
    python bench/bench_export.py --no-lessons   # without the lesson pack (its ten payloads take a while)
    python bench/bench_export.py --no-avx512    # as a machine without AVX-512 (harness/machine.py)

Per file: its size in MB, what is in it (the plotly.js bundle, the payloads, both base64-encoded), which
bundle (the cartesian partial one, or the full one when a figure needs WebGL), and the wall and process
CPU time to build it. The budget is 3 MB at the defaults; the n = 5,000 sizes are printed to be known.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import machine  # noqa: E402  the machine header and --no-avx512
from rbfviz.views.export.build import Setting  # noqa: E402
from rbfviz.views.export.lesson_pack import lesson_pack  # noqa: E402
from rbfviz.views.export.page import view_page  # noqa: E402

BUDGET = 3_000_000  # bytes per file at the defaults
VIEWS = ("explorer", "annealing", "stability", "equivalence")


def parts(page: str) -> tuple[int, int, str]:
    """(bytes of the plotly.js script, bytes of the payload scripts, bundle name) in a page."""
    plotly = re.search(
        r'<script type="application/octet-stream" id="rbfviz-plotly"[^>]*>([^<]*)</script>', page
    )
    payloads = re.findall(
        r'<script type="application/octet-stream" id="rbfviz-payload[^"]*">([^<]*)</script>', page
    )
    bundle = re.search(r"<p>Made by .*?; (plotly\.js[^<]*?) is inside this file", page)
    return len(plotly.group(1)), sum(len(p) for p in payloads), bundle.group(1) if bundle else "?"


def measure(name: str, make) -> dict:
    wall, cpu_time = time.perf_counter(), time.process_time()
    page = make()
    wall, cpu_time = time.perf_counter() - wall, time.process_time() - cpu_time
    size = len(page.encode("utf-8"))
    plotly, payloads, bundle = parts(page)
    return dict(
        name=name, size=size, plotly=plotly, payloads=payloads, bundle=bundle, wall=wall, cpu=cpu_time
    )


def main(argv=None) -> int:
    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-lessons", action="store_true", help="leave the lesson pack out")
    args = parser.parse_args(argv)
    rows = []
    for view in VIEWS:
        rows.append(measure(f"{view} (defaults, n = 500)", lambda v=view: view_page(Setting(v))))
    for view in VIEWS:
        rows.append(measure(f"{view} (n = 5,000)", lambda v=view: view_page(Setting(v, n=5000))))
    if not args.no_lessons:
        rows.append(measure("lesson pack (nine steps)", lesson_pack))
    print(
        f"{'file':34} {'MB':>6} {'budget':>7} {'plotly MB':>9} {'payloads MB':>11}  "
        f"{'wall s':>6} {'cpu s':>6}  bundle"
    )
    for row in rows:
        at_defaults = "n = 5,000" not in row["name"]
        verdict = ("ok" if row["size"] <= BUDGET else "OVER") if at_defaults else "(info)"
        print(
            f"{row['name']:34} {row['size'] / 1e6:6.2f} {verdict:>7} {row['plotly'] / 1e6:9.2f} "
            f"{row['payloads'] / 1e6:11.2f}  {row['wall']:6.1f} {row['cpu']:6.1f}  {row['bundle']}"
        )
    print(f"load average after: {machine.load_text()}")
    over = [row["name"] for row in rows if "n = 5,000" not in row["name"] and row["size"] > BUDGET]
    if over:
        print(f"over the {BUDGET / 1e6:g} MB budget at the defaults: {', '.join(over)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
