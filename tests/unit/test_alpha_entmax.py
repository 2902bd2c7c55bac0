"""α-entmax (kind="entmax", α in [1.05, 2]) against the ``entmax`` package, its closed forms and bounds.

References: the package's ``entmax_bisect``/``sparsemax`` called here on the raw logits (rbfviz calls
them on shifted, clamped, transposed logits), its ``EntmaxBisectFunction`` backward, finite differences,
and the rule "one-hot iff the top two logits differ by at least 1/(α-1)" (theory note §5, generalised).
"""

import math

import numpy as np
import pytest
import torch
from entmax import entmax_bisect, sparsemax
from entmax.root_finding import EntmaxBisectFunction
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy_reference import sq_dist

from rbfviz import RBFClusterLayer, responsibilities
from rbfviz.annealing import anneal, default_sigmas, fixed_point
from rbfviz.datasets import DATASETS, NATURAL_K, make_dataset
from rbfviz.family import collapse_sigma_curve, exact_collapse_answer, family_collapse
from rbfviz.maps import LOGIT_FLOOR, _alpha_entmax_columns_, resp_from_sq_distances
from rbfviz.measures import (
    _gamma_gap_bound,
    critical_sigma_predicted,
    free_energy,
    gamma_gap,
    gamma_gap_bound,
    sigma_exact_predicted,
)
from rbfviz.steps import kmeans
from rbfviz.validate import check_alpha, check_kind, entmax_alpha, entmax_kind

SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
SIGMA_ONE = 1.0 / math.sqrt(2.0)  # T = 2σ² = 1: the map of distances d is the map of logits z = -d
alphas = st.one_of(st.sampled_from([1.05, 1.25, 1.5, 1.75, 2.0]), st.floats(1.05, 2.0))


def package_map(z: torch.Tensor, alpha: float) -> torch.Tensor:
    """The package on raw logits, rows along the last dim."""
    return sparsemax(z, dim=-1) if alpha == 2.0 else entmax_bisect(z, alpha=alpha, dim=-1)


@st.composite
def logit_rows(draw):
    """(n, k) float64 logits: ordinary rows, rows with ties, and rows whose entries lie far apart."""
    k = draw(st.integers(2, 7))
    n = draw(st.integers(1, 6))
    rows = []
    for _ in range(n):
        shape = draw(st.sampled_from(["plain", "ties", "far"]))
        if shape == "plain":
            row = draw(st.lists(st.floats(-30, 30), min_size=k, max_size=k))
        elif shape == "ties":
            value = draw(st.floats(-30, 30))
            row = [value] * draw(st.integers(2, k)) + draw(
                st.lists(st.floats(-30, 30), min_size=0, max_size=k)
            )
            row = row[:k] + [value] * (k - len(row[:k]))
        else:
            row = [draw(st.floats(-1e3, 1e3)) + 1e3 * j * draw(st.sampled_from([1, -1])) for j in range(k)]
        rows.append(row)
    return np.array(rows, dtype=np.float64)


@SETTINGS
@given(logit_rows(), alphas)
def test_map_matches_the_package(z, alpha):
    ref = package_map(torch.from_numpy(z), alpha).numpy()
    d = torch.from_numpy(-z)
    spec = entmax_kind(alpha)
    fast = resp_from_sq_distances(d, SIGMA_ONE, spec).numpy()  # numpy path
    tracked = resp_from_sq_distances(d.clone().requires_grad_(True), SIGMA_ONE, spec).detach().numpy()
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-10)
    np.testing.assert_allclose(tracked, ref, rtol=0, atol=1e-10)
    assert np.all(fast >= 0) and np.allclose(fast.sum(axis=1), 1.0, atol=1e-12)


@SETTINGS
@given(logit_rows(), alphas)
def test_float32_rows_stay_on_the_simplex_and_match_float64(z, alpha):
    d32 = torch.from_numpy(-z.astype(np.float32))
    r32 = resp_from_sq_distances(d32, SIGMA_ONE, entmax_kind(alpha)).numpy()
    assert r32.dtype == np.float32 and np.all(np.isfinite(r32)) and np.all(r32 >= 0)
    ref = package_map(torch.from_numpy(z.astype(np.float32).astype(np.float64)), alpha).numpy()
    np.testing.assert_allclose(r32, ref, atol=2e-3)


def test_public_api_alpha_and_named_cases():
    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(40, 2)), rng.normal(size=(4, 2))
    fast = responsibilities(X, C, 0.6, "entmax15")
    np.testing.assert_allclose(responsibilities(X, C, 0.6, "entmax", alpha=1.5), fast, atol=0)
    via_bisect = entmax_bisect(torch.from_numpy(-sq_dist(X, C) / 0.72), 1.5, -1)
    np.testing.assert_allclose(fast, via_bisect.numpy(), atol=1e-12)
    np.testing.assert_allclose(
        responsibilities(X, C, 0.6, "entmax", alpha=2), responsibilities(X, C, 0.6, "entmax:2.0"), atol=0
    )


@pytest.mark.parametrize("alpha", [1.1, 1.3, 1.75, 2.0])
def test_gradients_are_the_packages(alpha):
    torch.manual_seed(0)
    z = torch.randn(6, 4, dtype=torch.float64) * 2
    w = torch.randn(6, 4, dtype=torch.float64)
    spec = entmax_kind(alpha)

    def ours(logits):
        return resp_from_sq_distances(-logits, SIGMA_ONE, spec)

    assert torch.autograd.gradcheck(ours, (z.clone().requires_grad_(True),), eps=1e-6, atol=1e-6)
    zr = z.clone().requires_grad_(True)
    (ours(zr) * w).sum().backward()
    zp = z.clone().requires_grad_(True)
    (EntmaxBisectFunction.apply(zp, alpha, -1) * w).sum().backward()
    np.testing.assert_allclose(zr.grad.numpy(), zp.grad.numpy(), atol=1e-9)


@SETTINGS
@given(alphas, st.floats(-20, 20), st.floats(1e-6, 0.5), st.booleans(), st.integers(2, 6))
def test_one_hot_iff_gap_at_least_one_over_alpha_minus_one(alpha, top, margin, above, k):
    threshold = 1.0 / (alpha - 1.0)
    gap = threshold * (1 + margin if above else 1 - margin)
    row = np.array([top, top - gap] + [top - gap - 1.0 - j for j in range(k - 2)])
    resp = resp_from_sq_distances(torch.from_numpy(-row[None, :]), SIGMA_ONE, entmax_kind(alpha)).numpy()[0]
    assert (np.count_nonzero(resp) == 1) == above, (alpha, gap, resp)
    assert resp.argmax() == 0


def test_alpha_validation_messages():
    for bad in (1, 1.0, 3, 0.5, float("nan"), float("inf"), "1.5", None, True):
        with pytest.raises(ValueError, match=r"alpha must be a number in \[1.05, 2.0\]"):
            check_alpha(bad)
    with pytest.raises(ValueError, match="needs alpha"):
        check_kind("entmax")
    with pytest.raises(ValueError, match="only"):
        check_kind("softmax", alpha=1.5)
    with pytest.raises(ValueError, match="alpha must be"):
        responsibilities(np.zeros((3, 2)), np.zeros((2, 2)), 1.0, "entmax", alpha=2.5)
    with pytest.raises(ValueError, match="alpha must be"):
        check_kind("entmax:abc")
    assert check_kind("entmax", alpha=1.25) == "entmax:1.25" == entmax_kind(1.25)
    assert entmax_alpha("entmax15") == 1.5 and entmax_alpha("softmax") is None
    with pytest.raises(ValueError, match="not allowed"):
        check_kind("entmax:1.25", ("softmax",))


def test_layer_takes_alpha_and_its_gradient_is_finite_differences():
    torch.manual_seed(0)
    x = torch.randn(12, 2, dtype=torch.float64)
    layer = RBFClusterLayer(3, 2, init=torch.randn(3, 2), dtype=torch.float64)
    r = layer(x, 0.8, "entmax", alpha=1.3)
    np.testing.assert_allclose(
        r.detach().numpy(),
        responsibilities(x.numpy(), layer.centers.detach().numpy(), 0.8, "entmax", alpha=1.3),
        atol=0,
    )

    def loss(c):
        return (resp_from_sq_distances(((x[:, None] - c[None]) ** 2).sum(-1), 0.8, "entmax:1.3") * 1.0).sum(0)

    assert torch.autograd.gradcheck(loss, (layer.centers.detach().clone().requires_grad_(True),), atol=1e-6)
    layer.loss(x, 0.8, "entmax", detach_resp=False, alpha=1.3).backward()
    assert torch.isfinite(layer.centers.grad).all()


# --- σ*(α), measured on every data set ----------------------------------------------------------------


def _data_and_kmeans(dataset):
    X, _ = make_dataset(dataset, n=None if dataset == "iris" else 200, seed=0)
    return X, kmeans(X, k=NATURAL_K[dataset], seed=0)[0]


@pytest.mark.parametrize("dataset", DATASETS)
def test_sigma_star_measured_within_one_grid_step(dataset):
    X, C = _data_and_kmeans(dataset)
    result = family_collapse(X, C)
    assert result.misses() == [], result.misses()
    for dtype in ("float32", "float64"):
        assert np.all(np.isfinite(result.measured[dtype]))
        # zeros only appear, never disappear, as σ falls (the logit gaps only grow)
        assert np.all(np.diff(result.zero_share[dtype], axis=1) >= -1e-12)
    np.testing.assert_allclose(result.predicted[2], sigma_exact_predicted(X, C), rtol=1e-12)
    np.testing.assert_allclose(result.predicted[-1], math.sqrt(result.g_min / 2), rtol=1e-12)


def test_sparsemax_collapses_at_a_larger_sigma_by_root_two():
    X, C = _data_and_kmeans("moons")
    answer = exact_collapse_answer(X, C)
    assert answer["larger"] == 2.0
    assert answer["ratio_predicted"] == pytest.approx(math.sqrt(2), rel=1e-12)
    assert answer["ratio_measured"] == pytest.approx(math.sqrt(2), rel=0.1)
    np.testing.assert_allclose(collapse_sigma_curve(4.0, [1.5, 2.0]), [1.0, math.sqrt(2)])


# --- Γ-gap, free energy and critical σ for the family --------------------------------------------------


@SETTINGS
@given(st.integers(0, 10_000), st.integers(2, 30), st.integers(1, 6), st.floats(-2.5, 1.0), alphas)
def test_gamma_gap_within_the_family_bound(seed, n, k, log_sigma, alpha):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 2)) * rng.uniform(0.1, 5.0)
    C = rng.normal(size=(min(k, n), 2)) * rng.uniform(0.1, 5.0)
    sigma = 10.0**log_sigma
    for dtype in (np.float64, np.float32):
        g = gamma_gap(X.astype(dtype), C, sigma, "entmax", alpha=alpha)
        assert g.within_bound, (alpha, g)
    J = gamma_gap(X, C, sigma, "hard").distortion
    F = free_energy(X, C, sigma, "entmax", alpha=alpha)
    m = C.shape[0]
    slack = 1e-9 * (1 + J)
    assert J - n * 2 * sigma**2 * (1 - m ** (1 - alpha)) / (alpha * (alpha - 1)) - slack <= F <= J + slack


@pytest.mark.parametrize("dataset", DATASETS)
def test_gamma_gap_within_bound_on_every_data_set(dataset):
    X, C = _data_and_kmeans(dataset)
    scale = float(np.sqrt(X.var(axis=0).sum()))
    for alpha in (1.1, 1.25, 1.5, 1.75, 2.0):
        for sigma in scale * np.geomspace(1.0, 0.01, 7):
            for dtype in (np.float64, np.float32):
                g = gamma_gap(X.astype(dtype), C, sigma, "entmax", alpha=alpha)
                assert g.within_bound and g.gap <= g.bound, (dataset, alpha, sigma, dtype, g)


def test_family_bound_reduces_to_softmax_and_entmax15():
    n, k, sigma = 10, 3, 0.5
    softmax = gamma_gap_bound(n, k, sigma, "softmax")
    assert _gamma_gap_bound(n, k, sigma, "entmax:1.0000001") == pytest.approx(softmax, rel=1e-5)
    assert gamma_gap_bound(n, k, sigma, "entmax", alpha=1.5) == gamma_gap_bound(n, k, sigma, "entmax15")
    # sparsemax, two centres: the worst row is u(1-u) at u = 1/2, i.e. T/4 per row
    assert gamma_gap_bound(n, 2, sigma, "entmax", alpha=2) == pytest.approx(n * 0.5 / 4)


def test_critical_sigma_family_matches_the_two_named_cases():
    X, _ = make_dataset("blobs", n=300, seed=0)
    lam = critical_sigma_predicted(X, "softmax") ** 2
    assert critical_sigma_predicted(X, entmax_kind(1.5), m=4) == pytest.approx(
        critical_sigma_predicted(X, "entmax15", m=4), rel=1e-12
    )
    assert critical_sigma_predicted(X, entmax_kind(2.0), m=4) == pytest.approx(math.sqrt(4 * lam), rel=1e-12)


@pytest.mark.parametrize("alpha", [1.25, 2.0])
def test_anneal_with_alpha_ends_at_kmeans(alpha):
    X, _ = make_dataset("blobs", n=120, seed=0)
    spec = entmax_kind(alpha)
    result = anneal(X, 4, default_sigmas(X, 4, spec, num=20), kind=spec, seed=0)
    assert result.kind == spec and np.all(np.isfinite(result.centers))
    last = responsibilities(X, result.centers[-1], float(result.sigmas[-1]), spec)
    assert np.all(np.count_nonzero(last, axis=1) == 1)


@pytest.mark.parametrize("alpha", [1.25, 2.0])
def test_first_split_at_the_predicted_critical_sigma(alpha):
    """m centres near the mean of data with covariance diag(4, 1): EM stays at the mean at
    σ² = 1.05·σ_c² and splits to O(1) at 0.95·σ_c², σ_c² = m^{α-1}·λ_max."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 2)) * np.array([2.0, 1.0])
    mean = X.mean(axis=0)
    spec = entmax_kind(alpha)
    for m in (2, 3):
        sigma_c = critical_sigma_predicted(X, spec, m=m)
        lam = critical_sigma_predicted(X, "softmax") ** 2
        assert sigma_c**2 == pytest.approx(m ** (alpha - 1) * lam, rel=1e-12)
        start = mean + 1e-3 * rng.normal(size=(m, 2))
        above, _, _ = fixed_point(X, start, sigma_c * math.sqrt(1.05), spec, tol=1e-13, max_iter=3000)
        below, _, _ = fixed_point(X, start, sigma_c * math.sqrt(0.95), spec, tol=1e-13, max_iter=3000)
        assert np.abs(above - mean).max() < 1e-9
        assert np.abs(below - mean).max() > 0.3


# --- the Newton kernel (maps._alpha_entmax_columns_) against the package, closed forms and itself ------
# rbfviz solves α-entmax's threshold by Newton steps in numpy; the package's 50-step bisection in torch
# (entmax_bisect), sparsemax (α = 2), entmax15 (α = 1.5) and softmax (α -> 1) are its references.


@st.composite
def logit_columns(draw):
    """(k, n) float64 logits whose column maxima are 0 (as the kernel takes them), k = 1..8: plain
    columns at a drawn scale (1e-9 to 1e4, clamped at LOGIT_FLOOR as the maps do), columns with ties,
    and columns whose top entries sit exactly 1/(α-1) apart, i.e. on the one-hot boundary."""
    k = draw(st.integers(1, 8))
    n = draw(st.integers(1, 5))
    scale = 10.0 ** draw(st.floats(-9, 4))
    z = np.array(draw(st.lists(st.floats(-1, 1), min_size=k * n, max_size=k * n))).reshape(k, n) * scale
    if k > 1 and draw(st.booleans()):
        z[1 : draw(st.integers(2, k)), 0] = z[0, 0]  # ties in the first column, maybe at its top
    z = np.maximum(z - z.max(axis=0), LOGIT_FLOOR)
    return z


def _package_columns(z: np.ndarray, alpha: float, dtype=torch.float64) -> np.ndarray:
    return package_map(torch.from_numpy(z.T.copy()).to(dtype), alpha).T.double().numpy()


@SETTINGS
@given(logit_columns(), alphas)
def test_kernel_matches_the_package_in_both_dtypes(z, alpha):
    ours = _alpha_entmax_columns_(z.copy(), alpha)
    np.testing.assert_allclose(ours, _package_columns(z, alpha), rtol=0, atol=1e-12)
    assert np.all(ours >= 0) and np.allclose(ours.sum(axis=0), 1.0, rtol=0, atol=1e-13)
    z32 = z.astype(np.float32)
    ours32 = _alpha_entmax_columns_(z32.copy(), alpha)
    assert ours32.dtype == np.float32 and np.all(ours32 >= 0)
    # float32 against the package run on the same float32 logits in float64: a few float32 roundings of
    # x - τ, raised to the power 1/(α-1) <= 20
    np.testing.assert_allclose(ours32, _package_columns(z32.astype(np.float64), alpha), rtol=0, atol=2e-5)
    np.testing.assert_allclose(ours32, _package_columns(z32, alpha, torch.float32), rtol=0, atol=2e-5)


@SETTINGS
@given(logit_columns(), alphas)
def test_kernel_zeros_are_exactly_the_entries_outside_the_support(z, alpha):
    """x_l = (α-1) z_l is in the support iff the mass at τ = x_l, Σ_m [x_m - x_l]₊^{1/(α-1)}, is below 1
    (the mass falls as τ rises and is 1 at the threshold): computed here without any threshold."""
    ours = _alpha_entmax_columns_(z.copy(), alpha)
    x = (alpha - 1) * z
    mass_at = (np.maximum(x[None, :, :] - x[:, None, :], 0) ** (1 / (alpha - 1))).sum(axis=1)  # (k, n)
    assert np.all(ours[mass_at >= 1 + 1e-9] == 0)
    assert np.all(ours[mass_at <= 1 - 1e-9] > 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("alpha", [1.05, 1.3, 1.75, 2.0])
def test_kernel_columns_do_not_depend_on_each_other(dtype, alpha):
    """Each column runs its own Newton steps: a column gives the same bits alone, in a block of others,
    or at another position (σ levels side by side must equal one level at a time, byte for byte)."""
    rng = np.random.default_rng(0)
    z = (rng.normal(size=(5, 301)) * np.geomspace(0.1, 100, 301)).astype(dtype)
    z[:, ::3] = np.round(z[:, ::3])  # ties
    z = np.maximum(z - z.max(axis=0), LOGIT_FLOOR)
    together = _alpha_entmax_columns_(z.copy(), alpha)
    shifted = _alpha_entmax_columns_(np.tile(z, 2)[:, 7:].copy(), alpha)
    assert np.array_equal(shifted[:, 301 - 7 : 2 * 301 - 7], together)
    for j in range(0, 301, 10):
        assert np.array_equal(_alpha_entmax_columns_(z[:, j : j + 1].copy(), alpha)[:, 0], together[:, j]), j


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_closed_forms_entmax15_sparsemax_softmax(dtype):
    import entmax

    rng = np.random.default_rng(3)
    z = rng.normal(size=(6, 400)) * np.geomspace(0.05, 50, 400)
    z[:, :40] = np.round(z[:, :40])
    z = np.maximum(z - z.max(axis=0), LOGIT_FLOOR).astype(dtype)
    zt = torch.from_numpy(z.T.astype(np.float64))
    tol = 2e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(_alpha_entmax_columns_(z.copy(), 1.5), entmax.entmax15(zt, dim=-1).T, atol=tol)
    np.testing.assert_allclose(_alpha_entmax_columns_(z.copy(), 2.0), sparsemax(zt, dim=-1).T, atol=tol)
    # α -> 1 is softmax, the difference shrinking in proportion to α - 1 (logits here within [-8, 0]);
    # float32 only near 1.05, where the app allows α: x - τ rounded to float32 is raised to the 1/(α-1)
    zs = np.maximum(z[:, 40:], -8)
    soft = np.exp(zs.astype(np.float64)) / np.exp(zs.astype(np.float64)).sum(axis=0)
    for gap in (1e-3, 1e-5, 1e-7) if dtype == np.float64 else (0.05, 1e-2):
        err = np.abs(_alpha_entmax_columns_(zs.copy(), 1.0 + gap) - soft).max()
        assert err < 50 * gap, (gap, err)


def alpha_entmax_every_column(z: np.ndarray, alpha: float) -> np.ndarray:
    """The kernel as it ran before one-hot columns were left out from the start: every column takes
    Newton's first step (``maps._alpha_entmax_columns_`` otherwise, line for line)."""
    dtype = z.dtype.type
    beta = 1.0 / (alpha - 1.0)
    x = z
    x *= dtype(alpha - 1.0)
    tau = np.full(x.shape[1], -1.0, dtype=x.dtype)
    running = np.arange(x.shape[1])
    x_run, tau_run = x, tau.copy()
    tol = 4 * np.finfo(x.dtype).eps
    for _ in range(64):
        u = np.subtract(x_run, tau_run)
        np.maximum(u, 0, out=u)
        slope_terms = (u > 0).astype(x.dtype) if beta == 1.0 else np.power(u, dtype(beta - 1.0))
        slope = slope_terms.sum(axis=0)
        slope_terms *= u
        mass = slope_terms.sum(axis=0)
        norm = np.power(mass, dtype(1.0 / beta))
        step = (norm - 1) * mass / (norm * slope)
        np.maximum(step, 0, out=step)
        tau_run += step
        tau[running] = tau_run
        going = step > tol
        if not going.any():
            break
        running, x_run, tau_run = running[going], x_run[:, going], tau_run[going]
    np.subtract(x, tau, out=x)
    np.maximum(x, 0, out=x)
    if beta != 1.0:
        np.power(x, dtype(beta), out=x)
    x *= 1 / x.sum(axis=0)
    return x


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("alpha", [1.05, 1.3, 1.5, 1.75, 2.0])
def test_one_hot_columns_left_out_change_no_bit(alpha, dtype):
    """Columns whose top two logits differ by 1/(α-1) or more skip the Newton iteration: every column,
    one-hot or not, keeps the bits of the kernel that iterated them all; logits of every scale and ties."""
    rng = np.random.RandomState(int(alpha * 100))
    for scale in (1e-3, 0.3, 3.0, 30.0, 1e4):
        z = -np.abs(rng.normal(size=(10, 2000)) * scale).astype(dtype)
        z -= z.max(axis=0)
        z[:, :5] = 0  # all tied
        z[3, 5:10] = 0  # two tied at the top
        expected = alpha_entmax_every_column(z.copy(), alpha)
        assert np.array_equal(_alpha_entmax_columns_(z.copy(), alpha), expected), scale
