"""Gaussian mixture: softmax responsibilities at σ are the E-step of a spherical Gaussian mixture with
equal weights and the variance fixed at σ²; next to it, the mixture scikit-learn learns by EM."""

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from rbfviz import mixture, responsibilities
from rbfviz.i18n import N_
from rbfviz.views.gaussian_mixture.figures import mixture_figure
from ui import compute
from ui import upload as uploads
from ui.page import chart, panel, setup_page


@st.cache_data(max_entries=64, ttl=compute.TTL, show_spinner=False)
def fitted_mixture(key: tuple, _X, _start) -> mixture.MixtureFit:
    """EM of a spherical mixture from the view's start. key: (data key, k, start's init, its picks,
    dtype, seed) fixes the points and the start, so the arrays themselves are not hashed."""
    return mixture.fit_mixture(_X, _start.shape[0], start=_start, seed=key[-1])


def start_of(ctrl):
    """The controls whose start the view uses, and a note: annealing has no start point (every centre
    begins at the data mean), so that init is replaced by k-means++ seeding from the same seed."""
    if ctrl.init == "anneal":
        return replace(ctrl, init="kmeans++"), N_(
            "Annealing starts every centre at the data mean, so it has no start to fit a mixture from; "
            "this view starts both models from k-means++ seeding (same data seed) instead."
        )
    return ctrl, None


ctx = setup_page("Gaussian mixture")
ctrl = ctx.ctrl
tr = ctx.tr
sigma = float(ctrl.sigma)
st.title(tr("Gaussian mixture: softmax is its E-step"))
st.markdown(
    tr(
        "An RBF network with softmax responsibilities is a Gaussian mixture in disguise. Give every "
        "component the same weight 1/k and the same variance σ² (σ set by hand, here with the sidebar's σ), "
        "and the mixture's E-step — the probability that point i came from component j — is exactly the "
        "softmax responsibility r_ij. A Gaussian mixture fitted by EM learns what the RBF network fixes."
    )
)
if ctrl.kind != "softmax":
    st.info(
        tr(
            "This view always uses softmax: it is the map that is a Gaussian mixture's posterior ({kind} is "
            "not). The sidebar's map applies to the other views.",
            kind=ctrl.kind,
        )
    )

shown = None
with panel(tr("The two models")):
    rbf_ctrl, note = start_of(replace(ctrl, kind="softmax"))
    if note:
        st.info(tr(note))
    X, _ = compute.data(ctrl)
    start = compute.start(rbf_ctrl)
    with st.spinner(tr("Fitting scikit-learn's Gaussian mixture…")):
        fit = fitted_mixture(
            (ctrl.data_key(), ctrl.k, rbf_ctrl.init, rbf_ctrl.start_picks(), ctrl.dtype, ctrl.seed), X, start
        )
    centers = compute.centers_at(rbf_ctrl).centers  # EM at σ with σ and the weights fixed
    resp = responsibilities(X, centers, sigma, "softmax")
    difference = mixture.posterior_difference(X, centers, sigma)
    fixed_score = mixture.fixed_mixture(centers, sigma).score(np.asarray(X, dtype=np.float64))
    shown = (X, fit, centers, resp, difference, fixed_score)

if shown is not None:
    X, fit, centers, resp, difference, fixed_score = shown
    k = ctrl.k
    eps = float(np.finfo(X.dtype).eps)
    cols = st.columns(4)
    cols[0].metric(
        "max |predict_proba − r|",
        tr.number(difference, ".1e"),
        help=tr(
            "The largest difference, over every point and centre, between scikit-learn's "
            "GaussianMixture.predict_proba (means = the RBF centres, every variance σ², every weight 1/k) "
            "and rbfviz.responsibilities(X, C, σ, 'softmax'), in {dtype} (machine ε = {eps:.1e}).",
            dtype=ctrl.dtype,
            eps=eps,
        ),
    )
    cols[1].metric(
        tr("learned σ_j (fixed σ)"),
        tr.format("{low:.3g} – {high:.3g}", low=fit.sigmas.min(), high=fit.sigmas.max()),
        delta=tr.format("σ = {sigma:.3g}", sigma=sigma),
        delta_color="off",
        delta_arrow="off",
        help=tr(
            "The spread of each learned component (its standard deviation in data units) against the "
            "one σ the RBF network uses for every centre."
        ),
    )
    cols[2].metric(
        tr("learned π_j (fixed 1/k)"),
        tr.format("{low:.3f} – {high:.3f}", low=fit.weights.min(), high=fit.weights.max()),
        delta=tr.format("1/k = {weight:.3f}", weight=1 / k),
        delta_color="off",
        delta_arrow="off",
        help=tr("The learned mixing weights (they sum to 1) against the RBF network's equal weights."),
    )
    cols[3].metric(
        tr("log-likelihood per point"),
        tr.number(fit.log_likelihood, ".3f"),
        delta=tr("fixed mixture {score:.3f}", score=fixed_score),
        delta_color="off",
        delta_arrow="off",
        help=tr(
            "Mean log-likelihood of the points, in nats: under the learned mixture, and under the fixed "
            "one (RBF centres at σ, variance σ², weights 1/k). EM maximises the first."
        ),
    )
    st.caption(
        tr(
            "The identity holds to rounding: {difference:.1e} against float32's machine ε = {eps:.1e} "
            "(float32: the responsibilities are computed in float32, scikit-learn's posterior mostly in "
            "float64).",
            difference=difference,
            eps=eps,
        )
        if ctrl.dtype == "float32"
        else tr(
            "The identity holds to rounding: {difference:.1e} against {dtype}'s machine ε = {eps:.1e}.",
            difference=difference,
            dtype=ctrl.dtype,
            eps=eps,
        )
    )

    with panel(tr("The figure")):
        name = uploads.data_name(ctrl)
        fig = mixture_figure(
            X,
            fit,
            centers,
            resp,
            sigma,
            title=tr.format(
                "{name}, n = {n}, k = {k}, σ = {sigma:.3g}", name=name, n=ctrl.n, k=k, sigma=sigma
            ),
            tr=tr,
        )
        wide, narrow = np.argmax(fit.sigmas), np.argmin(fit.sigmas)
        chart(
            fig,
            ctrl,
            "mixture",
            fill=True,
            description=tr(
                "Left, the mixture scikit-learn learned: its components' spreads range from σ = "
                "{narrow_sigma:.3g} (component {narrow}) to {wide_sigma:.3g} (component {wide}) and its "
                "weights from {low:.2f} to {high:.2f}. Right, the RBF network: every circle has the same "
                "radius σ = {sigma:.3g} and every centre the same weight 1/k = {weight:.2f}. Solid circles "
                "have radius σ (about 39 % of a 2-D Gaussian's mass lies inside), dotted ones 2σ (about "
                "86 %); point colours mix the cluster colours by each model's responsibilities.",
                narrow_sigma=fit.sigmas[narrow],
                narrow=int(narrow),
                wide_sigma=fit.sigmas[wide],
                wide=int(wide),
                low=fit.weights.min(),
                high=fit.weights.max(),
                sigma=sigma,
                weight=1 / k,
            ),
        )

    with panel(tr("The table")):
        st.markdown(
            tr(
                "**Learned against fixed**, component j next to RBF centre j (both started from the same "
                "point)"
            )
        )

        def num(value: float, spec: str = ".4g") -> str:
            return tr.number(value, spec)

        def pair(p) -> str:  # a point: "(x, y)", or "(x; y)" where the comma is the decimal separator
            return tr.format(
                "({x:.3g}; {y:.3g})" if tr.decimal_comma else "({x:.3g}, {y:.3g})", x=p[0], y=p[1]
            )

        table = pd.DataFrame(
            {
                "j": [str(j) for j in range(k)],
                tr("learned σ_j"): [num(s) for s in fit.sigmas],
                tr("fixed σ"): [num(sigma)] * k,
                "σ_j / σ": [num(s / sigma, ".3g") for s in fit.sigmas],
                tr("learned π_j"): [num(w) for w in fit.weights],
                tr("fixed 1/k"): [num(1 / k)] * k,
                tr("learned mean μ_j"): [pair(m) for m in fit.means],
                tr("RBF centre c_j at σ"): [pair(c) for c in np.asarray(centers, float)],
            }
        )
        st.table(table.set_index("j"))
        start_text = (
            tr("the same start as the RBF network")
            if ctrl.init != "custom"
            else tr("the same picked points as the RBF network")
        )
        em_text = (
            tr.ngettext("EM converged after {n} iteration.", "EM converged after {n} iterations.", fit.n_iter)
            if fit.converged
            else tr.ngettext(
                "EM did NOT converge after {n} iteration.",
                "EM did NOT converge after {n} iterations.",
                fit.n_iter,
            )
        )
        st.caption(
            tr(
                "scikit-learn GaussianMixture(covariance_type='spherical'), means started from {start} "
                "(initial weights and variances from its k-means++ seeding, random_state = data seed "
                "{seed}). {em} The RBF centres are EM at this σ with σ and the weights held fixed.",
                start=start_text,
                seed=str(ctrl.seed),
                em=em_text,
            )
        )

with panel(tr("The explanation")):
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(tr("**Why the E-step is softmax.** A spherical Gaussian component in d dimensions has"))
        st.latex(
            r"\begin{aligned}\log \pi_j\,\mathcal N(x \mid c_j, \sigma_j^2 I) = {} & \log \pi_j - "
            r"\frac{\lVert x - c_j\rVert^2}{2\sigma_j^2} \\ & - d \log \sigma_j - \tfrac d2 \log 2\pi"
            r"\end{aligned}"
        )
        st.markdown(
            tr(
                "and the E-step normalises these over j (a softmax). With π_j = 1/k and σ_j = σ for every j, "
                "all terms but the distance term are the same for every component and cancel:"
            )
        )
        st.latex(
            r"p(j \mid x_i) = \operatorname{softmax}_j\!\Big(-\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}\Big)"
            r" = r_{ij}"
        )
        st.markdown(
            tr(
                "The number above measures it: scikit-learn's `predict_proba` for that mixture against "
                "rbfviz's softmax responsibilities, the same to rounding."
            )
        )
    with right:
        st.markdown(
            tr(
                "**What the RBF network fixes, and what EM learns.** The RBF network (soft K-Means) sets one "
                "σ for every centre by hand and weighs every centre equally; its EM moves only the centres, "
                "each to the mean of its points weighted by r. A Gaussian mixture fitted by EM also learns "
                "a spread σ_j for each component and a weight π_j: a wide, heavy component takes the points "
                "in its tails, which the RBF network would split by the Voronoi edge between equal circles."
            )
        )
        st.markdown(
            tr(
                "**σ → 0 gives K-Means.** As the fixed σ shrinks, every point's posterior goes to 1 for its "
                "nearest centre and 0 for the others: the E-step becomes K-Means' assignment and the mean "
                "update becomes Lloyd's. scikit-learn's User Guide says it in one line: K-means is "
                "equivalent to the expectation-maximization algorithm with a small, all-equal, diagonal "
                "covariance matrix."
            )
        )
