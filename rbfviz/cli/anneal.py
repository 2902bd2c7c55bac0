"""``rbfviz anneal``: one collapse experiment (anneal, K-Means reference, E(σ), thresholds), as a
summary a person reads or, with --json, all of it."""

from __future__ import annotations

import json
import math
import sys

from ..datasets import DATASETS, DEFAULT_NOISE, NATURAL_K
from ..validate import ENTMAX_FAMILY, KINDS, check_kind, entmax_alpha
from .arguments import nonnegative_float, nonnegative_int, positive_int


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "anneal",
        help="one collapse experiment: anneal, K-Means reference, E(σ) and its thresholds",
        description="Anneal k centres on a data set from the data mean down a σ grid, then measure how "
        "the soft fixed point collapses onto K-Means.",
    )
    parser.add_argument("--dataset", choices=DATASETS, default="moons", help="data set (default: moons)")
    parser.add_argument(
        "--n", type=positive_int, default=600, help="number of points (default 600; iris: at most 150)"
    )
    parser.add_argument(
        "--k", type=positive_int, default=None, help="number of centres (default: the data set's natural k)"
    )
    parser.add_argument(
        "--kind",
        choices=(*KINDS, ENTMAX_FAMILY),
        default="softmax",
        help='responsibility map (default: softmax); "entmax" is α-entmax and needs --alpha',
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=None,
        help="α of --kind entmax, in [1.05, 2] (1.5: entmax-1.5, 2: sparsemax)",
    )
    parser.add_argument(
        "--dtype", choices=("float64", "float32"), default="float64", help="working dtype (default float64)"
    )
    parser.add_argument(
        "--noise",
        type=nonnegative_float,
        default=None,
        help="generator noise in data units (default: the data set's default)",
    )
    parser.add_argument("--seed", type=nonnegative_int, default=0, help="data and annealing seed (default 0)")
    parser.add_argument("--num-sigmas", type=positive_int, default=60, help="σ levels (default 60)")
    parser.add_argument(
        "--max-iter", type=positive_int, default=500, help="EM steps per level at most (default 500)"
    )
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.set_defaults(handler=run)


def _exact_formula(kind: str) -> str:
    """σ*'s formula for a study's map: its own α for α-entmax, entmax15's (α = 1.5) otherwise."""
    alpha = entmax_alpha(kind)
    return "√g_min/2" if alpha in (None, 1.5) else f"√((α−1)·g_min/2) at α = {alpha:g}"


def run(args) -> int:
    from ..annealing import default_sigmas
    from ..collapse import collapse_study
    from ..datasets import make_dataset

    if args.dataset == "iris" and args.n > 150:
        raise ValueError(f"iris has 150 points; --n must be at most 150, got {args.n}.")
    if args.num_sigmas < 2:
        raise ValueError("--num-sigmas must be at least 2.")
    kind = check_kind(args.kind, alpha=args.alpha)  # α-entmax becomes its spec "entmax:<α>"
    X, _ = make_dataset(args.dataset, n=args.n, noise=args.noise, seed=args.seed)
    k = NATURAL_K[args.dataset] if args.k is None else args.k
    sigmas = default_sigmas(X.astype(args.dtype), k, kind, num=args.num_sigmas)
    study = collapse_study(
        X, k, kind=kind, dtype=args.dtype, sigmas=sigmas, seed=args.seed, max_iter=args.max_iter
    )
    noise = DEFAULT_NOISE[args.dataset] if args.noise is None else args.noise
    if args.json:
        result = study.to_dict()
        result.update(dataset=args.dataset, noise=noise, seed=args.seed)
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(summary_text(study, args.dataset, noise, args.seed))
    return 0


def _g(value, spec=".4g") -> str:
    return (
        "none"
        if value is None or (isinstance(value, float) and not math.isfinite(value))
        else format(value, spec)
    )


def summary_text(study, dataset: str, noise: float, seed: int) -> str:
    """A few lines a person reads: what ran and the thresholds measured against their predictions."""
    path, fit = study.path, study.slope
    unconverged = int((~path.converged).sum())
    lines = [
        f"{dataset} (n={study.n}, noise {noise:g}, seed {seed}), k={study.k}, {study.kind}, {study.dtype}; "
        f"{study.sigmas.size} σ levels from {study.sigmas[0]:.4g} down to {study.sigmas[-1]:.4g}",
        f"  first split      σ_c predicted {_g(study.sigma_critical_predicted)}, measured "
        f"{_g(study.sigma_critical_measured)}",
        f"  K-Means C*       from the {study.kmeans_start}; g_min = {study.g_min:.4g}",
        f"  exact collapse   σ* = {_exact_formula(study.kind)} = {_g(study.sigma_exact_predicted)}; "
        f"E == 0 from σ = {_g(study.sigma_exact_measured)} down (measured)",
        f"  softmax exact    √(g_min/73.4) = {_g(study.sigma_softmax_exact)}",
        f"  log-log slope    {_g(fit.slope, '.3g')} on σ ∈ [{_g(fit.sigma_min, '.3g')}, "
        f"{_g(fit.sigma_max, '.3g')}] ({fit.n_points} points)",
        f"  NaN rows         at most {int(study.nan_rows.max())} of {study.n} (at C*)",
        f"  E increases      {study.monotone_violations} as σ falls; label agreement "
        f"{study.label_agreement:.3f}",
        f"  anneal           {int(path.iterations.sum())} EM steps; "
        + ("every level converged" if unconverged == 0 else f"{unconverged} level(s) hit --max-iter"),
    ]
    return "\n".join(lines)
