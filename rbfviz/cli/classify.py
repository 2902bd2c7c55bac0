"""``rbfviz classify``: the RBF network classifier (rbfviz.nn.classifier), a K-Means layer and a linear
read-out, against logistic regression.

    python -m rbfviz classify --dataset moons --k 12 --seed 0 --json
        {"accuracy": ..., "linear_accuracy": ..., "center_distance_to_lloyd": ..., "seconds": ..., ...}
"""

from __future__ import annotations

import json
import sys

from ..datasets import DATASETS
from ..nn.training import TRAIN_KINDS
from .arguments import add_training_options, positive_int, set_threads


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "classify",
        help="RBF network classifier: K-Means layer + linear read-out, against logistic regression",
        description="Train RBFClusterLayer + a linear read-out with cross-entropy + λ·L_σ, σ annealed "
        "(rbfviz.nn.classifier). Test accuracy on a seeded 30 %% split, logistic regression on the raw "
        "inputs, and the distance of the centres to scikit-learn's Lloyd fixed point started from them.",
    )
    add_training_options(parser, "moons", DATASETS)
    parser.add_argument("--k", type=positive_int, default=12, help="RBF centres (default 12)")
    parser.add_argument("--kind", choices=TRAIN_KINDS, default="softmax", help="map (default softmax)")
    parser.add_argument("--epochs", type=positive_int, default=200, help="full-batch epochs (default 200)")
    parser.set_defaults(handler=run)


def run(args) -> int:
    from ..nn.classifier import train_classifier

    set_threads(args)
    options = {} if args.lam is None else {"lam": args.lam}
    result = train_classifier(
        args.dataset,
        k=args.k,
        seed=args.seed,
        kind=args.kind,
        epochs=args.epochs,
        dtype=args.dtype,
        n=args.n,
        noise=args.noise,
        **options,
    )
    summary = result.summary()
    if args.json:
        json.dump(summary, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{args.dataset}, k={args.k}, {args.kind}, seed {args.seed}, λ={summary['lam']:g}, {args.dtype}")
    print(
        f"  RBF network         test accuracy {summary['accuracy']:.4f} (train "
        f"{summary['train_accuracy']:.4f})"
    )
    print(f"  logistic regression test accuracy {summary['linear_accuracy']:.4f}")
    print(
        f"  centres to Lloyd's fixed point from them: {summary['center_distance_to_lloyd']:.4g} "
        f"(Frobenius, data units); {summary['empty_centers']} empty centre(s)"
    )
    print(
        f"  σ_final {summary['sigma_final']:.4g}; {summary['nan_steps']} NaN steps; "
        f"{summary['seconds']:.1f} s"
    )
    return 0
