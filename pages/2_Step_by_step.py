"""Step by step: one E-step, one M-step or one Lloyd step at a time, with arrows from the old centres to
the new, L_σ and J after every half-step, and the distance between a soft step and Lloyd's.

The steps taken live in the URL (``steps=EMEML``) next to the start (data, k, init, map, precision, σ),
so a shared link replays exactly the same sequence (rbfviz.views.step_by_step.arrays.replay). Play takes
steps by itself, Step back and the scrubber show an earlier iteration (``at=``) without losing the later
ones (ui.step_by_step)."""

from dataclasses import replace

import numpy as np
import streamlit as st

from rbfviz.views.step_by_step.arrays import MAX_STEPS, STEP_NAMES
from rbfviz.views.step_by_step.figures import (
    DISTORTION_EQUATION,
    LOSS_EQUATION,
    history_figure,
    step_plane_figure,
)
from ui import compute, plane_tools
from ui import session_keys as keys
from ui import upload as uploads
from ui.page import chart, panel, setup_page
from ui.step_by_step import pause, pause_when_settled, play_controls, play_view

TABLE_NAMES = {"E": "E", "M": "M", "L": "Lloyd"}
STEP_HELP = {
    "E": "Recompute every point's responsibilities r at the current centres, at this σ and map.",
    "M": "Move every centre to the r-weighted mean of the points (its soft centroid).",
    "L": "Hard: give each point to its nearest centre, then move every centre to its cluster's mean.",
}
COMPARED_SIGMAS = 6  # σ values of the "soft step vs Lloyd step" table, spread over the σ range


def take(letter: str) -> None:
    """Button callback (runs before the script): one more step of the given kind, from the iteration
    shown (the steps after it, if the scrubber went back, are replaced)."""
    ctrl = st.session_state[keys.CONTROLS]
    steps = ctrl.steps[: ctrl.shown_step()]
    if len(steps) < MAX_STEPS:
        st.session_state[keys.CONTROLS] = replace(ctrl, steps=steps + letter, at=None)


def reset() -> None:
    """Button callback: back to the starting centres."""
    pause()
    st.session_state[keys.CONTROLS] = replace(st.session_state[keys.CONTROLS], steps="", at=None)


def compared_sigmas(grid, sigma: float) -> list[float]:
    """A few σ from the largest to the smallest of the range, with the current σ, largest first."""
    picked = np.asarray(grid)[np.linspace(0, len(grid) - 1, COMPARED_SIGMAS).round().astype(int)]
    return sorted({float(s) for s in picked} | {float(sigma)}, reverse=True)


def fmt(value: float) -> str:
    return "nan" if not np.isfinite(value) else f"{value:.6g}"


def metric_after_step(label: str, values, count: int, help: str) -> None:
    """The value after the last step, with its change since the step before (lower is better)."""
    before = count - 1 if count else 0
    st.metric(
        label,
        fmt(values[-1]),
        delta=fmt(values[-1] - values[before]) if count else None,
        delta_color="inverse",
        help=help,
    )


ctx = setup_page("Step by step", steps=True, drawing=True)
st.title("Step by step: E-step, M-step, Lloyd step")

# On the plane: placing or dragging a centre makes the centres on screen the start (steps begin again there)
missing = ctx.ctrl.init == "placed" and len(ctx.ctrl.placed) < ctx.ctrl.k
on_plane = plane_tools.plane_mode(forced="centres" if missing else None)
if missing:
    with panel("Placing centres"):
        plane_tools.placing_panel(
            ctx.ctrl, plane_tools.start_centres(ctx.ctrl), f"Place {ctx.ctrl.k} starting centres", height=560
        )
    st.stop()


def steps_view(ctrl) -> None:
    """The step buttons, Play, the plane at the iteration shown, L_σ and J over the steps, and soft against
    Lloyd: what Play's clock redraws on every tick (ui.step_by_step.play_view)."""
    shown = ctrl.shown_step()
    cols = st.columns([1, 1, 1, 1, 2.2], vertical_alignment="center")
    full = shown >= MAX_STEPS
    for col, (letter, what) in zip(cols, STEP_HELP.items()):
        col.button(
            STEP_NAMES[letter], key=f"step_{letter}", on_click=take, args=(letter,), disabled=full, help=what
        )
    cols[3].button(
        "Reset",
        key="step_reset",
        on_click=reset,
        disabled=not ctrl.steps,
        help="Back to the starting centres.",
    )
    cols[4].markdown(
        f"**Iteration {shown}**"
        + (f" of {len(ctrl.steps)} taken" if shown < len(ctrl.steps) else "")
        + f" · at most {MAX_STEPS}"
        + (f" · steps: `{ctrl.steps[:shown][-40:]}`" if shown else " · no step taken yet")
    )
    if full:
        st.info(f"{MAX_STEPS} steps is the most a link can replay: press Reset to start again.")
    play_controls(ctrl)

    run = whole = comparison = None
    with panel("The steps"):
        sigmas = compared_sigmas(ctx.scale.grid, ctrl.sigma)
        whole, comparison, note = compute.stepper_replay(ctrl, sigmas)
        X, _ = compute.data(ctrl)
        pause_when_settled(ctrl, whole, X)
        run = whole
        if shown < len(ctrl.steps):  # scrubbed back: the plane and numbers at the iteration shown
            run, comparison, _ = compute.stepper_replay(
                replace(ctrl, steps=ctrl.steps[:shown], at=None), sigmas
            )
        if note:
            st.info(note)
        last = STEP_NAMES[run.steps[-1]] if run.steps else None
        head = f"{uploads.data_name(ctrl)}, k = {ctrl.k}, {ctrl.kind}, {ctrl.dtype}, σ = {ctrl.sigma:.3g}"
        plot_col, numbers_col = st.columns([3, 1.25], gap="medium")
        with plot_col:
            fig = step_plane_figure(
                X,
                run,
                lloyd_from_pair=comparison.lloyd if comparison.after_pair else None,
                title=f"{head} · after {last} {run.count}" if last else f"{head} · start",
                axes=uploads.axis_titles(ctrl),
                height=740
                if ctrl.presenter
                else 600,  # a projector: the plane fills most of the screen's height
            )
            moves = np.sqrt(((run.current - run.previous) ** 2).sum(axis=1))
            if last is None:
                words = "The starting centres; each point is coloured by its responsibilities r at them."
            elif run.steps[-1] == "E":
                words = (
                    "An E-step only recolours the points: r is recomputed at the centres, which do not move "
                    "(no arrows)."
                )
            else:
                words = (
                    f"The {last} moved the centres along the arrows (open circle = before, filled = now; "
                    f"largest move {float(np.nanmax(moves)) if np.isfinite(moves).any() else np.nan:.3g} "
                    "data units)."
                )
            if comparison.after_pair:
                words += " The black × mark where one Lloyd step from the same centres would have put them."
            if on_plane in ("draw", "erase"):
                plane_tools.drawing_panel(ctrl)
            elif on_plane == "centres":
                plane_tools.placing_panel(
                    ctrl,
                    [tuple(float(v) for v in c) for c in run.current],
                    "Drag a centre (or click the plane): the next step starts there",
                    height=600,
                )
            else:
                chart(fig, ctrl, "step_plane", description=words, fill=True)
        with numbers_col:
            st.metric(
                "Steps taken", run.count if run.count == whole.count else f"{run.count} of {whole.count}"
            )
            metric_after_step(
                "L_σ (soft loss)",
                run.loss,
                run.count,
                "L_σ(C) = Σ_i Σ_j r_ij ‖x_i − c_j‖², with r computed at the current centres.",
            )
            metric_after_step(
                "J (K-Means inertia)",
                run.distortion,
                run.count,
                "J(C) = Σ_i min_j ‖x_i − c_j‖²: scikit-learn's inertia_ at the current centres.",
            )
            st.metric(
                "max |soft step − Lloyd step|",
                fmt(comparison.difference),
                help=(
                    "From the centres before the last E-step + M-step pair (or, if the last two steps are "
                    "not that pair, from the current centres): how far the soft step and the hard Lloyd step "
                    "land apart, largest coordinate, in data units."
                ),
            )
            if run.count and not run.resp_current:
                source = "the Lloyd step's hard assignment" if run.resp_by == "L" else "the E-step"
                st.caption(
                    f"The colours are r from {source}, computed at the centres before they moved: press "
                    "E-step to recompute r at the current centres."
                )
            if not np.isfinite(run.loss[-1]):
                st.warning(
                    "The naive map fails at this σ in this precision (0/0: NaN responsibilities, grey "
                    "points), so the centres it moves become NaN. Choose softmax or entmax-1.5, or a "
                    "larger σ."
                )

    with panel("L_σ and J over the steps"):
        if whole is not None:
            hist_col, table_col = st.columns([3, 1.25], gap="medium")
            with hist_col:
                chart(
                    history_figure(
                        whole,
                        title="After every half-step",
                        shown=shown if shown < whole.count else None,
                    ),
                    ctrl,
                    "step_history",
                    description=(
                        "Both losses are measured at the centres after each step, so they change when the "
                        "centres move (M-step, Lloyd step) and stay flat after an E-step; L_σ lies above J "
                        "and meets it as σ → 0."
                        + (
                            f" The grey line marks iteration {shown}, the one shown above."
                            if shown < whole.count
                            else ""
                        )
                    ),
                )
            with table_col:
                st.dataframe(
                    {
                        "#": list(range(whole.count + 1)),
                        "step": ["start"] + [TABLE_NAMES[s] for s in whole.steps],
                        "L_σ": whole.loss,
                        "J": whole.distortion,
                    },
                    hide_index=True,
                    height=min(
                        300, 35 * (whole.count + 2) + 3
                    ),  # rows of 35 px: no empty rows below a short run
                    key="step_table",
                )

    with panel("Soft steps become Lloyd steps as σ → 0"):
        if comparison is not None:
            st.markdown(
                "**One soft step against one Lloyd step from the same centres**"
                + (
                    " (the centres before your last E-step + M-step)"
                    if comparison.after_pair
                    else " (the current centres)"
                )
            )
            table_col, text_col = st.columns([1.4, 2], gap="large")
            with table_col:
                st.dataframe(
                    {
                        "σ": [
                            f"{s:.3g}" + (" (now)" if np.isclose(s, ctrl.sigma) else "")
                            for s in comparison.sigmas
                        ],
                        "max |soft step − Lloyd step|": [f"{d:.3g}" for d in comparison.differences],
                    },
                    hide_index=True,
                    key="sigma_table",
                )
            with text_col:
                st.caption(
                    "**In words:** as σ falls every responsibility row becomes one-hot (all weight on the "
                    "nearest centre), so the soft E-step is Lloyd's assignment and the M-step is Lloyd's "
                    "mean: the gap in the table shrinks to 0. At the σ you chose it is "
                    f"{fmt(comparison.difference)} data units."
                )


play_view(ctx, steps_view)

with panel("The explanation"):
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(
            "**E-step.** Responsibilities at the current centres, with the map chosen in the sidebar:"
        )
        st.latex(r"z_{ij} = -\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}")
        st.latex(
            r"r_{i\cdot} = \operatorname{softmax}(z_{i\cdot}) \;\text{or}\; "
            r"\operatorname{entmax}_{1.5}(z_{i\cdot})"
        )
        st.markdown("**M-step.** Every centre to its soft centroid (a centre with no mass stays put):")
        st.latex(r"c_j \leftarrow \frac{\sum_i r_{ij}\, x_i}{\sum_i r_{ij}}")
        st.markdown(
            "**Lloyd step.** The same two halves with hard r: each point to its nearest centre (r is 0 "
            "or 1), then every centre to its cluster's mean."
        )
    with right:
        st.markdown("**The numbers**, both at the current centres:")
        st.latex(LOSS_EQUATION)  # L_σ and J in their colours in "L_σ and J over the steps"
        st.latex(DISTORTION_EQUATION)
        st.markdown(
            "**The link.** The steps you take are in the address (`steps=` E, M, L, at most "
            f"{MAX_STEPS}): copy it and anyone replays the same sequence from the same start. Change σ or "
            "the map and the same steps replay at the new setting; change the data, k or the start and "
            "they begin again. The menu opens every other view without the steps. **Play** takes the "
            "steps for you at the chosen speed and stops when the centres no longer move; **Step back** "
            "and the scrubber show an earlier iteration (`at=` in the address) and keep the later ones."
        )
