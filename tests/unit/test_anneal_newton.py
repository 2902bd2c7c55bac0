"""Newton's method on the softmax EM fixed-point equation (``annealing._newton_run``): the closed-form EM
Jacobian against central finite differences of the EM step (float64 and float32), Newton-accelerated fixed
points against plain EM's on several data sets, a stack of centres below its critical σ (a saddle) left
for EM to split, and levels batched with Newton equal to their runs alone, bit for bit."""

import numpy as np
import pytest
from numpy_reference import sq_dist
from scipy.optimize import linear_sum_assignment

from rbfviz import annealing, make_dataset
from rbfviz.annealing import (
    APART,
    NEWTON_MAX_UNKNOWNS,
    _em,
    _em_levels,
    _em_step,
    _em_steps,
    _tolerance,
    anneal,
    data_scale,
    default_sigmas,
)
from rbfviz.measures import _critical_sigma_predicted
from rbfviz.steps import points_with_ones


def finite_difference_jacobian(X, C, sigma, step=1e-6):
    """∂T/∂c (k·d, k·d) of the EM map at C (k, d) by central differences, in float64."""
    points = points_with_ones(X.astype(np.float64))
    C = C.astype(np.float64)
    k, d = C.shape
    J = np.empty((k * d, k * d))
    for column in range(k * d):
        shift = np.zeros(k * d)
        shift[column] = step
        ahead, _ = _em_step(points, C + shift.reshape(k, d), sigma, "softmax")
        behind, _ = _em_step(points, C - shift.reshape(k, d), sigma, "softmax")
        J[:, column] = ((ahead - behind) / (2 * step)).ravel()
    return J


def em_jacobian(X, C, sigma):
    _, _, (J,) = _em_steps(points_with_ones(X), C[None], (sigma,), "softmax", (False,), (True,))
    return J


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-7), ("float32", 1e-4)])
@pytest.mark.parametrize(
    "dataset, k, sigma",
    # the last: most points have one-hot responsibilities, and the moments leave them out
    [("blobs", 4, 1.3), ("moons", 3, 0.4), ("varied", 5, 0.8), ("blobs", 4, 0.12)],
)
def test_jacobian_matches_finite_differences(dataset, k, sigma, dtype, rtol):
    X = make_dataset(dataset, n=2000, seed=1)[0].astype(dtype)
    C = X[np.random.RandomState(0).choice(X.shape[0], k, replace=False)].copy()
    J = em_jacobian(X, C, sigma)
    expected = finite_difference_jacobian(X, C, sigma)
    assert J.dtype == np.float64 and J.shape == (k * X.shape[1],) * 2
    assert np.abs(expected).max() > 0.1  # a Jacobian worth checking: the centres pull on each other
    np.testing.assert_allclose(J, expected, rtol=0, atol=rtol * np.abs(expected).max())


def test_jacobian_at_the_stacked_mean_is_the_theorys():
    """All k centres at the data mean: ∂T_j/∂c_l = (δ_jl - 1/k) Cov/σ² (theory notes §7), whose largest
    eigenvalue λ_max(Cov)/σ² is 1 exactly at the first critical σ."""
    X = make_dataset("blobs", n=3000, seed=2)[0]
    k, sigma = 3, 1.1
    C = np.repeat(X.mean(axis=0)[None], k, axis=0)
    cov = np.cov(X.T, bias=True)
    expected = np.kron(np.eye(k) - 1.0 / k, cov / sigma**2)
    np.testing.assert_allclose(em_jacobian(X, C, sigma), expected, atol=1e-10 * np.abs(expected).max())


def test_jacobian_is_zero_when_every_point_is_one_hot():
    X = make_dataset("blobs", n=1000, seed=3)[0]
    C = X[np.random.RandomState(1).choice(X.shape[0], 3, replace=False)]
    J = em_jacobian(X, C, 1e-3)
    assert J.shape == (6, 6) and np.all(J == 0)
    np.testing.assert_allclose(finite_difference_jacobian(X, C, 1e-3), 0, atol=1e-12)


def test_a_centre_without_mass_has_zero_rows():
    X = make_dataset("blobs", n=1000, seed=3)[0]
    far = X.mean(axis=0) + 1e3 * data_scale(X)
    C = np.vstack([X[:2], far[None]])
    J = em_jacobian(X, C, 0.5)
    assert np.all(J[4:] == 0) and np.abs(J[:4, :4]).max() > 0


def spy_on_newton(monkeypatch):
    """Counts the EM steps that also asked for the Jacobian (Newton requests)."""
    asked = []
    original = annealing._em_steps

    def spy(points, C, sigmas, kind, energy, jacobian=None, **options):
        if jacobian is not None:
            asked.append(sum(jacobian))
        return original(points, C, sigmas, kind, energy, jacobian, **options)

    monkeypatch.setattr(annealing, "_em_steps", spy)
    return asked


def plain_em(points, C, sigma, tol_abs):
    return _em(points, C, sigma, "softmax", tol_abs, 100_000, accelerate=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dataset, k", [("blobs", 5), ("moons", 3), ("varied", 4), ("sheared", 3)])
def test_newton_reaches_plain_ems_fixed_points(dataset, k, dtype, monkeypatch):
    """From a split start near each data set's first critical σ (where EM crawls) and further down, the
    Newton-accelerated run converges to plain EM's fixed point, with Newton actually used."""
    X = make_dataset(dataset, n=1500, seed=5)[0].astype(dtype)
    scale = data_scale(X)
    tol_abs = _tolerance(1e-10, X.dtype, scale)
    points = points_with_ones(X)
    critical = _critical_sigma_predicted(X, "softmax", m=k)
    start = X[np.random.RandomState(1).choice(X.shape[0], k, replace=False)].copy()
    asked = spy_on_newton(monkeypatch)
    for sigma in (0.97 * critical, 0.7 * critical, 0.3 * critical):
        fast, steps, done = _em(
            points, start, sigma, "softmax", tol_abs, 5000, True, APART * scale, False, newton=True
        )
        reference, _, reference_done = plain_em(points, start, sigma, tol_abs)
        assert done and reference_done, (sigma, steps)
        fast64, reference64 = fast.astype(np.float64), reference.astype(np.float64)
        if dtype == "float32":  # which centre takes which place may differ by rounding: match them
            rows, cols = linear_sum_assignment(sq_dist(fast64, reference64))
            fast64, reference64 = fast64[rows], reference64[cols]
        atol = (1e-6 if dtype == "float64" else 2e-3) * scale
        assert np.abs(fast64 - reference64).max() <= atol, sigma
    assert sum(asked) >= 3


def stack_below_its_critical_sigma(jitter: float):
    """Three centres stacked at the mean of 2,000 blobs points, each moved by ``jitter`` × the data scale
    (a seeded normal draw), at 0.9 × the stack's critical σ, where the stack is a saddle: (points with
    ones, the stack (3, 2), σ, the EM tolerance, the data scale)."""
    X = make_dataset("blobs", n=2000, seed=6)[0]
    k, scale = 3, data_scale(X)
    sigma = 0.9 * _critical_sigma_predicted(X, "softmax", m=k)
    tol_abs = _tolerance(1e-10, X.dtype, scale)
    stack = X.mean(axis=0) + jitter * scale * np.random.RandomState(2).normal(size=(k, X.shape[1]))
    return points_with_ones(X), stack, sigma, tol_abs, scale


def test_newton_does_not_pull_a_stack_onto_its_saddle(monkeypatch):
    """k centres stacked at the data mean (plus a 1e-7 × scale jitter) below the first critical σ: the
    stack is a saddle, a fixed point whose EM Jacobian has an eigenvalue λ_max/σ² > 1. Newton would jump
    onto it (one step from there moves nothing); the run must split the stack as plain EM does."""
    points, stack, sigma, tol_abs, scale = stack_below_its_critical_sigma(jitter=1e-7)
    asked = spy_on_newton(monkeypatch)
    fast, _, done = _em(
        points, stack, sigma, "softmax", tol_abs, 5000, True, APART * scale, False, newton=True
    )
    reference, _, _ = plain_em(points, stack, sigma, tol_abs)
    assert done and np.linalg.norm(fast[:, None] - fast[None], axis=2).max() > 0.1 * scale  # split
    rows, cols = linear_sum_assignment(sq_dist(fast, reference))
    assert np.abs(fast[rows] - reference[cols]).max() <= 1e-6 * scale
    assert asked  # Newton was asked (and refused at the saddle)


def test_batched_newton_levels_are_their_runs_alone():
    X = make_dataset("varied", n=900, seed=7)[0]
    scale = data_scale(X)
    tol_abs = _tolerance(1e-10, X.dtype, scale)
    points = points_with_ones(X)
    C0 = X[np.random.RandomState(3).choice(X.shape[0], 4, replace=False)]
    critical = _critical_sigma_predicted(X, "softmax", m=4)
    sigmas = critical * np.array([1.2, 0.98, 0.8, 0.5, 0.2, 0.05])
    options = dict(apart_abs=APART * scale, merge=False, newton=True)
    centers, used, converged = _em_levels(
        points, np.repeat(C0[None], sigmas.size, axis=0), sigmas, "softmax", tol_abs, 3000, True, **options
    )
    for i, sigma in enumerate(sigmas):
        alone, steps, done = _em(points, C0, float(sigma), "softmax", tol_abs, 3000, True, **options)
        assert np.array_equal(centers[i], alone) and (used[i], converged[i]) == (steps, done), i


def test_batched_jacobians_are_each_levels_alone():
    X = make_dataset("blobs", n=700, seed=3)[0]
    points = points_with_ones(X)
    C = X[np.random.RandomState(0).choice(X.shape[0], (4, 3))].copy()
    sigmas = (3.0, 0.9, 0.4, 0.1)
    wanted = (True, False, True, True)
    centers, _, jacobians = _em_steps(points, C, sigmas, "softmax", (True,) * 4, wanted)
    for i, sigma in enumerate(sigmas):
        _, _, (alone,) = _em_steps(points, C[i][None], (sigma,), "softmax", (False,), (True,))
        assert (jacobians[i] is None) if not wanted[i] else np.array_equal(jacobians[i], alone)


def test_newton_only_for_softmax_and_few_unknowns(monkeypatch):
    asked = spy_on_newton(monkeypatch)
    X = make_dataset("blobs", n=400, seed=8)[0]
    anneal(X, 3, default_sigmas(X, 3, "softmax", num=6))
    assert asked  # softmax, k·d = 6
    asked.clear()
    anneal(X, 3, default_sigmas(X, 3, "entmax15", num=6), kind="entmax15")
    anneal(X, 3, default_sigmas(X, 3, "softmax", num=6), accelerate=False)
    wide = np.random.RandomState(4).normal(size=(300, NEWTON_MAX_UNKNOWNS // 2 + 1))
    anneal(wide, 2, default_sigmas(wide, 2, "softmax", num=6))
    assert not asked


@pytest.mark.parametrize("radius", [1.0, 1.003, 1.2, 3.0])
def test_an_escape_step_is_m_steps_of_the_linear_map(radius):
    """``_escape_step`` on a linear map x ↦ Jx + b (its own linearisation): the jump lands where m
    iterations of the map land, m = ⌊log NEWTON_ESCAPE / log radius⌋ (at least 1, at most
    NEWTON_ESCAPE_STEPS), so each eigen-direction grows or shrinks as under m EM steps."""
    rng = np.random.RandomState(4)
    n = 6
    basis = rng.normal(size=(n, n))
    J = basis @ np.diag([radius, 0.9, -0.5, 0.99, 0.3, 0.0]) @ np.linalg.inv(basis)
    b, x = rng.normal(size=n), rng.normal(size=n)
    m = annealing.NEWTON_ESCAPE_STEPS
    if radius > 1:
        m = min(m, max(1, int(np.floor(np.log(annealing.NEWTON_ESCAPE) / np.log(radius)))))
    assert (m == 256) == (radius == 1.0) and (m == 1) == (radius == 3.0)
    y = x.copy()
    for _ in range(m):
        y = J @ y + b
    jump = annealing._escape_step(radius, J, (J @ x + b - x).reshape(2, 3))
    np.testing.assert_allclose(x + jump, y, rtol=1e-9, atol=1e-9 * np.abs(y).max())


def test_an_escape_step_that_is_not_finite_is_refused():
    J = np.diag([1e200, 0.5])  # (the radius passed in sets m; here 256 steps, whose powers overflow)
    assert annealing._escape_step(1.0, J, np.array([[1.0, 1.0]])) is None


def test_newton_leaves_a_stack_along_ems_path_with_escape_steps(monkeypatch):
    """Below the first critical σ, from a stack (a saddle) with a small jitter: the run leaves it in
    jumps of several linearised EM steps (spectral radius > 1), in far fewer steps than with Newton only
    on stable ground, and ends at plain EM's fixed point, centre by centre (the same branch)."""
    points, stack, sigma, tol_abs, scale = stack_below_its_critical_sigma(jitter=1e-4)
    monkeypatch.setattr(annealing, "ESCAPE_MIN_POINTS", 1)  # escape steps on this small run too
    escapes = []
    real_escape = annealing._escape_step
    monkeypatch.setattr(annealing, "_escape_step", lambda *a: escapes.append(1) or real_escape(*a))
    fast, steps, done = _em(
        points, stack, sigma, "softmax", tol_abs, 5000, True, APART * scale, False, newton=True
    )
    monkeypatch.setattr(annealing, "_escape_step", lambda *a: None)  # Newton hands back where J is unstable
    slow, slow_steps, slow_done = _em(
        points, stack, sigma, "softmax", tol_abs, 5000, True, APART * scale, False, newton=True
    )
    reference, _, reference_done = plain_em(points, stack, sigma, tol_abs)
    assert done and slow_done and reference_done and escapes
    assert steps < slow_steps
    assert np.abs(fast - reference).max() <= 1e-6 * scale


def test_the_step_newton_predicts_to_end_the_run_skips_the_jacobian(monkeypatch):
    """Below a critical σ from a start near the fixed point, Newton converges quadratically; the EM step
    that its rate predicts to be the last is asked without the Jacobian, and the run still ends at plain
    EM's fixed point. With the prediction off (NEWTON_SETTLED = 0) every step asks for it."""
    X = make_dataset("blobs", n=3000, seed=8)[0]
    k, scale = 4, data_scale(X)
    tol_abs = _tolerance(1e-10, X.dtype, scale)
    points = points_with_ones(X)
    sigma = 0.1 * scale
    start = X[np.random.RandomState(3).choice(X.shape[0], k, replace=False)].copy()
    near, _, _ = plain_em(points, start, sigma, 1e-3 * scale)  # close to the fixed point, not on it
    reference, _, _ = plain_em(points, start, sigma, tol_abs)
    monkeypatch.setattr(annealing, "ESCAPE_MIN_POINTS", 1)  # the prediction on this small run too
    runs, default = {}, annealing.NEWTON_SETTLED
    for settled in (default, 0.0):
        monkeypatch.setattr(annealing, "NEWTON_SETTLED", settled)
        with monkeypatch.context() as patch:
            asked = spy_on_newton(patch)
            calls = []
            original = annealing._em_steps
            patch.setattr(annealing, "_em_steps", lambda *a, **o: calls.append(1) or original(*a, **o))
            fast, steps, done = _em(
                points, near, sigma, "softmax", tol_abs, 500, True, APART * scale, False, newton=True
            )
        assert done and np.abs(fast - reference).max() <= 1e-6 * scale
        runs[settled] = (len(calls), sum(asked), steps)
    with_prediction, without = runs[default], runs[0.0]
    assert without[0] == without[1]  # every step a Newton request
    assert with_prediction[1] < with_prediction[0]  # a step without the Jacobian


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_small_and_float32_runs_take_no_escape_steps(dtype, monkeypatch):
    """Below ESCAPE_MIN_POINTS points, and in float32 at any size, a Newton run hands back where J is
    unstable, as before escape steps."""
    if dtype == "float32":
        monkeypatch.setattr(annealing, "ESCAPE_MIN_POINTS", 1)
    calls = []
    monkeypatch.setattr(annealing, "_escape_step", lambda *a: calls.append(1))
    X = make_dataset("blobs", n=2000, seed=6)[0].astype(dtype)
    k, scale = 3, data_scale(X)
    sigma = 0.9 * _critical_sigma_predicted(X, "softmax", m=k)
    stack = X.mean(axis=0) + 1e-4 * scale * np.random.RandomState(2).normal(size=(k, X.shape[1]))
    tol_abs = _tolerance(1e-10, X.dtype, scale)
    stack = stack.astype(dtype)
    _em(points_with_ones(X), stack, sigma, "softmax", tol_abs, 5000, True, APART * scale, False, newton=True)
    assert not calls
    assert annealing.ESCAPE_MIN_POINTS > annealing.EM_BLOCK or dtype == "float32"
