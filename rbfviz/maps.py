"""Responsibility maps: from points and centres to soft (or hard) cluster assignments.

The one temperature convention of rbfviz, stated once:

    d_ij = ||x_i - c_j||²,   z_ij = -d_ij / (2σ²),   T = 2σ²   (σ is the Gaussian RBF width).

Four maps turn a row of logits into a row of responsibilities r_i (each row on the simplex):

* ``"softmax"``  r_ij = exp(z_ij - max_l z_il) / Σ_l exp(z_il - max_l z_il)   (stable, never NaN)
* ``"entmax15"`` r_ij = [z_ij/2 - τ_i]₊², τ_i chosen so the row sums to 1   (exactly sparse)
* ``"entmax"`` with α in [1.05, 2], carried as the spec "entmax:<α>" (``rbfviz.validate.entmax_kind``):
                 r_ij = [(α-1) z_ij - τ_i]₊^{1/(α-1)}. α = 1.5 runs the entmax15 kernel below, any other
                 α a Newton solve for τ (α = 2: sparsemax); both agree with the ``entmax`` package.
* ``"naive"``    r_ij = φ_ij / Σ_l φ_il with φ = exp(z): the literal form. Once every φ_il of a
                 row underflows to 0 the row is 0/0 = NaN. This is the failure the paper warns
                 about, so it is reproduced, never hidden: callers count NaN rows.
* ``"hard"``     one-hot argmin_j d_ij, ties to the lowest index (K-Means' assignment).

Each map has one implementation. The torch functions (``sq_distances``, ``resp_from_sq_distances``,
``resp_torch``) are what the layer, the gradient step and autograd use; without autograd they hand
the work to their numpy side (``sq_distance_columns``, ``resp_columns``: (k, n) arrays, the same
bits), which the anneal's EM loop calls directly. ``responsibilities`` is the numpy boundary used by
the app and the tests. Work happens in the caller's dtype (float32 or float64), because the point of
the "naive" map is to show where that dtype breaks.
"""

from __future__ import annotations

import numpy as np
import torch

from .validate import (
    check_map_arguments,
    entmax_alpha,
)

# Shifted logits below this are clamped. Both stable maps give such entries exactly zero weight
# (entmax15 drops anything more than 2 below the row maximum; exp(-1e4) underflows in every
# dtype), so the clamp changes no result. It keeps inf out of entmax's sort-and-cumsum, which
# would otherwise turn ±inf into NaN.
LOGIT_FLOOR = -1.0e4

# Below this mass a centre owns no points: it keeps its position instead of dividing 0 by 0.
MIN_MASS = 1e-12

# Above this many features, distances use the Gram expansion instead of per-feature differences.
_DIRECT_DISTANCE_MAX_FEATURES = 16


# Without autograd, the maps run as numpy code on the tensors' own memory (no copies). On this CPU
# numpy's SIMD exp is about twice as fast as torch's, and a numpy call on a small array costs a
# fraction of torch's dispatch, which is most of a step at n = 1,000 (bench/bench_core.py). With
# autograd, each stable map is a torch.autograd.Function whose forward runs the same numpy kernel
# and whose backward is written in torch; the operations before the kernel are the same IEEE
# operations in both libraries, so the two paths give the same bits.
_KERNEL_DTYPES = (torch.float32, torch.float64)


def _numpy_path(*tensors: torch.Tensor) -> bool:
    """True when no gradient is needed through ``tensors`` and numpy holds their dtype (not
    bfloat16/float16)."""
    tracked = torch.is_grad_enabled() and any(t.requires_grad for t in tensors)
    return not tracked and all(t.dtype in _KERNEL_DTYPES for t in tensors)


def _run_kernel(kernel, z: torch.Tensor) -> torch.Tensor:
    """``kernel`` run in place on z, a fresh tensor without autograd; float16/bfloat16 (bfloat16 has no
    numpy type) are computed in float32 and rounded back."""
    if z.dtype in _KERNEL_DTYPES:
        return torch.from_numpy(kernel(z.numpy()))
    return torch.from_numpy(kernel(z.float().numpy())).to(z.dtype)


# numpy vectorises float64 exp only on processors with AVX-512; torch's is vectorised on every x86-64
# processor (2-4× numpy's without AVX-512), and its values do not depend on AVX-512, where numpy's without
# it (glibc's scalar exp) differs in the last bit of a few percent of values: torch's makes the maps'
# numbers the same with and without AVX-512 (tests/unit/test_exp_on_every_processor.py).
# Its exp takes a slow path for arguments below about -708, whose results are tiny or subnormal, and 0
# below _EXP_UNDERFLOW: those entries are computed apart, or set to 0.
_FAST_EXP_FLOOR = -700.0
_EXP_UNDERFLOW = -745.2  # float64 exp is exactly 0.0 below this (it underflows past -745.1332)


def _exp_logits_(z: np.ndarray) -> np.ndarray:
    """exp of logits z <= 0 (any shape, float32 or float64), in place. float64: torch's exp, the logits
    below _FAST_EXP_FLOOR apart (exactly 0 where it underflows); float32: numpy's (the same on every
    processor, and torch's float32 exp is not)."""
    if z.dtype != np.float64:
        return np.exp(z, out=z)
    t = torch.from_numpy(z)
    # the smallest logit says whether any is far, in one pass without a mask (NaN: look at every entry)
    lowest = float(z.min()) if z.size else 0.0
    if lowest >= _FAST_EXP_FLOOR:
        t.exp_()
        return z
    far = t < _FAST_EXP_FLOOR
    if not bool(far.any()):  # only where a NaN hid the minimum
        t.exp_()
        return z
    tiny = (far & (t >= _EXP_UNDERFLOW)).numpy()  # results between 0 and 1e-304: rare
    tiny_values = torch.from_numpy(z[tiny]).exp().numpy()
    t.clamp_min_(_FAST_EXP_FLOOR).exp_()
    t.masked_fill_(far, 0.0)
    z[tiny] = tiny_values
    return z


def _softmax_weights_(z: np.ndarray, far_at_floor: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The softmax of (k, n) logits whose column maxima are 0, before its last pass: (w, inv) with the
    weights w = exp(z) (k, n) in place of z and inv (n,) the reciprocal of each column's sum, so w · inv
    is the softmax. Every column keeps an exp(0) = 1, so its sum lies in [1, k]: no overflow, no 0/0, and
    no max pass.

    far_at_floor (float64): a logit below _FAST_EXP_FLOOR takes the floor's weight exp(-700) ≈ 1e-304
    instead of its own (below it, or 0), in one pass of torch's exp instead of ``_exp_logits_``'s masks
    (0.2 ms instead of 1.1 ms for a 200² field at k = 6 whose σ is small). A column's sum holds a weight 1, so
    such a weight is below half a unit in the last place of every partial sum from that 1 on, and of
    any partial sum above 1e-288 before it: the sum is the same bits, except where weights of 1e-288 or
    less come before that 1 and the other weights' rounding ties, one unit in its last place at most."""
    if far_at_floor and z.dtype == np.float64:
        np.maximum(z, _FAST_EXP_FLOOR, out=z)  # NaN stays NaN
        torch.from_numpy(z).exp_()
    else:
        _exp_logits_(z)
    return z, 1.0 / z.sum(axis=0)  # one reciprocal per column; a (k, n) division costs twice a product


def _softmax_columns_(z: np.ndarray) -> np.ndarray:
    """Softmax down axis 0 of (k, n) logits whose column maxima are 0, in place."""
    weights, inv = _softmax_weights_(z)
    weights *= inv
    return weights


class _SoftmaxColumns(torch.autograd.Function):
    """Softmax down dim 0 of a (k, n) tensor of logits whose column maxima are 0 (the shifted logits of
    ``resp_from_sq_distances``). Backward: dz = p ⊙ (dp - ⟨p, dp⟩), as torch.softmax's."""

    @staticmethod
    def forward(ctx, z: torch.Tensor) -> torch.Tensor:
        p = _run_kernel(_softmax_columns_, z.detach().clone())
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, dp: torch.Tensor) -> torch.Tensor:
        (p,) = ctx.saved_tensors
        return p * (dp - (p * dp).sum(dim=0, keepdim=True))


# Up to this many centres, 1.5-entmax sorts each column with a sorting network (k rounds of
# elementwise max/min over whole rows); np.sort down a short axis is several times slower. Above it, np.sort.
_SORT_NETWORK_MAX_K = 32


def _sort_columns_descending(a: np.ndarray) -> np.ndarray:
    """Each column of a (k, n) array sorted in descending order, in a new array (odd-even
    transposition sort: k rounds of compare-exchange between neighbouring rows, in place)."""
    k = a.shape[0]
    if k > _SORT_NETWORK_MAX_K:
        return np.sort(a, axis=0)[::-1]
    srt = a.copy()
    lower = np.empty_like(a[: k // 2])
    for round_ in range(k):
        first = round_ % 2
        pairs = (k - first) // 2
        top = srt[first : first + 2 * pairs : 2]
        bottom = srt[first + 1 : first + 2 * pairs : 2]
        np.minimum(top, bottom, out=lower[:pairs])
        np.maximum(top, bottom, out=top)
        bottom[...] = lower[:pairs]
    return srt


def _cumsum_rows_(a: np.ndarray) -> np.ndarray:
    """Running sums down axis 0, in place (k - 1 row additions: np.cumsum down a short axis is ~5× slower)."""
    for row in range(1, a.shape[0]):
        np.add(a[row - 1], a[row], out=a[row])
    return a


def _entmax15_columns_(h: np.ndarray) -> np.ndarray:
    """1.5-entmax down axis 0 of (k, n) half-logits h = z/2 whose column maxima are 0, in place:
    p = [h - τ]₊² with τ chosen per column so that the column sums to 1.

    The exact sort-based threshold of Peters, Niculae & Martins (2019), as in the ``entmax`` package:
    with the column sorted, h_(1) >= h_(2) >= ..., the mass f(τ) = Σ_l [h_(l) - τ]₊² falls as τ rises,
    so h_(ρ) is in the support iff f(h_(ρ)) = Σ_{l<=ρ} (h_(l) - h_(ρ))² <= 1. With the running sums
    S1_ρ = Σ_{l<=ρ} h_(l) and S2_ρ = Σ_{l<=ρ} h_(l)², that test is ρ h_(ρ)² - 2 h_(ρ) S1_ρ + S2_ρ <= 1:
    a handful of passes over (k, n), no square root. On the support of size ρ*, f(τ) = 1 is the quadratic
    ρ* τ² - 2 S1 τ + S2 - 1 = 0, whose smaller root is τ* = M - √(M² - (S2 - 1)/ρ*), M = S1/ρ* (the
    package's τ = M - √δ). Agrees with the package to rounding.
    """
    k, n = h.shape
    rho = np.arange(1, k + 1, dtype=h.dtype)[:, None]
    srt = _sort_columns_descending(h)
    s1 = _cumsum_rows_(srt.copy())
    s2 = _cumsum_rows_(np.square(srt))
    mass_at = srt * rho  # becomes f(h_(ρ)) = h_(ρ) (ρ h_(ρ) - 2 S1_ρ) + S2_ρ, in place
    mass_at -= s1
    mass_at -= s1
    mass_at *= srt
    mass_at += s2
    # support size ρ* >= 1, as f(h_(1)) = 0; counted as bytes (np.count_nonzero down axis 0 is ~10x slower)
    support = (mass_at <= 1).view(np.int8).sum(axis=0, dtype=np.int32)
    at = np.multiply(support, n, dtype=np.intp)
    at += np.arange(-n, 0)  # flat index of (ρ*, column) in C order: (ρ* - 1) n + column
    size = support.astype(h.dtype)
    mean = s1.take(at) / size
    tau = mean - np.sqrt(np.maximum(mean * mean - (s2.take(at) - 1) / size, 0))
    np.subtract(h, tau, out=h)
    np.maximum(h, 0, out=h)
    return np.square(h, out=h)


class _Entmax15Columns(torch.autograd.Function):
    """1.5-entmax down dim 0 of a (k, n) tensor of logits: p = [z/2 - τ]₊², each column summing to 1.

    Forward: ``_entmax15_columns_`` on (z - max z)/2. Backward with s = √p:
    dz = s⊙dp - s⟨s, dp⟩/Σs (as the ``entmax`` package).
    """

    @staticmethod
    def forward(ctx, z: torch.Tensor) -> torch.Tensor:
        z = z.detach()
        p = _run_kernel(_entmax15_columns_, (z - z.amax(dim=0, keepdim=True)).mul_(0.5))
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, dp: torch.Tensor) -> torch.Tensor:
        (p,) = ctx.saved_tensors
        s = p.sqrt()
        dz = dp * s
        q = dz.sum(dim=0, keepdim=True) / s.sum(dim=0, keepdim=True)
        return dz - q * s


# Newton steps of the α-entmax threshold stop once a step is below this many machine epsilons (τ lies in
# [-1, 0), so this is a few units in the last place). From τ = -1 the iteration reaches its last bit in at
# most 7 steps on random rows of up to 12 centres at logit scales 1e-6 to 1e4, ties included (float32 and
# float64); the bound only guards against a hang.
_ENTMAX_STEP_EPS = 4
_ENTMAX_MAX_NEWTON = 64


def _alpha_entmax_columns_(z: np.ndarray, alpha: float) -> np.ndarray:
    """α-entmax down axis 0 of (k, n) logits whose column maxima are 0, in place, for α in (1, 2]:
    p = [x - τ]₊^β with x = (α-1) z, β = 1/(α-1), and τ per column such that the column sums to 1.

    The mass f(τ) = Σ_l [x_l - τ]₊^β falls as τ rises, so τ is the root of h(τ) = ‖[x - τ]₊‖_β - 1, a norm
    of an affine function of τ minus one: convex, decreasing, and nearly linear. Newton's method on h
    started left of the root, at τ = max x - 1 = -1 (where f >= 1), climbs monotonically to it (on a
    convex decreasing function every tangent's zero lies between the point and the root):

        τ ← τ + (N - 1) Σu^β / (N Σu^(β-1)),   u = [x - τ]₊,  N = (Σu^β)^(1/β).

    For α = 2 (sparsemax, β = 1) this is Michelot's exact projection onto the simplex. A column is done
    when its step falls below a few units in the last place; a one-hot column (top two x differ by >= 1)
    is exact at once. Every column runs its own iteration (the columns still running are gathered each
    step), so a column's result does not depend on the others: the same bits whether the map runs one σ
    level or many side by side. The result is normalised like the ``entmax`` package's ``entmax_bisect``,
    which solves the same equation by 50 bisection steps and which this agrees with to rounding.
    Weights whose x_l <= τ are exactly 0.
    """
    dtype = z.dtype.type
    beta = 1.0 / (alpha - 1.0)
    x = z
    x *= dtype(alpha - 1.0)
    tau = np.full(x.shape[1], -1.0, dtype=x.dtype)
    # A column whose only x above τ = -1 is its largest (0) is one-hot, exact at τ = -1 (Newton's first
    # step from there is 0): it is left out from the start, which spares its powers, the bulk of the work
    # (in C order, as x: numpy's sums down axis 0 round by the layout, and a column's bits must not change)
    running = np.flatnonzero((x > -1).sum(axis=0) > 1)
    x_run, tau_run = np.ascontiguousarray(x[:, running]), tau[running]
    tol = _ENTMAX_STEP_EPS * np.finfo(x.dtype).eps
    for _ in range(_ENTMAX_MAX_NEWTON):
        u = np.subtract(x_run, tau_run)
        np.maximum(u, 0, out=u)
        # u^(β-1), the derivative's terms; at β = 1 the support's indicator (0^0 would count every centre)
        slope_terms = (u > 0).astype(x.dtype) if beta == 1.0 else np.power(u, dtype(beta - 1.0))
        slope = slope_terms.sum(axis=0)
        slope_terms *= u
        mass = slope_terms.sum(axis=0)  # Σu^β >= ([-τ]₊)^β > 0: the largest x is 0 and τ < 0
        norm = np.power(mass, dtype(1.0 / beta))
        step = (norm - 1) * mass / (norm * slope)
        np.maximum(step, 0, out=step)  # rounding near the root must not step back
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


class _AlphaEntmaxColumns(torch.autograd.Function):
    """α-entmax (α ≠ 1.5) down dim 0 of a (k, n) tensor of logits whose column maxima are 0: p = [(α-1) z
    - τ]₊^{1/(α-1)}, each column summing to 1. Forward: ``_alpha_entmax_columns_``. Backward with
    g = p^(2-α) on the support (0 off it): dz = g⊙dp - g⟨g, dp⟩/Σg (as the ``entmax`` package's
    ``EntmaxBisectFunction``; at α = 2, g is the support's indicator, sparsemax's backward)."""

    @staticmethod
    def forward(ctx, z: torch.Tensor, alpha: float) -> torch.Tensor:
        p = _run_kernel(lambda a: _alpha_entmax_columns_(a, alpha), z.detach().clone())
        ctx.save_for_backward(p)
        ctx.alpha = alpha
        return p

    @staticmethod
    def backward(ctx, dp: torch.Tensor):
        (p,) = ctx.saved_tensors
        g = torch.where(p > 0, p ** (2.0 - ctx.alpha), 0.0)
        dz = dp * g
        return dz - g * (dz.sum(dim=0, keepdim=True) / g.sum(dim=0, keepdim=True)), None


def temperature(sigma: float) -> float:
    """T = 2σ², the temperature that divides squared distances. The only place it is formed."""
    return 2.0 * float(sigma) ** 2


def _gram_sq_distances(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """(n, k) squared distances by the Gram expansion ||x||² - 2x·c + ||c||², clamped at 0 (many features)."""
    gram = c.square().sum(1, keepdim=True) - 2.0 * (c @ x.T) + x.square().sum(1)
    return gram.clamp_min(0.0).T


def sq_distance_columns(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Squared distances as a (k, n) array, without autograd: the numpy side of ``sq_distances`` (same bits).

    X (n, d), C (k, d), float32 or float64. Few features: summed feature by feature in place on one
    buffer (the same operations as the torch branch); fastest when each feature's values are
    contiguous (as in ``steps.points_with_ones``; about a third faster than a row-major X). Many
    features: the torch Gram expansion.
    """
    if X.shape[1] > _DIRECT_DISTANCE_MAX_FEATURES:
        return _gram_sq_distances(torch.from_numpy(X), torch.from_numpy(C)).T.numpy()
    d = np.subtract(C[:, :1], X[:, 0])
    np.square(d, out=d)
    diff = np.empty_like(d)
    for f in range(1, X.shape[1]):
        np.subtract(C[:, f : f + 1], X[:, f], out=diff)
        d += np.square(diff, out=diff)
    return d


def sq_distances(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Squared Euclidean distances d_ij = ||x_i - c_j||².

    x: (n, d), c: (k, d), same dtype. Returns (n, k). Never allocates an (n, k, d) temporary.
    For few features the differences are summed feature by feature, which is exact to rounding
    even when points sit far from the origin (low σ magnifies any error in d by 1/(2σ²)); for
    many features the Gram expansion ||x||² - 2x·c + ||c||² is used and clamped at 0.

    The result is the transpose of a contiguous (k, n) tensor: the maps below reduce over the k
    centres, and with points along the fast axis each reduction is k long vectorised passes
    instead of n short rows (several times faster).
    """
    if _numpy_path(x, c):
        return torch.from_numpy(sq_distance_columns(x.numpy(), c.numpy())).T
    if x.shape[1] > _DIRECT_DISTANCE_MAX_FEATURES:
        return _gram_sq_distances(x, c)
    d = (c[:, :1] - x[:, 0]).square()
    for f in range(1, x.shape[1]):
        d = d + (c[:, f : f + 1] - x[:, f]).square()
    return d.T


def weighted_sq_distances_grad(x: torch.Tensor, c: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """∇_c Σ_ij w_ij ||x_i - c_j||² with the weights w held constant: (k, d), in c's dtype.

    x: (n, d), c: (k, d), w: (n, k), one dtype. The bits ``torch.autograd.grad`` gives through
    ``sq_distances``. With few features, autograd's own operations written out: feature f's term
    (c_jf - x_if)² passes back w_ij · 2(c_jf - x_if), summed over the points i (a product by 2 is exact,
    so the order of the two products cannot change a bit); without autograd's bookkeeping, about 0.1 ms a
    call, several times this arithmetic on a few thousand entries. With many features (the Gram
    expansion), autograd itself.
    """
    if x.shape[1] > _DIRECT_DISTANCE_MAX_FEATURES:
        c = c.detach().requires_grad_(True)
        with torch.enable_grad():
            (grad,) = torch.autograd.grad((w * _gram_sq_distances(x, c)).sum(), c)
        return grad
    w_by_centre = w.T  # (k, n), as autograd hands it back through sq_distances' transpose
    return torch.stack(
        [(w_by_centre * (2.0 * (c[:, f : f + 1] - x[:, f]))).sum(dim=1) for f in range(x.shape[1])], dim=1
    )


def logits(x: torch.Tensor, c: torch.Tensor, sigma: float) -> torch.Tensor:
    """z_ij = -||x_i - c_j||² / (2σ²), shape (n, k)."""
    return sq_distances(x, c) / -temperature(sigma)


def _naive_or_hard(dt: torch.Tensor, T: float, kind: str) -> torch.Tensor:
    """ "naive" or "hard" responsibilities (k, n) from (k, n) distances dt, in torch (naive is
    differentiable)."""
    if kind == "naive":
        phi = torch.exp(dt / -T)
        return phi / phi.sum(dim=0, keepdim=True)
    nearest = dt.argmin(dim=0)  # first minimum, so ties go to the lowest index
    # Built as (k, n) like the other maps, so products with it round exactly as theirs do.
    centres = torch.arange(dt.shape[0], device=dt.device).unsqueeze(1)
    return (centres == nearest).to(dt.dtype)


def resp_columns(D: np.ndarray, sigma: float, kind: str, overwrite: bool = False) -> np.ndarray:
    """Responsibilities as a (k, n) array from (k, n) squared distances D, without autograd: the numpy
    side of ``resp_from_sq_distances``, same bits. float32 or float64.

    overwrite: the stable maps may use D itself as their work buffer, when the caller no longer needs
    the distances (one (k, n) array less, and in-place passes stay in cache).
    """
    T = temperature(sigma)
    if kind in ("naive", "hard"):
        return _naive_or_hard(torch.from_numpy(D), T, kind).numpy()
    # The stable maps are shift-invariant: z - max_l z_l = -(d - d_min)/T, formed without cancelling
    # large numbers, and every column's largest logit is exactly 0.
    shifted = np.subtract(D, D.min(axis=0), out=D if overwrite else None)
    return _stable_columns_(shifted, T, kind)


def softmax_weight_columns(
    D: np.ndarray, sigma: float, overwrite: bool = False, far_at_floor: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``resp_columns(D, sigma, "softmax", overwrite)`` before its last pass: (w, inv), the weights
    w = exp(z - max_l z_l) (k, n) and inv (n,) = 1 / Σ_l w_l, in D's dtype. r = w · inv is that map, bit for
    bit, so a column's largest r is inv itself, at the first centre whose weight is exactly 1 (any smaller
    weight gives a smaller product: w < 1 rounds w · inv below inv). A NaN distance in a column, or a column
    of infinite ones, makes its inv NaN. far_at_floor: as in ``_softmax_weights_`` (the weights of logits
    below -700 are not the map's; inv is, bar a rounding tie)."""
    shifted = np.subtract(D, D.min(axis=0), out=D if overwrite else None)
    with np.errstate(over="ignore"):
        shifted *= -1.0 / temperature(sigma)  # as ``_stable_columns_`` does for "softmax"
    return _softmax_weights_(shifted, far_at_floor)


def _stable_columns_(shifted: np.ndarray, T, kind: str) -> np.ndarray:
    """A stable map down axis 0 of (k, n) shifted distances d - d_min (>= 0), in place: the logits are
    shifted·(-1/T). T: a float, or a (1, n) array giving each column its own temperature (several σ
    levels side by side). Multiplying by -1/T instead of dividing by -T: a division pass costs twice."""
    alpha = entmax_alpha(kind)
    with np.errstate(over="ignore"):  # a logit of -inf is right: its weight is exactly 0 (as in torch)
        if kind == "softmax":  # exp underflows to exactly 0 below the floor anyway: no clamp needed
            shifted *= -1.0 / T
            return _softmax_columns_(shifted)
        if alpha != 1.5:
            shifted *= -1.0 / T
            np.maximum(shifted, LOGIT_FLOOR, out=shifted)
            return _alpha_entmax_columns_(shifted, alpha)
        # entmax15 works on half-logits z/2: its 1/2 goes into the same factor (a power of two, so the
        # same bits as halving z afterwards, as the autograd path does).
        shifted *= -0.5 / T
    np.maximum(shifted, 0.5 * LOGIT_FLOOR, out=shifted)
    return _entmax15_columns_(shifted)


def resp_from_sq_distances(d: torch.Tensor, sigma: float, kind: str) -> torch.Tensor:
    """Responsibilities (n, k) from squared distances d (n, k) at width σ; kind a checked map name
    (α-entmax as its spec "entmax:<α>").

    Differentiable for "softmax", "entmax15", α-entmax and "naive"; "hard" is piecewise constant (no
    gradient). For the stable maps the logits are shifted by the row's smallest distance before
    dividing by T, z_ij - max_l z_il = -(d_ij - min_l d_il)/T, so no large numbers cancel.
    The work is done on the (k, n) transpose (free when d comes from ``sq_distances``) and the
    result is returned as its (n, k) view.
    """
    return _resp(d, sigma, kind, overwrite=False)


def _resp(d: torch.Tensor, sigma: float, kind: str, overwrite: bool) -> torch.Tensor:
    """``resp_from_sq_distances``; ``overwrite`` as in ``resp_columns`` (for callers that own d)."""
    T = temperature(sigma)
    dt = d.T if d.T.is_contiguous() else d.T.contiguous()
    if kind in ("naive", "hard"):
        return _naive_or_hard(dt, T, kind).T
    if _numpy_path(dt):
        return torch.from_numpy(resp_columns(dt.numpy(), sigma, kind, overwrite)).T
    shifted = (dt - dt.amin(dim=0, keepdim=True).detach()) * (-1.0 / T)
    if kind == "softmax":
        return _SoftmaxColumns.apply(shifted).T
    alpha = entmax_alpha(kind)
    if alpha != 1.5:
        return _AlphaEntmaxColumns.apply(shifted.clamp_min(LOGIT_FLOOR), alpha).T
    return _Entmax15Columns.apply(shifted.clamp_min(LOGIT_FLOOR)).T


def resp_torch(x: torch.Tensor, c: torch.Tensor, sigma: float, kind: str = "softmax") -> torch.Tensor:
    """Responsibilities (n, k) of points x (n, d) for centres c (k, d); torch in, torch out."""
    return _resp(sq_distances(x, c), sigma, kind, overwrite=True)  # the distances are its own


def responsibilities(X, C, sigma, kind: str = "softmax", alpha: float | None = None) -> np.ndarray:
    """Responsibilities r (n, k) of points X (n, d) for centres C (k, d) at RBF width σ.

    Parameters
    ----------
    X : array (n, d), float32 or float64 (other real input becomes float64). Must be finite.
    C : array (k, d) with 1 <= k <= n; cast to X's dtype.
    sigma : float > 0, in the units of X. Logits are z = -||x - c||² / (2σ²).
    kind : "softmax" | "entmax15" | "entmax" | "naive" | "hard" (or an "entmax:<α>" spec).
    alpha : α of kind="entmax", in [1.05, 2] (1.5: entmax15; 2: sparsemax); only with that kind.

    Returns
    -------
    resp : ndarray (n, k) in X's dtype. Rows are on the simplex, except that "naive" rows are NaN
        wherever every exp(z_ij) of the row underflows to zero in that dtype.
    """
    X, C, sigma, kind = check_map_arguments(X, C, sigma, kind, alpha)
    return _responsibilities(X, C, sigma, kind)


def _responsibilities(X: np.ndarray, C: np.ndarray, sigma: float, kind: str) -> np.ndarray:
    """``responsibilities`` without the checks, for the library's own calls on checked arguments: X (n, d)
    float32/float64, finite; C (k, d) finite in X's dtype; σ a float valid in that dtype; kind known."""
    with torch.no_grad():
        r = resp_torch(torch.from_numpy(X), torch.from_numpy(C), sigma, kind)
    return np.ascontiguousarray(r.numpy())  # r is a (k, n) tensor's transpose; hand out plain rows
