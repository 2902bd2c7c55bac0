"""The Stability, Equivalence, Gaussian mixture and Neural network figures and their words in the reader's
language: with ``tr = translator("pt-BR")`` the title, axis titles, panel titles and legend names are
Portuguese (not the English ones), numbers in them use the decimal comma and ``layout.separators`` is
",."; with the default (English) nothing changes. The σ payload levels of Stability and Equivalence carry
the same words."""

import re

import numpy as np
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.family import family_collapse
from rbfviz.i18n import ENGLISH, translator
from rbfviz.maps import responsibilities
from rbfviz.measures import naive_nan_sigmas, predicted_fractions, sigma_exact_predicted
from rbfviz.mixture import fit_mixture
from rbfviz.steps import kmeans
from rbfviz.views.common.layout import validated
from rbfviz.views.common.scrub import ScrubLevel
from rbfviz.views.equivalence import words as equivalence_words
from rbfviz.views.equivalence.arrays import gap_curve, one_step, trajectories
from rbfviz.views.equivalence.figures import (
    difference_figure,
    gap_sigma_figure,
    step_figure,
    trajectory_figure,
)
from rbfviz.views.equivalence.levels import equivalence_levels
from rbfviz.views.gaussian_mixture.figures import mixture_figure
from rbfviz.views.neural_network.arrays import deep_table, train_low_sigma_view
from rbfviz.views.neural_network.figures import curves_figure, low_sigma_figure
from rbfviz.views.stability import words as stability_words
from rbfviz.views.stability.arrays import stability_plane, stability_table
from rbfviz.views.stability.family import family_collapse_figure, family_collapse_words
from rbfviz.views.stability.figures import stability_figure, stability_plane_figure
from rbfviz.views.stability.levels import stability_levels

PT = translator("pt-BR")


def words(fig) -> dict:
    """The figure's words: title, axis titles, annotations (panel titles) and legend names."""
    layout = fig.to_dict()["layout"]
    axes = [
        ((axis.get("title") or {}).get("text"))
        for key, axis in layout.items()
        if re.match(r"^[xy]axis\d*$", key) and isinstance(axis, dict)
    ]
    return dict(
        title=((layout.get("title") or {}).get("text")),
        axes=[a for a in axes if a],
        annotations=[a.get("text") for a in layout.get("annotations", []) if a.get("text")],
        names=[t.name for t in fig.data if t.name and t.showlegend is not False],
    )


def assert_translated(make):
    """make(tr) -> figure: the English and Portuguese figures differ in every kind of words they have
    (axis titles, panel titles, legend names; a title is the caller's), the Portuguese one has ",."
    separators and is a valid figure; the English one "." and ","."""
    english, portuguese = make(ENGLISH), make(PT)
    validated(portuguese)
    assert english.layout.separators == ".," and portuguese.layout.separators == ",."
    en, pt = words(english), words(portuguese)
    for kind in ("axes", "annotations", "names"):
        worded = [text for text in en[kind] if has_words(text)]
        if worded:  # maths alone (x₁, σ) stays as it is
            assert set(worded) - set(pt[kind]), kind
    return en, pt


def has_words(text: str) -> bool:
    """Whether a figure's text has an English word in it (not only maths, numbers and map names)."""
    plain = re.sub(r"<[^>]+>|softmax|entmax|sparsemax|K-Means|float\d+|NaN|Lloyd|max", " ", text)
    return re.search(r"[a-z]{3,}", plain) is not None


@pytest.fixture(scope="module")
def problem():
    X, _ = make_dataset("blobs", 120, None, 1)
    X = np.ascontiguousarray(X, dtype=np.float64)
    C, _ = kmeans(X, k=3, seed=0)
    return X, C


def test_stability_curves(problem):
    X, C = problem
    sigmas = np.geomspace(2.0, 0.01, 12)
    rows = stability_table(X, C, sigmas)
    predicted = {d: predicted_fractions(X, C, sigmas, d) for d in ("float64", "float32")}
    nan_sigmas = {d: naive_nan_sigmas(X, C, d)[0] for d in ("float64", "float32")}

    def make(tr):
        return stability_figure(
            rows,
            predicted,
            float(sigmas[5]),
            nan_sigmas=nan_sigmas,
            sigma_exact=sigma_exact_predicted(X, C),
            tr=tr,
        )

    en, pt = assert_translated(make)
    assert "<b>NaN rows (%)</b>" in en["annotations"] and "<b>linhas NaN (%)</b>" in pt["annotations"]
    assert "exp/soma ingênuo · float64" in pt["names"]
    text = stability_words.stability_curves(rows, float(sigmas[5]), "float64", tr=PT)
    assert text.startswith("Em σ = ") and "," in text


def test_stability_plane_and_its_levels(problem):
    X, C = problem
    planes = [stability_plane(X, C, s, "float64", size=40) for s in (0.5, 0.05)]
    en, pt = assert_translated(lambda tr: stability_plane_figure(planes[0], X, C, title="σ", tr=tr))
    assert "<b>exp/soma ingênuo</b>" in pt["annotations"]
    assert any(a.endswith("linhas NaN") for a in pt["annotations"])
    levels = stability_levels(planes, X, C, tr=PT)
    assert isinstance(levels[0], ScrubLevel) and levels[0].caption.startswith("Em σ = 0,5")
    # a patch rewrites the count above the naive panel, in Portuguese
    counts = [value for path, value in levels[1].sets if path[:2] == ("layout", "annotations")]
    assert counts[0].endswith("linhas NaN") and levels[1].caption.startswith("Em σ = 0,05")


def test_family_collapse(problem):
    X, C = problem
    result = family_collapse(X, C, sigmas=np.geomspace(1.0, 0.005, 20))
    en, pt = assert_translated(lambda tr: family_collapse_figure(result, tr=tr))
    assert "α = 1,1" in pt["names"] and "α = 1.1" in en["names"]
    assert family_collapse_words(result, tr=PT).startswith("g_min = 0,")


def test_equivalence_figures_words_and_levels(problem):
    X, C = problem
    step = one_step(X, C, 0.5, "softmax")
    resp = responsibilities(X, C, 0.5, "softmax")
    traj = trajectories(X, C, 0.5, "softmax", steps=5)
    curve = gap_curve(X, C, np.geomspace(2.0, 0.01, 10), "entmax15")
    en, pt = assert_translated(lambda tr: step_figure(X, resp, step, title="blobs", tr=tr))
    assert "após um passo de Lloyd" in pt["names"]
    en, pt = assert_translated(lambda tr: trajectory_figure(X, traj, tr=tr))
    assert "descida do gradiente" in pt["names"]
    en, pt = assert_translated(lambda tr: difference_figure(traj, title="d", tr=tr))
    assert pt["axes"] == ["passo t", "max |Δ| (unidades dos dados)"]
    en, pt = assert_translated(lambda tr: gap_sigma_figure(curve, sigma=0.1, tr=tr))
    assert "L_σ − J (escala log)" in pt["axes"] and "σ atual = 0,1" in pt["names"]
    assert equivalence_words.equivalence_step(step, 0.5, "softmax", tr=PT).startswith(
        "A partir dos mesmos 3 centros"
    )
    assert "passos de Lloyd" in equivalence_words.trajectories(traj, tr=PT)
    assert "dentro do seu limite" in equivalence_words.gap_curve(curve, 0.1, "entmax15", tr=PT)
    levels = equivalence_levels([step, step], [resp, resp], [0.5, 0.25], X, "blobs", "softmax", tr=PT)
    assert levels[0].figure.layout.title.text == "blobs, σ = 0,5"
    assert "massas N_j no início" in levels[0].side_html and levels[1].caption.startswith("A partir")


def test_mixture_figure(problem):
    X, C = problem
    fit = fit_mixture(X, 3, start=C, seed=0)
    resp = responsibilities(X, C, 0.6, "softmax")
    en, pt = assert_translated(lambda tr: mixture_figure(X, fit, C, resp, 0.6, title="blobs", tr=tr))
    assert "<b>Rede RBF<br>σ e 1/k fixos</b>" in pt["annotations"]
    assert "centros RBF c_j (cada um σ = 0,6, 1/k = 0,33)" in pt["names"]


def test_network_curves_and_table():
    low = train_low_sigma_view("moons", sigma=0.01, k=4, epochs=3)
    en, pt = assert_translated(lambda tr: low_sigma_figure(low.comparison, low.n_train, tr=tr))
    assert "<b>linhas de r exatamente one-hot (%)</b>" in pt["annotations"]
    assert "exp/soma ingênuo" in pt["names"]
    panel = {
        "title": "t",
        "log": True,
        "lines": [{"name": "x", "x": [0, 1], "y": [0.0, 1.0], "color": "#000"}],
    }
    assert curves_figure([panel], tr=PT).layout.xaxis.title.text == "época"


def test_deep_table_methods_follow_the_language():
    class View:
        latent_dim, nmi, ari, pretrain_nmi, kmeans_raw_nmi, kmeans_pca_nmi = 4, 0.8, 0.7, 0.75, 0.7, 0.72

    assert [r["method"] for r in deep_table(View())][0] == "joint: AE + RBF layer"
    assert [r["method"] for r in deep_table(View(), tr=PT)] == [
        "conjunto: AE + camada RBF",
        "só o AE, depois K-Means",
        "K-Means, entradas brutas",
        "K-Means, PCA para 4 dim.",
    ]


def decimal_ticks(fig) -> list[str]:
    """The tick texts of the figure's axes that are decimal numbers ("0.05", "0,05")."""
    layout = fig.to_dict()["layout"]
    return [
        text
        for key, axis in layout.items()
        if re.match(r"^[xy]axis\d*$", key) and isinstance(axis, dict)
        for text in axis.get("ticktext") or []
        if re.fullmatch(r"\d+[.,]\d+", text)
    ]


def test_log_axis_ticks_have_the_languages_decimal_separator(problem):
    X, C = problem
    sigmas = np.geomspace(2.0, 0.01, 12)
    rows = stability_table(X, C, sigmas)
    predicted = {d: predicted_fractions(X, C, sigmas, d) for d in ("float64", "float32")}
    result = family_collapse(X, C, sigmas=np.geomspace(1.0, 0.005, 20))
    panel = {
        "title": "t",
        "log": True,
        "lines": [{"name": "x", "x": [0, 1, 2], "y": [0.5, 1.0, 2.0], "color": "#000"}],
    }
    for make in (
        lambda tr: stability_figure(rows, predicted, float(sigmas[5]), tr=tr),
        lambda tr: family_collapse_figure(result, tr=tr),
        lambda tr: curves_figure([panel], tr=tr),
    ):
        english, portuguese = decimal_ticks(make(ENGLISH)), decimal_ticks(make(PT))
        assert english and all("." in t for t in english)
        assert portuguese == [t.replace(".", ",") for t in english]
