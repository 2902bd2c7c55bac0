"""The words of the Explorer's, Step by step's, Annealing's and How many clusters' figures follow the
translator they are given: title, axis titles, legend names and σ-line names in English by default and in
Brazilian Portuguese with ``translator("pt-BR")``, whose numbers use a decimal comma (Plotly's
``separators`` ",."). The "In words" descriptions and the split table follow it too."""

from __future__ import annotations

import numpy as np
import pytest

from rbfviz import collapse
from rbfviz.choose_k import annealing_answer, elbow, kmeans_sweep, silhouette_curve
from rbfviz.datasets import make_dataset
from rbfviz.i18n import ENGLISH, translator
from rbfviz.restarts import race
from rbfviz.views.annealing import words as annealing_words
from rbfviz.views.annealing.arrays import annealing_view, free_energy_terms, split_rows, splits_in_words
from rbfviz.views.annealing.figures import (
    bifurcation_figure,
    collapse_figure,
    free_energy_figure,
    trajectory_figure,
)
from rbfviz.views.annealing.restarts import centres_figure, distortion_figure, race_numbers, race_words
from rbfviz.views.explorer import words as explorer_words
from rbfviz.views.explorer.figures import explorer_figure, plane_side_html
from rbfviz.views.explorer.picking import picking_figure
from rbfviz.views.how_many_clusters.figures import elbow_figure, silhouette_figure, staircase_figure
from rbfviz.views.step_by_step.arrays import replay
from rbfviz.views.step_by_step.figures import history_figure, step_plane_figure

PT = translator("pt-BR")
K = 3


@pytest.fixture(scope="module")
def X():
    X, _ = make_dataset("blobs", 120, None, 0)
    return np.ascontiguousarray(X, dtype=np.float64)


def words_of(fig) -> dict:
    """The words of a figure a reader sees: title, axis titles, legend names (traces and shapes)."""
    layout = fig.layout
    axes = [
        axis.title.text
        for name in dir(layout)
        if name.startswith(("xaxis", "yaxis"))
        for axis in [getattr(layout, name)]
        if axis is not None and axis.title is not None and axis.title.text
    ]
    return {
        "title": layout.title.text if layout.title else None,
        "axes": sorted(axes),
        "legend": [t.name for t in fig.data if t.name and t.showlegend is not False]
        + [s.name for s in (layout.shapes or ()) if s.name],
    }


def assert_translated(english, portuguese, must: list[str]) -> None:
    """Both figures have the same structure; every word that is not maths changed, the pt-BR one shows
    ``must`` among its words, and its numbers use a decimal comma."""
    en, pt = words_of(english), words_of(portuguese)
    assert len(en["legend"]) == len(pt["legend"]) and len(en["axes"]) == len(pt["axes"])
    # every name in words changed (a code name such as KMeans(n_init=10) stays)
    changed = [a != b for a, b in zip(en["legend"], pt["legend"]) if " " in a]
    assert all(changed), list(zip(en["legend"], pt["legend"]))
    shown = " | ".join([pt["title"] or "", *pt["axes"], *pt["legend"]])
    for word in must:
        assert word in shown, (word, shown)
    assert english.layout.separators == ".," and portuguese.layout.separators == ",."


def test_explorer_plane_and_picking(X):
    resp = np.full((len(X), K), 1.0 / K)
    centers = X[:K]
    english = explorer_figure(X, resp, centers, centers, None, "moons, σ = 0.5")
    portuguese = explorer_figure(X, resp, centers, centers, None, "moons, σ = 0,5", tr=PT)
    assert_translated(
        english, portuguese, ["centros RBF c_j", "centróides do K-Means", "pontos (cor misturada por r)"]
    )
    assert "ponto #" in portuguese.data[0].hovertemplate and "point #" in english.data[0].hovertemplate
    extent = (-3.0, 3.0, -3.0, 3.0)
    english = picking_figure(X, [0, 5], K, extent, title="Pick")
    portuguese = picking_figure(X, [0, 5], K, extent, title="Escolha", tr=PT)
    assert_translated(english, portuguese, ["pontos (clique para escolher)", "pontos iniciais escolhidos"])


def test_explorer_words_and_numbers_beside_the_plane(X):
    resp = np.eye(K)[np.arange(len(X)) % K]
    numbers = dict(
        loss=12.5, distortion=12.25, gap=0.25, bound=3.5, within_bound=True, agreement=0.975,
        mean_entropy=0.125, exact_zeros=1500, entries=3600, nan_rows=0,
    )  # fmt: skip
    english = explorer_words.plane(resp, numbers, 0.529, "softmax", "float64")
    portuguese = explorer_words.plane(resp, numbers, 0.529, "softmax", "float64", tr=PT)
    assert english.startswith("3 RBF centres at σ = 0.529 (softmax, float64) on 120 points: 97.5% of the")
    assert portuguese.startswith("3 centros RBF em σ = 0,529 (softmax, float64) sobre 120 pontos: 97,5% dos")
    assert "120 linhas são exatamente one-hot" in portuguese
    side = plane_side_html(numbers, "softmax", K, tr=PT)
    assert "perda suave" in side and "1.500 de 3.600" in side and "12,5" in side
    assert "soft loss" in plane_side_html(numbers, "softmax", K)
    assert explorer_words.picking(120, [4], K, tr=PT) == (
        "120 pontos em cinza; 1 dos 3 centros iniciais escolhidos (#4); clique em mais 2 para começar."
    )


def test_step_by_step_plane_and_history(X):
    run = replay(X, X[:K], 0.5, "softmax", "EML")
    english = step_plane_figure(X, run, lloyd_from_pair=X[:K], title="after")
    portuguese = step_plane_figure(X, run, lloyd_from_pair=X[:K], title="depois", tr=PT)
    assert_translated(english, portuguese, ["centros agora", "passo de Lloyd a partir dos mesmos centros"])
    english, portuguese = history_figure(run, title="After"), history_figure(run, title="Depois", tr=PT)
    assert words_of(english)["axes"] == ["loss (data units²)", "step"]
    assert words_of(portuguese)["axes"] == ["passo", "perda (unid. dos dados²)"]
    assert_translated(english, portuguese, ["perda suave nestes centros"])
    assert portuguese.layout.xaxis.ticktext[0] == "início"


@pytest.fixture(scope="module")
def view(X):
    grid = np.geomspace(3.0, 0.02, 20)
    study = collapse.collapse_study(X, K, kind="softmax", sigmas=grid, seed=0)
    return annealing_view(study, X)


def test_annealing_figures(X, view):
    sigma = float(view.sigmas[10])
    for draw, must in (
        (bifurcation_figure, ["posição ao longo do eixo principal u₁", "σ_c previsto (primeira bifurcação)"]),
        (collapse_figure, ["E(σ), ponto fixo a partir de C*", "σ atual", "σ  (escala log; resfriando →)"]),
    ):
        assert_translated(draw(view, sigma), draw(view, sigma, tr=PT), must)
    english, portuguese = trajectory_figure(view, X, sigma), trajectory_figure(view, X, sigma, tr=PT)
    assert_translated(english, portuguese, ["centros RBF c_j em σ", "trajetória inteira enquanto σ cai"])
    assert [b.label for b in portuguese.layout.updatemenus[0].buttons][0] == "▶ Reproduzir do início"
    terms = free_energy_terms(X, view_path(X))
    assert_translated(free_energy_figure(terms), free_energy_figure(terms, tr=PT), ["F_σ  (energia livre)"])


def view_path(X):
    from rbfviz import anneal

    return anneal(X, K, np.geomspace(3.0, 0.02, 20), kind="softmax", init=None, seed=0)


def test_annealing_words_and_split_table(view):
    sigma = float(view.sigmas[10])
    assert annealing_words.collapse(view, sigma, tr=PT).startswith(
        "Distância E(σ) do ponto fixo suave ao K-Means"
    )
    assert annealing_words.bifurcation(view, tr=PT).startswith(
        "Posições dos centros ao longo do eixo principal"
    )
    assert "Recozimento de 3 centros" in annealing_words.annealing_plane(view, sigma, tr=PT)
    if view.splits:
        assert "previsões caem dentro do passo da grade" in splits_in_words(view, tr=PT)
        assert set(split_rows(view, tr=PT)[0]) >= {"bifurcação", "σ previsto", "erro"}
        assert set(split_rows(view)[0]) >= {"split", "σ predicted", "error"}


def test_annealing_race(X):
    result = race(X, K, 10, seed=0)
    english, portuguese = distortion_figure(result, title="J"), distortion_figure(result, title="J", tr=PT)
    assert words_of(portuguese)["axes"] == ["distorção final J (unidades dos dados²)", "reinícios"]
    assert_translated(english, portuguese, ["reinícios aleatórios", "J recozido", "melhor reinício"])
    english, portuguese = centres_figure(X, result), centres_figure(X, result, tr=PT)
    assert_translated(english, portuguese, ["pontos (cor do centro mais próximo)", "centros"])
    assert [label for label, _, _ in race_numbers(result, tr=PT)][0] == "J recozido (uma execução)"
    assert "terminaram a menos de" in race_words(result, tr=PT)
    assert "ended within" in race_words(result, ENGLISH)


def test_how_many_clusters_figures(X):
    answer = annealing_answer(X, 6, seed=0)
    sweep = kmeans_sweep(X, 6, seed=0)
    scores = silhouette_curve(X, sweep.ks, sweep.labels, seed=0)
    english, portuguese = staircase_figure(answer, 3), staircase_figure(answer, 3, tr=PT)
    assert_translated(english, portuguese, ["centros distintos", "k natural = 3"])
    k = elbow(sweep.ks, sweep.inertia)
    english = elbow_figure(sweep.ks, sweep.inertia, k, 3)
    portuguese = elbow_figure(sweep.ks, sweep.inertia, k, 3, tr=PT)
    assert words_of(portuguese)["axes"] == ["J(k), soma dos quadrados", "k (grupos)"]
    assert_translated(english, portuguese, ["corda entre as pontas", "k natural do conjunto de dados"])
    english = silhouette_figure(sweep.ks[1:], scores[1:], 3, 3)
    portuguese = silhouette_figure(sweep.ks[1:], scores[1:], 3, 3, tr=PT)
    assert_translated(english, portuguese, ["silhueta média (−1 … 1)", "melhor: k = 3"])
    assert "," in portuguese.data[-2].hovertemplate.split("silhueta = ")[-1]  # the starred score: 0,xyz
