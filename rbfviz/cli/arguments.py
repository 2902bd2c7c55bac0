"""Argument types and options shared by the commands of ``rbfviz.cli``: each parses one text and says
``expected ...`` when it cannot (argparse prints that as a usage error, exit code 2)."""

from __future__ import annotations

import argparse
import math


def int_at_least(low: int, what: str):
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


positive_int = int_at_least(1, "a positive integer")
nonnegative_int = int_at_least(0, "a non-negative integer")


def nonnegative_float(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def csv_choices(allowed):
    """An argparse type: a comma-separated, non-empty subset of ``allowed``, as a tuple."""

    def parse(text: str) -> tuple[str, ...]:
        items = tuple(item.strip() for item in text.split(",") if item.strip())
        bad = [item for item in items if item not in allowed]
        if not items or bad:
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated subset of {', '.join(allowed)}, got {text!r}"
            )
        return items

    return parse


# --- the options of the training commands (deep, classify) -------------------------------------------


def add_training_options(parser, default_dataset: str, datasets) -> None:
    """--dataset, --seed, --dtype, --lam, --n, --noise, --threads and --json."""
    parser.add_argument(
        "--dataset", choices=datasets, default=default_dataset, help=f"data set (default {default_dataset})"
    )
    parser.add_argument(
        "--seed", type=nonnegative_int, default=0, help="seed of data, split, model and K-Means (default 0)"
    )
    parser.add_argument(
        "--dtype", choices=("float32", "float64"), default="float32", help="model dtype (default float32)"
    )
    parser.add_argument(
        "--lam", type=nonnegative_float, default=None, help="λ, the weight of the clustering loss L_σ"
    )
    parser.add_argument("--n", type=positive_int, default=None, help="points of a 2-D set (default 500)")
    parser.add_argument("--noise", type=nonnegative_float, default=None, help="generator noise of a 2-D set")
    parser.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        help="torch threads for this process (default: rbfviz's setting, 1)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def set_threads(args) -> None:
    """Apply a training command's --threads, if given."""
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
