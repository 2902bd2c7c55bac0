"""Annealing: the centres as σ falls — the animated plane, the bifurcation diagram, the collapse error, the
free energy and its terms, and a race of K-Means restarts against one annealing run."""

import math

import numpy as np
import streamlit as st

from rbfviz import cost
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
from rbfviz.views.annealing.restarts import centres_figure, distortion_figure, race_numbers, race_words
from rbfviz.views.common.scrub import scrub_payload
from ui import budget, compute, exports, scrub_parts
from ui import restarts as race_runs
from ui import session_keys as keys
from ui.page import CHART_CONFIG, chart, follows_sigma, intro, panel, setup_page
from ui.scrub import scrub_figure

ctx = setup_page("Annealing", sigma_on_figure=True)
ctrl = ctx.ctrl
st.title("Annealing: from the data mean to K-Means as σ falls")
intro(
    "Start every centre at the data mean with a large σ, then cool: at each σ of the slider's grid, "
    "run EM (every centre to its responsibility-weighted mean) to the soft fixed point, and use it as "
    "the start for the next, smaller σ. The centres stay together until σ reaches a critical value, "
    "then split along the data's principal axis, split again, and finally sit on K-Means centroids. "
    "This view always starts from the data mean; the *Initialisation* control applies to the Explorer "
    "and Equivalence views."
)


def budget_advice(ctrl) -> str:
    """What to change so that the annealing fits in the budget: fewer points, fewer centres, softmax."""
    ways = []
    n_fit = cost.largest_n_within(cost.BUDGET_S, ctrl.k, ctrl.kind, n_min=ctrl.k + 1)
    if n_fit is not None and n_fit < ctrl.n:
        ways.append(f"**n ≤ {n_fit:,}** points")
    k_fit = cost.largest_k_within(cost.BUDGET_S, ctrl.n, ctrl.kind)
    if k_fit is not None and k_fit < ctrl.k:
        ways.append(f"**k ≤ {k_fit}** clusters")
    if ctrl.kind != "softmax" and cost.annealing_cost(ctrl.n, ctrl.k, "softmax") <= cost.BUDGET_S:
        ways.append(f"the **softmax** map (about {cost.annealing_cost(ctrl.n, ctrl.k, 'softmax'):.0f} s)")
    fits = "Within the budget: " + ", or ".join(ways) + " (in the sidebar). " if ways else ""
    return fits + "Or compute it anyway: a progress bar shows how far it is."


# The annealing run and its collapse study cost about (n + N0) × k² (rbfviz.cost): a heavy setting waits
# for the student's "Compute anyway" instead of holding the process without warning.
annealing_allowed = compute.annealing_view_ready(ctrl) or budget.within_budget(
    "annealing",
    "the annealing run and its collapse study",
    compute.annealing_view_key(ctrl),
    cost.annealing_cost(ctrl.n, ctrl.k, ctrl.kind),
    budget_advice(ctrl),
)


def sigma_panels(ctrl) -> None:
    """Every panel below the introduction follows σ: rerun alone when σ settles (ui.page.follows_sigma)."""
    view = None
    with panel("The annealing run"):
        view = compute.annealing_view(ctrl)
        X, _ = compute.data(ctrl)

    downloads = []  # filled figure by figure, shown as one row at the end
    if view is not None:
        name = f"{ctrl.dataset}, n = {ctrl.n}, k = {ctrl.k}, {ctrl.kind}, {ctrl.dtype}"

        # --- 1. the plane, animated in the browser ---------------------------------------------------
        st.subheader("1 · The centres in the plane")
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel("The animated plane"):
            st.markdown(f"**{name}**")

            def build(progress) -> bytes:
                return scrub_payload(
                    annealing_levels(view, X, presenter=ctrl.presenter),
                    view.sigmas,
                    config=CHART_CONFIG,
                    initial=ctx.scale.index(ctx.scale.default),
                    large=ctrl.presenter,
                    play_ms=FRAME_MS,
                    tr=ctx.tr,
                )

            payload = scrub_parts.scrub_payload("annealing", ctrl, (name,), build)
            scrub_figure(payload, key="scrub_annealing", grid=view.sigmas)
            downloads.append(
                exports.figure_download(
                    lambda: trajectory_figure(view, X, ctrl.sigma), "annealing_plane", "Animation (HTML)"
                )
            )
            page_params = exports.receipt_params(ctrl)
            page_params.pop("init")  # annealing always starts from the data mean
            downloads.append(exports.interactive_page_download(payload, "annealing", ctrl, page_params))
            sample = (
                ""
                if X.shape[0] <= MAX_ANIMATED_POINTS
                else (
                    f" The plane recolours a fixed random {MAX_ANIMATED_POINTS} of the {X.shape[0]} points "
                    "(all are drawn in light grey)."
                )
            )
            st.caption(
                "**▶ Play** runs the whole annealing in your browser, one frame per σ level (no server round "
                "trip); the σ slider scrubs through the levels (arrow keys too), and the diagrams below "
                "follow when you stop. Points take the colours of their responsibilities at that level (grey "
                "= a NaN row of the naive map); dotted lines are each centre's whole path, solid lines its "
                "trail so far; × are the K-Means centroids C*." + sample
            )
        with text_col:
            st.markdown("**At each σ, EM to the soft fixed point:**")
            st.latex(r"r_{ij} = \operatorname{map}_j\!\Big(-\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}\Big)")
            st.latex(r"c_j \leftarrow \frac{\sum_i r_{ij}\, x_i}{\sum_i r_{ij}}")
            st.markdown(
                "A level stops when no centre moves by more than 10⁻¹⁰ × the data scale; the next level "
                "starts from its centres. Centres that still coincide get a nudge of 10⁻³ × the data scale, "
                "because coincident centres sit on an exact saddle."
            )
            finite_levels = np.isfinite(view.centers).all(axis=(1, 2))
            unconverged = int(np.count_nonzero(~view.converged & finite_levels))
            st.metric(
                "σ levels",
                f"{len(view.sigmas)}",
                help="The σ values of the slider above the figure, from above the first split to below "
                "the exact collapse.",
            )
            if unconverged:
                st.caption(
                    f"{unconverged} level(s) hit the cap of 500 EM iterations (critical slowing near a "
                    "split)."
                )
            st.markdown(
                f"**K-Means reference C\\*:** scikit-learn's Lloyd run from the {view.kmeans_start}, so "
                "centre j and centroid j are the same cluster whenever the path ends finite."
            )
            first_nan = np.flatnonzero(view.nan_rows > 0)
            if first_nan.size:
                st.warning(
                    f"The {ctrl.kind} map breaks on this path at σ = {view.sigmas[first_nan[0]]:.3g}: "
                    f"{int(view.nan_rows[first_nan[0]])} of {X.shape[0]} rows of r are NaN there in "
                    f"{ctrl.dtype} (every exp(z) of such a row underflowed: 0/0), and NaN centres follow. "
                    "See the Stability view."
                )

        # --- 2. bifurcation diagram ------------------------------------------------------------------
        st.subheader("2 · Bifurcations: where the centres split")
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel("The bifurcation diagram"):
            fig, _ = chart(
                bifurcation_figure(view, ctrl.sigma),
                ctrl,
                "annealing_bifurcation",
                description=annealing_words.bifurcation(view) + " " + splits_in_words(view),
            )
            downloads.append(exports.figure_download(fig, "annealing_bifurcation", "Bifurcations (HTML)"))
            st.caption(
                "Each centre's coordinate along the principal axis u₁ of the data (from the data mean), "
                "against σ; × are the K-Means centroids. σ decreases to the right. Diamonds: the predicted σ "
                "of every split, on the branch that splits; circles: the first level where it was seen. A "
                "stack that splits across u₁ stays one line here, but its markers still show."
            )
        with text_col:
            st.markdown(
                "**Predicted first split.** Above σ_c the only stable fixed point puts every centre "
                "at the mean; with λ_max the largest eigenvalue of the (1/N) covariance of the data:"
            )
            st.latex(r"\text{softmax: } \sigma_c^2 = \lambda_{\max}")
            st.latex(r"\text{entmax-1.5: } \sigma_c^2 = \sqrt{k}\,\lambda_{\max}")
            measured = view.sigma_critical_measured
            c1, c2 = st.columns(2)
            c1.metric(
                "σ_c predicted",
                f"{view.sigma_critical_predicted:.3g}",
                help=f"λ_max = {view.lambda_max:.4g} (data units²); {ctrl.kind}"
                + (f", k = {ctrl.k}" if entmax_alpha(ctrl.kind) is not None else ""),
            )
            c2.metric(
                "first split measured",
                "none" if measured is None else f"{measured:.3g}",
                help="The first grid σ at which some centre is more than 1 % of the data scale from the "
                "mean.",
            )
            if measured is not None:
                st.caption(
                    f"Measured / predicted = {measured / view.sigma_critical_predicted:.3f}. Being a grid "
                    "value, the measured split lags the true one by up to one cooling step. These "
                    "thresholds are derived for this project, not quoted from the paper."
                )

        st.markdown(
            "**Every later split predicted.** A stack of m coincident centres at c_y splits when σ² reaches "
            "the top eigenvalue of its cluster's responsibility-weighted covariance (Rose 1998), the same "
            "derivation as the first split:"
        )
        st.latex(
            r"C_{x|y} = \sum_i \frac{r_{iy}}{N_y}(x_i - c_y)(x_i - c_y)^{\top},\qquad "
            r"\sigma^2 = \lambda_{\max}(C_{x|y})\ \text{(softmax)},\qquad "
            r"\sigma^2 = \sqrt{m}\,\lambda_{\max}(C_{x|y})\ \text{(entmax-1.5)}"
        )
        rows = split_rows(view)
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch")
            step = float(np.exp(np.mean(np.abs(np.diff(np.log(view.sigmas)))))) - 1.0
            st.caption(
                "The covariance C(x|y) is taken where σ² = f·λ_max(C(x|y) at σ) on the branch that keeps "
                "the stack together. The measured split lies between two grid levels; error = predicted / "
                f"first level seen − 1, so up to one grid step (here {100 * step:.0f} %) is the grid, not "
                "the theory. For entmax-1.5 the formula is exact only where the stack's points belong to it "
                "alone (r_iy = 1); the same linearisation with √r_iy weights is the column 'σ linearised "
                "(√r)'. Later splits are approximate in the literature: the table says by how much, here."
            )
        else:
            st.caption("The centres never split on this σ grid: nothing to predict.")

        # --- 3. the collapse error -------------------------------------------------------------------
        st.subheader("3 · The collapse onto K-Means: E(σ)")
        plot_col, text_col = st.columns([1.6, 1], gap="large")
        with plot_col, panel("The collapse error"):
            fig, _ = chart(
                collapse_figure(view, ctrl.sigma),
                ctrl,
                "annealing_collapse",
                description=annealing_words.collapse(view, ctrl.sigma),
            )
            downloads.append(exports.figure_download(fig, "annealing_collapse", "E(σ) figure (HTML)"))
            st.caption(
                "Black: E(σ) of the soft fixed point reached by EM from C* at each σ below σ_c (above it "
                "that fixed point is the data mean). Grey dotted: the annealed path's distance to C*. "
                "Shaded: the σ window of the fit."
            )
        with text_col:
            st.latex(r"E(\sigma) = \min_{\pi}\, \lVert C_\sigma[\pi] - C^{*} \rVert_F")
            fit = view.slope
            c1, c2 = st.columns(2)
            if math.isfinite(fit.slope):
                c1.metric(
                    "fitted log-log slope",
                    f"{fit.slope:.2f}",
                    help=f"least squares of log E on log σ over {fit.n_points} grid points, "
                    f"σ ∈ [{fit.sigma_min:.3g}, {fit.sigma_max:.3g}], where E is above rounding.",
                )
                st.caption(
                    f"Fitted on σ ∈ [{fit.sigma_min:.3g}, {fit.sigma_max:.3g}] ({fit.n_points} points, from "
                    "σ* up to σ_c)."
                )
            else:
                c1.metric("fitted log-log slope", "n/a", help=f"fewer than 3 usable points ({fit.n_points}).")
            exact = view.sigma_exact_measured
            c2.metric("E = 0 from σ (measured)", "never" if exact is None else f"{exact:.3g}")
            st.markdown(
                "**Exact collapse.** An entmax-1.5 row is exactly one-hot iff its squared-distance gap "
                "g_i = d_i(2) − d_i(1) satisfies g_i ≥ 4σ², so with g_min the smallest gap at C*:"
            )
            st.latex(
                r"\sigma \le \sigma^{*} = \tfrac{1}{2}\sqrt{g_{\min}} = "
                + f"{view.sigma_exact_predicted:.3g}"
            )
            st.latex(r"\Rightarrow\; E_{\text{entmax}}(\sigma) = 0")
            st.markdown(
                f"Softmax never reaches an exact zero in exact arithmetic; in float64 its off-weights "
                f"e^(−g/(2σ²)) vanish next to 1 below √(g_min/73.4) = {view.sigma_softmax_exact:.3g}."
            )
            st.markdown(
                "**Measured vs claimed.** The paper's abstract speaks of *stable polynomial convergence* for "
                "entmax-1.5; a secondary summary quotes slope ≈ 1. The slope above is measured on **these "
                "data, on this window**: on finite samples it varies (≈ 1–3.5 in our runs) and the tail is "
                "an exact zero (entmax) or exponential (softmax), not a power law."
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
                    "Trajectories (JSON)",
                    "Every σ level: centres, losses, masses, iterations, convergence (AnnealResult).",
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


def race_panel(ctrl) -> None:
    """Restarts against annealing: N K-Means restarts per start, one annealing run, KMeans(n_init=N)."""
    st.subheader("Restarts against annealing")
    st.markdown(
        "K-Means from a random start stops in the nearest local minimum of its distortion J; the usual cure "
        "is to restart it many times and keep the best. Deterministic annealing claims to need one run: "
        "it follows the minimum from large σ, where there is only one, down to σ → 0. Race them on these "
        "data: N restarts from k-means++ seeding and N from k random points (each run to Lloyd's fixed "
        "point), one annealing run (softmax, from the data mean, polished by Lloyd), and scikit-learn's "
        "`KMeans(n_init=N)`."
    )
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    st.session_state.setdefault(keys.RACE_N, race_runs.requested(ctrl) or race_runs.N_DEFAULT)
    n = left.slider("Restarts N (per start)", min_value=10, max_value=MAX_RESTARTS, step=10, key=keys.RACE_N)
    if right.button("Run the race", key="race_run", type="primary"):
        race_runs.request(ctrl, n)
    asked = race_runs.requested(ctrl)
    if asked is None:
        st.caption("Press **Run the race** (about a second for N = 50 on 500 points; a few for N = 200).")
        return
    with panel("The race of restarts"):
        race = race_runs.race(ctrl, asked)
        X, _ = compute.data(ctrl)
        plot_col, numbers_col = st.columns([3, 1.25], gap="medium")
        with plot_col:
            chart(
                distortion_figure(race, title=f"Final J of {asked} restarts per start (k = {ctrl.k})"),
                ctrl,
                "race_distortion",
                description=race_words(race),
            )
        with numbers_col:
            for label, value, about in race_numbers(race):
                st.metric(label, value, help=about)
        poor_init, poor_index = race.poor_restart()
        chart(
            centres_figure(X.astype("float64"), race, title="A poor restart beside annealing"),
            ctrl,
            "race_centres",
            description=(
                f"Left: where the restart with the largest J stopped ({poor_init} restart "
                f"{poor_index + 1}); right: the annealed centres. The points take the colour of their "
                "nearest centre."
            ),
        )


if annealing_allowed:  # the free energy is read along the same annealing path
    with panel("The free energy"):
        st.subheader("4 · The free energy as σ falls")
        path = compute.annealing(ctrl)  # the path drawn above (computed once per setting)
        X, _ = compute.data(ctrl)
        st.latex(free_energy_equation())  # each term in its curve's colour
        st.latex(SHANNON_ENTROPY)
        chart(
            free_energy_figure(free_energy_terms(X, path), title=f"Along the annealing path ({ctrl.kind})"),
            ctrl,
            "free_energy",
            description=(
                "Annealing minimises F_σ at each σ. At large σ the entropy term is large (every point "
                "shared evenly); as σ falls the temperature T = 2σ² and with it the entropy term go to 0, "
                "and F_σ meets the distortion term, which becomes K-Means' J."
            ),
        )
        if ctrl.kind != "softmax":
            st.caption(
                "For entmax maps H is the Tsallis entropy of the map, Σ_i (1 − Σ_j r_ij^α)/(α(α − 1)), so "
                "that F_σ is still what EM lowers (rbfviz.measures.free_energy)."
            )

with panel("Restarts against annealing"):
    race_panel(ctrl)
