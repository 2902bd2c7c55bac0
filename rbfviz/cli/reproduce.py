"""Reproduce the paper's collapse experiment on every data set, map and dtype
(``python -m rbfviz reproduce``).

For each data set (``DATASETS``; k = its natural number of groups) one K-Means
reference C* is fixed first: the float64 softmax anneal's end point run to scikit-learn's Lloyd fixed
point. Then ``collapse_study`` runs for every map × dtype with that same reference
(``kmeans_init=C*``), so all curves of a data set measure the distance to the same partition.

Every split of the annealed paths of both maps (softmax, entmax15; float64, or the first dtype asked
for) is also predicted from the splitting stack's weighted covariance (``rbfviz.splits``) and set
against the grid interval in which it was seen: ``split_table``.

For the α-entmax family, σ*(α) = √((α-1)·g_min/2) at C* is set against the first σ of a fine grid from
which every row is exactly one-hot, at α in ``FAMILY_ALPHAS``, in each dtype (``rbfviz.family``):
``family_table``.

Outputs (``run``): ``summary.json`` (every study's ``to_dict()`` without the per-level centre arrays,
plus E at the paper's reference σ values and every split record), one standalone HTML figure per
data set (plotly.js embedded, works offline; ``figures.collapse.reproduce_figure``), and
``results.md`` with the markdown tables of ``markdown_table`` and ``split_table``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from ..annealing import fixed_point
from ..collapse import collapse_study
from ..datasets import DATASETS, DEFAULT_NOISE, NATURAL_K, make_dataset
from ..family import family_collapse
from ..jsonable import jsonable
from ..measures import collapse_error
from ..splits import predict_splits
from ..validate import COMPARED_KINDS, DTYPES

DEFAULT_N = 600
# the paper reports E at these σ (converted to our convention) for moons, circles and spiral.
REFERENCE_SIGMAS = (0.71, 0.21, 0.071, 0.021)
# the α of the exact-collapse table (α = 1.5 is entmax15, 2 sparsemax)
FAMILY_ALPHAS = (1.25, 1.5, 1.75, 2.0)
# Per-level arrays left out of summary.json (the figures carry the curves; the CLI "anneal --json"
# prints everything for one run).
_HEAVY = ("centers", "fixed_point_centers")


def run_dataset(
    dataset: str,
    n: int = DEFAULT_N,
    seed: int = 0,
    num_sigmas: int = 60,
    kinds=COMPARED_KINDS,
    dtypes=DTYPES,
    log=None,
):
    """All studies of one data set: returns (X, reference C* (k, d) float64, list of CollapseStudy)."""
    X, _ = make_dataset(dataset, n=None if dataset == "iris" else n, seed=seed)
    k = NATURAL_K[dataset]
    studies = []
    reference = None
    # The reference run goes first whatever the requested order.
    order = [("softmax", "float64")] + [
        (kind, dtype) for kind in kinds for dtype in dtypes if (kind, dtype) != ("softmax", "float64")
    ]
    for kind, dtype in order:
        t0 = time.perf_counter()
        study = collapse_study(
            X,
            k,
            kind=kind,
            dtype=dtype,
            seed=seed,
            kmeans_init=reference,
            sigmas=_grid(studies, kind, X, k, num_sigmas),
        )
        if log is not None:
            log(f"{dataset:8s} {kind:9s} {dtype}: {time.perf_counter() - t0:5.2f} s")
        if reference is None:
            reference = np.asarray(study.kmeans_centers, np.float64)
            if not (kind in kinds and dtype in dtypes):
                continue
        studies.append(study)
    return X, reference, studies


def _grid(studies, kind, X, k, num):
    # One σ grid per map (the entmax grid starts higher: its σ_c carries a √k factor).
    from ..annealing import default_sigmas

    for study in studies:
        if study.kind == kind:
            return study.sigmas
    return default_sigmas(X, k, kind, num=num)


def reference_errors(X, C_star, kind: str) -> dict:
    """E at the paper's reference σ values (float64, EM from C*), for comparison with its table."""
    out = {}
    for sigma in REFERENCE_SIGMAS:
        centers, _, converged = fixed_point(X, C_star, sigma, kind)
        out[f"{sigma:g}"] = {"error": collapse_error(centers, C_star), "converged": converged}
    return out


def study_summary(dataset: str, study) -> dict:
    summary = study.to_dict()
    for key in _HEAVY:
        summary.pop(key, None)
    summary["dataset"] = dataset
    summary["noise"] = DEFAULT_NOISE[dataset]
    summary["max_nan_rows"] = int(np.max(study.nan_rows))
    return summary


def _fmt(value, spec=".3g") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return format(value, spec)


def markdown_table(summaries: list[dict]) -> str:
    """The collapse table (docs/maths/claims.md): one row per (data set, map, dtype)."""
    lines = [
        "| data (k) | map | dtype | g_min | σ* = √g_min/2 | first σ with E = 0 | softmax exact σ "
        "| slope [σ window] | σ_c pred. / meas. | max NaN rows | E increases | label agr. |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        slope = s["slope"]
        window = (
            f"{_fmt(slope['slope'], '.2f')} [{_fmt(slope['sigma_min'], '.2g')}, "
            f"{_fmt(slope['sigma_max'], '.2g')}]"
            if slope["slope"] is not None
            else f"– ({slope['n_points']} pts)"
        )
        lines.append(
            f"| {s['dataset']} ({s['k']}) | {s['kind']} | {s['dtype']} | {_fmt(s['g_min'], '.2e')} "
            f"| {_fmt(s['sigma_exact_predicted'], '.3f')} | {_fmt(s['sigma_exact_measured'], '.3f')} "
            f"| {_fmt(s['sigma_softmax_exact'], '.4f')} | {window} "
            f"| {_fmt(s['sigma_critical_predicted'], '.3f')} / {_fmt(s['sigma_critical_measured'], '.3f')} "
            f"| {s['max_nan_rows']} / {s['n']} | {s['monotone_violations']} "
            f"| {_fmt(s['label_agreement'], '.3f')} |"
        )
    return "\n".join(lines)


SPLIT_KINDS = ("softmax", "entmax15")


def split_summaries(dataset: str, X, studies, dtypes=DTYPES) -> list[dict]:
    """Every split of the annealed path of each study of ``SPLIT_KINDS`` in one dtype (float64 if
    run, else the first): ``SplitRecord.to_dict()`` plus the data set, k and dtype."""
    dtype = "float64" if "float64" in dtypes else dtypes[0]
    rows = []
    for study in studies:
        if study.kind not in SPLIT_KINDS or study.dtype != dtype:
            continue
        for record in predict_splits(study.path, np.asarray(X, dtype=dtype)):
            rows.append({"dataset": dataset, "k": study.k, "dtype": dtype, **record.to_dict()})
    return rows


def split_table(rows: list[dict]) -> str:
    """The split table (docs/maths/splits.md): one row per split, predicted against measured σ."""
    lines = [
        "| data (k) | map | split | stack m → | σ predicted | σ measured in | error | in step "
        "| σ √r-linearised | error (√r) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        entmax = r["kind"] == "entmax15"
        lines.append(
            f"| {r['dataset']} ({r['k']}) | {r['kind']} | {r['number']} | {r['m']} → {len(r['children'])} "
            f"| {_fmt(r['sigma_predicted'], '.3f')} "
            f"| ({_fmt(r['sigma_measured'], '.3f')}, {_fmt(r['sigma_above'], '.3f')}] "
            f"| {_fmt(100 * r['relative_error'], '+.1f')} % | {'yes' if r['within_step'] else 'no'} "
            f"| {_fmt(r['sigma_linearised'], '.3f') if entmax else '='} "
            f"| {_fmt(100 * r['linearised_error'], '+.1f') + ' %' if entmax else '='} |"
        )
    return "\n".join(lines)


def family_rows(dataset: str, X, C_star, dtypes=DTYPES) -> list[dict]:
    """One row per α of ``FAMILY_ALPHAS``: σ*(α) predicted at C*, and per dtype the measured first σ
    with every row one-hot, the grid step there and whether they agree within it."""
    result = family_collapse(X, C_star, alphas=FAMILY_ALPHAS, dtypes=dtypes)
    return [
        {
            "dataset": dataset,
            "k": int(C_star.shape[0]),
            "g_min": result.g_min,
            "alpha": float(alpha),
            "predicted": float(result.predicted[a]),
            **{f"measured_{d}": float(result.measured[d][a]) for d in dtypes},
            **{f"step_{d}": float(result.step[d][a]) for d in dtypes},
            **{f"within_{d}": bool(result.within_step[d][a]) for d in dtypes},
        }
        for a, alpha in enumerate(result.alphas)
    ]


def family_table(rows: list[dict], dtypes=DTYPES) -> str:
    """The α-entmax table (docs/maths/alpha-entmax.md): σ*(α) predicted against measured, a column per
    precision (a measured value off by more than one grid step is marked "(off)")."""
    lines = [
        "| data (k) | g_min | α | σ*(α) = √((α−1)·g_min/2) | "
        + " | ".join(f"measured {d}" for d in dtypes)
        + " |",
        "|---|---|---|---|" + "---|" * len(dtypes),
    ]
    for r in rows:
        measured = " | ".join(
            f"{_fmt(r[f'measured_{d}'], '.4f')}{'' if r[f'within_{d}'] else ' (off)'}" for d in dtypes
        )
        lines.append(
            f"| {r['dataset']} ({r['k']}) | {_fmt(r['g_min'], '.3e')} | {r['alpha']:g} "
            f"| {_fmt(r['predicted'], '.4f')} | {measured} |"
        )
    return "\n".join(lines)


def run(
    out_dir,
    datasets=DATASETS,
    kinds=COMPARED_KINDS,
    dtypes=DTYPES,
    n: int = DEFAULT_N,
    seed: int = 0,
    num_sigmas: int = 60,
    figures: bool = True,
    log=None,
) -> dict:
    """Run everything and write summary.json, results.md and (with ``figures``) <dataset>.html to out_dir."""
    from ..views.stability.collapse import reproduce_figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log = log or (lambda message: print(message, file=sys.stderr, flush=True))
    t0 = time.perf_counter()
    summaries, references, splits, family = [], {}, [], []
    for dataset in datasets:
        X, C_star, studies = run_dataset(
            dataset, n=n, seed=seed, num_sigmas=num_sigmas, kinds=kinds, dtypes=dtypes, log=log
        )
        summaries.extend(study_summary(dataset, study) for study in studies)
        splits.extend(split_summaries(dataset, X, studies, dtypes))
        family.extend(family_rows(dataset, X, C_star, dtypes))
        if dataset in ("moons", "circles", "spiral"):
            references[dataset] = {
                kind: reference_errors(X, C_star, kind) for kind in ("softmax", "entmax15")
            }
        if figures:
            path = out / f"{dataset}.html"
            reproduce_figure(dataset, studies).write_html(path, include_plotlyjs=True, full_html=True)
            log(f"{dataset:8s} figure -> {path}")
    table = markdown_table(summaries) + "\n\n" + split_table(splits) + "\n\n" + family_table(family, dtypes)
    result = {
        "n": n,
        "seed": seed,
        "num_sigmas": num_sigmas,
        "seconds": time.perf_counter() - t0,
        "reference_sigmas": list(REFERENCE_SIGMAS),
        "reference_errors": references,
        "studies": summaries,
        "splits": splits,
        "family": family,
    }
    (out / "summary.json").write_text(json.dumps(jsonable(result), indent=1))
    (out / "results.md").write_text(table + "\n")
    log(f"done in {result['seconds']:.1f} s -> {out / 'summary.json'}, {out / 'results.md'}")
    return {"summary": result, "table": table}
