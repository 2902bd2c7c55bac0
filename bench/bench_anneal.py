"""Annealing at N = 100,000 and "How many clusters" at n = 5,000: this tree against an earlier revision.

    .venv/bin/python bench/bench_anneal.py                    # against --before (default below)
    .venv/bin/python bench/bench_anneal.py --before HEAD~3    # any git revision
    .venv/bin/python bench/bench_anneal.py --repeats 1        # one run each (default 2, best kept)

What is timed, each in a fresh subprocess with one torch thread and BLAS limited to one thread (as the
app runs), interleaved before/after so both see the same machine:

* anneal: ``anneal(X, 5, default_sigmas(X, 5, "softmax"))`` on ``make_dataset("blobs", n=100_000,
  seed=0)``, 60 σ levels (the grid is made outside the timing);
* how many: what the "How many clusters" page computes for one setting — ``annealing_answer(X, 8)``,
  ``kmeans_sweep(X, 8, n_init=4)`` and ``silhouette_curve`` — on ``make_dataset("blobs", n=5_000)``;
* reference: scikit-learn's ``KMeans(5).fit`` on the same 100,000 points (this tree only);
* ``--heavy``: also the heaviest settings a student can open on the Annealing page, as the page computes
  them (``ui.compute.annealing_view``: ``collapse_study`` on the page's σ grid, then the view's arrays),
  at blobs n = 5,000, k = 10, for softmax, entmax-1.5 and α-entmax α = 1.3 (15-90 s each before); and
  "How many clusters" at its largest k_max, 16 (n = 5,000, as above).

Figures are process CPU seconds (``time.process_time``; steadier than wall time on a shared machine),
with wall seconds and the 1-minute load average at the start and end of each run. The "before" tree is
``git archive <rev> rbfviz`` unpacked into a temporary directory. Both runs check that they reach the
same answer (the number of clusters; the annealed end centres, matched as sets).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The last revision before annealing's accelerated EM (the "today").
BEFORE = "505d19f"

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {root!r})
import numpy as np
from threadpoolctl import threadpool_limits
import rbfviz
import torch
torch.set_num_threads(1)
# the process tuning the app applies, where the tree has it (a tree older than it ran without)
tuned = hasattr(rbfviz, "tune_process")
if tuned:
    rbfviz.tune_process()
from rbfviz import choose_k, make_dataset
from rbfviz.annealing import anneal, default_sigmas

what = {what!r}
load0 = os.getloadavg()[0]
with threadpool_limits(limits=1, user_api="blas"):
    if what == "anneal":
        X, _ = make_dataset("blobs", n=100_000, seed=0)
        grid = default_sigmas(X, 5, "softmax")
        cpu, wall = time.process_time(), time.perf_counter()
        result = anneal(X, 5, grid, kind="softmax")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        answer = {{"end": result.centers[-1].tolist(), "iterations": int(result.iterations.sum()),
                   "unconverged": int((~result.converged).sum())}}
    elif what in ("how_many", "how_many_heavy"):
        k_max = 8 if what == "how_many" else 16  # the default and the largest k_max
        X, _ = make_dataset("blobs", n=5_000, seed=0)
        cpu, wall = time.process_time(), time.perf_counter()
        annealing = choose_k.annealing_answer(X, k_max, kind="softmax", seed=0)
        sweep = choose_k.kmeans_sweep(X, k_max, seed=0, n_init=4)
        silhouette = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=0)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        answer = {{"k": annealing.k, "counts": annealing.counts.tolist(),
                   "best": choose_k.best_silhouette(sweep.ks, silhouette)}}
    elif what.startswith("heavy:"):
        import logging, warnings
        logging.disable(logging.WARNING); warnings.filterwarnings("ignore")
        from dataclasses import replace
        from ui import compute
        from ui.state import Controls
        ctrl = replace(Controls(), n=5_000, k=10, kind=what.split(":", 1)[1])
        compute.data(ctrl), compute.scale(ctrl)  # the data and the σ grid, outside the timing
        cpu, wall = time.process_time(), time.perf_counter()
        compute.annealing_view(ctrl)  # the page's own call: collapse_study on its grid, then the view
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        answer = {{}}
    else:
        from sklearn.cluster import KMeans
        X, _ = make_dataset("blobs", n=100_000, seed=0)
        cpu, wall = time.process_time(), time.perf_counter()
        KMeans(5, random_state=0).fit(X)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        answer = {{}}
print(json.dumps({{"cpu": cpu, "wall": wall, "load": [load0, os.getloadavg()[0]], "answer": answer,
                  "tuned": tuned}}))
"""


def run(root: Path, what: str) -> dict:
    code = CHILD.format(root=str(root), what=what)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    if out.returncode != 0:
        raise SystemExit(f"the {what!r} run in {root} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def same_centres(a, b, tol: float = 1e-6) -> bool:
    """The two (k, d) centre lists agree as sets (nearest-neighbour matching) to tol."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    a, b = np.asarray(a), np.asarray(b)
    rows, cols = linear_sum_assignment(((a[:, None] - b[None]) ** 2).sum(axis=2))
    return bool(np.abs(a[rows] - b[cols]).max() <= tol)


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help=f"git revision to compare with (default {BEFORE})")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each, best CPU kept (default 2)")
    parser.add_argument("--heavy", action="store_true", help="also the Annealing page's heaviest settings")
    args = parser.parse_args(argv)
    heavy = ("heavy:softmax", "heavy:entmax15", "heavy:entmax:1.3", "how_many_heavy") if args.heavy else ()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (2 shared cores; other jobs running)")
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", args.before, "rbfviz", "ui"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        trees = {"before": Path(tmp), "after": ROOT}
        best: dict[tuple[str, str], dict] = {}
        for _ in range(max(1, args.repeats)):
            for what in ("anneal", "how_many", *heavy):
                for tree, root in trees.items():
                    result = run(root, what)
                    key = (what, tree)
                    if key not in best or result["cpu"] < best[key]["cpu"]:
                        best[key] = result
        best[("kmeans", "after")] = run(ROOT, "kmeans")

    rows = [
        ("annealing, N = 100,000, k = 5, 60 σ levels", "anneal", "≤ 2 s"),
        ('"How many clusters", n = 5,000, k_max = 8', "how_many", "≤ 1.5 s"),
    ]
    rows += [(f"Annealing page, n = 5,000, k = 10, {what[6:]}", what, "≤ 5 s") for what in heavy[:3]]
    rows += [('"How many clusters", n = 5,000, k_max = 16', what, "≤ 5 s") for what in heavy[3:]]
    print(
        "\n| measure | before: CPU s (wall) | after: CPU s (wall) | before / after | load avg "
        "(after) | target |"
    )
    print("|---|---|---|---|---|---|")
    for label, what, target in rows:
        before, after = best[(what, "before")], best[(what, "after")]
        print(
            f"| {label} | {before['cpu']:.2f} ({before['wall']:.2f}) "
            f"| {after['cpu']:.2f} ({after['wall']:.2f}) | {before['cpu'] / after['cpu']:.1f}x "
            f"| {after['load'][0]:.1f}–{after['load'][1]:.1f} | {target} |"
        )
    if not best[("anneal", "before")]["tuned"]:
        print("(the before tree has no rbfviz.tune_process: it ran with one torch thread, untuned otherwise)")
    km = best[("kmeans", "after")]
    print(
        f"\nscikit-learn KMeans(5).fit on the same 100,000 points: {km['cpu']:.2f} s CPU "
        f"({km['wall']:.2f} s wall); "
        f"annealing's 60 levels / one K-Means fit: {best[('anneal', 'after')]['cpu'] / km['cpu']:.0f}x"
    )
    anneal_before, anneal_after = best[("anneal", "before")]["answer"], best[("anneal", "after")]["answer"]
    print(
        f"anneal EM iterations: {anneal_before['iterations']} before, {anneal_after['iterations']} after; "
        f"unconverged levels {anneal_before['unconverged']} / {anneal_after['unconverged']}; "
        "same end centres: "
        f"{same_centres(anneal_before['end'], anneal_after['end'])}"
    )
    many_before, many_after = best[("how_many", "before")]["answer"], best[("how_many", "after")]["answer"]
    print(
        f"how many: annealing's k {many_before['k']} / {many_after['k']}, "
        f"silhouette's k {many_before['best']} / {many_after['best']}, "
        f"same staircase: {many_before['counts'] == many_after['counts']}"
    )
    if heavy:
        heavy_before, heavy_after = (
            best[("how_many_heavy", "before")]["answer"],
            best[("how_many_heavy", "after")]["answer"],
        )
        print(
            f"how many at k_max = 16: annealing's k {heavy_before['k']} / {heavy_after['k']}, "
            f"same staircase: {heavy_before['counts'] == heavy_after['counts']}"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
