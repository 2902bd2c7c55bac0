"""Annealing: the end point is K-Means, the first split happens at the predicted σ_c, runs are
deterministic, and bad arguments are refused (theory notes §7)."""

import json
import math

import numpy as np
import pytest
from sklearn.cluster import KMeans

from rbfviz import make_dataset
from rbfviz.annealing import AnnealResult, anneal, data_scale, default_sigmas, fixed_point
from rbfviz.measures import critical_sigma_measured, critical_sigma_predicted, min_sq_gap


@pytest.fixture(scope="module")
def moons():
    return make_dataset("moons", n=300, seed=0)[0]


@pytest.fixture(scope="module")
def blobs():
    return make_dataset("blobs", n=400, seed=1)[0]


def _sklearn_move(X, end):
    """How far scikit-learn's Lloyd moves the centres when started at ``end``."""
    km = KMeans(n_clusters=end.shape[0], init=end, n_init=1, algorithm="lloyd", tol=0.0, max_iter=300).fit(X)
    return np.abs(km.cluster_centers_ - end).max()


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
@pytest.mark.parametrize("data, k", [("moons", 2), ("blobs", 4)])
def test_end_point_is_a_lloyd_fixed_point(kind, data, k, request):
    X = request.getfixturevalue(data)
    result = anneal(X, k, default_sigmas(X, k, kind), kind=kind)
    end = result.centers[-1].astype(np.float64)
    assert _sklearn_move(X, end) < 1e-10
    # and the annealed distortion is that of the fixed point scikit-learn reports
    km = KMeans(n_clusters=k, init=end, n_init=1, algorithm="lloyd", tol=0.0).fit(X)
    assert result.distortion[-1] == pytest.approx(km.inertia_, rel=1e-10)


def test_result_fields_shapes_and_types(moons):
    sigmas = default_sigmas(moons, 3, "softmax", num=12)
    r = anneal(moons, 3, sigmas)
    assert isinstance(r, AnnealResult)
    S, k, d = 12, 3, 2
    assert r.sigmas.dtype == np.float64 and np.all(np.diff(r.sigmas) < 0)
    assert r.centers.shape == (S, k, d) and r.centers.dtype == np.float64
    for name in ("loss", "distortion", "entropy"):
        assert getattr(r, name).shape == (S,)
    assert r.masses.shape == (S, k)
    np.testing.assert_allclose(r.masses.sum(axis=1), moons.shape[0], rtol=1e-12)
    assert r.iterations.dtype.kind == "i" and r.converged.dtype == bool and r.nan_rows.dtype.kind == "i"
    assert r.init.shape == (k, d) and r.kind == "softmax" and r.dtype == "float64"
    assert np.all(r.loss >= r.distortion - 1e-9)  # L_σ >= J (theory §4)
    # entropy: ln k at the top (all centres at the mean, r uniform), 0 at the hard end
    assert r.entropy[0] == pytest.approx(math.log(k), abs=1e-6)
    assert r.entropy[-1] < 1e-6
    text = json.dumps(r.to_dict())
    assert '"sigmas"' in text and "NaN" not in text


def test_above_critical_sigma_every_centre_sits_at_the_mean(moons):
    sigma_c = critical_sigma_predicted(moons, "softmax")
    sigmas = sigma_c * np.array([2.0, 1.6, 1.3, 1.15])
    r = anneal(moons, 3, sigmas)
    spread = np.linalg.norm(r.centers - moons.mean(axis=0), axis=2).max(axis=1)
    assert np.all(spread < 1e-6 * data_scale(moons))
    assert critical_sigma_measured(r) is None


def test_deterministic_per_seed(moons):
    sigmas = default_sigmas(moons, 3, "entmax15", num=15)
    a = anneal(moons, 3, sigmas, kind="entmax15", seed=7)
    b = anneal(moons, 3, sigmas, kind="entmax15", seed=7)
    for name in ("centers", "loss", "iterations", "init", "masses"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    c = anneal(moons, 3, sigmas, kind="entmax15", seed=8)
    assert not np.array_equal(a.init, c.init)


def test_float32_runs_in_float32_and_agrees_with_float64(moons):
    sigmas = default_sigmas(moons, 2, "softmax", num=20)
    r32 = anneal(moons.astype(np.float32), 2, sigmas)
    r64 = anneal(moons, 2, sigmas)
    assert r32.dtype == "float32" and r32.centers.dtype == np.float32 and r32.init.dtype == np.float32
    assert np.all(np.isfinite(r32.centers)) and r32.nan_rows.sum() == 0
    np.testing.assert_allclose(np.sort(r32.centers[-1], axis=0), np.sort(r64.centers[-1], axis=0), atol=1e-4)


def test_progress_is_called_once_per_level(moons):
    calls = []
    sigmas = default_sigmas(moons, 2, num=9)
    anneal(moons, 2, sigmas, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(s, 9) for s in range(1, 10)]


def test_max_iter_caps_levels_and_is_reported(moons):
    r = anneal(moons, 2, default_sigmas(moons, 2, num=10), max_iter=1)
    assert np.all(r.iterations == 1)
    assert not r.converged[:5].any()


def test_accelerated_and_plain_em_reach_the_same_fixed_points(moons):
    sigmas = default_sigmas(moons, 2, "softmax", num=25)
    fast = anneal(moons, 2, sigmas, seed=3)
    plain = anneal(moons, 2, sigmas, seed=3, accelerate=False, max_iter=5000)
    assert fast.converged.all() and plain.converged.all()
    assert fast.iterations.sum() < plain.iterations.sum()
    end_fast, end_plain = np.sort(fast.centers[-1], axis=0), np.sort(plain.centers[-1], axis=0)
    np.testing.assert_allclose(end_fast, end_plain, atol=1e-9)


def test_coincident_initial_centres_are_split(moons):
    """Exactly coincident centres sit on a saddle; the per-level noise lets them split below σ_c."""
    init = np.repeat(moons.mean(axis=0, keepdims=True), 2, axis=0)
    r = anneal(moons, 2, default_sigmas(moons, 2, num=30), init=init)
    np.testing.assert_array_equal(r.init, init)
    assert np.linalg.norm(r.centers[-1, 0] - r.centers[-1, 1]) > 0.5 * data_scale(moons)


def test_default_sigmas_range(moons):
    for kind in ("softmax", "entmax15"):
        grid = default_sigmas(moons, 2, kind, num=40)
        assert grid.shape == (40,) and np.all(np.diff(grid) < 0)
        m = 2 if kind == "entmax15" else None
        assert grid[0] == pytest.approx(1.5 * critical_sigma_predicted(moons, kind, m=m))
        # reaches below the exact-collapse scale of the K-Means solution it ends in
        r = anneal(moons, 2, grid, kind=kind)
        g = min_sq_gap(moons, r.centers[-1])
        exact = math.sqrt(g) / 2 if kind == "entmax15" else math.sqrt(g / 73.4)
        assert grid[-1] < exact


def test_fixed_point_at_low_sigma_is_the_kmeans_solution(moons):
    km = KMeans(n_clusters=2, n_init=1, random_state=0, algorithm="lloyd", tol=0.0).fit(moons)
    sigma = 0.5 * math.sqrt(min_sq_gap(moons, km.cluster_centers_)) / 2
    centers, iterations, converged = fixed_point(moons, km.cluster_centers_, sigma, "entmax15")
    assert converged and iterations <= 3
    np.testing.assert_allclose(centers, km.cluster_centers_, atol=1e-12)


def test_naive_map_breaks_and_its_nan_rows_are_counted():
    X = np.random.RandomState(0).normal(size=(400, 2)).astype(np.float32)
    r = anneal(X, 3, np.geomspace(1.5, 0.01, 20), kind="naive")
    assert r.nan_rows[0] == 0 and r.nan_rows[-1] > 0
    stable = anneal(X, 3, np.geomspace(1.5, 0.01, 20), kind="softmax")
    assert stable.nan_rows.sum() == 0 and np.all(np.isfinite(stable.centers))


# --- the first split (theory §7): σ_c² = λ_max (softmax), √m·λ_max (entmax15) -------------------


@pytest.fixture(scope="module")
def anisotropic():
    """Gaussian with covariance diag(4, 1): λ_max ≈ 4, principal axis x₁."""
    rng = np.random.RandomState(0)
    return rng.normal(size=(2000, 2)) * np.array([2.0, 1.0])


@pytest.mark.parametrize("kind, k", [("softmax", 2), ("softmax", 4), ("entmax15", 2), ("entmax15", 3)])
def test_first_split_at_the_predicted_critical_sigma(anisotropic, kind, k):
    predicted = critical_sigma_predicted(anisotropic, kind, m=k)
    lam = np.linalg.eigvalsh(np.cov(anisotropic.T, bias=True))[-1]
    expected = math.sqrt(lam) if kind == "softmax" else (math.sqrt(k) * lam) ** 0.5
    assert predicted == pytest.approx(expected, rel=1e-12)
    sigmas = predicted * np.geomspace(1.12, 0.88, 49)  # 0.5 % steps around the prediction
    r = anneal(anisotropic, k, sigmas, kind=kind, max_iter=2000)
    measured = critical_sigma_measured(r)
    assert measured is not None
    assert abs(measured / predicted - 1) < 0.05
    # no split above 1.03 σ_c (theory: none at 1.03×)
    assert np.all(sigmas[sigmas > 1.03 * predicted] > measured)
    # the split is along the principal axis x₁
    end = r.centers[-1] - anisotropic.mean(axis=0)
    assert np.abs(end[:, 0]).max() > 3 * np.abs(end[:, 1]).max()


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(sigmas=[1.0, 1.0, 0.5]), "strictly decreasing"),
        (dict(sigmas=[0.5, 1.0]), "strictly decreasing"),
        (dict(sigmas=[]), "non-empty"),
        (dict(sigmas=[1.0, -0.5]), "positive"),
        (dict(k=0), "k must be"),
        (dict(k=1000), "k must be"),
        (dict(kind="gauss"), "kind="),
        (dict(init=np.zeros((3, 2))), "init has 3 centres"),
        (dict(init=np.zeros((2, 3))), "feature"),
        (dict(tol=0.0), "tol"),
        (dict(tol=float("nan")), "tol"),
        (dict(max_iter=0), "max_iter"),
        (dict(seed=-1), "seed"),
        (dict(noise=-1.0), "noise"),
        (dict(progress="yes"), "progress"),
    ],
)
def test_bad_arguments_raise_clear_errors(moons, kwargs, message):
    args = dict(X=moons, k=2, sigmas=[1.0, 0.5])
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        anneal(**args)


def test_bad_data_and_sigma_out_of_dtype_range():
    with pytest.raises(ValueError, match="NaN or infinite"):
        anneal(np.array([[0.0, 1.0], [np.nan, 0.0], [1.0, 1.0]]), 2, [1.0, 0.5])
    X32 = np.random.RandomState(0).normal(size=(20, 2)).astype(np.float32)
    with pytest.raises(ValueError, match="out of range for float32"):
        anneal(X32, 2, [1.0, 1e-30])
    with pytest.raises(ValueError, match="num"):
        default_sigmas(X32, 2, num=1)


@pytest.mark.parametrize("sigma", [1.87, 1.8])
def test_a_pair_at_its_critical_sigma_merges_to_plain_ems_limit(sigma):
    """At σ = 1.87 and 1.8 on the Explorer's default data two centres close in on each other at a factor
    ≈ 0.995 per step (their cluster's λ_max(C_{x|y}) just below σ²): plain EM needs thousands of steps and
    refused SQUAREM jumps do not shorten them. The merged fixed point is the same limit, within the cap."""
    from rbfviz.views.explorer.arrays import initial_centers

    X = make_dataset("blobs", n=500, seed=0)[0]
    C0 = initial_centers(X, 4, "kmeans++", seed=0)
    merged, iterations, converged = fixed_point(X, C0, sigma)
    assert converged and iterations < 500
    plain, plain_iterations, plain_converged = fixed_point(X, C0, sigma, max_iter=20_000, accelerate=False)
    assert plain_converged and plain_iterations > 2000
    np.testing.assert_allclose(merged, plain, atol=1e-6 * data_scale(X))
    gaps = np.linalg.norm(merged[:, None] - merged[None], axis=2)[np.triu_indices(4, 1)]
    assert np.sort(gaps)[0] == 0.0 < np.sort(gaps)[1]  # exactly one pair merged


@pytest.mark.parametrize("sigma", [1.75, 1.62, 1.0, 0.5])  # 1.75: one merged run, refused
def test_a_merge_is_never_kept_where_plain_em_keeps_the_pair_apart(sigma):
    """Below the pair's critical σ merging would land on a saddle: the accelerated run, with its merge
    tries, reaches the fixed point plain EM reaches, with no centres merged."""
    from rbfviz.views.explorer.arrays import initial_centers

    X = make_dataset("blobs", n=500, seed=0)[0]
    C0 = initial_centers(X, 4, "kmeans++", seed=0)
    fast, _, converged = fixed_point(X, C0, sigma)
    plain, _, plain_converged = fixed_point(X, C0, sigma, max_iter=20_000, accelerate=False)
    assert converged and plain_converged
    np.testing.assert_allclose(fast, plain, atol=1e-6 * data_scale(X))
    gaps = np.linalg.norm(fast[:, None] - fast[None], axis=2)[np.triu_indices(4, 1)]
    assert gaps.min() > 1e-3 * data_scale(X)


@pytest.mark.parametrize("data", ["blobs", "moons", "spiral"])
def test_softmax_mean_entropy_from_the_log_partition_is_the_entrywise_one(data):
    from rbfviz.annealing import _softmax_mean_entropy
    from rbfviz.maps import resp_columns, sq_distance_columns
    from rbfviz.measures import mean_entropy

    X = make_dataset(data, n=1500, seed=3)[0]
    C = X[np.random.RandomState(0).choice(X.shape[0], 5, replace=False)]
    for sigma in (5.0, 1.0, 0.3, 0.05, 0.01, 1e-3):
        d = sq_distance_columns(X, C)
        resp = resp_columns(d.copy(), sigma, "softmax")
        loss, distortion = float((resp * d).sum()), float(d.min(axis=0).sum())
        fast = _softmax_mean_entropy(resp, loss, distortion, sigma)
        assert fast == pytest.approx(mean_entropy(resp.T), rel=1e-7, abs=1e-11)
