"""What a new setting's σ-scrubber payload costs the server: each view's payload built cold, the
pages' way (batched levels, patches) against the per-level reference (a full Plotly figure per σ,
harness/payload_reference.py), in one process and one run.

    .venv/bin/python bench/bench_payload.py                  # defaults, and the Explorer at n = 5,000
    .venv/bin/python bench/bench_payload.py --repeat 5 --json bench_payload.json

Each build starts from empty caches (st.cache_data, the payload and annealing stores), so it counts
everything the view computes for a new setting: the data, the σ range, the start, EM to the fixed
point at every σ, the fields, the figures and the encoding. The Annealing view's annealing path and
collapse study (ui.compute.annealing_view) are computed once beforehand and timed on their own line:
they are the annealing's cost, not the plane payload's. Both builds must give the same bytes (checked).

Figures: process CPU time (time.process_time, steadier than wall time on a shared machine) and wall
time, the best and the median of --repeat builds, the ratio reference / new of the medians, the
payload's size in bytes (what a class downloads), and the load average before and after. Targets
(issue 16, server time until the payload is ready): Explorer ≤ 0.2 s at the defaults (≤ 1 s at
n = 5,000); Stability, Equivalence, Annealing plane ≤ 0.3 s each.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository
logging.disable(logging.WARNING)  # st.cache_data outside a running app warns on every call
warnings.filterwarnings("ignore")

from harness import payload_reference  # noqa: E402
from ui import compute, scrub_parts  # noqa: E402
from ui.state import Controls  # noqa: E402

TARGETS = {
    "Explorer": 0.2,
    "Explorer n=5000": 1.0,
    "Stability": 0.3,
    "Equivalence": 0.3,
    "Annealing plane": 0.3,
}


def clear_caches() -> None:
    compute.st.cache_data.clear()
    # the process-wide stores in front of st.cache_data (the σ range's, the levels', the payloads')
    stores = (compute._annealing_store, compute._collapse_store, compute._scale_store, compute._levels_store)
    for store in stores:
        store().clear()
    scrub_parts._scrub_store().clear()


def setting(n: int = 500) -> Controls:
    ctrl = replace(Controls(), n=n)
    return replace(ctrl, sigma=compute.scale(ctrl).default)


def timed(build, prepare) -> tuple[float, float, bytes]:
    clear_caches()
    prepare()
    cpu, wall = time.process_time(), time.perf_counter()
    payload = build()
    return time.process_time() - cpu, time.perf_counter() - wall, payload


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    machine.start()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    repeat = max(1, min(args.repeat, 20))

    defaults, large = setting(), setting(5000)
    nothing = lambda: None  # noqa: E731

    def annealed(ctrl):
        return lambda: compute.annealing_view(ctrl)

    views = [
        ("Explorer", defaults, payload_reference.explorer_batched, payload_reference.explorer, nothing),
        ("Explorer n=5000", large, payload_reference.explorer_batched, payload_reference.explorer, nothing),
        ("Stability", defaults, payload_reference.stability_batched, payload_reference.stability, nothing),
        (
            "Equivalence",
            defaults,
            payload_reference.equivalence_batched,
            payload_reference.equivalence_,
            nothing,
        ),
        (
            "Annealing plane",
            defaults,
            payload_reference.annealing_batched,
            payload_reference.annealing,
            annealed(defaults),
        ),
    ]
    print(f"load average before: {os.getloadavg()}")
    clear_caches()
    cpu = time.process_time()
    compute.annealing_view(defaults)
    spent = time.process_time() - cpu
    print(f"annealing path + collapse study at the defaults (not in the plane payload): {spent:.3f} s CPU")
    payload_reference.explorer_batched(defaults)  # imports and first calls out of the way
    rows = []
    for name, ctrl, new, reference, prepare in views:
        times = {"new": [], "reference": []}
        same = True
        for _ in range(repeat):
            for label, build in (("reference", reference), ("new", new)):
                cpu, wall, payload = timed(lambda: build(ctrl), prepare)
                times[label].append((cpu, wall, payload))
            same &= times["new"][-1][2] == times["reference"][-1][2]
        row = {"view": name, "n": ctrl.n, "levels": len(compute.scale(ctrl).grid), "same_bytes": same}
        for label, runs in times.items():
            row[f"{label}_cpu_best"] = min(r[0] for r in runs)
            row[f"{label}_cpu_median"] = statistics.median(r[0] for r in runs)
            row[f"{label}_wall_median"] = statistics.median(r[1] for r in runs)
        row["ratio_cpu"] = row["reference_cpu_median"] / row["new_cpu_median"]
        row["target_s"] = TARGETS[name]
        row["payload_bytes"] = len(times["new"][-1][2])
        rows.append(row)
        print(
            f"{name:16s} n={row['n']:5d} levels={row['levels']:2d}"
            f"  reference CPU {row['reference_cpu_median']:.3f} s  new CPU {row['new_cpu_median']:.3f} s"
            f" (best {row['new_cpu_best']:.3f}, wall {row['new_wall_median']:.3f})"
            f"  ratio {row['ratio_cpu']:.1f}x  target {row['target_s']} s  same bytes: {same}"
            f"  payload {row['payload_bytes']:,} bytes",
            flush=True,
        )
    load = os.getloadavg()
    print(f"load average after: {load}")
    if args.json:
        args.json.write_text(
            json.dumps({"load_average_after": load, "repeat": repeat, "rows": rows}, indent=2)
        )


if __name__ == "__main__":
    main()
