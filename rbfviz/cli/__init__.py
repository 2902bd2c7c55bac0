"""Command line: ``python -m rbfviz <command> [options]``; installed with pip, ``rbfviz <command>``.

One file per command, each with ``register(subparsers)`` (adds its parser, with ``handler=run``, a
function of the parsed arguments that returns the exit code):

    anneal     one collapse experiment (anneal, K-Means reference, E(σ), thresholds); --json for all of it
    reproduce  the collapse experiment on every data set × map × dtype: summary.json, HTML figures, table
    app        start the web app (from a clone of the repository, with the [app] packages installed)
    deep       deep clustering: autoencoder + RBF layer on its codes, against K-Means baselines
    classify   RBF network classifier: K-Means layer + linear read-out, against logistic regression
    export     a scrubbed view, or the nine lessons, as one self-contained offline HTML file

Adding a command: write ``rbfviz/cli/<name>.py`` with

    def register(subparsers):
        parser = subparsers.add_parser("<name>", help="...")
        parser.add_argument(...)                   # rbfviz.cli.arguments has the shared types
        parser.set_defaults(handler=run)           # run(args) -> exit code (int)

and add ``"<name>"`` to ``COMMANDS`` below (the order of ``--help``). A listed module that cannot be
imported is an error, never skipped.

Exit codes: 0 success; 2 bad arguments (argparse's usage error, or a ValueError from rbfviz's
argument checks, printed as one line without a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from ..process_tuning import tune_process

# The modules of rbfviz.cli that each add one command, in the order --help lists them.
COMMANDS = ("anneal", "reproduce", "app", "deep", "classify", "export")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rbfviz",
        description=(
            "K-Means as the σ → 0 limit of a differentiable RBF network: experiments from the command line."
        ),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__package__}.{name}").register(subparsers)
    return parser


def main(argv=None) -> int:
    """Parse argv (default sys.argv[1:]), run the command, return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "app":  # the app's own process tunes itself
        tune_process()  # one torch thread: the documented figures were measured that way
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
