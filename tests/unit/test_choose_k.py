"""rbfviz.choose_k against independent references: the elbow on hand-made curves with a known knee,
silhouettes against scikit-learn and a numpy silhouette written here, J(k) against scikit-learn's
inertia_ and a numpy sum of squares, the distinct-centre count against a union-find counter written
here, the plateau rule on hand-built staircases (end cases included), the annealing answer on
well-separated blobs, bad input and float32."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from numpy_reference import sq_dist
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import silhouette_score

from rbfviz import choose_k as ck

# --- references written here ------------------------------------------------------------------------


def union_find_count(centers, tol) -> int:
    """Groups of centres linked by pairwise distance <= tol (union-find, pure Python loops)."""
    centers = np.asarray(centers, dtype=np.float64)
    parent = list(range(len(centers)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(centers)):
        for j in range(i + 1, len(centers)):
            if math.dist(centers[i], centers[j]) <= tol:
                parent[root(i)] = root(j)
    return len({root(i) for i in range(len(centers))})


def numpy_silhouette(X, labels) -> float:
    """Rousseeuw's silhouette: s_i = (b_i − a_i) / max(a_i, b_i), 0 for singletons, averaged."""
    X = np.asarray(X, dtype=np.float64)
    dist = np.sqrt(sq_dist(X, X))
    s = np.zeros(len(X))
    for i in range(len(X)):
        own = labels == labels[i]
        if own.sum() == 1:
            continue
        a = dist[i, own].sum() / (own.sum() - 1)
        b = min(dist[i, labels == other].mean() for other in np.unique(labels) if other != labels[i])
        s[i] = (b - a) / max(a, b)
    return float(s.mean())


def polygon_blobs(m, seed, n=150, radius=8.0, std=0.7, dtype=np.float64):
    angles = 2 * np.pi * np.arange(m) / m
    centers = radius * np.c_[np.cos(angles), np.sin(angles)]
    X, y = make_blobs(n_samples=n, centers=centers, cluster_std=std, random_state=seed)
    return X.astype(dtype), y


# --- the elbow ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("knee", [2, 3, 4, 6])
def test_elbow_of_a_piecewise_linear_curve_is_its_corner(knee):
    ks = np.arange(1, 9)
    # steep (slope -40) down to the knee, then shallow (slope -2): the corner is the knee
    J = np.where(ks <= knee, 400.0 - 40.0 * (ks - 1), 400.0 - 40.0 * (knee - 1) - 2.0 * (ks - knee))
    assert ck.elbow(ks, J) == knee


def test_elbow_of_a_hyperbola():
    # J = 1/k on k = 1..10, scaled: x̃ = (k−1)/9, ỹ = (1/k − 0.1)/0.9; 1 − x̃ − ỹ is 0.444 at k = 2,
    # 0.519 at k = 3 and 0.500 at k = 4
    ks = np.arange(1, 11)
    J = 1.0 / ks
    expected = 1 - (ks - 1) / 9 - (J - 0.1) / 0.9
    assert np.allclose(ck.elbow_distances(ks, J), expected, atol=1e-15)
    assert ck.elbow(ks, J) == int(ks[np.argmax(expected)]) == 3


def test_elbow_distance_is_the_perpendicular_distance_times_sqrt2():
    rng = np.random.default_rng(0)
    ks = np.arange(1, 10)
    J = np.sort(rng.uniform(1, 100, size=ks.size))[::-1].copy()
    x = (ks - 1) / 8
    y = (J - J[-1]) / (J[0] - J[-1])
    # signed distance from (x, y) to the line through (0, 1) and (1, 0), positive below it
    a, b = np.array([0.0, 1.0]), np.array([1.0, 0.0])
    u = (b - a) / np.linalg.norm(b - a)
    rel = np.c_[x, y] - a
    perpendicular = rel[:, 0] * u[1] - rel[:, 1] * u[0]  # > 0 below the chord
    assert np.allclose(ck.elbow_distances(ks, J), math.sqrt(2) * perpendicular, atol=1e-12)


def test_no_elbow_on_a_straight_or_concave_curve():
    ks = np.arange(1, 7)
    assert ck.elbow(ks, 60.0 - 10.0 * ks) is None
    assert ck.elbow(ks, 100.0 - ks.astype(float) ** 2) is None
    assert ck.elbow(ks, np.full(ks.size, 3.0)) is None  # flat: every point the same


def test_identical_points_give_no_elbow_and_no_silhouette():
    X = np.ones((12, 2))
    sweep = ck.kmeans_sweep(X, 4)
    assert np.all(sweep.inertia == 0)
    assert ck.elbow(sweep.ks, sweep.inertia) is None
    scores = ck.silhouette_curve(X, sweep.ks, sweep.labels)
    for row, score in zip(sweep.labels, scores):  # one label in use: no silhouette (NaN), no error
        assert np.isnan(score) == (np.unique(row).size < 2)
    answer = ck.annealing_answer(X, 4)
    assert answer.k is None and answer.counts.max() == 1


def test_elbow_ties_go_to_the_smaller_k():
    ks = np.arange(1, 6)
    J = np.array([4.0, 1.0, 0.0, 0.0, 0.0])  # k = 2 and k = 3 both at 0.5 (written out)
    assert np.allclose(ck.elbow_distances(ks, J), [0, 0.5, 0.5, 0.25, 0])
    assert ck.elbow(ks, J) == 2


# --- J(k) and the silhouette --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_inertia_equals_sklearn_and_the_sum_of_squares(dtype):
    X, _ = polygon_blobs(4, seed=3, dtype=dtype)
    sweep = ck.kmeans_sweep(X, 6, seed=7, n_init=4)
    assert sweep.ks.tolist() == [1, 2, 3, 4, 5, 6]
    X64 = X.astype(np.float64)
    for i, k in enumerate(sweep.ks):
        model = KMeans(n_clusters=int(k), n_init=4, random_state=7).fit(X)
        assert sweep.inertia[i] == pytest.approx(model.inertia_, rel=1e-12)
        assert np.array_equal(sweep.labels[i], model.labels_)
        # within-cluster sum of squares from the labels alone (the centres are the label means)
        labels = sweep.labels[i]
        wss = sum(((X64[labels == j] - X64[labels == j].mean(axis=0)) ** 2).sum() for j in np.unique(labels))
        assert sweep.inertia[i] == pytest.approx(wss, rel=1e-4 if dtype == np.float32 else 1e-9)
    assert sweep.inertia[0] == pytest.approx(((X64 - X64.mean(axis=0)) ** 2).sum(), rel=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_silhouette_equals_sklearn_and_numpy(dtype):
    X, _ = polygon_blobs(3, seed=1, n=90, dtype=dtype)
    sweep = ck.kmeans_sweep(X, 5, seed=0)
    scores = ck.silhouette_curve(X, sweep.ks, sweep.labels)
    assert np.isnan(scores[0])
    for i in range(1, 5):
        assert scores[i] == pytest.approx(silhouette_score(X, sweep.labels[i]), rel=1e-12)
        assert scores[i] == pytest.approx(numpy_silhouette(X, sweep.labels[i]), abs=1e-5)
    assert ck.best_silhouette(sweep.ks, scores) == 3


def test_silhouette_on_a_seeded_subsample_when_n_is_large():
    X, _ = polygon_blobs(3, seed=2, n=300)
    sweep = ck.kmeans_sweep(X, 4, seed=0)
    scores = ck.silhouette_curve(X, sweep.ks, sweep.labels, sample_size=100, seed=5)
    for i in range(1, 4):
        assert scores[i] == silhouette_score(X, sweep.labels[i], sample_size=100, random_state=5)
    full = ck.silhouette_curve(X, sweep.ks, sweep.labels)
    assert not np.array_equal(scores[1:], full[1:])  # a subsample really was used


def test_best_silhouette_ignores_nan_and_breaks_ties_low():
    assert ck.best_silhouette([1, 2, 3, 4], [np.nan, 0.5, 0.7, 0.7]) == 3
    assert ck.best_silhouette([1, 2], [np.nan, np.nan]) is None


# --- distinct centres ------------------------------------------------------------------------------------


def test_distinct_count_on_hand_built_sets():
    tol = 0.1
    cases = {
        "all coincident": np.zeros((5, 2)),
        "all apart": np.array([[0.0, 0], [1, 0], [0, 1], [1, 1]]),
        "a chain links ends further apart than tol": np.array([[0.0, 0], [0.08, 0], [0.16, 0], [5, 5]]),
        "exactly tol apart is linked": np.array([[0.0, 0], [0.1, 0], [3, 0]]),
        "two stacks": np.array([[0.0, 0], [0, 1e-6], [2, 2], [2, 2 + 1e-6], [2 - 1e-6, 2]]),
        "one centre": np.array([[3.0, 4.0]]),
    }
    expected = {
        "all coincident": 1,
        "all apart": 4,
        "a chain links ends further apart than tol": 2,
        "exactly tol apart is linked": 2,
        "two stacks": 2,
        "one centre": 1,
    }
    for name, centers in cases.items():
        assert ck.distinct_count(centers, tol) == expected[name] == union_find_count(centers, tol), name
    path = np.stack(
        [cases["all apart"], np.zeros((4, 2)), cases["a chain links ends further apart than tol"]]
    )
    assert ck.distinct_counts(path, tol).tolist() == [4, 1, 2]


@settings(max_examples=60, deadline=None)
@given(
    seed=hs.integers(0, 10_000),
    k=hs.integers(1, 12),
    d=hs.integers(1, 3),
    tol=hs.floats(0.01, 2.0),
)
def test_distinct_count_matches_union_find(seed, k, d, tol):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, 3, size=(k, d))
    assert ck.distinct_count(centers, tol) == union_find_count(centers, tol)
    assert ck.distinct_count(centers.astype(np.float32), tol) == union_find_count(
        centers.astype(np.float32), tol
    )


# --- the plateau rule ------------------------------------------------------------------------------------


def grid(levels, step=0.1, top=10.0):
    """A decreasing grid with log σ spaced by ``step``."""
    return top * np.exp(-step * np.arange(levels))


def test_widest_plateau_on_a_hand_built_staircase():
    counts = [1, 1, 2, 2, 2, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5, 5]
    sigmas = grid(len(counts))
    p = ck.widest_plateau(sigmas, counts, k_max=5)
    # count 3 holds levels 5..8: 4 cells of 0.1 in ln σ between the midpoints to levels 4 and 9
    assert p.count == 3 and (p.first, p.last) == (5, 8)
    assert p.width == pytest.approx(0.4, abs=1e-12)
    assert p.sigma_high == pytest.approx(10 * math.exp(-0.45))
    assert p.sigma_low == pytest.approx(10 * math.exp(-0.85))
    assert not p.truncated


def test_the_ends_never_compete():
    # count 1 and k_max hold most of the grid; the short 2 wins
    counts = [1] * 20 + [2, 2] + [4] * 30
    p = ck.widest_plateau(grid(len(counts)), counts, k_max=4)
    assert p.count == 2 and p.width == pytest.approx(0.2)
    # 1 straight to k_max, or never splitting: no answer
    for counts in ([1] * 10 + [4] * 10, [1] * 10, [4] * 10):
        p = ck.widest_plateau(grid(len(counts)), counts, k_max=4)
        assert p.count is None and p.width == 0.0 and p.first == -1


def test_a_plateau_at_the_bottom_of_the_grid_is_truncated_at_the_last_level():
    counts = [1, 1, 2, 3, 3, 3, 3]  # k_max = 6 never reached
    p = ck.widest_plateau(grid(len(counts)), counts, k_max=6)
    # levels 3..6: from the midpoint to level 2 (ln offset 0.25) to level 6 itself (0.6)
    assert p.count == 3 and p.truncated and p.width == pytest.approx(0.35)
    # a plateau at the top of the grid starts at the first level itself
    counts = [2, 2, 2, 5, 5]
    p = ck.widest_plateau(grid(len(counts)), counts, k_max=5)
    assert p.count == 2 and p.width == pytest.approx(0.25) and p.sigma_high == pytest.approx(10.0)


def test_plateau_ties_go_to_the_smaller_count_and_runs_are_unbroken():
    counts = [1, 3, 3, 2, 2, 4, 4, 4, 6]
    p = ck.widest_plateau(grid(len(counts)), counts, k_max=6)
    assert p.count == 4  # three levels beat two
    counts = [1, 3, 3, 2, 2, 6]
    assert ck.widest_plateau(grid(len(counts)), counts, k_max=6).count == 2  # tie: 2 beats 3
    counts = [1, 3, 2, 3, 2, 2, 3, 6]  # 3 appears on three levels but never two in a row
    assert ck.widest_plateau(grid(len(counts)), counts, k_max=6).count == 2


def test_plateau_width_on_an_uneven_grid():
    sigmas = np.array([8.0, 4.0, 2.0, 1.0, 0.25, 0.1])
    counts = [1, 2, 2, 3, 3, 4]
    p = ck.widest_plateau(sigmas, counts, k_max=4)
    widths = {
        2: math.log(math.sqrt(8 * 4) / math.sqrt(2 * 1)),
        3: math.log(math.sqrt(2 * 1) / math.sqrt(0.25 * 0.1)),
    }
    best = min(widths, key=lambda c: (-widths[c], c))
    assert p.count == best and p.width == pytest.approx(widths[best])


# --- the annealing answer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("m", [3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_annealing_answer_on_well_separated_blobs_is_their_number(m, seed):
    X, _ = polygon_blobs(m, seed)
    answer = ck.annealing_answer(X, 6, seed=seed)
    assert answer.k == m
    assert answer.counts[0] == 1 and answer.counts.max() <= 6
    # the first split lies between the grid's top (1.5 σ_c) and σ_c's neighbourhood
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    assert answer.sigma_split is not None and answer.sigma_split <= 1.5 * math.sqrt(lam)
    assert answer.tol == pytest.approx(ck.DISTINCT_TOL * math.sqrt(((X - X.mean(0)) ** 2).sum(1).mean()))


def test_annealing_answer_float32_agrees_with_float64():
    X, _ = polygon_blobs(3, seed=4)
    a64 = ck.annealing_answer(X, 5)
    a32 = ck.annealing_answer(X.astype(np.float32), 5)
    assert a32.k == a64.k == 3
    assert np.allclose(a32.sigmas, a64.sigmas, rtol=1e-5)


def test_annealing_answer_reports_progress_and_uses_a_given_grid():
    X, _ = polygon_blobs(3, seed=0, n=60)
    calls = []
    sigmas = np.geomspace(10, 0.3, 12)
    answer = ck.annealing_answer(
        X, 4, sigmas=sigmas, progress=lambda done, total: calls.append((done, total))
    )
    assert calls[-1] == (12, 12) and len(calls) == 12
    assert np.array_equal(answer.sigmas, sigmas)


def test_sigma_grid_spans_the_first_split_and_decreases():
    X, _ = polygon_blobs(4, seed=0)
    sigmas = ck.sigma_grid(X, 8)
    lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))[-1]
    assert sigmas[0] == pytest.approx(1.5 * math.sqrt(lam))
    assert np.all(np.diff(sigmas) < 0) and sigmas.size == 60
    assert sigmas[-1] < 0.7  # below the blobs' own spread, where every centre has split


# --- bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X: ck.annealing_answer(X, 30), "k_max must be between 3 and 19"),
        (lambda X: ck.annealing_answer(X, 2), "k_max must be between 3"),
        (lambda X: ck.annealing_answer(X[:3], 3), "at least 4 points"),
        (lambda X: ck.kmeans_sweep(X, 20), "k_max must be between 3 and 19"),
        (lambda X: ck.kmeans_sweep(X[:2], 3), "at least 4 points"),
        (lambda X: ck.annealing_answer(X, 4, kind="naive"), "kind='naive'"),
        (lambda X: ck.annealing_answer(X, 4, tol=0), "tol must be a positive"),
        (lambda X: ck.annealing_answer(X, 4, sigmas=[1.0, 2.0]), "strictly decreasing"),
        (lambda X: ck.kmeans_sweep(X, 4, n_init=0), "n_init"),
        (lambda X: ck.silhouette_curve(X, [1, 2], np.zeros((2, 5), int)), "labels must have shape"),
        (lambda X: ck.distinct_count(np.zeros(3), 0.1), "centers must have shape"),
        (lambda X: ck.elbow([1, 2], [2.0, 1.0]), "at least 3 values"),
        (lambda X: ck.elbow([1, 2, 3], [1.0, 2.0, 3.0]), "must fall"),
        (lambda X: ck.elbow([1, 3, 2], [3.0, 2.0, 1.0]), "increasing"),
        (lambda X: ck.widest_plateau([3.0, 2.0, 1.0], [1, 2, 9], 4), "between 1 and k_max"),
        (lambda X: ck.widest_plateau([3.0, 2.0, 1.0], [1, 2], 4), "shape of sigmas"),
        (lambda X: ck.widest_plateau([3.0, 2.0, 1.0], [1, 2, 3], 2), "k_max must be"),
    ],
)
def test_bad_input_gives_clear_value_errors(call, message):
    X, _ = polygon_blobs(3, seed=0, n=20)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        call(X)


# --- the figures ------------------------------------------------------------------------------------


def test_figures_are_valid_and_mark_the_answers():
    from rbfviz.views.common.layout import validated
    from rbfviz.views.how_many_clusters import figures as figs

    X, _ = polygon_blobs(3, seed=0, n=60)
    answer = ck.annealing_answer(X, 5)
    fig = validated(figs.staircase_figure(answer, natural_k=3))
    rect = [s for s in fig.layout.shapes if s.name == figs.ANSWER]
    assert len(rect) == 1
    assert (rect[0].x0, rect[0].x1) == (answer.plateau.sigma_high, answer.plateau.sigma_low)
    star = [t for t in fig.data if t.name.startswith("widest plateau")]
    assert star[0].y == (3,)
    assert any(s.name == figs.NATURAL and s.y0 == 3 for s in fig.layout.shapes)

    sweep = ck.kmeans_sweep(X, 5)
    fig = validated(figs.elbow_figure(sweep.ks, sweep.inertia, 3, natural_k=3))
    star = [t for t in fig.data if t.name.startswith("elbow")]
    assert star[0].x == (3,) and star[0].y == (sweep.inertia[2],)
    scores = ck.silhouette_curve(X, sweep.ks, sweep.labels)
    fig = validated(figs.silhouette_figure(sweep.ks[1:], scores[1:], 3))
    star = [t for t in fig.data if t.name.startswith("best")]
    assert star[0].y == (scores[2],)
    # no answer: nothing starred
    assert len(validated(figs.elbow_figure(sweep.ks, sweep.inertia, None)).data) == 2
