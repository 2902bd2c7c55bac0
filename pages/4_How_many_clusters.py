"""How many clusters? Three answers side by side: annealing's widest plateau, the elbow of J(k), the
best silhouette, next to the data set's natural k."""

import streamlit as st

from rbfviz import cost
from rbfviz.datasets import DEFAULT_NOISE, NATURAL_K
from rbfviz.i18n import N_
from rbfviz.views.how_many_clusters.figures import elbow_figure, silhouette_figure, staircase_figure
from ui import budget, how_many_clusters
from ui import session_keys as keys
from ui import upload as uploads
from ui.page import chart, panel, setup_page

# Each rule in one sentence (shown as tr(heading), tr(rule)).
RULES = (
    (
        N_("1 · Annealing: the widest plateau"),
        N_(
            "Cool k_max centres from the data mean: stacked centres split as σ falls, and the answer is the "
            "number of distinct centres that survives the widest range of log σ."
        ),
    ),
    (
        N_("2 · The elbow of J(k)"),
        N_(
            "J(k), the K-Means inertia, always falls as k grows; the elbow is the k where it stops falling "
            "fast, found as the point farthest below the chord between the curve's ends."
        ),
    ),
    (
        N_("3 · The silhouette over k"),
        N_(
            "The silhouette compares each point's mean distance to its own cluster with that to the nearest "
            "other cluster; the answer is the k whose K-Means clusters score highest on average."
        ),
    ),
)

ctx = setup_page("How many clusters")
ctrl = ctx.ctrl
tr = ctx.tr
st.title(tr("How many clusters? Three answers"))
st.markdown(
    tr(
        "Three classic rules, computed on the same points. Each gives its own number of clusters; the "
        "sidebar's k is not used, except to suggest how many centres to try. The natural k is the number "
        "of groups the data set was generated with."
    )
)

# --- controls -----------------------------------------------------------------------------------------
limit = how_many_clusters.k_max_limit(ctrl.n)
if keys.K_MAX not in st.session_state or not 3 <= st.session_state[keys.K_MAX] <= limit:
    st.session_state[keys.K_MAX] = how_many_clusters.default_k_max(ctrl.k, ctrl.n)
k_max = st.slider(
    tr("Centres to try, k_max"),
    min_value=3,
    max_value=limit,
    key=keys.K_MAX,
    help=tr(
        "Annealing starts this many centres at the data mean; K-Means tries k = 1 … k_max and the "
        "silhouette k = 2 … k_max (it needs two clusters). It should be more than the number of clusters "
        "you expect (suggested: max(8, 2 × the sidebar's k)). Not in the address: a link opens this page "
        "with the suggested k_max."
    ),
)
natural_k = NATURAL_K.get(ctrl.dataset)
name = uploads.data_name(ctrl)

# The three answers cost about (n + N0) × k_max² (rbfviz.cost): a heavy setting waits for "Compute anyway".
seconds = cost.how_many_cost(ctrl.n, int(k_max))
fits = cost.largest_k_max_within(cost.BUDGET_S, ctrl.n)
allowed = budget.within_budget(
    "how_many",
    tr("annealing {k_max} centres and K-Means for k = 1 … {k_max}", k_max=k_max),
    how_many_clusters.answers_key(ctrl, int(k_max)),
    seconds,
    tr("Within the budget: **k_max ≤ {fits}** (the slider above).", fits=fits) if fits else "",
    ready=how_many_clusters.answers_ready(ctrl, int(k_max)),
)

result = None
if allowed:
    with panel(tr("The three answers")):
        result = how_many_clusters.answers(ctrl, int(k_max))
allowed.finished()  # computed: the Cancel button goes


def _shown(k) -> str:
    return tr("none") if k is None else str(k)


if result is not None:
    annealing = result.annealing
    plateau = annealing.plateau
    metrics = st.columns(4)
    metrics[0].metric(tr("Annealing"), _shown(annealing.k), help=tr("The widest plateau of the staircase."))
    metrics[1].metric(tr("Elbow of J(k)"), _shown(result.elbow), help=tr("The kneedle rule on J(k)."))
    metrics[2].metric(
        tr("Best silhouette"), _shown(result.best), help=tr("The k with the highest mean silhouette.")
    )
    metrics[3].metric(
        tr("Natural k"),
        _shown(natural_k) if natural_k is not None else "—",
        help=tr("The number of groups the generator made (only for the built-in data sets)."),
    )
    st.markdown(f"**{name}, n = {ctrl.n}, {ctrl.dtype}, k_max = {k_max}**")

    # headings and one-sentence rules in one row, figures in the next, so the three plots line up
    for column, (heading, rule) in zip(st.columns(3, gap="medium"), RULES):
        with column:
            st.subheader(tr(heading))
            st.markdown(tr(rule))
    left, middle, right = st.columns(3, gap="medium")
    with left, panel(tr("The annealing answer")):
        if plateau.count is None:
            words = tr(
                "No count between 2 and k_max − 1 appears on the grid: the centres went straight from "
                "one place to all apart, so annealing gives no answer here."
            )
        else:
            words = tr(
                "From σ = {high:.3g} down to {low:.3g} the {k_max} centres sit at {count} distinct places, a "
                "wider range of log σ (ln ratio {width:.2f}) than any other count.",
                high=plateau.sigma_high,
                low=plateau.sigma_low,
                k_max=k_max,
                count=plateau.count,
                width=plateau.width,
            )
            if plateau.truncated:
                words += " " + tr("The grid ended first, so it may be wider still.")
        chart(staircase_figure(annealing, natural_k, tr=tr), ctrl, "how_many_staircase", description=words)
        all_apart = (
            tr(
                "σ = {sigma:.3g}, where all {k_max} are first apart",
                sigma=annealing.sigma_all_apart,
                k_max=k_max,
            )
            if annealing.sigma_all_apart is not None
            else tr("the bottom of the grid (the centres never all came apart on it)")
        )
        unconverged = int((~annealing.converged).sum())
        split = tr.number(annealing.sigma_split) if annealing.sigma_split is not None else tr("never")
        st.caption(
            tr(
                "Softmax annealing on {levels} σ levels. Centres closer than {relative:g} × the data scale "
                "({tol:.2g}) count as one. Only counts 2 … {below} compete: 1 lasts for ever above the first "
                "split (σ = {split}) and {k_max} for ever as σ → 0. So the window runs from the first split "
                "down to {all_apart}. Ties go to the smaller count.",
                levels=len(annealing.sigmas),
                relative=annealing.tol_relative,
                tol=annealing.tol,
                below=k_max - 1,
                split=split,
                k_max=k_max,
                all_apart=all_apart,
            )
            + (
                " "
                + tr(
                    "{count} level(s) hit the cap of EM iterations (critical slowing near a split).",
                    count=unconverged,
                )
                if unconverged
                else ""
            )
        )

    with middle, panel(tr("The elbow of J(k)")):
        sweep = result.sweep
        if result.elbow is None:
            words = tr("J(k) falls in a straight line or bends the other way: it has no elbow.")
        else:
            i = result.elbow - 1
            words = tr(
                "Going from 1 to {elbow} clusters cuts J from {first:.3g} to {there:.3g}; each cluster after "
                "that buys much less.",
                elbow=result.elbow,
                first=sweep.inertia[0],
                there=sweep.inertia[i],
            )
        chart(
            elbow_figure(sweep.ks, sweep.inertia, result.elbow, natural_k, tr=tr),
            ctrl,
            "how_many_elbow",
            description=words,
        )
        st.caption(
            tr(
                "scikit-learn KMeans for k = 1 … {k_max}, best of {starts} k-means++ starts, seeded by the "
                "data seed. Elbow: k and J scaled to [0, 1], the largest 1 − k̃ − J̃ (the “kneedle” rule).",
                k_max=k_max,
                starts=how_many_clusters.N_INIT,
            )
        )

    with right, panel(tr("The silhouette")):
        ks, scores = result.sweep.ks[1:], result.silhouette[1:]
        if result.best is None:
            words = tr("No silhouette could be computed for these clusterings.")
        else:
            words = tr(
                "k = {k} scores {score:.3f} (1 is perfectly separated, 0 is clusters that touch).",
                k=result.best,
                score=scores[result.best - 2],
            )
        chart(
            silhouette_figure(ks, scores, result.best, natural_k, tr=tr),
            ctrl,
            "how_many_silhouette",
            description=words,
        )
        if result.sampled is not None:
            caption = tr(
                "sklearn.metrics.silhouette_score of the K-Means labels above, k = 2 … {k_max} on a seeded "
                "subsample of {sampled} of the {n} points.",
                k_max=k_max,
                sampled=result.sampled,
                n=ctrl.n,
            )
        else:
            caption = tr(
                "sklearn.metrics.silhouette_score of the K-Means labels above, k = 2 … {k_max}.", k_max=k_max
            )
        st.caption(caption)

    st.subheader(tr("Why the three can disagree"))
    st.markdown(
        tr(
            "They ask different questions. The **elbow** and the **silhouette** score K-Means partitions, "
            "so they reward round, compact, well-separated groups: on *moons* or *circles* the natural "
            "clusters are curved or nested, and K-Means cuts them into several round pieces, so the best "
            "silhouette often lands on more than 2. The elbow is a judgement of shape that one rule makes "
            "precise, and a smooth J(k) has no sharp corner. **Annealing** asks at which length scale σ "
            "the data hold still: groups far apart compared with their own spread give a long plateau, "
            "but groups inside groups give several plateaus, and the widest may be the coarse level "
            "(2 pairs of blobs) rather than the fine one (4 blobs). Groups that overlap, like the default "
            "blobs at noise {noise:g}, have no scale at which the count holds still, "
            "and the staircase climbs almost straight to k_max: lower the noise and watch a long step "
            "appear. When all three agree, the number is robust; when they do not, the data have no "
            "single scale, and the choice depends on what the clusters are for.",
            noise=DEFAULT_NOISE["blobs"],
        )
    )
