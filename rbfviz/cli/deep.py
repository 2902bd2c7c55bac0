"""``rbfviz deep``: deep clustering (rbfviz.nn.deep), an autoencoder with an RBF layer on its codes,
against K-Means on the raw inputs and on their PCA.

    python -m rbfviz deep --dataset digits --k 10 --seed 0 --json
        {"softmax": {"nmi": ..., "ari": ..., "kmeans_raw_nmi": ..., "kmeans_pca_nmi": ..., "seconds": ...,
                     "nan_steps": ..., ...}, "entmax15": {...}}
"""

from __future__ import annotations

import json
import sys

from ..nn.deep import DEEP_DATASETS, clustering_baselines, default_k, train_deep_clustering
from ..nn.training import TRAIN_KINDS
from .arguments import add_training_options, csv_choices, nonnegative_int, positive_int, set_threads


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "deep",
        help="deep clustering: autoencoder + RBF layer on its codes, against K-Means baselines",
        description="Pretrain an MLP autoencoder, place K-Means centres on its codes, then train "
        "reconstruction + λ·L_σ jointly with σ annealed (rbfviz.nn.deep). Once per map; NMI/ARI against the "
        "true classes next to K-Means on the raw inputs and on their PCA to the latent width.",
    )
    add_training_options(parser, "digits", DEEP_DATASETS)
    parser.add_argument(
        "--k", type=positive_int, default=None, help="clusters (default: 10 for digits, else the natural k)"
    )
    parser.add_argument(
        "--kinds",
        type=csv_choices(TRAIN_KINDS),
        default=TRAIN_KINDS,
        help="comma-separated maps to train (default: softmax,entmax15)",
    )
    parser.add_argument(
        "--latent", type=positive_int, default=None, help="latent width (default 4 for digits, else 2)"
    )
    parser.add_argument(
        "--pretrain-epochs", type=nonnegative_int, default=100, help="autoencoder epochs (default 100)"
    )
    parser.add_argument("--joint-epochs", type=positive_int, default=50, help="joint epochs (default 50)")
    parser.set_defaults(handler=run)


def run(args) -> int:
    set_threads(args)
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
