"""Tables of computed numbers for the documentation, made from the library while the site is built
(docs/tools/hooks.py puts each where a page has ``<!-- computed:NAME -->``). Never pasted."""

from __future__ import annotations

from rbfviz import DATASETS, DEFAULT_NOISE, NATURAL_K, choose_k, make_dataset

# as the How many clusters view at the defaults: seed 0, float64, k_max = 8 (ui/how_many.py)
HOW_MANY_K_MAX = 8
HOW_MANY_SEED = 0


def how_many_table() -> str:
    """The three answers to "how many clusters?" on every built-in data set at its defaults (n = 500,
    iris 150): annealing's widest plateau (its width in ln σ), the elbow of J(k), the best silhouette."""
    rows = [
        "| data set (noise) | natural k | annealing (plateau width in ln σ) | elbow | silhouette |",
        "|---|---|---|---|---|",
    ]
    for name in DATASETS:
        n = 150 if name == "iris" else 500
        X, _ = make_dataset(name, n=n, noise=DEFAULT_NOISE[name], seed=HOW_MANY_SEED)
        annealing = choose_k.annealing_answer(X, HOW_MANY_K_MAX, kind="softmax", seed=HOW_MANY_SEED)
        sweep = choose_k.kmeans_sweep(X, HOW_MANY_K_MAX, seed=HOW_MANY_SEED, n_init=4)
        silhouette = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=HOW_MANY_SEED)
        plateau = annealing.plateau
        found = "none" if plateau.count is None else f"{plateau.count} ({plateau.width:.2f})"
        elbow = choose_k.elbow(sweep.ks, sweep.inertia)
        best = choose_k.best_silhouette(sweep.ks, silhouette)
        rows.append(
            f"| {name} ({DEFAULT_NOISE[name]:g}) | {NATURAL_K[name]} | {found} | "
            f"{'none' if elbow is None else elbow} | {'none' if best is None else best} |"
        )
    return "\n".join(rows)


TABLES = {"how-many": how_many_table}
