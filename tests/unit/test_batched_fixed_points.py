"""EM at many σ levels together (``annealing.fixed_points``, ``_em_levels``, ``_em_steps``): every level is
the one-level run at its σ, bit for bit (centres, EM steps, converged), on every map, in float64 and
float32, through SQUAREM cycles, merges, capped levels, level groups and point blocks; finished levels
leave the batch."""

import numpy as np
import pytest

import rbfviz.annealing as annealing
from rbfviz import make_dataset
from rbfviz.annealing import _em_step, _em_steps, fixed_point, fixed_points
from rbfviz.steps import _kmeans, points_with_ones
from rbfviz.views.explorer.arrays import initial_centers, sigma_scale, soft_fixed_points


def _setting(dataset, k, dtype, n=240, seed=1):
    X = make_dataset(dataset, n=n, seed=seed)[0].astype(dtype)
    C0 = initial_centers(X, k, "kmeans++", 0)
    grid = sigma_scale(X.astype(np.float64), _kmeans(X.astype(np.float64), k=k, seed=0)[0]).grid
    return X, C0, grid


def _assert_levels_are_one_level_runs(X, C0, grid, kind, **options):
    centers, iterations, converged = fixed_points(X, C0, grid, kind, **options)
    assert centers.shape == (grid.size,) + C0.shape and centers.dtype == X.dtype
    for i, sigma in enumerate(grid):
        alone, steps, done = fixed_point(X, C0, float(sigma), kind, **options)
        assert np.array_equal(centers[i], alone, equal_nan=True), (i, sigma)
        assert (iterations[i], converged[i]) == (steps, done), (i, sigma)
    return iterations, converged


@pytest.mark.parametrize(
    "dataset, k, kind, dtype",
    [
        ("blobs", 4, "softmax", "float64"),
        ("moons", 3, "softmax", "float32"),
        ("circles", 2, "entmax15", "float64"),
        ("blobs", 4, "entmax15", "float32"),
        ("moons", 3, "naive", "float64"),
        ("circles", 2, "naive", "float32"),
        ("blobs", 3, "hard", "float32"),
        ("moons", 2, "entmax:1.3", "float64"),
    ],
)
def test_every_level_is_its_one_level_run(dataset, k, kind, dtype):
    X, C0, grid = _setting(dataset, k, dtype, n=60 if kind.startswith("entmax:") else 150)
    _assert_levels_are_one_level_runs(X, C0, grid, kind)


def test_the_explorers_default_setting_with_its_merge():
    """The Explorer's default data (blobs, n = 500, k = 4): one level there is reached through a merge
    (``_merged_fixed_point``), inside the batch."""
    X, C0, grid = _setting("blobs", 4, "float64", n=500, seed=0)
    merges = []
    original = annealing._merged_fixed_point

    def spy(*args, **kwargs):
        found = original(*args, **kwargs)
        merges.append(found[0] is not None)
        return found

    annealing._merged_fixed_point = spy
    try:
        iterations, converged = _assert_levels_are_one_level_runs(X, C0, grid, "softmax")
    finally:
        annealing._merged_fixed_point = original
    assert any(merges) and converged.all()
    assert iterations.max() > 3 * np.median(iterations)  # a slow level among fast ones


@pytest.mark.parametrize("options", [dict(max_iter=7), dict(accelerate=False, max_iter=60), dict(tol=1e-4)])
def test_caps_plain_em_and_tolerances_match(options):
    X, C0, grid = _setting("moons", 3, "float64", n=150)
    iterations, converged = _assert_levels_are_one_level_runs(X, C0, grid, "softmax", **options)
    if options.get("max_iter") == 7:
        assert (iterations <= 7).all() and not converged.all()


def test_level_groups_and_point_blocks_change_nothing(monkeypatch):
    """More levels than one step holds (groups of levels) and more points than one block (sums
    accumulated block by block): still each level's one-level run."""
    X, C0, grid = _setting("blobs", 4, "float64", n=200)
    expected = fixed_points(X, C0, grid, "softmax")
    monkeypatch.setattr(annealing, "LEVEL_ENTRIES", 4 * 200 * 3)  # three levels per step
    grouped = fixed_points(X, C0, grid, "softmax")
    monkeypatch.setattr(annealing, "EM_BLOCK", 64)  # four blocks of points
    blocked = fixed_points(X, C0, grid, "softmax")
    assert all(np.array_equal(got, want) for got, want in zip(grouped, expected))
    for i in (0, grid.size // 2, grid.size - 1):
        alone, steps, done = fixed_point(X, C0, float(grid[i]), "softmax")
        assert np.array_equal(blocked[0][i], alone) and (blocked[1][i], blocked[2][i]) == (steps, done)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kind", ["softmax", "entmax15", "naive", "hard"])
def test_one_batched_step_is_each_levels_step_with_its_free_energy(kind, dtype):
    X = make_dataset("blobs", n=700, seed=3)[0].astype(dtype)
    points = points_with_ones(X)
    rng = np.random.RandomState(0)
    C = X[rng.choice(X.shape[0], (5, 4))].copy()  # (levels, centres, features)
    sigmas = (3.0, 0.9, 0.4, 0.1, 0.03)
    asked = (True, False, True, True, False)
    centers, energies = _em_steps(points, C, sigmas, kind, asked)
    for i, sigma in enumerate(sigmas):
        alone, energy = _em_step(points, C[i], sigma, kind, energy=asked[i])
        assert np.array_equal(centers[i], alone, equal_nan=True)
        if asked[i]:
            assert energies[i] == energy or (np.isnan(energies[i]) and np.isnan(energy))
        else:
            assert np.isnan(energies[i])


def test_finished_levels_leave_the_batch(monkeypatch):
    X, C0, grid = _setting("blobs", 4, "float64", n=500, seed=0)
    sizes = []
    original = annealing._em_steps

    def spy(points, C, sigmas, kind, energy, *more, **options):
        sizes.append(C.shape[0])
        return original(points, C, sigmas, kind, energy, *more, **options)

    monkeypatch.setattr(annealing, "_em_steps", spy)
    done = []
    _, iterations, _ = soft_fixed_points(X, C0, grid, progress=lambda d, t: done.append((d, t)))
    batched = [size for size in sizes if size > 1]
    assert batched[0] == grid.size and min(batched) < grid.size
    assert sum(sizes) == iterations.sum()  # one EM step per level and round: nobody pays another's
    assert [d for d, _ in done] == sorted(d for d, _ in done) and done[-1] == (grid.size, grid.size)


def test_bad_arguments_raise_clear_errors():
    X, C0, grid = _setting("moons", 3, "float64")
    with pytest.raises(ValueError, match="sigma"):
        fixed_points(X, C0, [0.5, -1.0], "softmax")
    with pytest.raises(ValueError, match="max_iter"):
        fixed_points(X, C0, grid, "softmax", max_iter=0)
    with pytest.raises(ValueError, match="progress"):
        fixed_points(X, C0, grid, "softmax", progress=3)


@pytest.mark.parametrize(
    "dataset, k, kind, dtype",
    [
        ("blobs", 6, "softmax", "float64"),
        ("uneven", 3, "softmax", "float32"),
        ("moons", 4, "entmax15", "float64"),
        ("circles", 3, "naive", "float32"),
        ("blobs", 3, "entmax:1.3", "float64"),
    ],
)
def test_the_collapse_studys_fixed_points_are_one_level_runs_from_c_star(dataset, k, kind, dtype):
    """``collapse_study`` runs EM from C* at every σ below σ_c together (``annealing._fixed_points``): each
    level is ``fixed_point`` from C* at its σ alone, bit for bit; levels above σ_c stay NaN, 0 steps."""
    from rbfviz.collapse import collapse_study

    X = make_dataset(dataset, n=60 if kind.startswith("entmax:") else 200, seed=1)[0]
    grid = sigma_scale(X, _kmeans(X.astype(np.float64), k=k, seed=0)[0]).grid
    done = []
    study = collapse_study(X, k, kind=kind, dtype=dtype, sigmas=grid, progress=lambda *a: done.append(a))
    assert done[-1] == (2 * grid.size, 2 * grid.size) and done == sorted(done)
    below = grid < study.sigma_critical_predicted
    assert below.any() and not below.all()
    Xd = X.astype(dtype)
    for i, sigma in enumerate(grid):
        if not below[i]:
            assert np.isnan(study.fixed_point_centers[i]).all() and study.fixed_point_iterations[i] == 0
            continue
        alone, steps, converged = fixed_point(Xd, study.kmeans_centers, float(sigma), kind)
        assert np.array_equal(study.fixed_point_centers[i], alone, equal_nan=True), (i, sigma)
        assert (study.fixed_point_iterations[i], study.fixed_point_converged[i]) == (steps, converged)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n, k", [(700, 4), (5000, 8)])  # numpy's passes, then torch's (k·n >= 16,384)
def test_one_softmax_level_alone_is_its_step_in_a_stack(n, k, dtype):
    """``anneal`` steps one softmax level at a time through ``_softmax_em_step``; the stacked path, which
    runs the same operations on (m, k, n) arrays, gives the same bits: centres, F_σ and the EM Jacobian,
    from soft to one-hot responsibilities, with far logits clipped and with a centre without mass."""
    X = make_dataset("blobs", n=n, seed=4)[0].astype(dtype)
    points = points_with_ones(X)
    scale = annealing.data_scale(X)
    rng = np.random.RandomState(1)
    C = X[rng.choice(n, k, replace=False)].copy()
    far = C.copy()
    far[0] = X.max(axis=0) + 50 * scale  # no mass at small σ: it stays put
    for c in (C, far):
        for sigma in (3.0 * scale, 0.5 * scale, 0.1 * scale, 0.01 * scale):
            alone, energy, jacobian = annealing._softmax_em_step(points, c, sigma, True, True)
            energy = float(energy)
            stacked, energies, jacobians = _em_steps(
                points, np.stack([c, c]), (sigma, sigma), "softmax", (True, False), (True, False)
            )
            assert np.array_equal(alone, stacked[0]) and np.array_equal(alone, stacked[1]), sigma
            assert energy == energies[0] and np.isnan(energies[1]), sigma
            assert np.array_equal(jacobian, jacobians[0]) and jacobians[1] is None, sigma
            plain, none, no_jacobian = annealing._softmax_em_step(points, c, sigma, False, False)
            assert np.array_equal(plain, alone) and np.isnan(none) and no_jacobian is None


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lazy_free_energies_are_the_summed_ones(dtype, monkeypatch):
    """With ``lazy`` (as ``_em_levels`` asks), a level stepped alone returns F_σ as a ``_LazyEnergy``; read,
    it is the float the step returns otherwise, to the bit, on one block of points and on several."""
    X = make_dataset("moons", n=900, seed=2)[0].astype(dtype)
    points = points_with_ones(X)
    C = X[np.random.RandomState(4).choice(X.shape[0], 5, replace=False)][None].copy()
    for block in (annealing.EM_BLOCK, 256):  # one block, then four blocks of points
        monkeypatch.setattr(annealing, "EM_BLOCK", block)
        for sigma in (1.0, 0.2, 0.01):
            centers, (energy,) = _em_steps(points, C, (sigma,), "softmax", (True,))
            lazy_centers, (lazy,) = _em_steps(points, C, (sigma,), "softmax", (True,), lazy=True)
            assert isinstance(energy, float) and isinstance(lazy, annealing._LazyEnergy)
            assert np.array_equal(centers, lazy_centers) and float(lazy) == energy == float(lazy), sigma
            _, (none,) = _em_steps(points, C, (sigma,), "softmax", (False,), lazy=True)
            assert np.isnan(none)
