"""The Gaussian-mixture link: softmax responsibilities at σ are the E-step of an isotropic Gaussian
mixture whose weights are all 1/k and whose components all have the variance σ² per coordinate.

For a spherical Gaussian N(c_j, σ_j² I) in d dimensions and weights π_j, the E-step (the posterior
probability that point x came from component j) is

    p(j | x) = softmax_j( log π_j − ‖x − c_j‖² / (2σ_j²) − d·log σ_j − (d/2)·log 2π ).

With π_j = 1/k and σ_j = σ for every j, every term except −‖x − c_j‖²/(2σ²) is the same for all j and
cancels in the softmax, which leaves ``rbfviz.responsibilities(X, C, σ, "softmax")``. The RBF network
(soft K-Means) is therefore EM on this mixture with the weights and the variance held fixed: only the
means move, to the responsibility-weighted means. scikit-learn's ``GaussianMixture`` with
``covariance_type="spherical"`` learns all three: means μ_j, one variance σ_j² per component and the
weights π_j.

* ``fixed_mixture(centers, sigma)``       the equivalent scikit-learn mixture (means = centres,
                                          variances σ², weights 1/k), usable without fitting.
* ``posterior_difference(X, centers, sigma)`` max |predict_proba − softmax responsibilities|.
* ``fit_mixture(X, k, start, seed)``      scikit-learn's EM fit of a spherical mixture: learned means,
                                          σ_j, π_j and responsibilities (``MixtureFit``).

σ and σ_j are standard deviations in data units; scikit-learn's ``covariances_`` are their squares.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

from .i18n import Invalid
from .maps import _responsibilities
from .validate import check_centers, check_int, check_k, check_points, check_sigma, check_sigma_for_dtype

# EM stops when the mean log-likelihood per point gains less than this; tighter than scikit-learn's
# default 1e-3, so the learned σ_j and π_j are those of the fixed point, not of an early stop.
FIT_TOL = 1e-6
FIT_MAX_ITER = 1000


def fixed_mixture(centers, sigma) -> GaussianMixture:
    """The Gaussian mixture whose E-step is softmax at σ: scikit-learn's
    ``GaussianMixture(covariance_type="spherical")`` with means = centres, every variance σ² and every
    weight 1/k, its fitted attributes set so that ``predict_proba`` and ``score`` work without ``fit``.

    Parameters
    ----------
    centers : array (k, d), finite; the RBF centres c_j (k >= 1).
    sigma : float > 0, the RBF width in data units; the components' variance is σ² per coordinate.

    Returns
    -------
    GaussianMixture with weights_ (k,) = 1/k, means_ (k, d) = centers, covariances_ (k,) = σ²,
    precisions_ (k,) = 1/σ², precisions_cholesky_ (k,) = 1/σ, n_features_in_ = d; all float64.
    """
    centers = check_points(centers, "centers", dtype=np.float64)
    sigma = check_sigma(sigma)
    check_sigma_for_dtype(sigma, np.float64)
    return _fixed_mixture(centers, sigma)


def _fixed_mixture(centers: np.ndarray, sigma: float) -> GaussianMixture:
    k, d = centers.shape
    model = GaussianMixture(n_components=k, covariance_type="spherical")
    model.weights_ = np.full(k, 1.0 / k)
    model.means_ = np.array(centers, dtype=np.float64)
    model.covariances_ = np.full(k, sigma * sigma)
    model.precisions_ = 1.0 / model.covariances_
    model.precisions_cholesky_ = np.full(k, 1.0 / sigma)
    model.n_features_in_ = d
    return model


def posterior_difference(X, centers, sigma) -> float:
    """max_ij |p_ij − r_ij|: the fixed mixture's posterior p = ``fixed_mixture(centers, σ).predict_proba(X)``
    against r = ``responsibilities(X, centers, σ, "softmax")``.

    X (n, d) float32 or float64 (r is computed in X's dtype, so float32 input measures float32
    rounding); centers (k, d) with k <= n; σ > 0 in data units. Returns a float, 0 up to rounding:
    about 1e-16 in float64 for data whose squared norms are not many orders of magnitude above σ²
    (scikit-learn expands ‖x − c‖² = ‖x‖² − 2x·c + ‖c‖², which loses digits when they are).
    """
    X = check_points(X, "X")
    centers = check_centers(centers, X, "centers")
    sigma = check_sigma(sigma)
    check_sigma_for_dtype(sigma, X.dtype)
    proba = _fixed_mixture(centers.astype(np.float64), sigma).predict_proba(X)
    resp = _responsibilities(X, centers, sigma, "softmax")
    return float(np.max(np.abs(proba - resp)))


@dataclass(frozen=True)
class MixtureFit:
    """A spherical Gaussian mixture fitted by scikit-learn's EM.

    means (k, d): the learned means μ_j. sigmas (k,): the learned standard deviations
    σ_j = √covariances_ (data units; each includes scikit-learn's reg_covar = 1e-6 in the variance).
    weights (k,): the learned mixing weights π_j (they sum to 1). resp (n, k): ``predict_proba`` of the
    fitted mixture at the data. converged: whether EM met its tolerance within max_iter; n_iter: its
    iterations. log_likelihood: the mean log-likelihood per point (``score``), in nats.
    start (k, d) or None: the means EM started from.
    """

    means: np.ndarray
    sigmas: np.ndarray
    weights: np.ndarray
    resp: np.ndarray
    converged: bool
    n_iter: int
    log_likelihood: float
    start: np.ndarray | None


def fit_mixture(X, k, start=None, seed=0, max_iter=FIT_MAX_ITER, tol=FIT_TOL) -> MixtureFit:
    """Fit ``GaussianMixture(covariance_type="spherical")`` with k components to the points X by EM.

    Parameters
    ----------
    X : array (n, d), finite; fitted in float64.
    k : int, 1 <= k <= n.
    start : array (k, d) or None. Given: EM's means start there (``means_init``), e.g. the same
        starting centres as the RBF network. The initial weights and variances, and the means when
        start is None, come from scikit-learn's k-means++ seeding (``init_params="k-means++"``) with
        ``random_state=seed``.
    seed : int >= 0, the random state of that seeding.
    max_iter, tol : EM's iteration cap and its tolerance on the gain in mean log-likelihood.

    Returns
    -------
    MixtureFit (float64 arrays). A mixture that does not converge is returned with converged=False
    (no warning). Raises ValueError when a component collapses onto too few points to have a variance.
    """
    X = check_points(X, "X", dtype=np.float64)
    k = check_k(k, X.shape[0])
    seed = check_int(seed, "seed", 0, 2**32 - 1)
    max_iter = check_int(max_iter, "max_iter", 1)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not (tol > 0 and np.isfinite(tol)):
        raise Invalid("tol must be a positive finite number, got {tol}.", tol=repr(tol))
    if start is not None:
        start = check_centers(start, X, "start")
        if start.shape[0] != k:
            raise Invalid("start has {got} centres but k={k}; they must match.", got=start.shape[0], k=k)
    return _fit_mixture(X, k, start, seed, max_iter, float(tol))


def _fit_mixture(
    X: np.ndarray, k: int, start: np.ndarray | None, seed: int, max_iter: int, tol: float
) -> MixtureFit:
    model = GaussianMixture(
        n_components=k,
        covariance_type="spherical",
        init_params="k-means++",
        means_init=start,
        random_state=seed,
        max_iter=max_iter,
        tol=tol,
    )
    with warnings.catch_warnings():
        # not converging is reported in the result (converged=False), not as a warning
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            model.fit(X)
        except ValueError as error:  # scikit-learn: a component's variance collapsed to 0
            raise Invalid(
                "The Gaussian mixture could not be fitted: a component collapsed onto too few points to "
                "have a variance. Try another k or seed."
            ) from error
    return MixtureFit(
        means=np.asarray(model.means_, dtype=np.float64),
        sigmas=np.sqrt(np.asarray(model.covariances_, dtype=np.float64)),
        weights=np.asarray(model.weights_, dtype=np.float64),
        resp=model.predict_proba(X),
        converged=bool(model.converged_),
        n_iter=int(model.n_iter_),
        log_likelihood=float(model.score(X)),
        start=None if start is None else np.array(start, dtype=np.float64),
    )
