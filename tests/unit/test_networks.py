"""rbfviz.nn: the RBF network classifier, deep clustering, the low-σ comparison and their CLI.

What is pinned: the σ schedule (exact values, and that the trainers follow it), gradients through
the RBF layer to the read-out, the centres and an upstream encoder, no NaN with entmax15 in float64
down to σ = 1e-4 (and NaN where the naive map must give it), determinism under a seed, a classifier
that beats logistic regression on moons and circles, the Lloyd distance against an independent
recomputation, the decision grid's pixel convention, progress/stop/snapshots, and the JSON keys.
Runs are kept small (a few hundred points, few epochs); the targets on digits are in
bench/bench_networks.py.
"""

import io
import json
import math
from contextlib import redirect_stdout

import numpy as np
import pytest
import torch
from numpy_reference import sq_dist
from scipy.optimize import linear_sum_assignment
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.metrics import normalized_mutual_info_score

from rbfviz import RBFClusterLayer, kmeans
from rbfviz.cli import main as cli_main
from rbfviz.field import pixel_centers
from rbfviz.measures import covariance_lambda_max
from rbfviz.nn import (
    Autoencoder,
    RBFNetwork,
    clustering_baselines,
    compare_low_sigma,
    decision_grid,
    load_deep_data,
    sigma_schedule,
    split_dataset,
    train_classifier,
    train_deep_clustering,
)

KINDS = ("softmax", "entmax15")

# small deep runs: a 2-D set of 200 points, a narrow network, few epochs
SMALL_DEEP = dict(dataset="moons", n=200, hidden=(16, 16), pretrain_epochs=3, joint_epochs=4, batch_size=64)


@pytest.fixture(scope="module")
def moons_softmax():
    return train_classifier("moons", k=12, seed=0, kind="softmax", snapshot_every=50, snapshot_grid=8)


# --- σ schedule ------------------------------------------------------------------------------------


def test_sigma_schedule_exact_values():
    s = sigma_schedule(1.0, 0.1, 6, anneal_epochs=4)
    expected = [1.0, 10 ** (-1 / 3), 10 ** (-2 / 3), 0.1, 0.1, 0.1]
    np.testing.assert_allclose(s, expected, rtol=1e-15, atol=0)
    assert s[3:].tolist() == [0.1, 0.1, 0.1]  # held exactly, not up to rounding
    s = sigma_schedule(2.0, 0.02, 5)  # anneal over every epoch: σ_{e+1}/σ_e = (0.01)^(1/4)
    np.testing.assert_allclose(s[1:] / s[:-1], 0.01**0.25, rtol=1e-14)
    assert s[0] == 2.0 and s[-1] == 0.02


def test_sigma_schedule_edge_cases_and_errors():
    assert sigma_schedule(1.0, 0.5, 3, anneal_epochs=1).tolist() == [0.5, 0.5, 0.5]
    assert sigma_schedule(0.3, 0.3, 2).tolist() == [0.3, 0.3]
    assert sigma_schedule(1.0, 0.1, 1).tolist() == [0.1]
    with pytest.raises(ValueError, match="must not exceed"):
        sigma_schedule(0.1, 1.0, 5)
    with pytest.raises(ValueError, match="anneal_epochs"):
        sigma_schedule(1.0, 0.1, 5, anneal_epochs=6)
    with pytest.raises(ValueError, match="sigma_end"):
        sigma_schedule(1.0, 0.0, 5)


def test_classifier_follows_documented_schedule(moons_softmax):
    r = moons_softmax
    X_train = split_dataset("moons", seed=0)[0]
    start = math.sqrt(covariance_lambda_max(X_train))
    expected = sigma_schedule(start, start / 10, 200, anneal_epochs=140)
    assert np.array_equal(r.sigmas, expected)
    assert r.history["sigma"] == expected.tolist()
    assert r.sigma_final == expected[-1] == pytest.approx(start / 10, rel=1e-15)


def test_deep_follows_documented_schedule():
    r = train_deep_clustering(**SMALL_DEEP, sigma_start=0.8, sigma_end=0.05, baselines=False)
    joint = [s for s, phase in zip(r.history["sigma"], r.history["phase"]) if phase == "joint"]
    assert joint == sigma_schedule(0.8, 0.05, 4).tolist()
    assert all(
        math.isnan(s) for s, phase in zip(r.history["sigma"], r.history["phase"]) if phase == "pretrain"
    )
    # default: σ_start = √(median squared distance of a code to its nearest K-Means centre), end = start/10
    r = train_deep_clustering(**SMALL_DEEP, baselines=False, snapshot_every=100)
    first = r.snapshots[0]  # taken right after the centres are placed, on a subsample
    assert first.sigma == r.sigmas[0]
    np.testing.assert_allclose(r.sigmas[-1], r.sigmas[0] / 10, rtol=1e-15)
    z, c = first.codes, first.centers
    sub_median = math.sqrt(np.median(sq_dist(z, c).min(1)))
    assert 0.5 * sub_median < r.sigmas[0] < 2.0 * sub_median  # whole-data median vs subsample median


# --- gradients through the RBF layer -------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_cluster_loss_gradient_reaches_the_encoder(kind):
    torch.manual_seed(0)
    x = torch.rand(64, 8, dtype=torch.float64)
    model = Autoencoder(8, 3, hidden=(16,), dtype=torch.float64)
    z = model.encode(x)
    layer = RBFClusterLayer(4, 3, init=z[:4].detach().clone() + 0.05, dtype=torch.float64)
    layer.loss(z, 0.3, kind).backward()  # the clustering term alone
    for p in model.encoder.parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all()
        assert p.grad.abs().max() > 0
    assert all(p.grad is None for p in model.decoder.parameters())  # not on the path
    assert torch.isfinite(layer.centers.grad).all() and layer.centers.grad.abs().max() > 0


@pytest.mark.parametrize("kind", KINDS)
def test_cross_entropy_reaches_readout_centres_and_an_upstream_encoder(kind):
    torch.manual_seed(1)
    x = torch.randn(80, 2, dtype=torch.float64)
    y = (x[:, 0] * x[:, 1] > 0).long()
    encoder = torch.nn.Linear(2, 2, dtype=torch.float64)
    net = RBFNetwork(np.random.default_rng(0).normal(size=(6, 2)), 2, dtype=torch.float64)
    loss = torch.nn.functional.cross_entropy(net(encoder(x), 0.8, kind), y)
    loss.backward()
    for p in [*net.readout.parameters(), net.rbf.centers, *encoder.parameters()]:
        assert torch.isfinite(p.grad).all() and p.grad.abs().max() > 0


# --- numerics at low σ ---------------------------------------------------------------------------


def test_entmax15_float64_no_nan_down_to_1e4():
    deep = train_deep_clustering(
        **SMALL_DEEP, kind="entmax15", dtype="float64", sigma_start=1e-2, sigma_end=1e-4, baselines=False
    )
    assert deep.sigma_final == 1e-4 and deep.nan_steps == 0
    for key in ("loss", "recon", "grad_norm_encoder", "grad_norm_decoder"):
        assert np.all(np.isfinite(deep.history[key])), key
    joint = [i for i, phase in enumerate(deep.history["phase"]) if phase == "joint"]
    assert all(math.isfinite(deep.history["grad_norm_centers"][i]) for i in joint)
    cls = train_classifier(
        "moons",
        k=8,
        epochs=30,
        kind="entmax15",
        dtype="float64",
        sigma_start=1e-2,
        sigma_end=1e-4,
        anneal_epochs=10,
    )
    assert cls.sigma_final == 1e-4 and cls.nan_steps == 0
    assert np.all(np.isfinite(cls.history["loss"])) and np.all(np.isfinite(cls.history["grad_norm_centers"]))


def test_naive_map_is_counted_as_nan_and_stable_maps_train():
    c = compare_low_sigma("moons", sigma=0.01, k=12, epochs=6)
    naive, soft, ent = (c.history[kind] for kind in ("naive", "softmax", "entmax15"))
    assert c.naive_nan_sigma_first > 0.01  # the closed form says: some naive rows are NaN at this σ
    assert (
        naive["nan_rows"][0] > 0
        and sum(naive["nan_steps"]) == 6
        and c.summary["naive"]["first_nan_epoch"] == 1
    )
    assert len(set(naive["loss"])) <= 1 or all(math.isnan(v) for v in naive["loss"])  # nothing moves
    for rows in (soft, ent):
        assert sum(rows["nan_steps"]) == 0 and sum(rows["nan_rows"]) == 0
        assert np.all(np.isfinite(rows["grad_norm_centers"]))
        assert rows["loss"][-1] < rows["loss"][0]  # still training
    # entmax15 rows are exactly one-hot outside the 4σ² band: at σ = 0.01 nearly all of them
    n_train = len(split_dataset("moons", seed=0)[0])
    assert ent["one_hot_rows"][0] >= 0.9 * n_train
    float64 = compare_low_sigma("moons", sigma=1e-4, k=12, epochs=2, dtype="float64")
    assert float64.summary["naive"]["nan_steps"] == 2 and float64.summary["entmax15"]["nan_steps"] == 0


# --- determinism -------------------------------------------------------------------------------------


def test_classifier_is_deterministic_and_leaves_global_rng_alone():
    state = torch.get_rng_state()
    a = train_classifier("circles", k=6, seed=3, epochs=40)
    assert torch.equal(state, torch.get_rng_state())
    b = train_classifier("circles", k=6, seed=3, epochs=40)
    assert np.array_equal(a.centers, b.centers) and a.history == b.history
    c = train_classifier("circles", k=6, seed=4, epochs=40)
    assert not np.array_equal(a.centers, c.centers)


@pytest.mark.parametrize("kind", KINDS)
def test_deep_clustering_is_deterministic(kind):
    a = train_deep_clustering(**SMALL_DEEP, kind=kind, seed=2, baselines=False)
    b = train_deep_clustering(**SMALL_DEEP, kind=kind, seed=2, baselines=False)
    assert np.array_equal(a.embedding, b.embedding) and np.array_equal(a.labels, b.labels)
    assert np.array_equal(a.centers, b.centers)
    assert json.dumps(a.history) == json.dumps(b.history)  # NaN-safe equality of every column


# --- the classifier ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["moons", "circles"])
def test_classifier_beats_linear_baseline(dataset, moons_softmax):
    r = moons_softmax if dataset == "moons" else train_classifier(dataset, k=12, seed=0)
    assert r.linear_accuracy < 0.9
    assert r.accuracy >= 0.97 > r.linear_accuracy
    assert r.nan_steps == 0 and r.epochs_run == 200 and not r.stopped
    assert r.history["test_accuracy"][-1] == r.accuracy


def test_lloyd_distance_matches_independent_recomputation(moons_softmax):
    r = moons_softmax
    lloyd, _ = kmeans(r.X_train, init=r.centers)
    cost = sq_dist(r.centers, lloyd)
    rows, cols = linear_sum_assignment(cost)
    assert r.center_distance_to_lloyd == pytest.approx(math.sqrt(cost[rows, cols].sum()), rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(r.lloyd_centers, lloyd[cols], atol=1e-12)
    assert r.center_distance_to_lloyd == pytest.approx(np.linalg.norm(r.center_distances), rel=1e-12)
    assert 0 <= r.empty_centers < r.k


def test_linear_baseline_is_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    X_train, X_test, y_train, y_test = split_dataset("circles", seed=1)
    r = train_classifier("circles", k=4, seed=1, epochs=5)
    assert r.linear_accuracy == LogisticRegression().fit(X_train, y_train).score(X_test, y_test)
    assert np.array_equal(r.X_test, X_test) and np.array_equal(r.y_train, y_train)


def test_decision_grid_pixel_convention(moons_softmax):
    r = moons_softmax
    extent = (-1.5, 2.5, -1.0, 1.5)
    grid = decision_grid(r, size=9, extent=extent)
    assert grid.proba.shape == (9, 9, 2) and grid.label.shape == (9, 9)
    np.testing.assert_allclose(grid.proba.sum(axis=2), 1.0, atol=1e-12)
    direct = r.predict_proba(pixel_centers(extent, 9, 9)).reshape(9, 9, 2)
    np.testing.assert_allclose(grid.proba, direct, atol=1e-12)
    assert pixel_centers(extent, 9, 9)[0, 1] > pixel_centers(extent, 9, 9)[-1, 1]  # row 0 at the top
    # the regions agree with the test points' predictions
    assert (r.predict_proba(r.X_test).argmax(1) == r.y_test).mean() == r.accuracy


def test_classifier_progress_stop_and_snapshots():
    calls = []
    r = train_classifier(
        "moons",
        k=5,
        epochs=20,
        progress=lambda done, total: calls.append((done, total)),
        stop=lambda: len(calls) >= 7,
        snapshot_every=3,
        snapshot_grid=6,
    )
    assert calls == [(e, 20) for e in range(1, 8)]
    assert r.stopped and r.epochs_run == 7 and len(r.history["epoch"]) == 7
    assert r.sigma_final == r.sigmas[6]
    assert [s.epoch for s in r.snapshots] == [0, 3, 6, 7]
    assert r.snapshots[-1].proba.shape == (6, 6, 2) and r.snapshots[-1].centers.shape == (5, 2)
    np.testing.assert_array_equal(r.snapshots[-1].centers, r.centers)


# --- deep clustering ---------------------------------------------------------------------------------


def test_deep_result_fields_and_baselines():
    r = train_deep_clustering(**SMALL_DEEP, k=3, seed=1)
    n = 200
    assert r.labels.shape == (n,) and r.embedding.shape == (n, 2) and r.centers.shape == (3, 2)
    assert np.array_equal(r.embedding_2d, r.embedding)  # a 2-D latent is shown as it is
    assert r.nmi == pytest.approx(normalized_mutual_info_score(r.y, r.labels), abs=1e-15)
    nearest = sq_dist(r.embedding, r.centers).argmin(1)
    assert np.array_equal(r.labels, nearest)
    assert r.cluster_sizes.sum() == n
    X, y = load_deep_data("moons", n=200, seed=1)
    assert np.allclose(X.mean(0), 0, atol=1e-12) and np.allclose(X.std(0), 1)
    raw = KMeans(n_clusters=3, n_init=10, random_state=1).fit_predict(X)
    pca = KMeans(n_clusters=3, n_init=10, random_state=1).fit_predict(PCA(2, random_state=1).fit_transform(X))
    assert r.kmeans_raw_nmi == normalized_mutual_info_score(y, raw)
    assert r.kmeans_pca_nmi == normalized_mutual_info_score(y, pca)
    assert clustering_baselines("moons", 3, 2, 1, 200, None) == (r.kmeans_raw_nmi, r.kmeans_pca_nmi)


def test_deep_digits_data_and_latent_projection():
    X, y = load_deep_data("digits")
    assert X.shape == (1797, 64) and X.min() == 0.0 and X.max() == 1.0 and set(np.unique(y)) == set(range(10))
    r = train_deep_clustering(
        "digits",
        pretrain_epochs=1,
        joint_epochs=1,
        hidden=(32,),
        baselines=False,
        snapshot_every=1,
        snapshot_points=50,
    )
    assert r.latent_dim == 4 and r.k == 10 and r.embedding.shape == (1797, 4)
    assert r.embedding_2d.shape == (1797, 2) and r.centers_2d.shape == (10, 2)
    # every code has mean squared norm 1 (the batch normalisation of the codes, whole data = one batch)
    assert np.mean((r.embedding**2).sum(1)) == pytest.approx(1.0, rel=1e-5)
    snap = r.snapshots[-1]
    assert (
        snap.codes.shape == (50, 4)
        and snap.codes_2d.shape == (50, 2)
        and np.array_equal(snap.codes, r.embedding[r.indices])
    )
    with pytest.raises(ValueError, match="digits"):
        load_deep_data("digits", n=100)


def test_deep_progress_and_stop():
    calls = []
    r = train_deep_clustering(
        **SMALL_DEEP,
        baselines=False,
        progress=lambda d, t: calls.append((d, t)),
        stop=lambda: len(calls) >= 2,
    )
    assert calls == [(1, 7), (2, 7)] and r.stopped and r.epochs_run == 2
    assert math.isnan(r.sigma_final) and r.history["phase"] == ["pretrain", "pretrain"]
    assert r.labels.shape == (200,)  # centres are still placed on the codes as they are
    calls.clear()
    r = train_deep_clustering(
        **SMALL_DEEP,
        baselines=False,
        progress=lambda d, t: calls.append((d, t)),
        stop=lambda: len(calls) >= 5,
    )
    assert r.stopped and r.epochs_run == 5 and r.sigma_final == r.sigmas[1]


@pytest.mark.parametrize(
    "bad, match",
    [
        (dict(kind="naive"), "kind"),
        (dict(kind="hard"), "kind"),
        (dict(dtype="float16"), "dtype"),
        (dict(lam=-1.0), "lam"),
        (dict(dataset="mnist"), "unknown"),
        (dict(k=0), "k must"),
    ],
)
def test_bad_arguments_raise_value_error(bad, match):
    with pytest.raises(ValueError, match=match):
        train_deep_clustering(**{**SMALL_DEEP, **bad})
    if "dataset" not in bad:
        with pytest.raises(ValueError, match=match):
            train_classifier("moons", epochs=2, **bad)


# --- command line --------------------------------------------------------------------------------


def run_cli(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli_main(argv)
    return code, out.getvalue()


def test_cli_classify_json():
    code, out = run_cli(
        ["classify", "--dataset", "circles", "--k", "6", "--seed", "1", "--epochs", "30", "--json"]
    )
    data = json.loads(out)
    assert code == 0
    for key in ("accuracy", "linear_accuracy", "center_distance_to_lloyd", "seconds", "nan_steps"):
        assert isinstance(data[key], (int, float)), key
    assert data["k"] == 6 and data["seed"] == 1


def test_cli_deep_json():
    code, out = run_cli(
        [
            "deep",
            "--dataset",
            "moons",
            "--k",
            "2",
            "--seed",
            "0",
            "--n",
            "200",
            "--pretrain-epochs",
            "2",
            "--joint-epochs",
            "2",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"softmax", "entmax15"}
    for kind in KINDS:
        for key in ("nmi", "ari", "kmeans_raw_nmi", "kmeans_pca_nmi", "seconds", "nan_steps"):
            assert isinstance(data[kind][key], (int, float)), (kind, key)
    assert data["softmax"]["kmeans_raw_nmi"] == data["entmax15"]["kmeans_raw_nmi"]


def test_cli_errors_exit_2():
    with pytest.raises(SystemExit) as exc:
        run_cli(["deep", "--dataset", "digits", "--n", "100", "--json"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        run_cli(["classify", "--kind", "naive"])
    assert exc.value.code == 2
