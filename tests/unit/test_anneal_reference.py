"""The annealing path (Anderson/SQUAREM-accelerated EM, clipped far softmax logits, the free energy from
the log-partition) against a separately written reference: plain numpy EM at every σ level, the same
symmetry breaking, no acceleration; entmax15 from the ``entmax`` package. Same centres at every level,
float64 and float32, on several data sets; and the pieces of the fast EM step against their definitions."""

import math

import numpy as np
import pytest
import torch
from entmax import entmax15
from numpy_reference import sq_dist
from scipy.optimize import linear_sum_assignment
from scipy.special import logsumexp, softmax

from rbfviz import annealing, make_dataset
from rbfviz.annealing import (
    COINCIDENT,
    NOISE,
    _em_step,
    anneal,
    data_scale,
    default_sigmas,
)
from rbfviz.measures import free_energy
from rbfviz.steps import points_with_ones


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """The reference's entmax15 (torch) on one thread, as the app runs: on a busy machine, waking torch's
    thread pool for each tiny (160, k) reduction costs a hundred times the reduction."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def reference_resp(X, C, sigma, kind):
    """(n, k) responsibilities in float64: scipy's softmax, or the entmax package's entmax15."""
    d = sq_dist(X, C, np.float64)
    z = -d / (2.0 * sigma**2)
    if kind == "softmax":
        return softmax(z, axis=1)
    return entmax15(torch.from_numpy(z), dim=-1).numpy()


def reference_em(X, C, sigma, kind, tol_abs, max_iter):
    """Plain EM (every centre to its soft centroid; centres without mass stay) until one step moves no
    coordinate more than tol_abs. Returns (centres, converged)."""
    C = C.astype(np.float64)
    X64 = X.astype(np.float64)
    for _ in range(max_iter):
        r = reference_resp(X64, C, sigma, kind)
        mass = r.sum(axis=0)
        new = np.where(mass[:, None] > 1e-12, (r.T @ X64) / np.maximum(mass, 1e-300)[:, None], C)
        if np.abs(new - C).max() <= tol_abs:
            return new, True
        C = new
    return C, False


def reference_anneal(X, k, sigmas, kind, seed, tol_abs, max_iter):
    """The annealing loop written out: start at the mean plus noise, and at each level give centres that
    have another within COINCIDENT × scale fresh N(0, (NOISE × scale)²) noise, then plain EM."""
    scale = data_scale(X)
    rng = np.random.RandomState(seed)
    C = (X.astype(np.float64).mean(axis=0) + NOISE * scale * rng.normal(size=(k, X.shape[1]))).astype(X.dtype)
    path, converged = [], []
    for sigma in sigmas:
        gaps = np.linalg.norm(C[:, None, :].astype(np.float64) - C[None, :, :], axis=2)
        np.fill_diagonal(gaps, np.inf)
        stacked = (gaps < COINCIDENT * scale).any(axis=1)
        if stacked.any():
            C = C.copy()
            C[stacked] += rng.normal(scale=NOISE * scale, size=(int(stacked.sum()), C.shape[1])).astype(
                C.dtype
            )
        C, done = reference_em(X, C, float(sigma), kind, tol_abs, max_iter)
        C = C.astype(X.dtype)
        path.append(C)
        converged.append(done)
    return np.array(path), np.array(converged)


CASES = [
    ("blobs", 4, "softmax"),
    ("blobs", 5, "softmax"),
    ("moons", 3, "softmax"),
    ("spiral", 3, "softmax"),
    ("varied", 4, "softmax"),
    ("circles", 4, "softmax"),  # symmetric: its splits' branches hang on rounding
    ("blobs", 4, "entmax15"),
    ("moons", 3, "entmax15"),
]


@pytest.mark.parametrize("escape", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("dataset, k, kind", CASES)
def test_every_level_matches_plain_numpy_em(dataset, k, kind, dtype, escape, monkeypatch):
    """escape: Newton's escape steps where the EM Jacobian is unstable, which ``anneal`` takes on float64
    runs of more than one EM block (``annealing.ESCAPE_MIN_POINTS``), here on 160 points."""
    if escape:
        if kind != "softmax" or dtype != "float64":
            pytest.skip("escape steps are for float64 softmax runs")
        monkeypatch.setattr(annealing, "ESCAPE_MIN_POINTS", 1)
    X = make_dataset(dataset, n=160, seed=2)[0].astype(dtype)
    sigmas = default_sigmas(X, k, kind, num=20)
    scale = data_scale(X)
    fast = anneal(X, k, sigmas, kind=kind, seed=3, max_iter=5000)
    tol_abs = fast.tol * scale
    ref, ref_converged = reference_anneal(X, k, sigmas, kind, 3, tol_abs, 50_000)
    both = fast.converged & ref_converged
    assert both.sum() >= sigmas.size - 2  # at most a near-critical level or two may stay unconverged
    # Both runs stop when a step moves less than tol; near a critical σ a fixed point is approached at
    # a rate close to 1, so the two stopping points differ by up to tol / (1 - rate).
    # In float32 the rounding decides which of two stacked centres takes which branch of a split, so
    # there the centres are compared as sets (matched one to one); in float64, centre by centre.
    atol = (1e-6 if dtype == "float64" else 2e-3) * scale
    fast64, ref64 = fast.centers.astype(np.float64), ref.astype(np.float64)
    if dtype == "float32":
        for s in range(sigmas.size):
            rows, cols = linear_sum_assignment(sq_dist(fast64[s], ref64[s]))
            fast64[s] = fast64[s][rows][np.argsort(cols)]
    gap = np.abs(fast64 - ref64).max(axis=(1, 2))
    assert gap[both].max() <= atol, f"levels {np.flatnonzero(gap > atol)}: {gap[gap > atol]}"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", ["softmax", "entmax15", "naive", "hard"])
def test_em_step_and_its_free_energy_match_their_definitions(kind, dtype):
    X = make_dataset("blobs", n=3000, seed=4)[0].astype(dtype)
    rng = np.random.RandomState(0)
    C = X[rng.choice(X.shape[0], 4, replace=False)].copy()
    points = points_with_ones(X)
    for sigma in (3.0, 0.5, 0.05, 0.01):  # from soft to hard, softmax's far logits well below -708
        if kind == "naive" and sigma < 0.5:
            continue  # past its underflow point naive rows are NaN (tested with the maps)
        new, energy = _em_step(points, C, sigma, kind, energy=True)
        assert new.dtype == X.dtype
        if kind == "hard":
            labels = sq_dist(X, C).argmin(axis=1)
            expected = np.array([X[labels == j].astype(np.float64).mean(axis=0) for j in range(4)])
        else:
            expected, _ = reference_em(X, C, sigma, "softmax" if kind == "naive" else kind, 0.0, 1)
        rtol = 1e-12 if dtype == "float64" else 2e-5
        np.testing.assert_allclose(new, expected, rtol=rtol, atol=rtol * data_scale(X))
        # F_σ: as rbfviz.measures defines it (Σ r·d − T·H), and for softmax the closed form −T Σ logsumexp z
        assert energy == pytest.approx(
            free_energy(X, C, sigma, kind), rel=1e-10 if dtype == "float64" else 1e-5
        )
        if kind == "softmax":
            d = sq_dist(X, C, np.float64)
            T = 2.0 * sigma**2
            closed = -T * logsumexp(-d / T, axis=1).sum()
            assert energy == pytest.approx(closed, rel=1e-9 if dtype == "float64" else 1e-5)


def test_clipping_far_logits_leaves_the_em_step_unchanged():
    """At small σ almost every softmax logit is below -708; raising them to -700 (fast exp) gives the
    same step, to the bit, as computing exp on them (weights of ~1e-304 vanish in every sum)."""
    import rbfviz.annealing as annealing

    X = make_dataset("blobs", n=5000, seed=5)[0]
    C = X[:6].copy()
    points = points_with_ones(X)
    for sigma in (0.5, 0.1, 0.02):
        clipped, _ = _em_step(points, C, sigma, "softmax")
        saved = annealing._CLIP_LOGIT
        try:
            annealing._CLIP_LOGIT = math.inf  # no clip
            plain, _ = _em_step(points, C, sigma, "softmax")
        finally:
            annealing._CLIP_LOGIT = saved
        assert np.array_equal(clipped, plain)


@pytest.mark.parametrize("dataset, n, d", [("blobs", 700, 2), ("spiral", 5000, 2), ("gaussian", 400, 4)])
def test_the_clip_is_skipped_only_where_it_would_change_nothing(dataset, n, d, monkeypatch):
    """``_clip_is_idle`` (the triangle-inequality bound that lets a softmax level skip the far-logit clip) is
    True only where no shifted distance reaches the clip, and the EM step with the skip is the step with
    the clip, to the bit, on both sides of the bound (σ from soft to far below the clip's reach); so is
    the step of a small level, which skips the clip where ``_reaches_clip`` finds no distance that far."""
    import rbfviz.annealing as annealing
    from rbfviz.maps import sq_distance_columns, temperature

    if dataset == "gaussian":
        X = np.random.RandomState(5).normal(size=(n, d)) * [1.0, 3.0, 0.5, 2.0]
    else:
        X = make_dataset(dataset, n=n, seed=5)[0]
    scale = data_scale(X)
    points = points_with_ones(X)
    rng = np.random.RandomState(2)
    idle_seen = busy_seen = 0
    for k in (2, 6):
        C = X[rng.choice(X.shape[0], k, replace=False)] + 0.3 * scale * rng.normal(size=(k, d))
        D = sq_distance_columns(X, C)
        shifted_max = float((D - D.min(axis=0)).max())
        for factor in np.geomspace(2.0, 0.002, 25):
            sigma = float(factor * scale)
            T = temperature(sigma)
            idle = annealing._clip_is_idle(D.min(axis=0), C, T)
            assert not idle or shifted_max < annealing._CLIP_LOGIT * T, (k, sigma)
            idle_seen, busy_seen = idle_seen + idle, busy_seen + (not idle)
            got = annealing._softmax_em_step(points, C, sigma, True, True)
            with monkeypatch.context() as patch:
                patch.setattr(annealing, "_clip_is_idle", lambda *args: False)  # always clip
                patch.setattr(annealing, "_reaches_clip", lambda *args: True)
                want = annealing._softmax_em_step(points, C, sigma, True, True)
            assert np.array_equal(got[0], want[0]) and float(got[1]) == float(want[1]), (k, sigma)
            assert np.array_equal(got[2], want[2]), (k, sigma)
    assert idle_seen and busy_seen  # both sides of the bound were tried
    shifted = np.array([[0.0, 2.0], [1.0, 0.0]])
    assert annealing._reaches_clip(shifted, 1.5) and not annealing._reaches_clip(shifted, 2.0)
    assert not annealing._reaches_clip(np.array([[0.0, np.nan]]), 1.0)
    assert not annealing._clip_is_idle(np.array([np.nan]), X[:2], 1.0)


def test_anderson_and_squarem_reach_the_same_path():
    """The accelerated run, the SQUAREM-only run and plain EM agree level by level."""
    X = make_dataset("blobs", n=600, seed=6)[0]
    sigmas = default_sigmas(X, 5, "softmax", num=20)
    fast = anneal(X, 5, sigmas, seed=1, max_iter=5000)
    plain = anneal(X, 5, sigmas, seed=1, max_iter=50_000, accelerate=False)
    both = fast.converged & plain.converged
    assert both.sum() >= sigmas.size - 2
    gap = np.abs(fast.centers - plain.centers).max(axis=(1, 2))
    assert gap[both].max() <= 1e-6 * data_scale(X)
    assert fast.iterations.sum() < plain.iterations.sum()
    assert math.isfinite(fast.loss.sum())
