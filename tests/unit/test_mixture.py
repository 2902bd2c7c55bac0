"""The Gaussian-mixture link (rbfviz.mixture) against independent references.

* scikit-learn's own ``GaussianMixture.predict_proba`` for the fixed mixture (means = centres, every
  variance σ², every weight 1/k) against ``rbfviz.responsibilities(..., "softmax")``;
* a numpy log-sum-exp of Gaussian log-densities written here, from the textbook formula
  log π_j − ‖x − c_j‖²/(2σ²) − d·log σ − (d/2)·log 2π (direct differences, no expansion);
* the fitted mixture against scikit-learn called directly, and against EM's M-step written here.

Rounding: scikit-learn computes ‖x − c‖² as ‖x‖² − 2x·c + ‖c‖², whose absolute error grows like
ε·(‖x‖² + ‖c‖²), so a logit −‖x − c‖²/(2σ²) is off by up to a few ε·(‖x‖² + ‖c‖²)/σ², and a softmax
row by at most the spread of its logits' errors. ``rounding_bound`` below is 16× that (measured
worst case on adversarial random configurations: 0.33× the bound without the 16). Where that bound is
below 1e-12 (σ at least a tenth of the data's size), the tests assert 1e-12 outright.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_reference import sq_dist
from sklearn.mixture import GaussianMixture

import rbfviz
from rbfviz import mixture
from rbfviz.views.common.layout import validated
from rbfviz.views.gaussian_mixture.figures import mixture_figure

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)


# --- independent references --------------------------------------------------------------------


def gaussian_posterior_np(X, C, sigmas, weights):
    """p(j | x_i) of a spherical Gaussian mixture, from log-densities with a log-sum-exp, in float64."""
    X, C = np.asarray(X, np.float64), np.asarray(C, np.float64)
    d = X.shape[1]
    sq = sq_dist(X, C)
    log_dens = (
        np.log(weights)[None, :]
        - sq / (2.0 * np.asarray(sigmas) ** 2)[None, :]
        - d * np.log(sigmas)[None, :]
        - 0.5 * d * math.log(2 * math.pi)
    )
    top = log_dens.max(axis=1, keepdims=True)
    lse = top + np.log(np.exp(log_dens - top).sum(axis=1, keepdims=True))
    return np.exp(log_dens - lse)


def rounding_bound(X, C, sigma, dtype=np.float64) -> float:
    """16·ε·(1 + max_i ‖x_i‖²/σ² + max_j ‖c_j‖²/σ²): see the module docstring."""
    X, C = np.asarray(X, np.float64), np.asarray(C, np.float64)
    scale = ((X**2).sum(axis=1).max() + (C**2).sum(axis=1).max()) / sigma**2
    return 16.0 * float(np.finfo(dtype).eps) * (1.0 + scale)


@st.composite
def configurations(draw, min_ratio=-1.0, max_ratio=3.0):
    """(X (n, d), C (k, d), σ): points and centres in a box of half-width s = 10^[-3, 3], σ = s·10^u with
    u in [min_ratio, max_ratio]; half the points sit on the bisector of the first two centres, where
    the softmax is most sensitive."""
    seed = draw(st.integers(0, 2**32 - 1))
    n = draw(st.integers(1, 40))
    k = draw(st.integers(1, min(n, 8)))
    d = draw(st.integers(1, 4))
    s = 10.0 ** draw(st.floats(-3, 3))
    sigma = s * 10.0 ** draw(st.floats(min_ratio, max_ratio))
    rng = np.random.default_rng(seed)
    X, C = rng.uniform(-s, s, (n, d)), rng.uniform(-s, s, (k, d))
    if k >= 2 and d >= 2:
        middle, along = (C[0] + C[1]) / 2, np.zeros(d)
        along[:2] = [-(C[1] - C[0])[1], (C[1] - C[0])[0]]
        X[: n // 2] = np.clip(middle + rng.uniform(-1, 1, (n // 2, 1)) * along, -s, s)
    return X, C, sigma


# --- the identity: E-step of the fixed mixture = softmax responsibilities ------------------------


@SETTINGS
@given(configurations())
def test_fixed_mixture_posterior_is_softmax_to_1e12(config):
    X, C, sigma = config
    proba = mixture.fixed_mixture(C, sigma).predict_proba(X)
    resp = rbfviz.responsibilities(X, C, sigma, "softmax")
    assert rounding_bound(X, C, sigma) <= 1e-12  # this domain is where the bound allows 1e-12
    assert np.max(np.abs(proba - resp)) <= 1e-12
    assert mixture.posterior_difference(X, C, sigma) == np.max(np.abs(proba - resp))


@SETTINGS
@given(configurations())
def test_both_equal_the_numpy_gaussian_posterior(config):
    X, C, sigma = config
    k = C.shape[0]
    reference = gaussian_posterior_np(X, C, np.full(k, sigma), np.full(k, 1.0 / k))
    assert np.max(np.abs(rbfviz.responsibilities(X, C, sigma, "softmax") - reference)) <= 1e-12
    assert np.max(np.abs(mixture.fixed_mixture(C, sigma).predict_proba(X) - reference)) <= 1e-12


@SETTINGS
@given(configurations(min_ratio=-3.0, max_ratio=-1.0))
def test_small_sigma_differs_only_by_rounding(config):
    """σ down to 1e-3 of the data's size: the logits reach ~1e6, and the difference is rounding, within
    the bound derived in the module docstring."""
    X, C, sigma = config
    difference = mixture.posterior_difference(X, C, sigma)
    assert difference <= rounding_bound(X, C, sigma)
    reference = gaussian_posterior_np(X, C, np.full(C.shape[0], sigma), np.full(C.shape[0], 1 / C.shape[0]))
    assert np.max(np.abs(rbfviz.responsibilities(X, C, sigma, "softmax") - reference)) <= rounding_bound(
        X, C, sigma
    )


@SETTINGS
@given(configurations(min_ratio=-1.0, max_ratio=2.0))
def test_float32_input_matches_to_float32_rounding(config):
    X, C, sigma = config
    X32, C32 = X.astype(np.float32), C.astype(np.float32)
    resp32 = rbfviz.responsibilities(X32, C32, sigma, "softmax")
    assert resp32.dtype == np.float32
    proba = mixture.fixed_mixture(C32, sigma).predict_proba(X32)
    bound = rounding_bound(X32, C32, sigma, np.float32)
    assert np.max(np.abs(proba - resp32)) <= bound
    assert mixture.posterior_difference(X32, C32, sigma) <= bound
    reference = gaussian_posterior_np(
        X32, C32, np.full(C.shape[0], sigma), np.full(C.shape[0], 1 / C.shape[0])
    )
    assert np.max(np.abs(resp32 - reference)) <= bound


def test_unequal_weights_or_variances_are_not_softmax():
    """The identity needs both: with one weight or one variance changed, the posterior moves (the
    reference sees it too), so the tests above can fail."""
    rng = np.random.default_rng(3)
    X, C, sigma = rng.normal(size=(200, 2)), rng.normal(size=(3, 2)), 0.7
    resp = rbfviz.responsibilities(X, C, sigma, "softmax")
    weighted = mixture.fixed_mixture(C, sigma)
    weighted.weights_ = np.array([0.5, 0.25, 0.25])
    assert np.max(np.abs(weighted.predict_proba(X) - resp)) > 0.05
    np.testing.assert_allclose(
        weighted.predict_proba(X),
        gaussian_posterior_np(X, C, np.full(3, sigma), weighted.weights_),
        atol=1e-12,
    )
    wider = mixture.fixed_mixture(C, sigma)
    wider.covariances_ = np.array([sigma**2, 4 * sigma**2, sigma**2])
    wider.precisions_cholesky_ = 1 / np.sqrt(wider.covariances_)
    assert np.max(np.abs(wider.predict_proba(X) - resp)) > 0.05


def test_fixed_mixture_attributes():
    C = np.array([[0.0, 1.0], [2.0, -1.0], [3.0, 3.0]])
    model = mixture.fixed_mixture(C, 0.5)
    assert model.covariance_type == "spherical" and model.n_components == 3
    np.testing.assert_array_equal(model.means_, C)
    np.testing.assert_allclose(model.weights_, [1 / 3] * 3, rtol=0, atol=0)
    np.testing.assert_allclose(model.covariances_, [0.25] * 3, rtol=0, atol=0)
    np.testing.assert_allclose(model.precisions_cholesky_, [2.0] * 3, rtol=0, atol=0)
    assert model.n_features_in_ == 2
    # its log-likelihood is the textbook mixture density, written here
    X = np.random.default_rng(0).normal(size=(50, 2))
    sq = sq_dist(X, C)
    density = (np.exp(-sq / (2 * 0.25)) / (2 * math.pi * 0.25)).mean(axis=1)
    assert model.score(X) == pytest.approx(np.log(density).mean(), rel=1e-12)


def test_the_rbf_em_step_is_the_fixed_mixtures_mean_update():
    """EM on the fixed mixture with only the means free: the M-step for the means (written here from
    predict_proba) is rbfviz's soft centroid step, the RBF network's update."""
    rng = np.random.default_rng(7)
    X, C, sigma = rng.normal(size=(300, 2)) * 2, rng.normal(size=(4, 2)), 0.8
    p = mixture.fixed_mixture(C, sigma).predict_proba(X)
    means = (p.T @ X) / p.sum(axis=0)[:, None]
    np.testing.assert_allclose(rbfviz.soft_centroid_step(X, C, sigma, "softmax"), means, rtol=0, atol=1e-12)


def test_small_sigma_posterior_is_the_kmeans_assignment():
    """scikit-learn's User Guide: K-Means is EM with a small, all-equal, diagonal covariance. At small σ
    the fixed mixture's posterior is one-hot on each point's nearest centre."""
    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(400, 2)), rng.normal(size=(5, 2))
    sq = sq_dist(X, C)
    gaps = np.sort(sq, axis=1)[:, 1] - sq.min(axis=1)
    sigma = math.sqrt(gaps.min() / 80)  # every off-weight below e^(-40)
    proba = mixture.fixed_mixture(C, sigma).predict_proba(X)
    np.testing.assert_allclose(proba, np.eye(5)[sq.argmin(axis=1)], rtol=0, atol=1e-15)


@pytest.mark.parametrize("name", ["blobs", "moons", "circles", "spiral", "iris"])
def test_app_data_sets_at_every_sigma_of_their_range(name):
    """What the page shows, on each data set of the app, at every σ of its slider, at its K-Means
    centroids: never more than the rounding bound, and 1e-12 wherever that bound allows it."""
    from rbfviz.views.explorer.arrays import sigma_scale

    X, _ = rbfviz.make_dataset(name, 150 if name == "iris" else 500, rbfviz.DEFAULT_NOISE[name], 0)
    C, _ = rbfviz.kmeans(X, k=rbfviz.NATURAL_K[name], seed=0)
    for sigma in sigma_scale(X, C).grid:
        difference = mixture.posterior_difference(X, C, float(sigma))
        bound = rounding_bound(X, C, float(sigma))
        assert difference <= max(bound, 0.0), (sigma, difference, bound)
        if bound <= 1e-12:
            assert difference <= 1e-12


# --- the fitted mixture -------------------------------------------------------------------------


def blobs(seed=0):
    X, _ = rbfviz.make_dataset("blobs", 400, 1.5, seed)
    return X


@pytest.mark.parametrize("with_start", [True, False])
def test_fit_matches_scikit_learn_called_directly(with_start):
    X = blobs()
    start = X[[3, 50, 120, 300]] if with_start else None
    fit = mixture.fit_mixture(X, 4, start=start, seed=5)
    model = GaussianMixture(
        n_components=4,
        covariance_type="spherical",
        init_params="k-means++",
        means_init=start,
        random_state=5,
        tol=1e-6,
        max_iter=1000,
    ).fit(X)
    np.testing.assert_allclose(fit.means, model.means_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.sigmas, np.sqrt(model.covariances_), rtol=1e-12)
    np.testing.assert_allclose(fit.weights, model.weights_, rtol=1e-12)
    np.testing.assert_allclose(fit.resp, model.predict_proba(X), rtol=0, atol=1e-12)
    assert fit.converged == model.converged_ and fit.n_iter == model.n_iter_
    assert fit.log_likelihood == pytest.approx(model.score(X), rel=1e-12)
    assert math.isclose(fit.weights.sum(), 1.0, rel_tol=1e-12)


def test_fit_is_a_fixed_point_of_the_m_step_written_here():
    """At convergence the learned parameters are (to EM's tolerance) the M-step of their own posterior:
    π_j = N_j/n, μ_j = Σ_i r_ij x_i / N_j, σ_j² = Σ_i r_ij ‖x_i − μ_j‖² / (d·N_j) + reg_covar."""
    X = blobs(2)
    fit = mixture.fit_mixture(X, 3, seed=0)
    assert fit.converged
    r, (n, d) = fit.resp, X.shape
    mass = r.sum(axis=0)
    means = (r.T @ X) / mass[:, None]
    variances = (r * sq_dist(X, means)).sum(axis=0) / (d * mass) + 1e-6
    np.testing.assert_allclose(fit.weights, mass / n, rtol=1e-3)
    np.testing.assert_allclose(fit.means, means, atol=1e-3 * X.std())
    np.testing.assert_allclose(fit.sigmas, np.sqrt(variances), rtol=1e-3)


def test_fit_is_seeded_and_float32_is_fitted_in_float64():
    X = blobs(1)
    a = mixture.fit_mixture(X, 3, seed=4)
    b = mixture.fit_mixture(X.astype(np.float32), 3, seed=4)
    assert a.means.dtype == np.float64 and b.sigmas.dtype == np.float64
    np.testing.assert_array_equal(a.means, mixture.fit_mixture(X, 3, seed=4).means)
    np.testing.assert_allclose(a.sigmas, b.sigmas, rtol=1e-4)


# --- bad input ------------------------------------------------------------------------------------

X_OK = np.random.default_rng(0).normal(size=(10, 2))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: mixture.fixed_mixture(X_OK[:3], 0.0), "sigma must be a positive finite number"),
        (lambda: mixture.fixed_mixture(X_OK[:3], -1.0), "sigma must be a positive finite number"),
        (lambda: mixture.fixed_mixture(X_OK[:3], float("nan")), "sigma must be a positive finite number"),
        (lambda: mixture.fixed_mixture([[0.0, np.nan]], 1.0), "centers contains NaN"),
        (lambda: mixture.fixed_mixture(X_OK[:3], 1e-200), "out of range for float64"),
        (lambda: mixture.posterior_difference(X_OK, X_OK[:3], 0), "sigma must be a positive finite number"),
        (lambda: mixture.posterior_difference(X_OK[:2], X_OK[:3], 1.0), "k must be between 1 and the number"),
        (lambda: mixture.posterior_difference(np.full((4, 2), np.nan), X_OK[:2], 1.0), "X contains NaN"),
        (lambda: mixture.fit_mixture(X_OK, 11), "k must be between 1 and the number of points \\(10\\)"),
        (lambda: mixture.fit_mixture(X_OK, 0), "k must be between 1"),
        (lambda: mixture.fit_mixture(np.where(X_OK > 1, np.nan, X_OK), 2), "X contains NaN"),
        (lambda: mixture.fit_mixture(X_OK, 2, start=X_OK[:3]), "start has 3 centres but k=2"),
        (lambda: mixture.fit_mixture(X_OK, 2, start=np.ones((2, 3))), "start has 3 feature"),
        (lambda: mixture.fit_mixture(X_OK, 2, seed=-1), "seed must be"),
        (lambda: mixture.fit_mixture(X_OK, 2, tol=0), "tol must be a positive finite number"),
    ],
)
def test_bad_input_gives_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- the figure -----------------------------------------------------------------------------------


def test_figure_draws_both_models_with_their_circles():
    X = blobs()
    fit = mixture.fit_mixture(X, 4, start=X[[3, 50, 120, 300]], seed=0)
    centers = X[[3, 50, 120, 300]] + 0.1
    resp = rbfviz.responsibilities(X, centers, 0.6, "softmax")
    fig = mixture_figure(X, fit, centers, resp, 0.6, title="t")
    validated(fig)  # every property valid for Plotly
    names = [t.name for t in fig.data]
    assert names[:3] == ["points (colour mixed by r)", "points (colour mixed by r)", names[2]]
    assert names[2].startswith("RBF centres c_j (each σ = 0.6")
    np.testing.assert_allclose(np.column_stack([fig.data[2].x, fig.data[2].y]), centers)
    learned = fig.data[5:]
    assert len(learned) == 4
    for j, trace in enumerate(learned):
        np.testing.assert_allclose([trace.x[0], trace.y[0]], fit.means[j])
        # each learned mean's legend entry labels it with its weight and spread
        assert f"= {fit.weights[j]:.2f}" in trace.name and f"= {fit.sigmas[j]:.2g}" in trace.name
    radii = [(s.x1 - s.x0) / 2 for s in fig.layout.shapes]
    expected = [f * s for s in fit.sigmas for f in (1, 2)] + [f * 0.6 for _ in range(4) for f in (1, 2)]
    np.testing.assert_allclose(radii, expected, rtol=1e-12)
    centres = [((s.x0 + s.x1) / 2, (s.y0 + s.y1) / 2) for s in fig.layout.shapes]
    np.testing.assert_allclose(centres, np.vstack([np.repeat(fit.means, 2, 0), np.repeat(centers, 2, 0)]))
    assert [s.xref for s in fig.layout.shapes] == ["x"] * 8 + ["x2"] * 8
    with pytest.raises(ValueError, match="must be"):
        mixture_figure(X, fit, centers[:3], resp, 0.6)
