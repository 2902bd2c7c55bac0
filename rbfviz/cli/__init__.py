"""Command line: ``python -m rbfviz <command> [options]``.

Commands defined here:

    anneal     one collapse experiment (anneal, K-Means reference, E(σ), thresholds); --json for all of it
    reproduce  the collapse experiment on every data set × map × dtype: summary.json, HTML figures, table
    app        start the web app (from a clone of the repository, with the [app] packages installed)

Installed with pip, the same commands are ``rbfviz <command>``.

Adding a command from another module (e.g. ``deep`` or ``classify``): write ``rbfviz/cli/<name>.py`` with

    def register(subparsers):
        parser = subparsers.add_parser("deep", help="...")
        parser.add_argument(...)
        parser.set_defaults(handler=run_deep)      # run_deep(args) -> exit code (int)

and add ``"<name>"`` to ``COMMAND_MODULES`` below. A listed module that does not exist (yet) is
skipped; any other error while importing it is raised, so a broken module is never hidden.

Exit codes: 0 success; 2 bad arguments (argparse's usage error, or a ValueError from rbfviz's
argument checks, printed as one line without a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys

from ..datasets import DATASETS, DEFAULT_NOISE, NATURAL_K
from ..server import tune_for_server
from ..validate import COMPARED_KINDS, DTYPES, ENTMAX_FAMILY, KINDS, check_kind, entmax_alpha

# Modules of rbfviz that contribute subcommands through register(subparsers), in help order.
COMMAND_MODULES = ("networks",)


def _int_at_least(low: int, what: str):
    """An argparse type: an integer >= low; errors say ``expected <what>``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_nonnegative_int = _int_at_least(0, "a non-negative integer")


def _nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def _csv_choices(allowed):
    def parse(text: str) -> tuple[str, ...]:
        items = tuple(item.strip() for item in text.split(",") if item.strip())
        bad = [item for item in items if item not in allowed]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated subset of {', '.join(allowed)}, got {text!r}"
            )
        return items

    return parse


# --- anneal ------------------------------------------------------------------------------------


def _add_anneal(subparsers) -> None:
    parser = subparsers.add_parser(
        "anneal",
        help="one collapse experiment: anneal, K-Means reference, E(σ) and its thresholds",
        description="Anneal k centres on a data set from the data mean down a σ grid, then measure how "
        "the soft fixed point collapses onto K-Means.",
    )
    parser.add_argument("--dataset", choices=DATASETS, default="moons", help="data set (default: moons)")
    parser.add_argument(
        "--n", type=_positive_int, default=600, help="number of points (default 600; iris: at most 150)"
    )
    parser.add_argument(
        "--k", type=_positive_int, default=None, help="number of centres (default: the data set's natural k)"
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
        type=_nonnegative_float,
        default=None,
        help="generator noise in data units (default: the data set's default)",
    )
    parser.add_argument(
        "--seed", type=_nonnegative_int, default=0, help="data and annealing seed (default 0)"
    )
    parser.add_argument("--num-sigmas", type=_positive_int, default=60, help="σ levels (default 60)")
    parser.add_argument(
        "--max-iter", type=_positive_int, default=500, help="EM steps per level at most (default 500)"
    )
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.set_defaults(handler=_run_anneal)


def _exact_formula(kind: str) -> str:
    """σ*'s formula for a study's map: its own α for α-entmax, entmax15's (α = 1.5) otherwise."""
    alpha = entmax_alpha(kind)
    return "√g_min/2" if alpha in (None, 1.5) else f"√((α−1)·g_min/2) at α = {alpha:g}"


def _run_anneal(args) -> int:
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


# --- reproduce ---------------------------------------------------------------------------------


def _add_reproduce(subparsers) -> None:
    from .reproduce import DEFAULT_N

    parser = subparsers.add_parser(
        "reproduce",
        help="the collapse experiment on every data set × map × dtype (JSON, HTML, table)",
        description="Run the collapse experiment on every data set (blobs, moons, circles, spiral, iris, "
        "and the K-Means failures sheared, varied, uneven) with softmax, "
        "entmax15 and naive maps in float64 and float32. Writes OUT/summary.json, "
        "OUT/results.md (markdown table) and one standalone HTML figure per data set.",
    )
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument(
        "--datasets",
        type=_csv_choices(DATASETS),
        default=DATASETS,
        help="comma-separated subset (default: all)",
    )
    parser.add_argument(
        "--kinds",
        type=_csv_choices(COMPARED_KINDS),
        default=COMPARED_KINDS,
        help="comma-separated subset of softmax,entmax15,naive (default: all)",
    )
    parser.add_argument(
        "--dtypes",
        type=_csv_choices(DTYPES),
        default=DTYPES,
        help="comma-separated subset of float64,float32 (default: both)",
    )
    parser.add_argument(
        "--n",
        type=_positive_int,
        default=DEFAULT_N,
        help=f"points per data set (default {DEFAULT_N}; iris: 150)",
    )
    parser.add_argument("--seed", type=_nonnegative_int, default=0, help="seed (default 0)")
    parser.add_argument("--num-sigmas", type=_positive_int, default=60, help="σ levels (default 60)")
    parser.add_argument("--no-figures", action="store_true", help="skip the HTML figures")
    parser.add_argument("--table", action="store_true", help="print the markdown results table on stdout")
    parser.set_defaults(handler=_run_reproduce)


def _run_reproduce(args) -> int:
    from .reproduce import run

    if args.num_sigmas < 2:
        raise ValueError("--num-sigmas must be at least 2.")
    if args.n < 3:
        raise ValueError("--n must be at least 3.")
    result = run(
        args.out,
        datasets=args.datasets,
        kinds=args.kinds,
        dtypes=args.dtypes,
        n=args.n,
        seed=args.seed,
        num_sigmas=args.num_sigmas,
        figures=not args.no_figures,
    )
    if args.table:
        print(result["table"])
    return 0


# --- app ------------------------------------------------------------------------------------------


def _add_app(subparsers) -> None:
    parser = subparsers.add_parser(
        "app",
        help="start the web app (Streamlit) on this machine",
        description="Start the web app: `streamlit run app.py` from the repository this rbfviz belongs to. "
        "The app's scripts (app.py, pages/, ui/) live in the repository, not in the installed "
        'package: run it from a clone (pip install -e ".[app]" there).',
    )
    parser.add_argument("--port", type=_positive_int, default=8501, help="port (default 8501)")
    parser.add_argument(
        "--address",
        default="localhost",
        help="address to listen on (default localhost; 0.0.0.0 for a classroom network)",
    )
    parser.set_defaults(handler=_run_app)


def _run_app(args) -> int:
    import importlib.util
    import subprocess
    from pathlib import Path

    entry = Path(__file__).resolve().parents[1] / "app.py"
    if not entry.is_file():
        raise ValueError(
            f"the web app is not next to this rbfviz ({entry} is missing): it lives in the "
            'repository. Clone it and run `pip install -e ".[app]"` there, then `rbfviz app`.'
        )
    if importlib.util.find_spec("streamlit") is None:
        raise ValueError('Streamlit is not installed: `pip install ".[app]"` (or -r requirements.txt) first.')
    return subprocess.call(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(entry),
            f"--server.port={args.port}",
            f"--server.address={args.address}",
        ],
        cwd=entry.parent,
    )


# --- entry point -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rbfviz",
        description=(
            "K-Means as the σ → 0 limit of a differentiable RBF network: experiments from the command line."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="command", required=True)
    _add_anneal(subparsers)
    _add_reproduce(subparsers)
    _add_app(subparsers)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{name}":
                raise  # the module exists but something it imports is missing: show it
            continue
        module.register(subparsers)
    return parser


def main(argv=None) -> int:
    """Parse argv (default sys.argv[1:]), run the command, return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "app":  # the app's own process tunes itself
        tune_for_server()  # one torch thread: the documented figures were measured that way
    try:
        return int(args.handler(args))
    except ValueError as exc:
        # rbfviz's argument checks raise ValueError with a message that says what is allowed.
        parser.exit(2, f"{parser.prog} {args.command}: error: {exc}\n")
    except BrokenPipeError:
        # the reader went away (e.g. `... --json | head`): not an error of ours; silence the
        # second BrokenPipeError Python would raise while flushing stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
