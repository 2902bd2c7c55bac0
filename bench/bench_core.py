"""Core speed and memory benchmark: soft steps vs scikit-learn's Lloyd, entmax15 and α-entmax vs softmax, a
full anneal, and peak memory at a million points.

    .venv/bin/python bench/bench_core.py            # everything (about a minute)
    .venv/bin/python bench/bench_core.py --quick    # fewer repeats

What is timed, exactly:

* soft step: ``soft_centroids_torch(x, c, resp_torch(x, c, σ, kind))`` under ``torch.no_grad`` — the
  responsibilities and the centre update through the torch API, the same functions as one EM step
  of ``anneal`` — on points already laid out as the library lays them out once per call or run (each
  feature contiguous, as in ``points_with_ones``; no validation), torch limited to 1 thread as
  rbfviz sets it. The target ratio uses this step. Timed too: the public numpy function
  ``soft_centroid_step`` (validation, layout) and the anneal's EM step ``_em_step`` (numpy arrays,
  points laid out once per run, no free energy).
* Lloyd iteration: scikit-learn's own kernel ``sklearn.cluster._k_means_lloyd.lloyd_iter_chunked_dense``
  (private API; it is exactly what ``KMeans(algorithm="lloyd").fit`` calls once per iteration: chunked
  assignment + centre update) on the same float64 data and centres, with n_threads=1 (same thread
  count as torch) and n_threads=2. As a public-API cross-check, the marginal cost per iteration of
  ``KMeans(init=C, n_init=1, tol=0, max_iter=m).fit`` between m=1 and m=11 is printed too.
* α-entmax (α = 1.3): the same soft step with kind "entmax:1.3" (rbfviz's Newton solve for the threshold),
  and, as the reference it replaced, the ``entmax`` package's ``entmax_bisect`` (50 bisection steps in
  torch) on the same (k, n) shifted logits, alone.
* Threads: every timing runs with BLAS libraries limited to 1 thread (threadpoolctl), as
  ``KMeans.fit`` does itself; both sides call BLAS (sklearn per 256-point chunk, rbfviz for the centre
  update's product), so both get the same single core.
* Each figure is the best of several repeats (the machine is shared; best-of is the least noisy
  estimate of the cost), and all ratios come from this one run.
* anneal: ``anneal(X, 5, default_sigmas(X, 5, kind), kind=kind)`` on 1,000 points (blobs: 4 groups for 5
  centres, the hardest default case; also moons and spiral), wall time of the whole
  call (60 σ levels, each EM'd to convergence), best of 3; default_sigmas is computed outside.
* memory: a fresh subprocess builds X (1e6 × 2), records ``resource.getrusage(RUSAGE_SELF).ru_maxrss``
  (peak resident set size of the process, which includes every torch/numpy allocation), runs one step
  (k = 10), and reports the peak RSS and its increase over the baseline. The baseline already
  contains the interpreter, torch, scikit-learn, X itself (16 MB) and its feature-contiguous copy
  (``points_with_ones``, 24 MB, made once per call or run); the increase is the step's own
  working memory. Two steps: the public one, which materialises the full (n, k) responsibilities,
  and the anneal's EM step, which works in blocks of 65,536 points.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rbfviz  # noqa: E402

rbfviz.tune_process()  # one torch thread, as the app runs it
from rbfviz.annealing import _em_step, anneal, default_sigmas  # noqa: E402
from rbfviz.maps import LOGIT_FLOOR, resp_torch, temperature  # noqa: E402
from rbfviz.steps import points_with_ones, soft_centroid_step, soft_centroids_torch  # noqa: E402


def best_of(fn, repeats: int, inner: int) -> float:
    """Best (smallest) mean seconds per call over ``repeats`` blocks of ``inner`` calls."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def lloyd_kernel(X: np.ndarray, C: np.ndarray, n_threads: int):
    """One scikit-learn Lloyd iteration (its private per-iteration kernel) as a zero-argument callable."""
    from sklearn.cluster._k_means_lloyd import lloyd_iter_chunked_dense

    n, k = X.shape[0], C.shape[0]
    weights = np.ones(n, dtype=X.dtype)
    centers_new = np.empty_like(C)
    weight_in_clusters = np.empty(k, dtype=X.dtype)
    labels = np.empty(n, dtype=np.int32)
    shift = np.empty(k, dtype=X.dtype)

    def step():
        lloyd_iter_chunked_dense(X, weights, C, centers_new, weight_in_clusters, labels, shift, n_threads)

    return step


def kmeans_fit_marginal(X: np.ndarray, C: np.ndarray, repeats: int) -> float:
    """Seconds per iteration from KMeans.fit(max_iter=11) minus fit(max_iter=1), divided by 10."""
    from sklearn.cluster import KMeans

    def fit(m):
        return lambda: KMeans(C.shape[0], init=C, n_init=1, tol=0.0, max_iter=m, algorithm="lloyd").fit(X)

    return (best_of(fit(11), repeats, 3) - best_of(fit(1), repeats, 3)) / 10.0


def soft_step(x: torch.Tensor, c: torch.Tensor, sigma: float, kind: str):
    def step():
        with torch.no_grad():
            soft_centroids_torch(x, c, resp_torch(x, c, sigma, kind))

    return step


def bisect_map(x: torch.Tensor, c: torch.Tensor, sigma: float, alpha: float):
    """The ``entmax`` package's α-entmax by bisection on the (k, n) shifted logits of x and c, as rbfviz
    called it before its own Newton solve."""
    from entmax import entmax_bisect

    d = torch.cdist(c, x).square_()
    z = ((d - d.amin(dim=0)) * (-1.0 / temperature(sigma))).clamp_min_(LOGIT_FLOOR)

    def step():
        with torch.no_grad():
            entmax_bisect(z, alpha=alpha, dim=0)

    return step


MEMORY_CHILD = r"""
import resource, sys, json
import numpy as np, torch
sys.path.insert(0, {root!r})
import rbfviz
rbfviz.tune_process()
from rbfviz.annealing import _em_step
from rbfviz.maps import resp_torch
from rbfviz.steps import points_with_ones, soft_centroids_torch
kind, dtype, which = {kind!r}, {dtype!r}, {which!r}
X = np.random.RandomState(0).normal(size=(1_000_000, 2)).astype(dtype)
C = X[:10].copy()
# the points as soft_centroid_step and anneal lay them out (each feature contiguous, then ones; made once)
points = points_with_ones(X)
x, c = torch.from_numpy(points[:-1]).T, torch.from_numpy(C)

def step(m):
    with torch.no_grad():
        if which == "public":
            soft_centroids_torch(x[:m], c, resp_torch(x[:m], c, 0.5, kind))
        else:
            _em_step(points[:, :m], C, 0.5, kind, energy=True)

step(1000)  # warm up on a small slice so lazy initialisation is in the baseline
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
step(X.shape[0])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"baseline_mb": base / 1024, "peak_mb": peak / 1024, "delta_mb": (peak - base) / 1024}}))
"""


def memory_case(kind: str, dtype: str, which: str) -> dict:
    root = str(Path(__file__).resolve().parents[1])
    code = MEMORY_CHILD.format(root=root, kind=kind, dtype=dtype, which=which)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness import machine  # the machine header and --no-avx512

    argv = machine.start(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 10
    print(
        f"load average at start: {os.getloadavg()[0]:.2f} (2 shared cores); torch threads: "
        f"{torch.get_num_threads()}"
    )

    rows = []  # (what, measured, target, ok)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(10_000, 2))
    C = X[rng.choice(10_000, 10, replace=False)].copy()
    points = points_with_ones(X)  # laid out once, as soft_centroid_step and anneal do
    x, c = torch.from_numpy(points[:-1]).T, torch.from_numpy(C)
    sigma = 0.5

    # Interleaved rounds, so every contender sees the same machine conditions; best of the rounds.
    contenders = {
        "soft": (soft_step(x, c, sigma, "softmax"), 20),
        "ent": (soft_step(x, c, sigma, "entmax15"), 5),
        "alpha": (soft_step(x, c, sigma, "entmax:1.3"), 5),
        "bisect": (bisect_map(x, c, sigma, 1.3), 2),
        "wrap": (lambda: soft_centroid_step(X, C, sigma, "softmax"), 20),
        "em": (lambda: _em_step(points, C, sigma, "softmax"), 20),
        "lloyd1": (lloyd_kernel(X, C, 1), 50),
        "lloyd2": (lloyd_kernel(X, C, 2), 50),
    }
    best = {name: float("inf") for name in contenders}
    for _ in range(repeats):
        for name, (fn, inner) in contenders.items():
            best[name] = min(best[name], best_of(fn, 1, inner))
    t_soft, t_ent, t_alpha, t_bisect, t_wrap, t_em, t_lloyd1, t_lloyd2 = (
        best[n] for n in ("soft", "ent", "alpha", "bisect", "wrap", "em", "lloyd1", "lloyd2")
    )
    t_fit = kmeans_fit_marginal(X, C, repeats)
    print("N=10,000, k=10, d=2, float64, σ=0.5; milliseconds per step (best of repeats):")
    print(f"  softmax soft step (torch core)        {t_soft * 1e3:8.3f}")
    print(f"  softmax soft_centroid_step (numpy API) {t_wrap * 1e3:8.3f}")
    print(f"  softmax anneal EM step (numpy arrays)  {t_em * 1e3:8.3f}")
    print(f"  entmax15 soft step (torch core)       {t_ent * 1e3:8.3f}")
    print(f"  α-entmax (α = 1.3) soft step          {t_alpha * 1e3:8.3f}")
    print(f"  entmax package's entmax_bisect alone  {t_bisect * 1e3:8.3f}  (α = 1.3, the same logits)")
    print(f"  sklearn Lloyd kernel, 1 thread        {t_lloyd1 * 1e3:8.3f}")
    print(f"  sklearn Lloyd kernel, 2 threads       {t_lloyd2 * 1e3:8.3f}")
    print(f"  sklearn KMeans.fit marginal/iteration {t_fit * 1e3:8.3f}  (default threads; cross-check)")
    rows.append(
        (
            "softmax step / sklearn Lloyd iteration (1 thread each)",
            f"{t_soft / t_lloyd1:.2f}x",
            "<= 3x",
            t_soft / t_lloyd1 <= 3,
        )
    )
    rows.append(
        (
            "softmax step / sklearn Lloyd iteration (sklearn 2 threads)",
            f"{t_soft / t_lloyd2:.2f}x",
            "(info)",
            None,
        )
    )
    rows.append(("entmax15 step / softmax step", f"{t_ent / t_soft:.2f}x", "<= 4x", t_ent / t_soft <= 4))
    rows.append(("α-entmax (1.3) step / entmax15 step", f"{t_alpha / t_ent:.2f}x", "(info)", None))
    rows.append(
        ("package entmax_bisect alone / α-entmax (1.3) step", f"{t_bisect / t_alpha:.1f}x", "(info)", None)
    )

    # The centre update's product (k, n) @ (n, d + 1), numpy's BLAS against torch's, which
    # ``steps.weighted_sums`` picks between by the number of points.
    print("centre sums r @ [X | 1], k=5, d=2, float64; milliseconds (best of repeats), numpy / torch:")
    for n in (500, 5_000, 16_384, 65_536, 100_000):
        sums_points = points_with_ones(rng.normal(size=(n, 2)))
        sums_weights = rng.random_sample((5, n))
        t_numpy = best_of(lambda: sums_weights @ sums_points.T, repeats, 20)
        t_torch = best_of(
            lambda: torch.from_numpy(sums_weights) @ torch.from_numpy(sums_points).T, repeats, 20
        )
        print(f"  n={n:7,d}  {t_numpy * 1e3:7.3f} / {t_torch * 1e3:7.3f}  ({t_numpy / t_torch:.2f}x)")

    for dataset, kind in (
        ("blobs", "softmax"),
        ("blobs", "entmax15"),
        ("moons", "softmax"),
        ("spiral", "softmax"),
    ):
        X1k, _ = rbfviz.make_dataset(dataset, n=1000, seed=0)
        grid = default_sigmas(X1k, 5, kind)
        times, result = [], None
        for _ in range(3):
            t0 = time.perf_counter()
            result = anneal(X1k, 5, grid, kind=kind)
            times.append(time.perf_counter() - t0)
        its = int(result.iterations.sum())
        print(
            f"anneal {dataset} {kind}: N=1,000 k=5, {grid.size} levels, {its} EM iterations "
            f"(max {int(result.iterations.max())} at one level, {int((~result.converged).sum())} levels "
            f"unconverged), best {min(times):.3f} s"
        )
        rows.append(
            (
                f"full default anneal, {dataset} {kind}, N=1,000 k=5 60 σ",
                f"{min(times):.3f} s",
                "<= 0.5 s",
                min(times) <= 0.5,
            )
        )

    for which, label in (
        ("public", "soft step (resp_torch + soft_centroids_torch)"),
        ("anneal", "anneal EM step (blocks of 65,536 points, with F_σ)"),
    ):
        for kind, dtype in (("softmax", "float64"), ("softmax", "float32"), ("entmax15", "float64")):
            mem = memory_case(kind, dtype, which)
            print(
                f"memory, {label}, {kind} {dtype}, N=1,000,000 k=10: baseline {mem['baseline_mb']:.0f} MB, "
                f"peak RSS {mem['peak_mb']:.0f} MB, increase {mem['delta_mb']:.0f} MB"
            )
            rows.append(
                (
                    f"peak RSS, {which} step, {kind} {dtype}, N=1e6 k=10 (increase)",
                    f"{mem['peak_mb']:.0f} MB ({mem['delta_mb']:.0f})",
                    "< 1024 MB",
                    mem["peak_mb"] < 1024,
                )
            )

    print("\n| measurement | result | target | met |\n|---|---|---|---|")
    for what, value, target, ok in rows:
        met = "–" if ok is None else ("yes" if ok else "NO")
        print(f"| {what} | {value} | {target} | {met} |")
    return 0


if __name__ == "__main__":
    with threadpool_limits(limits=1, user_api="blas"):
        sys.exit(main())
