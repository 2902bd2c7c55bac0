"""Command-line front end of ``rbfviz.nn``: ``python -m rbfviz deep`` and ``python -m rbfviz classify``.

    python -m rbfviz deep --dataset digits --k 10 --seed 0 --json
        {"softmax": {"nmi": ..., "ari": ..., "kmeans_raw_nmi": ..., "kmeans_pca_nmi": ..., "seconds": ...,
                     "nan_steps": ..., ...}, "entmax15": {...}}
    python -m rbfviz classify --dataset moons --k 12 --seed 0 --json
        {"accuracy": ..., "linear_accuracy": ..., "center_distance_to_lloyd": ..., "seconds": ..., ...}

``register(subparsers)`` is called by ``rbfviz.cli`` (listed in its COMMAND_MODULES);
``python -m rbfviz.cli.networks ...`` runs the same command line.
"""

from __future__ import annotations

import json
import sys

import torch

from ..datasets import DATASETS
from ..nn.deep import DEEP_DATASETS, clustering_baselines, default_k, train_deep_clustering
from ..nn.training import TRAIN_KINDS
from . import _csv_choices, _nonnegative_float, _nonnegative_int, _positive_int


def register(subparsers) -> None:
    """Add the ``deep`` and ``classify`` subcommands to an argparse subparsers object."""
    _add_deep(subparsers)
    _add_classify(subparsers)


def _add_common(parser, default_dataset: str, datasets) -> None:
    parser.add_argument(
        "--dataset", choices=datasets, default=default_dataset, help=f"data set (default {default_dataset})"
    )
    parser.add_argument(
        "--seed", type=_nonnegative_int, default=0, help="seed of data, split, model and K-Means (default 0)"
    )
    parser.add_argument(
        "--dtype", choices=("float32", "float64"), default="float32", help="model dtype (default float32)"
    )
    parser.add_argument(
        "--lam", type=_nonnegative_float, default=None, help="λ, the weight of the clustering loss L_σ"
    )
    parser.add_argument("--n", type=_positive_int, default=None, help="points of a 2-D set (default 500)")
    parser.add_argument("--noise", type=_nonnegative_float, default=None, help="generator noise of a 2-D set")
    parser.add_argument(
        "--threads",
        type=_positive_int,
        default=None,
        help="torch threads for this process (default: rbfviz's setting, 1)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def _add_deep(subparsers) -> None:
    parser = subparsers.add_parser(
        "deep",
        help="deep clustering: autoencoder + RBF layer on its codes, against K-Means baselines",
        description="Pretrain an MLP autoencoder, place K-Means centres on its codes, then train "
        "reconstruction + λ·L_σ jointly with σ annealed (rbfviz.nn.deep). Once per map; NMI/ARI against the "
        "true classes next to K-Means on the raw inputs and on their PCA to the latent width.",
    )
    _add_common(parser, "digits", DEEP_DATASETS)
    parser.add_argument(
        "--k", type=_positive_int, default=None, help="clusters (default: 10 for digits, else the natural k)"
    )
    parser.add_argument(
        "--kinds",
        type=_csv_choices(TRAIN_KINDS),
        default=TRAIN_KINDS,
        help="comma-separated maps to train (default: softmax,entmax15)",
    )
    parser.add_argument(
        "--latent", type=_positive_int, default=None, help="latent width (default 4 for digits, else 2)"
    )
    parser.add_argument(
        "--pretrain-epochs", type=_nonnegative_int, default=100, help="autoencoder epochs (default 100)"
    )
    parser.add_argument("--joint-epochs", type=_positive_int, default=50, help="joint epochs (default 50)")
    parser.set_defaults(handler=run_deep)


def _add_classify(subparsers) -> None:
    parser = subparsers.add_parser(
        "classify",
        help="RBF network classifier: K-Means layer + linear read-out, against logistic regression",
        description="Train RBFClusterLayer + a linear read-out with cross-entropy + λ·L_σ, σ annealed "
        "(rbfviz.nn.classifier). Test accuracy on a seeded 30 %% split, logistic regression on the raw "
        "inputs, and the distance of the centres to scikit-learn's Lloyd fixed point started from them.",
    )
    _add_common(parser, "moons", DATASETS)
    parser.add_argument("--k", type=_positive_int, default=12, help="RBF centres (default 12)")
    parser.add_argument("--kind", choices=TRAIN_KINDS, default="softmax", help="map (default softmax)")
    parser.add_argument("--epochs", type=_positive_int, default=200, help="full-batch epochs (default 200)")
    parser.set_defaults(handler=run_classify)


def _set_threads(args) -> None:
    if args.threads is not None:
        torch.set_num_threads(args.threads)


def run_deep(args) -> int:
    _set_threads(args)
    k = default_k(args.dataset) if args.k is None else args.k
    results = {}
    for kind in args.kinds:
        options = {} if args.lam is None else {"lam": args.lam}
        result = train_deep_clustering(
            args.dataset,
            k=k,
            seed=args.seed,
            kind=kind,
            dtype=args.dtype,
            latent_dim=args.latent,
            pretrain_epochs=args.pretrain_epochs,
            joint_epochs=args.joint_epochs,
            n=args.n,
            noise=args.noise,
            baselines=False,
            **options,
        )
        results[kind] = result.summary()
    # the baselines do not depend on the map: computed once (and cached), then reported with each
    raw, pca = clustering_baselines(
        args.dataset, k, results[args.kinds[0]]["latent_dim"], args.seed, args.n, args.noise
    )
    for summary in results.values():
        summary.update(kmeans_raw_nmi=raw, kmeans_pca_nmi=pca)
    if args.json:
        json.dump(results, sys.stdout)
        sys.stdout.write("\n")
        return 0
    first = results[args.kinds[0]]
    print(
        f"{args.dataset}, k={k}, seed {args.seed}, latent width {first['latent_dim']}, λ={first['lam']:g}, "
        f"{args.dtype}"
    )
    print(f"  K-Means on the raw inputs      NMI {raw:.4f}")
    print(f"  K-Means on PCA to the latent   NMI {pca:.4f}")
    for kind, s in results.items():
        print(
            f"  joint model, {kind:<9}         NMI {s['nmi']:.4f}  ARI {s['ari']:.4f}  "
            f"(AE + K-Means before joint training: NMI {s['pretrain_nmi']:.4f}); "
            f"{s['nan_steps']} NaN steps; {s['seconds']:.1f} s"
        )
    return 0


def run_classify(args) -> int:
    from ..nn.classifier import train_classifier

    _set_threads(args)
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


def main(argv=None) -> int:
    """``python -m rbfviz.cli.networks ...``: the rbfviz command line (which includes deep and classify)."""
    from . import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
