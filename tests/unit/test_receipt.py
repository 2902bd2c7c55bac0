"""rbfviz.views.common.receipt: receipts are valid Python whose snippet recomputes the numbers, for
every view."""

import ast
import math

import numpy as np
import pytest

from rbfviz.collapse import collapse_study
from rbfviz.datasets import make_dataset
from rbfviz.drawn import decode_points, encode_points
from rbfviz.loader import load_points, points_to_csv
from rbfviz.measures import kmeans_reference
from rbfviz.steps import kmeans
from rbfviz.views.annealing.receipt import annealing_receipt
from rbfviz.views.common.receipt import Receipt, literal
from rbfviz.views.equivalence.arrays import one_step, trajectories
from rbfviz.views.equivalence.receipt import equivalence_numbers, equivalence_receipt
from rbfviz.views.explorer.arrays import initial_centers, plane_numbers, sigma_scale, soft_fixed_point
from rbfviz.views.explorer.receipt import explorer_receipt
from rbfviz.views.stability.arrays import stability_table
from rbfviz.views.stability.receipt import STABILITY_KEYS, stability_numbers, stability_receipt

PARAMS = dict(
    dataset="moons",
    n=120,
    noise=0.1,
    seed=1,
    k=3,
    init="kmeans++",
    picks=(),
    kind="softmax",
    dtype="float64",
    sigma=0.2,
)


def run(rec: Receipt) -> dict:
    """Execute a receipt's file as a module (not as __main__) and return its ``numbers``."""
    text = rec.to_python()
    ast.parse(text)
    namespace = {"__name__": "receipt"}
    exec(compile(text, rec.file_name(), "exec"), namespace)  # noqa: S102 — our own generated code
    assert_same(namespace["SHOWN"], rec.numbers, tol=0.0)  # the shown numbers are written exactly
    return namespace["numbers"]


def assert_same(got: dict, want: dict, tol: float = 1e-12) -> None:
    assert got.keys() == want.keys()
    for key in want:
        a, b = got[key], want[key]
        if b is None or isinstance(b, (bool, str)):
            assert a == b, key
        elif tol == 0.0:
            np.testing.assert_array_equal(np.asarray(a, float), np.asarray(b, float), err_msg=key)
        else:
            np.testing.assert_allclose(
                np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol, err_msg=key
            )


@pytest.mark.parametrize(
    "value",
    [
        0.1,
        1e-300,
        -2.5,
        7,
        True,
        None,
        "a'b\"c",
        float("nan"),
        float("inf"),
        -float("inf"),
        (1,),
        (1, 2.5),
        [1, [2, None]],
        {"a": [0.1, float("nan")]},
        np.float32(0.1),
        np.arange(3),
    ],
)
def test_literal_round_trips(value):
    back = eval(literal(value))  # noqa: S307
    expected = value.tolist() if isinstance(value, np.ndarray) else value
    if isinstance(value, np.float32):
        assert back == float(value)
    elif isinstance(value, float) and math.isnan(value):
        assert math.isnan(back)
    elif isinstance(value, dict):
        assert back["a"][0] == 0.1 and math.isnan(back["a"][1])
    else:
        assert back == expected and type(back) is type(expected)


def test_receipt_lists_parameters_and_versions():
    text = explorer_receipt(PARAMS, {"loss": 1.0}).to_python()
    for key, value in PARAMS.items():
        assert f"    {key} = {literal(value)}" in text
    for name in ("python", "numpy", "torch", "scikit-learn", "entmax", "rbfviz"):
        assert f"    {name} " in text
    assert "SHOWN = {'loss': 1.0}" in text


# two blobs of 15 points drawn by hand
DRAWN_TEXT = encode_points(
    np.random.default_rng(3).normal(size=(30, 2)) * 0.5 + np.repeat([[2.0, 0], [0, 0]], 15, 0)
)


def _explorer_reference(X, p, C0):
    centers, _, _ = soft_fixed_point(X, C0, p["sigma"], kind=p["kind"])
    if not np.isfinite(centers).all():
        centers = C0
    _, labels = kmeans_reference(X, np.asarray(C0, np.float64))
    return plane_numbers(X, centers, p["sigma"], p["kind"], labels)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"init": "random", "kind": "entmax15", "dtype": "float32"},
        {"init": "farthest"},
        {"init": "custom", "picks": (5, 60, 100, 7)},
        {"init": "placed", "placed": [[0.25, 0.5], [-1.0, 0.125], [1.5, -0.75]]},
        {"dataset": "drawn", "points": DRAWN_TEXT},
        {"kind": "naive", "dtype": "float32", "sigma": 0.01},
    ],
)
def test_explorer_snippet_reproduces(changes):
    p = dict(PARAMS, **changes)
    if p["dataset"] == "drawn":
        X = decode_points(p["points"])
    else:
        X, _ = make_dataset(p["dataset"], p["n"], p["noise"], p["seed"])
    X = X.astype(p["dtype"])
    if p["init"] == "placed":
        C0 = np.array(p["placed"], dtype=p["dtype"])
    elif p["init"] == "custom":
        C0 = X[list(p["picks"][:3])]
    else:
        C0 = initial_centers(X, 3, p["init"], p["seed"])
    want = _explorer_reference(X, p, C0)
    rec = explorer_receipt(p, want)
    assert_same(run(rec), want)


def test_explorer_snippet_with_annealing_reproduces():
    p = dict(PARAMS, init="anneal")
    from rbfviz.annealing import anneal

    X, _ = make_dataset(p["dataset"], p["n"], p["noise"], p["seed"])
    scale = sigma_scale(X, kmeans(X, k=3, seed=1)[0])
    sigma = float(scale.grid[len(scale.grid) // 2])
    path = anneal(X, 3, scale.grid, kind="softmax", seed=1)
    _, labels = kmeans_reference(X, path.centers[-1])
    want = plane_numbers(X, path.centers[scale.index(sigma)], sigma, "softmax", labels)
    assert_same(run(explorer_receipt(dict(p, sigma=sigma), want)), want)


def test_equivalence_snippet_reproduces():
    X, _ = make_dataset("moons", 120, 0.1, 1)
    C0 = initial_centers(X, 3, "kmeans++", 1)
    want = equivalence_numbers(one_step(X, C0, 0.2, "softmax"), trajectories(X, C0, 0.2, "softmax", 7))
    assert_same(run(equivalence_receipt(dict(PARAMS, steps=7), want)), want)


def test_annealing_snippet_reproduces():
    X, _ = make_dataset("moons", 120, 0.1, 1)
    grid = sigma_scale(X, kmeans(X, k=3, seed=1)[0]).grid
    study = collapse_study(X, 3, kind="softmax", dtype="float64", sigmas=grid, seed=1)
    sigma = float(grid[5])
    level = int(np.argmin(np.abs(np.log(grid) - math.log(sigma))))
    want = {
        "sigma_critical_predicted": study.sigma_critical_predicted,
        "sigma_critical_measured": study.sigma_critical_measured,
        "slope": study.slope.slope,
        "sigma_exact_predicted": study.sigma_exact_predicted,
        "sigma_exact_measured": study.sigma_exact_measured,
        "error_at_sigma": float(study.error[level]),
        "centers_at_sigma": study.path.centers[level].tolist(),
    }
    assert_same(run(annealing_receipt(dict(PARAMS, sigma=sigma), want)), want)


def test_stability_snippet_reproduces_the_rows_of_the_full_grid():
    X, _ = make_dataset("moons", 120, 0.1, 1)
    centers, _ = kmeans(X, k=3, seed=1)
    grid = sigma_scale(X, centers).grid
    sigma = float(grid[-3])
    want = stability_numbers(stability_table(X, centers, grid), sigma)  # read off the whole table
    assert len(want) == 3 * 2 * len(STABILITY_KEYS)
    assert_same(run(stability_receipt(dict(PARAMS, sigma=sigma, dtype="float32"), want)), want)


def test_uploaded_data_snippet_reads_the_file(tmp_path, monkeypatch):
    rng = np.random.RandomState(0)
    data = points_to_csv(rng.normal(size=(60, 2)), np.full((60, 1), 1.0))  # x, y, r_0: three numeric columns
    (tmp_path / "mine.csv").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    for columns in (None, ("x", "r_0")):
        X = load_points(data, columns=columns).X.astype("float64")  # as the snippet does: a writable copy
        p = dict(PARAMS, dataset="upload", file_name="mine.csv", file_sha256="-", columns=columns, n=60)
        C0 = initial_centers(X, 3, "kmeans++", 1)
        want = _explorer_reference(X, p, C0)
        rec = explorer_receipt(p, want)
        assert "mine.csv" in rec.to_python()
        assert_same(run(rec), want)
