"""Annealing: the centres as σ falls — the animated plane, the bifurcation diagram, the collapse error, the
free energy and its terms, and a race of K-Means restarts against one annealing run."""

import math

import numpy as np
import streamlit as st

from rbfviz import cost
from rbfviz.i18n import N_
from rbfviz.restarts import MAX_RESTARTS
from rbfviz.validate import entmax_alpha
from rbfviz.views.annealing import words as annealing_words
from rbfviz.views.annealing.arrays import free_energy_terms, split_rows, splits_in_words
from rbfviz.views.annealing.figures import (
    FRAME_MS,
    MAX_ANIMATED_POINTS,
    SHANNON_ENTROPY,
    bifurcation_figure,
    collapse_figure,
    free_energy_equation,
    free_energy_figure,
    trajectory_figure,
)
from rbfviz.views.annealing.levels import annealing_levels
from rbfviz.views.annealing.receipt import annealing_numbers, annealing_receipt
from rbfviz.views.annealing.restarts import (
    INIT_NAMES,
    centres_figure,
    distortion_figure,
    race_numbers,
    race_words,
)
from rbfviz.views.common.scrub import scrub_payload
from ui import budget, compute, exports, scrub_parts
from ui import restarts as race_runs
from ui import session_keys as keys
from ui.page import CHART_CONFIG, chart, follows_sigma, intro, panel, setup_page
from ui.scrub import scrub_figure

# Where the K-Means reference C* starts (rbfviz.collapse's kmeans_start), shown as tr(name)
KMEANS_STARTS = {
    "annealed end point": N_("annealed end point"),
    "k-means++": "k-means++",
    "given": N_("given"),
}

ctx = setup_page("Annealing", sigma_on_figure=True)
ctrl = ctx.ctrl
tr = ctx.tr
st.title(tr("Annealing: from the data mean to K-Means as σ falls"))
intro(
    tr(
        "Start every centre at the data mean with a large σ, then cool: at each σ of the slider's grid, "
        "run EM (every centre to its responsibility-weighted mean) to the soft fixed point, and use it as "
        "the start for the next, smaller σ. The centres stay together until σ reaches a critical value, "
        "then split along the data's principal axis, split again, and finally sit on K-Means centroids. "
        "This view always starts from the data mean; the *Initialisation* control applies to the Explorer "
        "and Equivalence views."
    )
)


# The annealing run and its collapse study cost about (n + N0) × k² (rbfviz.cost): a heavy setting waits
# for the student's "Compute anyway" instead of holding the process without warning.
annealing_allowed = budget.within_budget(
    "annealing",
    tr("the annealing run and its collapse study"),
    compute.annealing_view_key(ctrl),
    cost.annealing_cost(ctrl.n, ctrl.k, ctrl.kind),
    budget.smaller_setting(ctrl, cost.annealing_cost),
    ready=compute.annealing_view_ready(ctrl),
)


def sigma_panels(ctrl) -> None:
    """Every panel below the introduction follows σ: rerun alone when σ settles (ui.page.follows_sigma)."""
    view = None
    with panel(tr("The annealing run")):
        view = compute.annealing_view(ctrl)
        X, _ = compute.data(ctrl)

    downloads = []  # filled figure by figure, shown as one row at the end
    if view is not None:
        name = f"{ctrl.dataset}, n = {ctrl.n}, k = {ctrl.k}, {ctrl.kind}, {ctrl.dtype}"

        # --- 1. the plane, animated in the browser ---------------------------------------------------
        st.subheader(tr("1 · The centres in the plane"))
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel(tr("The animated plane")):
            st.markdown(f"**{name}**")

            def build(progress) -> bytes:
                return scrub_payload(
                    annealing_levels(view, X, presenter=ctrl.presenter, tr=tr),
                    view.sigmas,
                    config=CHART_CONFIG,
                    initial=ctx.scale.index(ctx.scale.default),
                    large=ctrl.presenter,
                    play_ms=FRAME_MS,
                    tr=ctx.tr,
                )

            payload = scrub_parts.scrub_payload("annealing", ctrl, (name, ctrl.lang), build)
            scrub_figure(payload, key="scrub_annealing", grid=view.sigmas)
            downloads.append(
                exports.figure_download(
                    lambda: trajectory_figure(view, X, ctrl.sigma, tr=tr),
                    "annealing_plane",
                    tr("Animation (HTML)"),
                )
            )
            page_params = exports.receipt_params(ctrl)
            page_params.pop("init")  # annealing always starts from the data mean
            downloads.append(exports.interactive_page_download(payload, "annealing", ctrl, page_params))
            sample = (
                ""
                if X.shape[0] <= MAX_ANIMATED_POINTS
                else " "
                + tr(
                    "The plane recolours a fixed random {shown} of the {n} points (all are drawn in "
                    "light grey).",
                    shown=MAX_ANIMATED_POINTS,
                    n=X.shape[0],
                )
            )
            st.caption(
                tr(
                    "**▶ Play** runs the whole annealing in your browser, one frame per σ level (no server "
                    "round trip); the σ slider scrubs through the levels (arrow keys too), and the diagrams "
                    "below follow when you stop. Points take the colours of their responsibilities at that "
                    "level (grey = a NaN row of the naive map); dotted lines are each centre's whole path, "
                    "solid lines its trail so far; × are the K-Means centroids C*."
                )
                + sample
            )
        with text_col:
            st.markdown(tr("**At each σ, EM to the soft fixed point:**"))
            # the formula's one word in the reader's language (math stays outside the catalog)
            st.latex(
                r"r_{ij} = \operatorname{\text{" + tr("map") + r"}}_j"
                r"\!\Big(-\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}\Big)"
            )
            st.latex(r"c_j \leftarrow \frac{\sum_i r_{ij}\, x_i}{\sum_i r_{ij}}")
            st.markdown(
                tr(
                    "A level stops when no centre moves by more than 10⁻¹⁰ × the data scale; the next level "
                    "starts from its centres. Centres that still coincide get a nudge of 10⁻³ × the data "
                    "scale, because coincident centres sit on an exact saddle."
                )
            )
            finite_levels = np.isfinite(view.centers).all(axis=(1, 2))
            unconverged = int(np.count_nonzero(~view.converged & finite_levels))
            st.metric(
                tr("σ levels"),
                f"{len(view.sigmas)}",
                help=tr(
                    "The σ values of the slider above the figure, from above the first split to below the "
                    "exact collapse."
                ),
            )
            if unconverged:
                st.caption(
                    tr(
                        "{count} level(s) hit the cap of 500 EM iterations (critical slowing near a split).",
                        count=unconverged,
                    )
                )
            st.markdown(
                tr(
                    "**K-Means reference C\\*:** scikit-learn's Lloyd run from the {start}, so centre j and "
                    "centroid j are the same cluster whenever the path ends finite.",
                    start=tr(KMEANS_STARTS.get(view.kmeans_start, view.kmeans_start)),
                )
            )
            first_nan = np.flatnonzero(view.nan_rows > 0)
            if first_nan.size:
                st.warning(
                    tr(
                        "The {kind} map breaks on this path at σ = {sigma:.3g}: {rows} of {n} rows "
                        "of r are NaN "
                        "there in {dtype} (every exp(z) of such a row underflowed: 0/0), and NaN centres "
                        "follow. See the Stability view.",
                        kind=ctrl.kind,
                        sigma=view.sigmas[first_nan[0]],
                        rows=int(view.nan_rows[first_nan[0]]),
                        n=X.shape[0],
                        dtype=ctrl.dtype,
                    )
                )

        # --- 2. bifurcation diagram ------------------------------------------------------------------
        st.subheader(tr("2 · Bifurcations: where the centres split"))
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel(tr("The bifurcation diagram")):
            fig, _ = chart(
                bifurcation_figure(view, ctrl.sigma, tr=tr),
                ctrl,
                "annealing_bifurcation",
                description=annealing_words.bifurcation(view, tr=tr) + " " + splits_in_words(view, tr=tr),
            )
            downloads.append(exports.figure_download(fig, "annealing_bifurcation", tr("Bifurcations (HTML)")))
            st.caption(
                tr(
                    "Each centre's coordinate along the principal axis u₁ of the data (from the data mean), "
                    "against σ; × are the K-Means centroids. σ decreases to the right. Diamonds: the "
                    "predicted σ of every split, on the branch that splits; circles: the first level "
                    "where it "
                    "was seen. A stack that splits across u₁ stays one line here, but its markers still show."
                )
            )
        with text_col:
            st.markdown(
                tr(
                    "**Predicted first split.** Above σ_c the only stable fixed point puts every centre at "
                    "the mean; with λ_max the largest eigenvalue of the (1/N) covariance of the data:"
                )
            )
            st.latex(r"\text{softmax: } \sigma_c^2 = \lambda_{\max}")
            st.latex(r"\text{entmax-1.5: } \sigma_c^2 = \sqrt{k}\,\lambda_{\max}")
            measured = view.sigma_critical_measured
            c1, c2 = st.columns(2)
            c1.metric(
                tr("σ_c predicted"),
                tr.number(view.sigma_critical_predicted),
                help=tr("λ_max = {lambda_max:.4g} (data units²)", lambda_max=view.lambda_max)
                + f"; {ctrl.kind}"
                + (f", k = {ctrl.k}" if entmax_alpha(ctrl.kind) is not None else ""),
            )
            c2.metric(
                tr("first split measured"),
                tr("none") if measured is None else tr.number(measured),
                help=tr(
                    "The first grid σ at which some centre is more than 1 % of the data scale from the mean."
                ),
            )
            if measured is not None:
                st.caption(
                    tr(
                        "Measured / predicted = {ratio:.3f}. Being a grid value, the measured split lags the "
                        "true one by up to one cooling step. These thresholds are derived for this project, "
                        "not quoted from the paper.",
                        ratio=measured / view.sigma_critical_predicted,
                    )
                )

        st.markdown(
            tr(
                "**Every later split predicted.** A stack of m coincident centres at c_y splits when σ² "
                "reaches the top eigenvalue of its cluster's responsibility-weighted covariance (Rose 1998), "
                "the same derivation as the first split:"
            )
        )
        st.latex(
            r"C_{x|y} = \sum_i \frac{r_{iy}}{N_y}(x_i - c_y)(x_i - c_y)^{\top},\qquad "
            r"\sigma^2 = \lambda_{\max}(C_{x|y})\ \text{(softmax)},\qquad "
            r"\sigma^2 = \sqrt{m}\,\lambda_{\max}(C_{x|y})\ \text{(entmax-1.5)}"
        )
        rows = split_rows(view, tr=tr)
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch")
            step = float(np.exp(np.mean(np.abs(np.diff(np.log(view.sigmas)))))) - 1.0
            st.caption(
                tr(
                    "The covariance C(x|y) is taken where σ² = f·λ_max(C(x|y) at σ) on the branch that keeps "
                    "the stack together. The measured split lies between two grid levels; error = "
                    "predicted / "
                    "first level seen − 1, so up to one grid step (here {step:.0f} %) is the grid, not the "
                    "theory. For entmax-1.5 the formula is exact only where the stack's points belong to it "
                    "alone (r_iy = 1); the same linearisation with √r_iy weights is the column '{column}'. "
                    "Later splits are approximate in the literature: the table says by how much, here.",
                    step=100 * step,
                    column=tr("σ linearised (√r)"),
                )
            )
        else:
            st.caption(tr("The centres never split on this σ grid: nothing to predict."))

        # --- 3. the collapse error -------------------------------------------------------------------
        st.subheader(tr("3 · The collapse onto K-Means: E(σ)"))
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel(tr("The collapse error")):
            fig, _ = chart(
                collapse_figure(view, ctrl.sigma, tr=tr),
                ctrl,
                "annealing_collapse",
                description=annealing_words.collapse(view, ctrl.sigma, tr=tr),
            )
            downloads.append(exports.figure_download(fig, "annealing_collapse", tr("E(σ) figure (HTML)")))
            st.caption(
                tr(
                    "Black: E(σ) of the soft fixed point reached by EM from C* at each σ below σ_c (above it "
                    "that fixed point is the data mean). Grey dotted: the annealed path's distance to C*. "
                    "Shaded: the σ window of the fit."
                )
            )
        with text_col:
            st.latex(r"E(\sigma) = \min_{\pi}\, \lVert C_\sigma[\pi] - C^{*} \rVert_F")
            fit = view.slope
            c1, c2 = st.columns(2)
            if math.isfinite(fit.slope):
                c1.metric(
                    tr("fitted log-log slope"),
                    tr.number(fit.slope, ".2f"),
                    help=tr(
                        "least squares of log E on log σ over {points} grid points, σ ∈ [{low:.3g}, "
                        "{high:.3g}], "
                        "where E is above rounding.",
                        points=fit.n_points,
                        low=fit.sigma_min,
                        high=fit.sigma_max,
                    ),
                )
                st.caption(
                    tr(
                        "Fitted on σ ∈ [{low:.3g}, {high:.3g}] ({points} points, from σ* up to σ_c).",
                        low=fit.sigma_min,
                        high=fit.sigma_max,
                        points=fit.n_points,
                    )
                )
            else:
                c1.metric(
                    tr("fitted log-log slope"),
                    tr("n/a"),
                    help=tr("fewer than 3 usable points ({points}).", points=fit.n_points),
                )
            exact = view.sigma_exact_measured
            c2.metric(tr("E = 0 from σ (measured)"), tr("never") if exact is None else tr.number(exact))
            st.markdown(
                tr(
                    "**Exact collapse.** An entmax-1.5 row is exactly one-hot iff its squared-distance gap "
                    "g_i = d_i(2) − d_i(1) satisfies g_i ≥ 4σ², so with g_min the smallest gap at C*:"
                )
            )
            st.latex(
                r"\sigma \le \sigma^{*} = \tfrac{1}{2}\sqrt{g_{\min}} = "
                + tr.number(view.sigma_exact_predicted).replace(",", "{,}")  # a decimal comma without a space
            )
            st.latex(r"\Rightarrow\; E_{\text{entmax}}(\sigma) = 0")
            st.markdown(
                tr(
                    "Softmax never reaches an exact zero in exact arithmetic; in float64 its off-weights "
                    "e^(−g/(2σ²)) vanish next to 1 below √(g_min/73.4) = {sigma:.3g}.",
                    sigma=view.sigma_softmax_exact,
                )
            )
            st.markdown(
                tr(
                    "**Measured vs claimed.** The paper's abstract speaks of *stable polynomial convergence* "
                    "for entmax-1.5; a secondary summary quotes slope ≈ 1. The slope above is measured on "
                    "**these data, on this window**: on finite samples it varies (≈ 1–3.5 in our "
                    "runs) and the "
                    "tail is an exact zero (entmax) or exponential (softmax), not a power law."
                )
            )

    if view is not None:
        params = exports.receipt_params(ctrl)
        path = compute.annealing(ctrl)  # the path of this view's study (already computed: instant)
        exports.download_row(
            ctrl,
            [
                exports.json_download(
                    lambda: {"view": "Annealing", "parameters": params, "anneal": path.to_dict()},
                    "annealing_trajectories",
                    tr("Trajectories (JSON)"),
                    tr("Every σ level: centres, losses, masses, iterations, convergence (AnnealResult)."),
                ),
                *downloads,
                exports.receipt_download(
                    lambda: annealing_receipt(params, annealing_numbers(view, ctrl.sigma)),
                    "Annealing",
                ),
            ],
            key="annealing",
        )


if annealing_allowed:
    follows_sigma(ctx, sigma_panels)
annealing_allowed.finished()  # computed: the Cancel button goes


def race_panel(ctrl) -> None:
    """Restarts against annealing: N K-Means restarts per start, one annealing run, KMeans(n_init=N)."""
    st.subheader(tr("Restarts against annealing"))
    st.markdown(
        tr(
            "K-Means from a random start stops in the nearest local minimum of its distortion J; the usual "
            "cure is to restart it many times and keep the best. Deterministic annealing claims to need one "
            "run: it follows the minimum from large σ, where there is only one, down to σ → 0. Race them on "
            "these data: N restarts from k-means++ seeding and N from k random points (each run to Lloyd's "
            "fixed point), one annealing run (softmax, from the data mean, polished by Lloyd), and "
            "scikit-learn's `KMeans(n_init=N)`."
        )
    )
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    st.session_state.setdefault(keys.RACE_N, race_runs.requested(ctrl) or race_runs.N_DEFAULT)
    n = left.slider(
        tr("Restarts N (per start)"), min_value=10, max_value=MAX_RESTARTS, step=10, key=keys.RACE_N
    )
    if right.button(tr("Run the race"), key="race_run", type="primary"):
        race_runs.request(ctrl, n)
    asked = race_runs.requested(ctrl)
    if asked is None:
        st.caption(tr("Press **Run the race** (about a second for N = 50 on 500 points; a few for N = 200)."))
        return
    with panel(tr("The race of restarts")):
        race = race_runs.race(ctrl, asked)
        X, _ = compute.data(ctrl)
        plot_col, numbers_col = st.columns([3, 1.25], gap="medium")
        with plot_col:
            chart(
                distortion_figure(
                    race,
                    title=tr("Final J of {count} restarts per start (k = {k})", count=asked, k=ctrl.k),
                    tr=tr,
                ),
                ctrl,
                "race_distortion",
                description=race_words(race, tr=tr),
            )
        with numbers_col:
            for label, value, about in race_numbers(race, tr=tr):
                st.metric(label, value, help=about)
        poor_init, poor_index = race.poor_restart()
        chart(
            centres_figure(X.astype("float64"), race, title=tr("A poor restart beside annealing"), tr=tr),
            ctrl,
            "race_centres",
            description=tr(
                "Left: where the restart with the largest J stopped ({start} restart {number}); right: the "
                "annealed centres. The points take the colour of their nearest centre.",
                start=tr(INIT_NAMES[poor_init]),
                number=poor_index + 1,
            ),
        )


if annealing_allowed:  # the free energy is read along the same annealing path
    with panel(tr("The free energy")):
        st.subheader(tr("4 · The free energy as σ falls"))
        path = compute.annealing(ctrl)  # the path drawn above (computed once per setting)
        X, _ = compute.data(ctrl)
        st.latex(free_energy_equation())  # each term in its curve's colour
        st.latex(SHANNON_ENTROPY)
        chart(
            free_energy_figure(
                free_energy_terms(X, path),
                title=tr("Along the annealing path ({kind})", kind=ctrl.kind),
                tr=tr,
            ),
            ctrl,
            "free_energy",
            description=tr(
                "Annealing minimises F_σ at each σ. At large σ the entropy term is large (every point "
                "shared evenly); as σ falls the temperature T = 2σ² and with it the entropy term go to 0, "
                "and F_σ meets the distortion term, which becomes K-Means' J."
            ),
        )
        if ctrl.kind != "softmax":
            st.caption(
                tr(
                    "For entmax maps H is the Tsallis entropy of the map, Σ_i (1 − Σ_j r_ij^α)/(α(α "
                    "− 1)), so "
                    "that F_σ is still what EM lowers (rbfviz.measures.free_energy)."
                )
            )

with panel(tr("Restarts against annealing")):
    race_panel(ctrl)
