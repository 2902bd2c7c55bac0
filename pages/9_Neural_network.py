"""Neural network: K-Means as a layer inside a network, trained live — the RBF network classifier,
deep clustering with an autoencoder, and training at low σ with softmax, entmax-1.5 and the naive map.

Training runs in a background thread per setting (ui.training): a progress bar and a Stop button
update once a second, and finished runs are kept, so revisiting a setting is instant."""

import math
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from rbfviz.nn.training import TRAIN_KINDS
from rbfviz.views.common.kinds import KIND_CONTROL_LABELS, KIND_LABELS
from rbfviz.views.neural_network import arrays as neural_network
from rbfviz.views.neural_network.figures import (
    classifier_animation,
    classifier_figure,
    classifier_history_figure,
    deep_history_figure,
    latent_figure,
    low_sigma_figure,
)
from ui import session_keys as keys
from ui import state, training
from ui.page import chart, error_message, panel, setup_page

DEFAULT_DATASET = "moons"
EPOCH_CHOICES = (50, 100, 200, 300, 500)
LAM_CHOICES = (0.0, 0.5, 1.0, 2.0, 5.0)
LOW_SIGMAS = (0.1, 0.05, 0.03, 0.02, 0.01, 0.005, 0.002, 0.001)


def use_dataset(name: str) -> None:
    """Button callback: switch the sidebar's data set (and so every view's) to ``name``."""
    ctrl = st.session_state[keys.CONTROLS]
    new, notes = state.changed(ctrl, "dataset", name)
    st.session_state[keys.CONTROLS] = new
    state.add_notices(st, notes)


def classifier_data(ctrl):
    """(dataset, n, noise, seed) for the classifier: the sidebar's data if it is moons, circles or spiral
    (labelled classes that a straight line cannot separate), else moons at its defaults."""
    if ctrl.dataset in neural_network.CLASSIFIER_DATASETS:
        return ctrl.dataset, ctrl.n, ctrl.noise, ctrl.seed
    return DEFAULT_DATASET, None, None, ctrl.seed


def trained(section: str, key, what: str, idle: str):
    """The finished result for ``key`` (None until there is one). Meanwhile: progress while training,
    the error as a message if it failed, else the ``idle`` hint to press Train."""
    status = training.status(section, key)
    if status.job is not None:
        training.progress_panel(section, status.job, what, left=status.left)
    elif status.error is not None:
        st.error(error_message(what, status.error))
    elif status.result is None:
        st.caption(idle)
    return status.result


def fmt(value, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return tr("n/a")
    return tr.number(value, f".{digits}f")


ctx = setup_page("Neural network")
ctrl = ctx.ctrl
tr = ctx.tr
st.title(tr("K-Means inside a neural network, trained live"))
st.markdown(
    tr(
        "Once K-Means is a differentiable RBF layer it can sit inside a network and be trained with "
        "everything else. Below it does so three times: as the hidden layer of a **classifier**, as the "
        "clustering head of an **autoencoder** (deep clustering), and at a **low σ** where the choice of "
        "map decides whether training works at all. Press *Train*: the training runs on the server in the "
        "background, with a progress bar and a Stop button; a finished setting is kept, so coming back is "
        "instant. The sidebar's σ slider does not apply here: σ is annealed by the training itself."
    )
)


def training_time(column, view) -> None:
    """The metric of how long a finished training took, with its epochs and skipped steps."""
    column.metric(
        tr("training time"),
        tr.format("{seconds:.1f} s", seconds=view.seconds),
        help=tr(
            "{epochs} epochs, {nan} skipped (NaN) steps, torch on one thread.",
            epochs=str(view.epochs_run),
            nan=str(view.nan_steps),
        ),
    )


def map_label(kind: str) -> str:
    return tr(KIND_CONTROL_LABELS[kind])


tab_clf, tab_deep, tab_low = st.tabs(
    [
        tr("1 · RBF network classifier"),
        tr("2 · Deep clustering"),
        tr("3 · Low σ: softmax vs entmax-1.5 vs naive"),
    ]
)

# --- 1. the classifier -----------------------------------------------------------------------------
with tab_clf:
    dataset, n, noise, seed = classifier_data(ctrl)
    if ctrl.dataset not in neural_network.CLASSIFIER_DATASETS:
        st.info(
            tr(
                "The classifier needs labelled classes that a straight line cannot separate, so it uses "
                "**{default}** (500 points, seed {seed}) while the sidebar shows {dataset}. Switch the "
                "sidebar to one of these to classify its points (with its n, noise and seed):",
                default=DEFAULT_DATASET,
                seed=str(seed),
                dataset=ctrl.dataset,
            )
        )
        cols = st.columns(len(neural_network.CLASSIFIER_DATASETS))
        for col, name in zip(cols, neural_network.CLASSIFIER_DATASETS):
            col.button(tr("Use {name}", name=name), key=f"use_{name}", on_click=use_dataset, args=(name,))
    else:
        st.caption(
            tr(
                "Data: the sidebar's **{dataset}** (n = {n}, noise = {noise:g}, seed = {seed}), split 70/30 "
                "into training and test points (stratified, same seed).",
                dataset=dataset,
                n=n,
                noise=noise,
                seed=str(seed),
            )
        )
    with st.form("clf_form", border=True):
        c1, c2, c3, c4 = st.columns(4)
        k = c1.slider(tr("RBF centres k"), 2, 20, 12, key="clf_k")
        kind = c2.radio(tr("Map"), list(TRAIN_KINDS), format_func=map_label, key="clf_kind")
        epochs = c3.select_slider(tr("Epochs (full batch)"), EPOCH_CHOICES, 200, key="clf_epochs")
        lam = c4.select_slider(
            tr("λ (weight of L_σ)"), LAM_CHOICES, 2.0, key="clf_lam", format_func=lambda v: tr.number(v, "g")
        )
        train = st.form_submit_button(tr("▶ Train the classifier"), type="primary")
    key = ("classifier", dataset, n, noise, seed, k, kind, epochs, lam)
    if train:
        with panel(tr("The classifier's settings")):
            neural_network.check_classifier_settings(dataset, k, n=n, noise=noise, seed=seed)
            training.start(
                "classifier",
                key,
                partial(
                    neural_network.train_classifier_view,
                    dataset,
                    k=k,
                    seed=seed,
                    kind=kind,
                    epochs=epochs,
                    lam=lam,
                    n=n,
                    noise=noise,
                ),
            )
    view = trained(
        "classifier",
        key,
        tr("Training the classifier"),
        idle=tr("Press **Train** to train with these settings (the defaults take about a second here)."),
    )
    if view is not None:
        if view.stopped:
            st.warning(
                tr(
                    "Stopped after {run} of {epochs} epochs: everything below describes the network as it "
                    "was then (σ = {sigma:.3g}, not yet the end of the schedule).",
                    run=str(view.epochs_run),
                    epochs=str(view.epochs),
                    sigma=view.sigma_final,
                )
            )
        m = st.columns(5)
        m[0].metric(
            tr("test accuracy"),
            tr.number(view.accuracy, ".3f"),
            delta=tr("{delta:+.3f} vs linear", delta=view.accuracy - view.linear_accuracy),
            help=tr("On the 30 % held-out points, at the final σ."),
        )
        m[1].metric(
            tr("logistic regression"),
            tr.number(view.linear_accuracy, ".3f"),
            help=tr("A linear classifier on the raw inputs (scikit-learn LogisticRegression), same split."),
        )
        m[2].metric(
            tr("distance to Lloyd"),
            tr.number(view.center_distance_to_lloyd, ".3g"),
            help=tr(
                "‖C − Lloyd(C)‖_F in data units: scikit-learn's K-Means (Lloyd) started at the trained "
                "centres, rows matched. 0 means the centres are themselves a K-Means fixed point."
            ),
        )
        m[3].metric(
            tr("largest centre move"),
            tr.number(float(np.nanmax(view.center_distances)), ".3g"),
            help=tr("The largest single centre's distance to its Lloyd point (data units)."),
        )
        training_time(m[4], view)
        left, right = st.columns(2, gap="medium")
        with left, panel(tr("The decision regions")):
            st.markdown(
                "**"
                + tr(
                    "Trained network: {dataset}, k = {k}, {kind}, final σ = {sigma:.3g}",
                    dataset=view.dataset,
                    k=view.k,
                    kind=view.kind,
                    sigma=view.sigma_final,
                )
                + "**"
            )
            chart(
                classifier_figure(view, tr=tr),
                ctrl,
                "clf_result",
                description=tr(
                    "The network classifies {accuracy:.1%} of the test points correctly. Each region is "
                    "coloured by the class the network predicts there (paler where it is less sure); the "
                    "grey lines are the Voronoi cells of the centres, and a centre's colour is the class its "
                    "whole cell gets as σ → 0. × marks where scikit-learn's Lloyd iterations move each "
                    "centre.",
                    accuracy=view.accuracy,
                ),
            )
        with right, panel(tr("The training, replayed")):
            st.markdown(tr("**Replay: decision regions and centres during training**"))
            chart(
                classifier_animation(view, tr=tr),
                ctrl,
                "clf_replay",
                description=tr(
                    "Press Play to replay the training in your browser: the centres (white) move from "
                    "their k-means++ start (grey rings) while σ falls and the regions sharpen; the "
                    "slider scrubs through the epochs."
                ),
            )
        if view.empty_centers:
            st.caption(
                tr.ngettext(
                    "{n} centre owns no training point (no point is nearest to it).",
                    "{n} centres own no training point (no point is nearest to them).",
                    view.empty_centers,
                )
            )
        with panel(tr("The training curves")):
            chart(
                classifier_history_figure(view, tr=tr),
                ctrl,
                "clf_history",
                description=tr(
                    "Loss, accuracy, σ, gradient norms and skipped (NaN) steps after every epoch of the run."
                ),
            )
    with st.expander(tr("What is trained, and what the numbers mean"), expanded=view is None):
        st.markdown(
            tr(
                "**The network.** Points x go through the RBF layer (k centres c_j, responsibilities r), "
                "then a linear read-out W r + b gives the class scores:"
            )
        )
        # the formulas' words in the reader's language (math stays outside the catalog)
        st.latex(
            r"r_{ij} = \operatorname{\text{" + tr("map") + r"}}_j"
            r"\Big(-\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}\Big), \qquad "
            r"\text{"
            + tr("loss")
            + r"} = \underbrace{\tfrac{1}{n}\sum_i \mathrm{CE}\big(W r_i + b,\; y_i\big)}"
            r"_{\text{" + tr("classify") + r"}} + \lambda\,\underbrace{\tfrac{1}{n}\sum_i\sum_j r_{ij}\,"
            r"\lVert x_i - c_j\rVert^2}_{L_\sigma/n\text{ (K-Means)}}"
        )
        st.markdown(
            tr(
                "Full-batch Adam (learning rate 0.05) on centres and read-out. The clustering term uses r "
                "as a constant (EM), so it pulls every centre to its soft centroid; the cross-entropy "
                "moves the centres through r. **σ is annealed** from the data's first critical σ down "
                "by a factor of 10 over the first 70 % of the epochs, then held:"
            )
        )
        st.latex(
            r"\sigma_e = \sigma_0 \left(\tfrac{\sigma_0/10}{\sigma_0}\right)^{e/(E_a - 1)}, \quad "
            r"\sigma_0 = \sqrt{\lambda_{\max}(\operatorname{Cov} X_{\text{train}})}, \quad "
            r"E_a = \operatorname{round}(0.7\,E)"
        )
        st.markdown(
            tr(
                "**The numbers.** *Test accuracy* is measured on the 30 % of points the network never saw, "
                "next to a logistic regression on the raw inputs (a straight line): on moons and circles the "
                "line cannot pass 0.9, the RBF network reaches ≥ 0.97 with k ≤ 12 "
                "(bench/bench_networks.py, seeds 0–4). *Distance to Lloyd*: run scikit-learn's K-Means "
                "(Lloyd's algorithm) from the trained centres; if they barely move, the layer has converged "
                "to a K-Means solution of the training points, which is what σ → 0 predicts. It is not "
                "exactly 0: the cross-entropy also pulls the centres, and σ stops at σ₀/10. As σ → 0 each "
                "centre's whole Voronoi cell gets one class (the centre's colour), so the decision regions "
                "become unions of Voronoi cells."
            )
        )

# --- 2. deep clustering ----------------------------------------------------------------------------
with tab_deep:
    with st.form("deep_form", border=True):
        c1, c2, c3, c4 = st.columns(4)
        deep_dataset = c1.selectbox(
            tr("Data"),
            neural_network.DEEP_VIEW_DATASETS,
            key="deep_dataset",
            format_func=lambda d: tr("digits ({count:,} handwritten 8×8 images)", count=1797)
            if d == "digits"
            else tr("{name} (2-D, 500 points)", name=d),
        )
        deep_kind = c2.radio(tr("Map"), list(TRAIN_KINDS), format_func=map_label, key="deep_kind")
        pretrain = c3.select_slider(tr("Pretraining epochs"), (0, 25, 50, 100, 200), 100, key="deep_pretrain")
        joint = c4.select_slider(tr("Joint epochs"), (10, 25, 50, 100), 50, key="deep_joint")
        train_deep = st.form_submit_button(tr("▶ Train the autoencoder + RBF layer"), type="primary")
    st.caption(
        tr(
            "Seed {seed} (the sidebar's) for the network, the order of the batches and K-Means; k = 10 for "
            "digits, else the data set's natural k; λ = 3.",
            seed=str(ctrl.seed),
        )
    )
    deep_key = ("deep", deep_dataset, ctrl.seed, deep_kind, pretrain, joint)
    if train_deep:
        training.start(
            "deep",
            deep_key,
            partial(
                neural_network.train_deep_view,
                deep_dataset,
                seed=ctrl.seed,
                kind=deep_kind,
                pretrain_epochs=pretrain,
                joint_epochs=joint,
            ),
        )
    dview = trained(
        "deep",
        deep_key,
        tr("Training the autoencoder"),
        idle=tr("Press **Train**: the defaults on digits take about 5–10 s here."),
    )
    if dview is not None:
        if dview.stopped:
            joint_started = dview.epochs_run > dview.pretrain_epochs
            stopped = dict(run=str(dview.epochs_run), epochs=str(dview.pretrain_epochs + dview.joint_epochs))
            st.warning(
                tr(
                    "Stopped after {run} of {epochs} epochs (pretraining included): the numbers describe the "
                    "model as it was then.",
                    **stopped,
                )
                if joint_started
                else tr(
                    "Stopped after {run} of {epochs} epochs (pretraining included): the numbers describe the "
                    "model as it was then. The joint phase had not started, so the *joint model* below is "
                    "K-Means on the codes of the partly pretrained autoencoder.",
                    **stopped,
                )
            )
        m = st.columns(4)
        raw = dview.kmeans_raw_nmi
        m[0].metric(
            tr("NMI, joint model"),
            fmt(dview.nmi),
            delta=None if raw is None else tr("{delta:+.3f} vs K-Means raw", delta=dview.nmi - raw),
            help=tr("Normalised mutual information of the clusters with the true classes (1 = identical)."),
        )
        m[1].metric(
            tr("ARI, joint model"),
            fmt(dview.ari),
            help=tr("Adjusted Rand index with the true classes (0 = chance)."),
        )
        m[2].metric(
            tr("K-Means on raw inputs"), fmt(raw), help=tr("scikit-learn KMeans, same k, n_init = 10.")
        )
        training_time(m[3], dview)
        left, right = st.columns([1.25, 1], gap="medium")
        with left, panel(tr("The latent space")):
            st.markdown(
                "**"
                + tr(
                    "Latent codes during the joint phase: {dataset}, k = {k}, {kind}",
                    dataset=dview.dataset,
                    k=dview.k,
                    kind=dview.kind,
                )
                + "**"
            )
            shown_points = dict(shown=str(len(dview.point_class)), total=str(dview.n_points))
            chart(
                latent_figure(dview, tr=tr),
                ctrl,
                "deep_latent",
                description=tr(
                    "A fixed random {shown} of the {total} points, shown in the latent space itself (2-D): "
                    "the coloured cells are the exact Voronoi cells of the centres. Play replays the joint "
                    "training; hover a point for its true class.",
                    **shown_points,
                )
                if dview.exact_voronoi
                else tr(
                    "A fixed random {shown} of the {total} points, shown in a 2-D PCA view of the {dim}-D "
                    "codes: Voronoi cells of {dim}-D codes do not project to cells in 2-D, so none are "
                    "drawn; colours are the clusters in the full space. Play replays the joint training; "
                    "hover a point for its true class.",
                    dim=str(dview.latent_dim),
                    **shown_points,
                ),
            )
        with right:
            st.markdown(tr("**Clusters against the true classes**"))
            table = pd.DataFrame(
                [
                    {
                        tr("method"): row["method"],
                        "NMI": fmt(row["NMI"]),
                        "ARI": "—" if row["ARI"] is None else fmt(row["ARI"]),
                    }
                    for row in neural_network.deep_table(dview, tr=tr)
                ]
            )
            st.dataframe(
                table,
                hide_index=True,
                width="stretch",
                column_config={
                    "NMI": st.column_config.TextColumn(width="small"),
                    "ARI": st.column_config.TextColumn(width="small"),
                },
            )
            st.caption(
                tr(
                    "NMI/ARI compare cluster labels with the true classes, which training never sees (ARI is "
                    "measured for the joint model only). *AE alone*: the same autoencoder after pretraining, "
                    "before the joint phase. K-Means baselines: scikit-learn KMeans with the same k and "
                    "seed, n_init = 10."
                )
            )
            if dview.dataset == "digits":
                st.markdown(
                    tr(
                        "**Honest limits.** On digits the joint model beats K-Means on the raw pixels (mean "
                        "NMI 0.806 vs 0.742 over seeds 0–4, bench/bench_networks.py), but the latent width "
                        "(4) and λ (3) were chosen by looking at this same NMI on seeds 0–2, so the margin "
                        "is optimistic. About a third of it is the autoencoder alone (AE + K-Means row); the "
                        "joint phase adds ≈ 0.04."
                    )
                )
            else:
                st.markdown(
                    tr(
                        "**Honest limits.** On a 2-D set the autoencoder has nothing to compress: its codes "
                        "are a warped copy of the plane, and deep clustering does **not** beat K-Means on "
                        "the raw points (moons, seed 0: NMI 0.16 vs 0.37). It is here to show the exact "
                        "latent Voronoi cells, not as a better clustering."
                    )
                )
        with panel(tr("The training curves")):
            chart(
                deep_history_figure(dview, tr=tr),
                ctrl,
                "deep_history",
                description=tr(
                    "Per epoch: reconstruction and clustering loss, NMI of the joint phase against the "
                    "baselines, σ, and the mean gradient norm of each part of the network ({nan} skipped "
                    "NaN steps in total).",
                    nan=str(dview.nan_steps),
                ),
            )
    with st.expander(tr("What is trained"), expanded=dview is None):
        st.markdown(
            tr(
                "An MLP autoencoder (d → 256 → 128 → h and back) is first trained on reconstruction alone. "
                "K-Means on its codes places the k centres of an RBF layer; then encoder, decoder and "
                "centres are trained **together** on mini-batches B:"
            )
        )
        st.latex(
            r"\text{" + tr("loss") + r"} = \frac{1}{|B|}\sum_{i\in B} \lVert x_i - \hat x_i\rVert^2 \;+\; "
            r"\lambda\,\frac{1}{|B|}\sum_{i\in B}\sum_j r_{ij}\,\lVert z_i - c_j\rVert^2, \qquad "
            r"z_i = \frac{e_i}{\sqrt{\operatorname{\text{" + tr("mean") + r"}}_{l\in B}\lVert e_l\rVert^2}}"
        )
        st.markdown(
            tr(
                "The clustering term pulls each code z_i toward its centres while the decoder keeps the "
                "codes informative; dividing the encoder output e by its batch RMS stops the shortcut of "
                "shrinking every code. σ (in code units) falls geometrically from the median distance of a "
                "code to its nearest centre to a tenth of it over the joint epochs:"
            )
        )
        st.latex(
            r"\sigma_e = \sigma_0\, 10^{-e/(E_{\text{" + tr("joint") + r"}}-1)}, \qquad "
            r"\sigma_0 = \sqrt{\operatorname{median}_i \min_j \lVert z_i - c_j\rVert^2}"
        )
        st.markdown(
            tr(
                "Cluster labels are each code's nearest centre (the σ → 0 assignment). Deterministic for a "
                "seed at a fixed number of torch threads."
            )
        )

# --- 3. low σ --------------------------------------------------------------------------------------
with tab_low:
    low_dataset = dataset
    st.markdown(
        tr(
            "The classifier of tab 1 ({dataset}, 500 points, default noise, seed {seed}; same k-means++ "
            "start and read-out weights for every map) is trained at **one fixed low σ**, without annealing, "
            "once with each map. What breaks, and what keeps training?",
            dataset=low_dataset,
            seed=str(ctrl.seed),
        )
    )
    with st.form("low_form", border=True):
        c1, c2, c3, c4 = st.columns(4)
        low_sigma = c1.select_slider(
            tr("σ (fixed, data units)"),
            LOW_SIGMAS,
            0.01,
            key="low_sigma",
            format_func=lambda s: tr.number(s, "g"),
        )
        low_k = c2.slider(tr("RBF centres k"), 2, 20, 12, key="low_k")
        low_epochs = c3.select_slider(tr("Epochs"), (20, 40, 60, 100, 200), 60, key="low_epochs")
        low_dtype = c4.radio(tr("Precision"), ("float32", "float64"), key="low_dtype", horizontal=True)
        train_low = st.form_submit_button(tr("▶ Train all three maps"), type="primary")
    low_key = ("low", low_dataset, ctrl.seed, low_sigma, low_k, low_epochs, low_dtype)
    if train_low:
        with panel(tr("The low-σ settings")):
            neural_network.check_low_sigma_settings(low_dataset, low_k, low_sigma, low_dtype, seed=ctrl.seed)
            training.start(
                "low",
                low_key,
                partial(
                    neural_network.train_low_sigma_view,
                    low_dataset,
                    sigma=low_sigma,
                    k=low_k,
                    seed=ctrl.seed,
                    epochs=low_epochs,
                    dtype=low_dtype,
                ),
            )
    lview = trained(
        "low",
        low_key,
        tr("Training the three maps"),
        idle=tr("Press **Train**: the defaults take well under a second here."),
    )
    if lview is not None:
        comp = lview.comparison
        if comp.stopped:
            st.warning(tr("Stopped early: only the maps and epochs trained before Stop are shown."))
        with panel(tr("The three maps")):
            chart(
                low_sigma_figure(comp, lview.n_train, tr=tr),
                ctrl,
                "low_curves",
                description=tr(
                    "At σ = {sigma:g} in {dtype}: per epoch, each map's test accuracy, the gradient the "
                    "cross-entropy sends to the centres through r, the share of exactly one-hot rows, and "
                    "how many steps were skipped because something was NaN.",
                    sigma=comp.sigma,
                    dtype=comp.dtype,
                ),
            )
            rows = []
            for kind in comp.kinds:
                if kind not in comp.summary:
                    continue
                s, h = comp.summary[kind], comp.history[kind]
                rows.append(
                    {
                        tr("map"): tr(KIND_LABELS[kind]),
                        tr("final test accuracy"): tr.number(s["final_test_accuracy"], ".3f"),
                        tr("skipped (NaN) steps"): tr(
                            "{count} of {total}", count=str(s["nan_steps"]), total=str(len(h["epoch"]))
                        ),
                        tr("NaN rows of r (last epoch)"): tr(
                            "{count} of {total}", count=str(h["nan_rows"][-1]), total=str(lview.n_train)
                        ),
                        tr("one-hot rows (last epoch)"): tr.format(
                            "{share:.1f} %", share=100 * s["final_one_hot_fraction"]
                        ),
                        tr("‖∂CE/∂C‖ through r (last)"): (
                            "NaN"
                            if math.isnan(s["final_grad_norm_centers_ce"])
                            else tr.number(s["final_grad_norm_centers_ce"], ".3g")
                        ),
                    }
                )
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
            first = comp.naive_nan_sigma_first
            st.caption(
                tr(
                    "For the starting centres in {dtype}, the first naive row is NaN (0/0) below σ = "
                    "{first:.3g}; every row below σ = {all:.3g}.",
                    dtype=comp.dtype,
                    first=first,
                    all=comp.naive_nan_sigma_all,
                )
                if comp.naive_nan_sigma_all > 0
                else tr(
                    "For the starting centres in {dtype}, the first naive row is NaN (0/0) below σ = "
                    "{first:.3g}; some rows never are (the k-means++ centres sit on training points, so "
                    "those rows have distance 0).",
                    dtype=comp.dtype,
                    first=first,
                )
            )
    with st.expander(tr("What breaks, exactly"), expanded=True):
        st.markdown(
            tr(
                "**Naive** is softmax written literally, r = φ / Σφ with φ = exp(−d/(2σ²)). Once even the "
                "nearest centre's φ underflows, the row is 0/0:"
            )
        )
        st.latex(
            r"r_{ij} = \frac{e^{-d_{ij}/2\sigma^2}}{\sum_l e^{-d_{il}/2\sigma^2}} = \frac{0}{0} = \text{NaN} "
            r"\quad\text{"
            + tr("when")
            + r"}\quad \min_j \frac{d_{ij}}{2\sigma^2} \gtrsim 103 \;(\text{float32}),\; 745 "
            r"\;(\text{float64})"
        )
        st.markdown(
            tr(
                "A NaN loss or gradient makes the step be skipped (and counted), so the naive network stops "
                "learning. The backward pass breaks a little earlier than the forward pass: the derivative "
                "of φ/S carries 1/S², which overflows while S is still a tiny positive number — so a run can "
                "show finite rows and still skip every step."
            )
        )
        st.markdown(
            tr(
                "**Softmax** here is the stable, max-shifted softmax that rbfviz uses everywhere. It never "
                "gives NaN. What it loses is the cross-entropy's gradient to the centres *through r*: "
                "∂r/∂z = r(1 − r) ≈ e^(−gap/2σ²) decays exponentially in 1/σ² and underflows to exactly 0 "
                "in float32. The read-out and the clustering term (which uses r as a constant) keep training."
            )
        )
        st.markdown(
            tr(
                "**Entmax-1.5** gives exactly one-hot rows outside a band around each Voronoi edge (a gap "
                "in squared distance below 4σ²); on those rows its Jacobian, and so the gradient through r, "
                "is exactly 0 — by construction, not by underflow — and O(1) inside the band. No NaN."
            )
        )
        st.markdown(
            tr(
                "So *softmax breaks at low σ, entmax keeps training* is literally true only against the "
                "naive map. Against the stable softmax both keep training, and both lose the gradient "
                "through r on rows far from an edge; the table counts how many rows still carry it."
            )
        )
