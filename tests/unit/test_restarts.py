"""The race of restarts against annealing (rbfviz.restarts) against scikit-learn's KMeans run here, restart
by restart, and its figures and words (rbfviz.views.annealing.restarts)."""

import base64

import numpy as np
import pytest
from sklearn.cluster import KMeans, kmeans_plusplus

from rbfviz import anneal, default_sigmas
from rbfviz.datasets import DEFAULT_NOISE, make_dataset
from rbfviz.restarts import INITS, MAX_RESTARTS, TOLERANCE, race, restart_starts
from rbfviz.views.annealing.restarts import centres_figure, distortion_figure, race_numbers, race_words
from rbfviz.views.common.layout import validated
from rbfviz.views.common.words import percent

N = 12


def values(array) -> np.ndarray:
    """A figure's array, decoded if Plotly stored it as base64 ("bdata")."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"])
    return np.asarray(array)


def points(dataset: str, n: int = 300):
    return make_dataset(dataset, n, DEFAULT_NOISE[dataset], 0)[0]


def sklearn_j(X, start) -> float:
    """Lloyd from ``start`` to its fixed point, by scikit-learn, called here."""
    return (
        KMeans(start.shape[0], init=start, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000)
        .fit(X)
        .inertia_
    )


@pytest.fixture(scope="module")
def iris_race():
    X = make_dataset("iris", 150, 0.0, 0)[0]
    return X, race(X, 3, N, seed=4)


def test_every_restart_is_scikit_learns_kmeans_from_its_start(iris_race):
    X, result = iris_race
    for i in range(N):
        plus, _ = kmeans_plusplus(X, 3, random_state=4 + i)
        rows = np.sort(np.random.RandomState(4 + i).choice(len(X), 3, replace=False))
        for init, start in (("k-means++", plus), ("random", X[rows])):
            model = KMeans(3, init=start, n_init=1, algorithm="lloyd", tol=0.0, max_iter=1000).fit(X)
            assert result.distortions[init][i] == pytest.approx(model.inertia_, rel=1e-12)
            np.testing.assert_allclose(result.centers[init][i], model.cluster_centers_, rtol=0, atol=1e-12)
    # the k-means++ restarts are KMeans(init="k-means++", random_state=seed + i) too
    direct = [
        KMeans(3, n_init=1, algorithm="lloyd", tol=0.0, random_state=4 + i).fit(X).inertia_ for i in range(N)
    ]
    np.testing.assert_allclose(result.distortions["k-means++"], direct, rtol=1e-12)


def test_the_reference_and_the_annealed_j(iris_race):
    X, result = iris_race
    assert result.reference_j == pytest.approx(KMeans(3, n_init=N, random_state=4).fit(X).inertia_, rel=1e-12)
    path = anneal(X, 3, default_sigmas(X, 3, "softmax"), kind="softmax", seed=4)
    assert result.annealed_j == pytest.approx(sklearn_j(X, path.centers[-1]), rel=1e-12)
    # J of the annealed centres is the distortion of the points to their nearest centre
    d = ((X[:, None, :] - result.annealed_centers[None]) ** 2).sum(-1)
    assert result.annealed_j == pytest.approx(d.min(axis=1).sum(), rel=1e-9)


def test_shares_best_and_poor_restart_follow_from_the_distortions(iris_race):
    _, result = iris_race
    all_j = np.concatenate([result.distortions[init] for init in INITS])
    assert result.best_j == all_j.min() and result.n_restarts == N
    for init in INITS:
        within = result.distortions[init] <= result.annealed_j * (1 + TOLERANCE)
        assert result.share_reaching(init) == within.mean()
    init, i = result.poor_restart()
    assert result.distortions[init][i] == all_j.max()


def test_random_restarts_often_fail_where_annealing_finds_the_low_j():
    """Sheared blobs with k = 8: few restarts reach the J of one annealing run."""
    result = race(points("sheared", 500), 8, 40)
    assert result.annealing_verdict() in ("lower", "tied")
    assert result.share_reaching("random") < 0.2 and result.share_reaching("k-means++") < 0.2
    assert "ended within 0.1% of the annealed J" in race_words(result)


def test_where_annealing_does_not_beat_the_best_restart_the_words_say_so():
    """Uneven blobs with k = 3: the best restart is lower than annealing's J."""
    result = race(points("uneven", 500), 3, 40)
    assert result.annealing_verdict() == "higher" and result.best_j < result.annealed_j
    assert "annealing does **not** win" in race_words(result)


def test_bad_arguments_are_clear_messages():
    X = points("blobs", 50)
    with pytest.raises(ValueError, match=f"n_restarts must be between 1 and {MAX_RESTARTS}"):
        race(X, 3, MAX_RESTARTS + 1)
    with pytest.raises(ValueError, match="k must be between 1 and the number of points"):
        race(X, 51, 10)
    with pytest.raises(ValueError, match="at least 2 centres"):
        race(X, 1, 10)
    with pytest.raises(ValueError, match="init='farthest' is unknown"):
        restart_starts(X, 3, "farthest", 5)


def test_the_figures_show_the_race(iris_race):
    X, result = iris_race
    fig = validated(distortion_figure(result))
    assert [t.name for t in fig.data[:2]] == ["k-means++ restarts", "random restarts"]
    np.testing.assert_array_equal(values(fig.data[1].x), result.distortions["random"])
    marked = sorted(shape.x0 for shape in fig.layout.shapes)
    assert marked == sorted([result.annealed_j, result.best_j, result.reference_j])
    planes = validated(centres_figure(X, result))
    init, i = result.poor_restart()
    np.testing.assert_array_equal(values(planes.data[1].x), result.centers[init][i][:, 0])
    np.testing.assert_array_equal(values(planes.data[3].x), result.annealed_centers[:, 0])
    numbers = {label: value for label, value, _ in race_numbers(result)}
    assert numbers["annealed J (one run)"] == f"{result.annealed_j:.6g}"
    assert numbers[f"KMeans(n_init={N})"] == f"{result.reference_j:.6g}"
    assert numbers["reach annealed J: random"] == percent(result.share_reaching("random"))
