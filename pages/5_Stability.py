"""Stability: softmax vs entmax-1.5 vs naive across σ, in float32 and float64, and the plane at σ."""

import numpy as np
import pandas as pd
import streamlit as st

from rbfviz.measures import underflow_logit
from rbfviz.views.common.kinds import KIND_LABELS
from rbfviz.views.common.plane import drawn_points
from rbfviz.views.stability import words as stability_words
from rbfviz.views.stability.family import family_collapse_figure, family_collapse_words
from rbfviz.views.stability.figures import stability_figure, stability_plane_figure
from rbfviz.views.stability.levels import stability_levels
from rbfviz.views.stability.receipt import stability_numbers, stability_receipt
from ui import compute, exports, family, scrub_parts
from ui import session_keys as keys
from ui.page import chart, follows_sigma, intro, panel, setup_page
from ui.scrub import scrub_figure

ctx = setup_page("Stability", sigma_on_figure=True)
ctrl = ctx.ctrl
tr = ctx.tr
st.title(tr("Stability: which maps survive small σ, in which precision"))
intro(
    tr(
        "All three maps are evaluated at the same centres, the K-Means centroids C* of these data "
        "(k-means++ seeded, the ones the σ range comes from), in float32 and float64. Softmax and "
        "entmax-1.5 shift the logits before exponentiating; the naive map computes exp(z)/Σexp(z) as "
        "written and breaks once every exp(z) of a row underflows. The sidebar's map is drawn thicker."
    )
)


def sigma_panels(ctrl) -> None:
    """Every panel below the introduction follows σ: rerun alone when σ settles (ui.page.follows_sigma)."""
    downloads, last = [], []  # shown as one row at the end, the interactive page last
    st.subheader(tr("The plane at every σ ({dtype})", dtype=ctrl.dtype))
    with panel(tr("The plane at this σ")):
        X, _ = compute.data(ctrl)
        centroids = compute.kmeans_centroids(ctrl)
        drawn = drawn_points(len(X), ctrl.seed)

        def levels_of(progress) -> list:
            planes = compute.stability_planes(ctrl, progress)
            return stability_levels(planes, X, centroids, drawn=drawn, presenter=ctrl.presenter, tr=tr)

        payload = scrub_parts.grid_payload("stability", ctrl, ctx.scale, levels_of)
        scrub_figure(payload, key="scrub_stability", grid=ctx.scale.grid)
        drawn_note = (
            tr(
                "Drawn: a seeded sample of {drawn:,} of the {n:,} points; the counts above each panel and "
                "below count all {n:,}.",
                drawn=len(drawn),
                n=len(X),
            )
            if drawn is not None
            else None
        )
        if drawn_note:
            st.caption(drawn_note)
        page_params = exports.receipt_params(ctrl)
        page_params.pop("init")  # the planes are drawn at the K-Means centroids, whatever the start
        plane = compute.stability_plane(ctrl)
        last.append(
            exports.interactive_page_download(
                payload, "stability", ctrl, page_params, (drawn_note,) if drawn_note else ()
            )
        )
        downloads.append(
            exports.figure_download(
                lambda: stability_plane_figure(
                    plane,
                    X,
                    centroids,
                    title=tr.format("σ = {sigma:.3g} ({dtype})", sigma=plane.sigma, dtype=plane.dtype),
                    tr=tr,
                ),
                "stability_plane",
                tr("Plane (HTML)"),
            )
        )
        st.caption(
            tr(
                "Left: where the naive map's rows are NaN (grey region; points marked ×), far from every "
                "centre first. Right: where entmax-1.5's rows are exactly one-hot (coloured by the nearest "
                "centre) and where they are still soft (white band along the Voronoi edges, open points); "
                "the band is |s| < 2σ²/‖c_a − c_b‖ wide around each edge. Move σ with the slider above the "
                "plot; the curves and the table below, and the downloads, follow when you stop. Change the "
                "precision in the sidebar."
            )
        )

    with panel(tr("Every map across σ")):
        rows, predicted, nan_sigmas = compute.stability(ctrl)
        st.subheader(tr("Every map across σ"))
        st.markdown(
            "**"
            + tr(
                "{dataset}, n = {n}, k = {k}: every map at the K-Means centroids C\\*, across the σ grid",
                dataset=ctrl.dataset,
                n=ctrl.n,
                k=ctrl.k,
            )
            + "**"
        )
        fig = stability_figure(
            rows,
            predicted,
            ctrl.sigma,
            highlight=ctrl.kind,
            nan_sigmas={dtype: first for dtype, (first, _) in nan_sigmas.items()},
            sigma_exact=ctx.scale.sigma_exact_entmax,
            tr=tr,
        )
        fig, _ = chart(
            fig,
            ctrl,
            "stability_curves",
            description=stability_words.stability_curves(rows, ctrl.sigma, ctrl.dtype, tr=tr),
        )
        downloads += [
            exports.figure_download(fig, "stability_curves", tr("Curves (HTML)")),
            exports.receipt_download(
                lambda params=exports.receipt_params(ctrl): stability_receipt(
                    params, stability_numbers(rows, ctrl.sigma)
                ),
                "Stability",
            ),
        ]
        st.caption(
            tr(
                "Solid: float64, dotted: float32. Grey bands: the closed forms below, computed from the "
                "distances alone; a measured curve on its band means the formula predicts the floating-point "
                "behaviour exactly. Triangles at the bottom of the log panels: exactly 0."
            )
        )

        here = [r for r in rows if np.isclose(r["sigma"], ctrl.sigma, rtol=1e-9)]
        if here:

            def sci(value: float) -> str:  # NaN spelled out: pandas/Streamlit would print "None"
                return "NaN (0/0)" if np.isnan(value) else tr.number(value, ".3e")

            def pct(
                fraction: float,
            ) -> float:  # a number: the table sorts it (its separators are Streamlit's)
                return round(100 * fraction, 1)

            table = pd.DataFrame(
                {
                    tr("map"): [tr(KIND_LABELS[r["kind"]]) for r in here],
                    "dtype": [r["dtype"] for r in here],
                    tr("NaN rows %"): [pct(r["nan_row_fraction"]) for r in here],
                    tr("one-hot rows %"): [pct(r["hard_row_fraction"]) for r in here],
                    tr("exact zeros %"): [pct(r["zero_fraction"]) for r in here],
                    tr("‖∇L‖ at C*"): [sci(r["grad_norm"]) for r in here],
                    tr("‖x̄ − C*‖ (one EM step)"): [sci(r["error_to_kmeans"]) for r in here],
                }
            )
            st.markdown("**" + tr("At the current σ = {sigma:.3g}:", sigma=ctrl.sigma) + "**")
            st.dataframe(table, hide_index=True, width="stretch")

    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(
            tr(
                "**Naive breaks by underflow.** A row is 0/0 = NaN once even its nearest centre's "
                "exp(z) rounds to zero:"
            )
        )
        # two lines: one line overflowed the half-width column
        st.latex(
            r"\begin{gathered}\min_j \frac{d_{ij}}{2\sigma^2} > Z, \\ Z = "
            + f"{underflow_logit('float64'):.1f}"
            + r"\;(\text{float64}),\quad "
            + f"{underflow_logit('float32'):.1f}"
            + r"\;(\text{float32})\end{gathered}"
        )
        # each σ first, apart: a message inside another's arguments is not extracted for the catalog
        firsts = [
            tr("{sigma:.3g} in {dtype}", sigma=first, dtype=dtype) for dtype, (first, _) in nan_sigmas.items()
        ]
        st.markdown(
            tr(
                "(In float32, hardware that flushes subnormals to zero breaks already at Z ≈ 87.3.) So the "
                "first NaN row appears at σ = √(maxᵢ dᵢ₍₁₎ / 2Z): here {firsts}. Stable softmax and "
                "entmax-1.5 never give NaN for finite input.",
                firsts=", ".join(firsts),
            )
        )
    with right:
        st.markdown(
            tr("**entmax-1.5 is exactly sparse.** A row is exactly one-hot iff its logit gap is at least 2:")
        )
        st.latex(r"g_i = d_{i(2)} - d_{i(1)} \ge 4\sigma^2 \quad\Longleftrightarrow\quad r_i \text{ one-hot}")
        st.markdown(
            tr(
                "Every row is one-hot below σ* = √g_min/2 = {sigma:.3g}; then one EM step from C* returns C* "
                "exactly (error 0) and the gradient at C* drops to its rounding floor. Softmax rows become "
                "one-hot only when their off-weights underflow, gᵢ/(2σ²) > Z: later in float64 than in "
                "float32. (C* here: the K-Means partition's means computed in each precision.)",
                sigma=ctx.scale.sigma_exact_entmax,
            )
        )

    exports.download_row(ctrl, downloads + last, key="stability")


follows_sigma(ctx, sigma_panels)

# Not a σ panel: the family's collapse is measured over its own σ grid, so a settled σ does not rerun it.
# Measured only once the student opens it (the expander reruns the page then): a new setting does not pay
# for what the page does not show.
st.subheader(tr("Exact collapse across the α-entmax family"))
family_box = st.expander(tr("Exact collapse across the family"), key=keys.FAMILY_OPEN, on_change="rerun")
with family_box, panel(tr("Exact collapse across the family")):
    if family_box.open:
        collapse = family.family(ctrl)
        collapse_words = family_collapse_words(collapse, tr=tr)
        chart(family_collapse_figure(collapse, tr=tr), ctrl, "family_collapse", description=collapse_words)
        st.markdown(collapse_words)
        st.caption(
            tr(
                "α-entmax, r = [(α−1)z − τ]₊^(1/(α−1)), makes a row exactly one-hot once its logit gap "
                "gᵢ/(2σ²) reaches 1/(α−1); so every row at C* is one-hot for σ ≤ σ*(α) = √((α−1)·g_min/2). "
                "Left: that curve, and the largest σ of the grid from which every row is measured one-hot "
                "(at C*, in each precision). Right: the share of responsibilities that are exactly 0, at "
                "most 1 − 1/k; diamonds mark σ*(α). Softmax (α → 1) never reaches it: σ*(α) → 0."
            )
        )
