"""Tables of computed numbers for the documentation, made from the library while the site is built
(docs/tools/hooks.py puts each where a page has ``<!-- computed:NAME -->``). Never pasted.

``TABLES`` are the English pages'; ``TABLES_PT_BR`` the same numbers in Portuguese words and separators
(0,529 and 1.500) for the Portuguese pages (docs/teach/*.pt-BR.md). The address tables are English only:
the Portuguese address page links to them."""

from __future__ import annotations

import functools

import numpy as np

from rbfviz import DATASETS, DEFAULT_NOISE, NATURAL_K, choose_k, kmeans, make_dataset
from rbfviz.i18n import translator
from rbfviz.views.explorer import arrays as explorer_arrays
from rbfviz.views.step_by_step import arrays as step_by_step_arrays

# as the How many clusters view at the defaults: seed 0, float64, k_max = 8 (ui/how_many_clusters.py)
HOW_MANY_K_MAX = 8
HOW_MANY_SEED = 0


# the tables' words in each language (the numbers are formatted by the language's translator)
WORDS = {
    "en": {
        "how-many head": (
            "| data set (noise) | natural k | annealing (plateau width in ln σ) | elbow | silhouette |"
        ),
        "none": "none",
        "default": "default",
        "both": "float64 and float32",
        "five steps": (
            "On the same data five E+M pairs take L_σ from {l0:.2f} to {l5:.2f} and J from {j0:.2f} to "
            "{j5:.2f}; five Lloyd steps take J to {lloyd:.2f}."
        ),
    },
    "pt-BR": {
        "how-many head": (
            "| conjunto de dados (ruído) | k natural | recozimento (largura do platô em ln σ) | cotovelo "
            "| silhueta |"
        ),
        "none": "nenhum",
        "default": "padrão",
        "both": "float64 e float32",
        "five steps": (
            "Nos mesmos dados, cinco pares E+M levam L_σ de {l0:.2f} a {l5:.2f} e J de {j0:.2f} a {j5:.2f}; "
            "cinco passos de Lloyd levam J a {lloyd:.2f}."
        ),
    },
}


@functools.cache
def _how_many_answers() -> tuple:
    """(data set, plateau count or None, its width in ln σ, elbow or None, best silhouette or None) for
    every built-in data set: computed once per build, written in each language."""
    found = []
    for name in DATASETS:
        n = 150 if name == "iris" else 500
        X, _ = make_dataset(name, n=n, noise=DEFAULT_NOISE[name], seed=HOW_MANY_SEED)
        annealing = choose_k.annealing_answer(X, HOW_MANY_K_MAX, kind="softmax", seed=HOW_MANY_SEED)
        sweep = choose_k.kmeans_sweep(X, HOW_MANY_K_MAX, seed=HOW_MANY_SEED, n_init=4)
        silhouette = choose_k.silhouette_curve(X, sweep.ks, sweep.labels, seed=HOW_MANY_SEED)
        plateau = annealing.plateau
        elbow = choose_k.elbow(sweep.ks, sweep.inertia)
        best = choose_k.best_silhouette(sweep.ks, silhouette)
        found.append((name, plateau.count, plateau.width, elbow, best))
    return tuple(found)


def how_many_table(lang: str = "en") -> str:
    """The three answers to "how many clusters?" on every built-in data set at its defaults (n = 500,
    iris 150): annealing's widest plateau (its width in ln σ), the elbow of J(k), the best silhouette."""
    words, tr = WORDS[lang], translator(lang)
    none = words["none"]
    rows = [words["how-many head"], "|---|---|---|---|---|"]
    for name, count, width, elbow, best in _how_many_answers():
        found = none if count is None else f"{count} ({tr.number(width, '.2f')})"
        rows.append(
            f"| {name} ({tr.number(DEFAULT_NOISE[name], 'g')}) | {NATURAL_K[name]} | {found} | "
            f"{none if elbow is None else elbow} | {none if best is None else best} |"
        )
    return "\n".join(rows)


# as the Step by step view at its defaults: blobs, n = 500, k = 4, k-means++ start, seed 0, and the
# view's table of six σ spread over the slider's range (pages/2_Step_by_step.py)
STEP_K = 4
STEP_SIGMAS = 6


def _step_setting():
    X, _ = make_dataset("blobs", n=500, noise=DEFAULT_NOISE["blobs"], seed=0)
    centers, _ = kmeans(X, k=STEP_K, seed=0)
    scale = explorer_arrays.sigma_scale(X, centers)
    grid = np.asarray(scale.grid)
    sigmas = grid[np.linspace(0, len(grid) - 1, STEP_SIGMAS).round().astype(int)]
    return X, scale, sigmas


def soft_vs_lloyd_table(lang: str = "en") -> str:
    """max |soft step − Lloyd step| after one E-step and one M-step from the view's start, at six σ
    across the slider's range, for softmax and entmax-1.5 in float64 and float32."""
    words, tr = WORDS[lang], translator(lang)
    X, scale, sigmas = _step_setting()
    default = f" ({words['default']})"
    head = [tr.number(s, ".3g") + (default if np.isclose(s, scale.default) else "") for s in sigmas]
    rows = ["| σ | " + " | ".join(head) + " |", "|---" * (len(sigmas) + 1) + "|"]
    for kind, label in (("softmax", "softmax"), ("entmax15", "entmax-1.5")):
        shown = {}
        for dtype in ("float64", "float32"):
            Xd = X.astype(dtype)
            start = explorer_arrays.initial_centers(Xd, STEP_K, "kmeans++", 0)
            gaps = step_by_step_arrays.soft_vs_lloyd(Xd, start, sigmas, kind)
            shown[dtype] = ["0" if g == 0 else tr.number(g, ".3g") for g in gaps]
        if shown["float64"] == shown["float32"]:
            rows.append(f"| {label}, {words['both']} | " + " | ".join(shown["float64"]) + " |")
        else:
            rows += [f"| {label}, {d} | " + " | ".join(v) + " |" for d, v in shown.items()]
    return "\n".join(rows)


def five_steps_sentence(lang: str = "en") -> str:
    """L_σ and J after five E+M pairs, and J after five Lloyd steps, from the view's start at its
    default σ (softmax, float64)."""
    X, scale, _ = _step_setting()
    start = explorer_arrays.initial_centers(X, STEP_K, "kmeans++", 0)
    soft = step_by_step_arrays.replay(X, start, scale.default, "softmax", "EM" * 5)
    hard = step_by_step_arrays.replay(X, start, scale.default, "softmax", "L" * 5)
    return translator(lang).format(
        WORDS[lang]["five steps"],
        l0=float(soft.loss[0]),
        l5=float(soft.loss[-1]),
        j0=float(soft.distortion[0]),
        j5=float(soft.distortion[-1]),
        lloyd=float(hard.distortion[-1]),
    )


def _address_table() -> str:
    from address import address_table  # docs/tools/address.py: it runs the app's pages (AppTest)

    return address_table()


def _not_in_address_table() -> str:
    from address import not_in_address_table

    return not_in_address_table()


TABLES = {
    "how-many": how_many_table,
    "soft-vs-lloyd": soft_vs_lloyd_table,
    "five-steps": five_steps_sentence,
    "address": _address_table,
    "not-in-address": _not_in_address_table,
}
# the tables with words in them, made in each language; the address tables are English only
TRANSLATED = ("how-many", "soft-vs-lloyd", "five-steps")
TABLES_PT_BR = {name: functools.partial(TABLES[name], lang="pt-BR") for name in TRANSLATED}
