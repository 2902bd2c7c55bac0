"""Issue 6 targets: deep clustering on digits and the RBF network classifier, measured.

    .venv/bin/python bench/bench_networks.py                 # everything (a few minutes on 2 cores)
    .venv/bin/python bench/bench_networks.py --quick         # seeds 0-1 only, one map
    .venv/bin/python bench/bench_networks.py --json out.json # also write every figure as JSON

What runs, exactly (all defaults of rbfviz.nn unless stated):

* Deep clustering: ``train_deep_clustering("digits", seed=s, kind=kind)`` for s = 0..4 and kind in
  softmax, entmax15 (k = 10, latent width 4, λ = 3, 100 pretraining + 50 joint epochs, float32).
  Printed per run: NMI and ARI of the joint model, NMI of AE + K-Means (the same network before the
  joint phase), kmeans_raw_nmi and kmeans_pca_nmi (KMeans n_init=10, random_state=s), wall seconds.
  Target: mean NMI over the five seeds >= mean kmeans_raw_nmi + 0.05.
* Classifier: ``train_classifier(dataset, k=12, seed=s, kind=kind)`` on moons, circles (the targets:
  test accuracy >= 0.97 with k <= 12, logistic regression < 0.9) and spiral, s = 0..4.
* Low σ: ``compare_low_sigma("moons", sigma=0.01)`` in float32 — the final row of each map.

Seconds are wall time of one call on a shared machine with torch limited to one thread (rbfviz's
default; --threads changes it): treat them as indicative, not as a benchmark of the hardware.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rbfviz.jsonable import jsonable  # noqa: E402
from rbfviz.nn import compare_low_sigma, train_classifier, train_deep_clustering  # noqa: E402

NMI_MARGIN = 0.05
ACCURACY_TARGET = 0.97
LINEAR_CEILING = 0.9


def bench_deep(seeds, kinds) -> dict:
    print("Deep clustering on digits (k=10, latent 4, λ=3, 100+50 epochs, float32)")
    print(
        f"{'map':<9} {'seed':>4} {'NMI':>7} {'ARI':>7} {'AE+KM':>7} {'raw KM':>7} {'PCA KM':>7} {'NaN':>4} "
        f"{'s':>6}"
    )
    out = {}
    for kind in kinds:
        runs = []
        for seed in seeds:
            r = train_deep_clustering("digits", seed=seed, kind=kind)
            runs.append(r.summary())
            print(
                f"{kind:<9} {seed:>4} {r.nmi:7.4f} {r.ari:7.4f} {r.pretrain_nmi:7.4f} "
                f"{r.kmeans_raw_nmi:7.4f} "
                f"{r.kmeans_pca_nmi:7.4f} {r.nan_steps:>4} {r.seconds:6.1f}",
                flush=True,
            )
        nmi = np.array([run["nmi"] for run in runs])
        raw = np.array([run["kmeans_raw_nmi"] for run in runs])
        pca = np.array([run["kmeans_pca_nmi"] for run in runs])
        pre = np.array([run["pretrain_nmi"] for run in runs])
        margin = nmi.mean() - raw.mean()
        out[kind] = {
            "runs": runs,
            "nmi_mean": nmi.mean(),
            "nmi_min": nmi.min(),
            "kmeans_raw_nmi_mean": raw.mean(),
            "kmeans_pca_nmi_mean": pca.mean(),
            "pretrain_nmi_mean": pre.mean(),
            "margin": margin,
            "seconds_mean": float(np.mean([run["seconds"] for run in runs])),
            "target_reached": bool(margin >= NMI_MARGIN),
        }
        print(
            f"{kind:<9} mean NMI {nmi.mean():.4f} (all five: {', '.join(f'{v:.4f}' for v in nmi)}); "
            f"raw K-Means {raw.mean():.4f}; PCA K-Means {pca.mean():.4f}; AE+KM {pre.mean():.4f}; "
            f"margin over raw {margin:+.4f} (target >= +{NMI_MARGIN}): "
            f"{'reached' if margin >= NMI_MARGIN else 'NOT reached'}; {out[kind]['seconds_mean']:.1f} s "
            "per run"
        )
    return out


def bench_classifier(seeds, kinds, datasets=("moons", "circles", "spiral"), k=12) -> dict:
    print(f"\nRBF network classifier (k={k}, λ=2, 200 full-batch epochs, float32; test = 30 % split)")
    print(f"{'data':<8} {'map':<9} {'seed':>4} {'acc':>6} {'linear':>6} {'Lloyd d':>8} {'empty':>5} {'s':>5}")
    out = {}
    for dataset in datasets:
        for kind in kinds:
            runs = []
            for seed in seeds:
                r = train_classifier(dataset, k=k, seed=seed, kind=kind)
                runs.append(r.summary())
                print(
                    f"{dataset:<8} {kind:<9} {seed:>4} {r.accuracy:6.3f} {r.linear_accuracy:6.3f} "
                    f"{r.center_distance_to_lloyd:8.4f} {r.empty_centers:>5} {r.seconds:5.2f}",
                    flush=True,
                )
            acc = np.array([run["accuracy"] for run in runs])
            lin = np.array([run["linear_accuracy"] for run in runs])
            dist = np.array([run["center_distance_to_lloyd"] for run in runs])
            reached = bool(acc.min() >= ACCURACY_TARGET and lin.max() < LINEAR_CEILING)
            out[f"{dataset}/{kind}"] = {
                "runs": runs,
                "accuracy_min": acc.min(),
                "accuracy_mean": acc.mean(),
                "linear_max": lin.max(),
                "lloyd_distance_median": float(np.median(dist)),
                "lloyd_distance_max": dist.max(),
                "target_reached": reached,
            }
            target = "" if dataset == "spiral" else f"; target {'reached' if reached else 'NOT reached'}"
            print(
                f"{dataset:<8} {kind:<9} accuracy min {acc.min():.3f} mean {acc.mean():.3f}; linear max "
                f"{lin.max():.3f}; Lloyd distance median {np.median(dist):.4f} max {dist.max():.4f}{target}"
            )
    return out


def bench_low_sigma() -> dict:
    c = compare_low_sigma("moons", sigma=0.01, k=12, epochs=60)
    n_train = 350
    print(
        f"\nLow σ = {c.sigma} (float32, moons, k=12, 60 epochs; naive NaN predicted below σ = "
        f"{c.naive_nan_sigma_first:.4f} for the first row)"
    )
    for kind, s in c.summary.items():
        h = c.history[kind]
        print(
            f"  {kind:<9} NaN steps {s['nan_steps']:>3}; NaN rows at start {h['nan_rows'][0]:>3}/{n_train}; "
            f"one-hot rows at end {h['one_hot_rows'][-1]:>3}/{n_train}; |∇_C CE| first "
            f"{h['grad_norm_centers_ce'][0]:.3g} "
            f"last {h['grad_norm_centers_ce'][-1]:.3g}; test accuracy {s['final_test_accuracy']:.3f}"
        )
    return {"summary": c.summary, "seconds": c.seconds}


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="seeds 0-1 and softmax only")
    parser.add_argument("--json", default=None, help="also write all figures to this JSON file")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: rbfviz's 1)")
    parser.add_argument("--skip-deep", action="store_true")
    parser.add_argument("--skip-classifier", action="store_true")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    seeds = (0, 1) if args.quick else (0, 1, 2, 3, 4)
    kinds = ("softmax",) if args.quick else ("softmax", "entmax15")
    started = time.perf_counter()
    print(f"torch threads: {torch.get_num_threads()}")
    result = {}
    if not args.skip_deep:
        result["deep"] = bench_deep(seeds, kinds)
    if not args.skip_classifier:
        result["classifier"] = bench_classifier(seeds, kinds)
        result["low_sigma"] = bench_low_sigma()
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(jsonable(result), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
