"""rbfviz.views.common.words: each sentence states the numbers of what is drawn, and only those."""

import math

import numpy as np
import pytest

from rbfviz.datasets import make_dataset
from rbfviz.maps import responsibilities
from rbfviz.measures import kmeans_reference, mean_entropy
from rbfviz.views.annealing import words as annealing_words
from rbfviz.views.common import words as common_words
from rbfviz.views.equivalence import words as equivalence_words
from rbfviz.views.equivalence.arrays import gap_curve, one_step, trajectories
from rbfviz.views.explorer import words as explorer_words
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers
from rbfviz.views.stability import words as stability_words


@pytest.mark.parametrize(
    "fraction,text",
    [(1.0, "100%"), (0.0, "0%"), (0.9995, "99.9%"), (0.0004, "0.1%"), (0.5, "50.0%"), (float("nan"), "n/a")],
)
def test_percent_never_rounds_to_all_or_nothing(fraction, text):
    assert common_words.percent(fraction) == text


@pytest.mark.parametrize("x,text", [(-0.0, "0"), (0.0, "0"), (-0.5, "-0.5"), (float("nan"), "NaN")])
def test_number_never_prints_a_negative_zero(x, text):
    assert common_words.number(x) == text


def test_plane_sentence_of_one_hot_rows_says_entropy_0():
    resp = np.eye(3)
    numbers = {"nan_rows": 0, "agreement": 1.0, "mean_entropy": mean_entropy(resp)}
    text = explorer_words.plane(resp, numbers, 0.01, "entmax15", "float64")
    assert "the mean entropy of r is 0 nats" in text and "-0" not in text


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_dataset("blobs", 300, seed=2)
    C0 = initial_centers(X, 4, "kmeans++", 2)
    _, labels = kmeans_reference(X, C0)
    return X, C0, labels


def test_plane_sentence_has_the_counts(blobs):
    X, C, labels = blobs
    sigma = 0.3
    resp = responsibilities(X, C, sigma, "entmax15")
    numbers = plane_numbers(X, C, sigma, "entmax15", labels)
    text = explorer_words.plane(resp, numbers, sigma, "entmax15", "float64")
    one_hot = int(((resp == 0).sum(axis=1) == 3).sum())
    assert text.startswith("4 RBF centres at σ = 0.3 (entmax15, float64) on 300 points")
    assert f"{one_hot:,} rows are exactly one-hot" in text or (
        one_hot == 1 and "1 row is exactly one-hot" in text
    )
    assert (
        common_words.percent(numbers["agreement"]) + " of the points have the same cluster as K-Means" in text
    )
    assert text.count(".") >= 1 and "\n" not in text


def test_plane_sentence_reports_nan_rows(blobs):
    X, C, labels = blobs
    sigma = 0.02
    resp = responsibilities(X.astype(np.float32), C.astype(np.float32), sigma, "naive")
    numbers = plane_numbers(X.astype(np.float32), C.astype(np.float32), sigma, "naive", labels)
    assert numbers["nan_rows"] > 0
    assert f"{numbers['nan_rows']:,} rows of r are NaN" in explorer_words.plane(
        resp, numbers, sigma, "naive", "float32"
    )


def test_picking_sentence():
    assert explorer_words.picking(500, [3, 9], 4) == (
        "500 points in grey; 2 of the 4 starting centres picked (#3, #9); click 2 more to start."
    )


def test_equivalence_sentences(blobs):
    X, C, _ = blobs
    step = one_step(X, C, 0.5, "softmax")
    text = equivalence_words.equivalence_step(step, 0.5, "softmax")
    assert common_words.number(step.gd_vs_lloyd) in text and "soft centroids" in text
    paths = trajectories(X, C, 0.5, "softmax", 5)
    assert common_words.number(paths.difference[-1]) in equivalence_words.trajectories(paths)
    assert common_words.number(paths.difference[-1]) in equivalence_words.path_difference(paths)
    curve = gap_curve(X, C, np.geomspace(2, 0.01, 9), "entmax15")
    text = equivalence_words.gap_curve(curve, 0.01, "entmax15")
    assert "over 9 σ values" in text and "inside its bound at every σ" in text
    zeros = int((curve.gap == 0).sum())
    assert (f"exactly 0 at {zeros} σ value" in text) == (zeros > 0)


class _View:
    """The few AnnealingView fields the descriptions read."""

    def __init__(self, centers, sigmas):
        self.centers, self.sigmas = np.asarray(centers, float), np.asarray(sigmas, float)
        self.kind, self.dtype, self.lambda_max = "softmax", "float64", 1.0
        self.sigma_critical_predicted, self.sigma_critical_measured = 1.0, 0.9
        self.error = np.array([np.nan, 0.5, 0.0])
        self.sigma_exact_measured = 0.1

        class Fit:
            slope = 2.0

        self.slope = Fit()

    def level(self, sigma):
        return int(np.argmin(np.abs(np.log(self.sigmas) - math.log(sigma))))


def test_annealing_sentences_count_distinct_centres():
    view = _View(
        [[[0, 0], [0, 0], [0, 0]], [[-1, 0], [1, 0], [1, 0]], [[-1, 0], [1, 0], [0, 2]]], [2.0, 0.5, 0.1]
    )
    assert "sit at 1 distinct place" in annealing_words.annealing_plane(view, 2.0)
    assert "sit at 2 distinct places" in annealing_words.annealing_plane(view, 0.5)
    assert "sit at 3 distinct places" in annealing_words.annealing_plane(view, 0.1)
    assert "first split at σ = 0.9" in annealing_words.bifurcation(view)
    text = annealing_words.collapse(view, 0.1)
    assert "slope 2.00" in text and "E is exactly 0" in text and "from σ = 0.1 down" in text
    assert "not computed above σ_c" in annealing_words.collapse(view, 2.0)


def test_stability_sentences():
    rows = [
        dict(kind="naive", dtype="float32", sigma=0.2, nan_row_fraction=0.25, hard_row_fraction=0.0),
        dict(kind="naive", dtype="float64", sigma=0.2, nan_row_fraction=0.0, hard_row_fraction=0.0),
        dict(kind="entmax15", dtype="float32", sigma=0.2, nan_row_fraction=0.0, hard_row_fraction=0.5),
    ]
    # each map under its display name, as in the figure's legend
    assert stability_words.stability_curves(rows, 0.2, "float32") == (
        "At σ = 0.2 in float32: naive exp/sum 25.0% NaN rows and 0% one-hot rows; "
        "entmax-1.5 0% NaN rows and 50.0% one-hot rows."
    )
