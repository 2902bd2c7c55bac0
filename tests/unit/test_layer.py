"""RBFClusterLayer: the torch module agrees with the numpy API and its gradients are the derived ones.

Gradient references (theory §3), with d_ij = ||x_i - c_j||²:
* detached r:  ∇_{c_l} L_σ = -2 Σ_i r_il (x_i - c_l)
* full autograd, softmax:  ∇_{c_l} L_σ = -2 Σ_i r_il [1 - (d_il - d̄_i)/(2σ²)] (x_i - c_l),
  with d̄_i = Σ_j r_ij d_ij
"""

import numpy as np
import pytest
import torch
from numpy_reference import sq_dist

from rbfviz import KINDS, RBFClusterLayer, responsibilities

DTYPES = {torch.float32: np.float32, torch.float64: np.float64}


def problem(n=60, k=4, d=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(k, d))


def centre_grad(layer, x, sigma, kind, **kw):
    layer.zero_grad()
    layer.loss(x, sigma, kind, **kw).backward()
    return layer.centers.grad.detach().numpy().copy()


# --- forward and loss ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sigma", [0.05, 0.5, 3.0])
def test_forward_equals_responsibilities(kind, dtype, sigma):
    X, C = problem()
    X, C = X.astype(DTYPES[dtype]), C.astype(DTYPES[dtype])
    layer = RBFClusterLayer(4, 2, init=C, dtype=dtype)
    r = layer(torch.from_numpy(X), sigma, kind)
    assert r.dtype == dtype and r.shape == (60, 4)
    np.testing.assert_array_equal(r.detach().numpy(), responsibilities(X, C, sigma, kind))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("detach", [True, False])
def test_loss_is_the_sum_of_r_times_d(kind, detach):
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=detach)
    for sigma in (0.1, 0.7, 4.0):
        loss = layer.loss(torch.from_numpy(X), sigma, kind)
        assert loss.ndim == 0
        expected = (responsibilities(X, C, sigma, kind) * sq_dist(X, C)).sum()
        assert loss.item() == pytest.approx(expected, rel=1e-12)


def test_loss_at_small_sigma_is_the_kmeans_objective():
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64)
    J = sq_dist(X, C).min(axis=1).sum()
    for kind in ("softmax", "entmax15", "hard"):
        assert layer.loss(torch.from_numpy(X), 1e-4, kind).item() == pytest.approx(J, rel=1e-12)


# --- gradients ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "naive", "hard"])
@pytest.mark.parametrize("detach", [True, False])
def test_gradients_reach_inputs_and_centres(kind, detach):
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=detach)
    x = torch.from_numpy(X).requires_grad_(True)
    layer.loss(x, 0.7, kind).backward()
    for grad in (x.grad, layer.centers.grad):
        assert grad is not None and torch.isfinite(grad).all()
        assert (grad.abs().sum(dim=1) > 0).all(), "every point and every centre should feel the loss"


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_gradients_reach_inputs_through_the_responsibilities(kind):
    """forward() alone (no loss) is differentiable in x and c for the soft maps."""
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64)
    x = torch.from_numpy(X).requires_grad_(True)
    r = layer(x, 0.7, kind)
    (r[:, 0] * torch.arange(60, dtype=torch.float64)).sum().backward()
    assert torch.isfinite(x.grad).all() and x.grad.abs().sum() > 0
    assert torch.isfinite(layer.centers.grad).all() and layer.centers.grad.abs().sum() > 0


@pytest.mark.parametrize("kind", ["softmax", "entmax15", "hard"])
@pytest.mark.parametrize("sigma", [0.1, 0.7, 3.0])
def test_detached_gradient_is_minus_two_sum_r_times_x_minus_c(kind, sigma):
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=True)
    grad = centre_grad(layer, torch.from_numpy(X), sigma, kind)
    r = responsibilities(X, C, sigma, kind)
    expected = -2 * (r[:, :, None] * (X[:, None, :] - C[None, :, :])).sum(axis=0)
    np.testing.assert_allclose(grad, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("sigma", [0.3, 0.7, 2.0])
def test_full_autograd_softmax_gradient_has_the_closed_form(sigma):
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=False)
    grad = centre_grad(layer, torch.from_numpy(X), sigma, "softmax")
    r = responsibilities(X, C, sigma, "softmax")
    d = sq_dist(X, C)
    d_bar = (r * d).sum(axis=1, keepdims=True)
    factor = r * (1 - (d - d_bar) / (2 * sigma**2))
    expected = -2 * (factor[:, :, None] * (X[:, None, :] - C[None, :, :])).sum(axis=0)
    np.testing.assert_allclose(grad, expected, rtol=0, atol=1e-10)
    # the extra term is not negligible at this σ: detached and full gradients differ
    detached = centre_grad(layer, torch.from_numpy(X), sigma, "softmax", detach_resp=True)
    assert np.abs(grad - detached).max() > 1e-3


def test_loss_detach_override_beats_the_layer_option():
    X, C = problem()
    x = torch.from_numpy(X)
    full = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=False)
    detached = RBFClusterLayer(4, 2, init=C, dtype=torch.float64, detach_resp=True)
    np.testing.assert_array_equal(
        centre_grad(full, x, 0.7, "softmax", detach_resp=True), centre_grad(detached, x, 0.7, "softmax")
    )
    np.testing.assert_array_equal(
        centre_grad(detached, x, 0.7, "softmax", detach_resp=False), centre_grad(full, x, 0.7, "softmax")
    )


def test_one_step_with_eta_one_over_two_n_lands_on_the_soft_centroid():
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64)
    sigma = 0.7
    grad = centre_grad(layer, torch.from_numpy(X), sigma, "entmax15")
    r = responsibilities(X, C, sigma, "entmax15")
    mass = r.sum(axis=0)
    assert (mass > 1e-3).all()
    np.testing.assert_allclose(C - grad / (2 * mass[:, None]), (r.T @ X) / mass[:, None], rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["softmax", "entmax15"])
def test_gradcheck_float64(kind):
    """Finite differences vs autograd for the responsibilities and the full-autograd loss, in x and c.

    (The detached loss is a surrogate whose gradient is not the derivative of L_σ, so it has no
    finite-difference check; its closed form is tested above.)
    """
    X, C = problem(n=12, k=3, seed=1)
    layer = RBFClusterLayer(3, 2, init=C, dtype=torch.float64, detach_resp=False)
    sigma = 0.8

    class Loss(torch.nn.Module):  # lets functional_call swap the centres for layer.loss as well
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, x):
            return self.layer.loss(x, sigma, kind)

    def resp(x, c):
        return torch.func.functional_call(layer, {"centers": c}, (x, sigma, kind))

    def loss(x, c):
        return torch.func.functional_call(Loss(), {"layer.centers": c}, (x,))

    x = torch.from_numpy(X).requires_grad_(True)
    c = torch.from_numpy(C).requires_grad_(True)
    r = responsibilities(X, C, sigma, kind)
    if kind == "entmax15":  # the support must not change within the finite-difference step
        assert ((r > 0) & (r < 1)).any() and (r == 0).any()
    assert torch.autograd.gradcheck(resp, (x, c), eps=1e-6, atol=1e-7)
    assert torch.autograd.gradcheck(loss, (x, c), eps=1e-6, atol=1e-7)


# --- construction and validation ----------------------------------------------------------------


def test_seeded_init_is_deterministic_and_small():
    a = RBFClusterLayer(5, 3, seed=42)
    b = RBFClusterLayer(5, 3, seed=42)
    c = RBFClusterLayer(5, 3, seed=43)
    assert a.centers.shape == (5, 3) and a.centers.dtype == torch.float32
    assert torch.equal(a.centers, b.centers) and not torch.equal(a.centers, c.centers)
    assert a.centers.abs().max() < 0.1
    assert RBFClusterLayer(2, 2, seed=0, dtype=torch.float64).centers.dtype == torch.float64


def test_init_is_copied_not_aliased():
    C = torch.zeros(2, 2, dtype=torch.float64)
    layer = RBFClusterLayer(2, 2, init=C, dtype=torch.float64)
    C += 1
    assert torch.equal(layer.centers.detach(), torch.zeros(2, 2, dtype=torch.float64))


def test_centers_are_a_parameter_an_optimizer_can_move():
    X, C = problem()
    layer = RBFClusterLayer(4, 2, init=C, dtype=torch.float64)
    assert [name for name, _ in layer.named_parameters()] == ["centers"]
    opt = torch.optim.SGD(layer.parameters(), lr=1e-3)
    before = layer.loss(torch.from_numpy(X), 0.5).item()
    opt.zero_grad()
    layer.loss(torch.from_numpy(X), 0.5).backward()
    opt.step()
    assert layer.loss(torch.from_numpy(X), 0.5).item() < before


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(k=0, d=2), "k must be >= 1"),
        (dict(k=2, d=0), "d must be >= 1"),
        (dict(k=2.5, d=2), "k must be an integer"),
        (dict(k=2, d=2, init=np.zeros((3, 2))), r"init must have shape \(2, 2\)"),
        (dict(k=2, d=2, init=np.array([[0.0, np.nan], [1.0, 1.0]])), "init contains NaN"),
        (dict(k=2, d=2, init=np.array([[0.0, np.inf], [1.0, 1.0]])), "init contains NaN or infinite"),
    ],
)
def test_constructor_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RBFClusterLayer(**kwargs)


@pytest.mark.parametrize("method", ["forward", "loss"])
@pytest.mark.parametrize(
    "args, message",
    [
        ((torch.zeros(5, 3), 1.0, "softmax"), r"x must have shape \(n, 2\)"),
        ((torch.zeros(5), 1.0, "softmax"), r"x must have shape \(n, 2\)"),
        ((torch.zeros(5, 2), 1.0, "sparsemax"), "kind='sparsemax' is not a known map"),
        ((torch.zeros(5, 2), 0.0, "softmax"), "sigma must be a positive finite number"),
        ((torch.zeros(5, 2), -1.0, "softmax"), "sigma must be a positive finite number"),
        ((torch.zeros(5, 2), float("nan"), "softmax"), "sigma must be a positive finite number"),
        ((torch.zeros(5, 2), True, "softmax"), "sigma must be a positive finite number"),
    ],
)
def test_calls_reject_bad_arguments(method, args, message):
    layer = RBFClusterLayer(2, 2, seed=0)
    with pytest.raises(ValueError, match=message):
        getattr(layer, method)(*args)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["forward", "loss"])
def test_sigma_too_small_for_float32_is_rejected_not_nan(kind, method):
    """2σ² = 2e-60 is 0 in float32: the layer must refuse, as responsibilities() does, not return NaN."""
    layer = RBFClusterLayer(2, 2, seed=0)
    x = torch.tensor([[0.2, 0.0], [0.9, 0.1]])
    with pytest.raises(ValueError, match="out of range for float32"):
        getattr(layer, method)(x, 1e-30, kind)
    # the same σ is fine in float64
    layer64 = RBFClusterLayer(2, 2, seed=0, dtype=torch.float64)
    out = getattr(layer64, method)(x.double(), 1e-30, kind)
    if kind == "naive":  # no point sits on a centre, so every exp(z) underflows: NaN, as documented
        assert torch.isnan(out).all()
    else:
        assert torch.isfinite(out).all()
