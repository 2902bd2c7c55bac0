"""Step by step: one E-step, one M-step or one Lloyd step at a time, with arrows from the old centres to
the new, L_σ and J after every half-step, and the distance between a soft step and Lloyd's.

The steps taken live in the URL (``steps=EMEML``) next to the start (data, k, init, map, precision, σ),
so a shared link replays exactly the same sequence (rbfviz.views.step_by_step.arrays.replay). Play takes
steps by itself, Step back and the scrubber show an earlier iteration (``at=``) without losing the later
ones (ui.step_by_step)."""

from dataclasses import replace

import numpy as np
import streamlit as st

from rbfviz.i18n import N_
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
STEP_HELP = {  # shown as tr(STEP_HELP[letter])
    "E": N_("Recompute every point's responsibilities r at the current centres, at this σ and map."),
    "M": N_("Move every centre to the r-weighted mean of the points (its soft centroid)."),
    "L": N_("Hard: give each point to its nearest centre, then move every centre to its cluster's mean."),
}
COMPARED_SIGMAS = 6  # σ values of the "soft step vs Lloyd step" table, spread over the σ range


def capitalised(name: str) -> str:
    """A step's name as a button's label: its first letter upper case (a sentence has it lower case)."""
    return name[:1].upper() + name[1:]


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
    return "nan" if not np.isfinite(value) else tr.number(value, ".6g")


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
tr = ctx.tr
st.title(tr("Step by step: E-step, M-step, Lloyd step"))

# On the plane: placing or dragging a centre makes the centres on screen the start (steps begin again there)
missing = ctx.ctrl.init == "placed" and len(ctx.ctrl.placed) < ctx.ctrl.k
on_plane = plane_tools.plane_mode(forced="centres" if missing else None)
if missing:
    with panel(tr("Placing centres")):
        plane_tools.placing_panel(
            ctx.ctrl,
            plane_tools.start_centres(ctx.ctrl),
            tr("Place {k} starting centres", k=ctx.ctrl.k),
            height=560,
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
            capitalised(tr(STEP_NAMES[letter])),
            key=f"step_{letter}",
            on_click=take,
            args=(letter,),
            disabled=full,
            help=tr(what),
        )
    cols[3].button(
        tr("Reset"),
        key="step_reset",
        on_click=reset,
        disabled=not ctrl.steps,
        help=tr("Back to the starting centres."),
    )
    if shown < len(ctrl.steps):
        where = tr("**Iteration {shown}** of {taken} taken", shown=shown, taken=len(ctrl.steps))
    else:
        where = tr("**Iteration {shown}**", shown=shown)
    most = tr("at most {most}", most=MAX_STEPS)
    done = tr("steps: `{steps}`", steps=ctrl.steps[:shown][-40:]) if shown else tr("no step taken yet")
    cols[4].markdown(f"{where} · {most} · {done}")
    if full:
        st.info(tr("{most} steps is the most a link can replay: press Reset to start again.", most=MAX_STEPS))
    play_controls(ctrl)

    run = whole = comparison = None
    with panel(tr("The steps")):
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
            st.info(tr(note))  # a catalog message (ui.compute.step_start)
        last = tr(STEP_NAMES[run.steps[-1]]) if run.steps else None
        head = tr.format(
            "{name}, k = {k}, {kind}, {dtype}, σ = {sigma:.3g}",
            name=uploads.data_name(ctrl),
            k=ctrl.k,
            kind=ctrl.kind,
            dtype=ctrl.dtype,
            sigma=ctrl.sigma,
        )
        plot_col, numbers_col = st.columns([3, 1.25], gap="medium")
        with plot_col:
            fig = step_plane_figure(
                X,
                run,
                lloyd_from_pair=comparison.lloyd if comparison.after_pair else None,
                title=tr("{head} · after {step} {count}", head=head, step=last, count=run.count)
                if last
                else tr("{head} · start", head=head),
                axes=uploads.axis_titles(ctrl),
                height=740
                if ctrl.presenter
                else 600,  # a projector: the plane fills most of the screen's height
                tr=tr,
            )
            moves = np.sqrt(((run.current - run.previous) ** 2).sum(axis=1))
            if last is None:
                words = tr("The starting centres; each point is coloured by its responsibilities r at them.")
            elif run.steps[-1] == "E":
                words = tr(
                    "An E-step only recolours the points: r is recomputed at the centres, which do not move "
                    "(no arrows)."
                )
            else:
                words = tr(
                    "The {step} moved the centres along the arrows (open circle = before, filled = now; "
                    "largest move {move:.3g} data units).",
                    step=last,
                    move=float(np.nanmax(moves)) if np.isfinite(moves).any() else np.nan,
                )
            if comparison.after_pair:
                words += " " + tr(
                    "The black × mark where one Lloyd step from the same centres would have put them."
                )
            if on_plane in ("draw", "erase"):
                plane_tools.drawing_panel(ctrl)
            elif on_plane == "centres":
                plane_tools.placing_panel(
                    ctrl,
                    [tuple(float(v) for v in c) for c in run.current],
                    tr("Drag a centre (or click the plane): the next step starts there"),
                    height=600,
                )
            else:
                chart(fig, ctrl, "step_plane", description=words, fill=True)
        with numbers_col:
            st.metric(
                tr("Steps taken"),
                run.count
                if run.count == whole.count
                else tr("{shown} of {taken}", shown=run.count, taken=whole.count),
            )
            metric_after_step(
                tr("L_σ (soft loss)"),
                run.loss,
                run.count,
                tr("L_σ(C) = Σ_i Σ_j r_ij ‖x_i − c_j‖², with r computed at the current centres."),
            )
            metric_after_step(
                tr("J (K-Means inertia)"),
                run.distortion,
                run.count,
                tr("J(C) = Σ_i min_j ‖x_i − c_j‖²: scikit-learn's inertia_ at the current centres."),
            )
            st.metric(
                tr("max |soft step − Lloyd step|"),
                fmt(comparison.difference),
                help=tr(
                    "From the centres before the last E-step + M-step pair (or, if the last two steps are "
                    "not that pair, from the current centres): how far the soft step and the hard Lloyd step "
                    "land apart, largest coordinate, in data units."
                ),
            )
            if run.count and not run.resp_current:
                if run.resp_by == "L":
                    colours = tr(
                        "The colours are r from the Lloyd step's hard assignment, computed at the centres "
                        "before they moved: press E-step to recompute r at the current centres."
                    )
                else:
                    colours = tr(
                        "The colours are r from the E-step, computed at the centres before they moved: press "
                        "E-step to recompute r at the current centres."
                    )
                st.caption(colours)
            if not np.isfinite(run.loss[-1]):
                st.warning(
                    tr(
                        "The naive map fails at this σ in this precision (0/0: NaN responsibilities, grey "
                        "points), so the centres it moves become NaN. Choose softmax or entmax-1.5, or a "
                        "larger σ."
                    )
                )

    with panel(tr("L_σ and J over the steps")):
        if whole is not None:
            hist_col, table_col = st.columns([3, 1.25], gap="medium")
            with hist_col:
                chart(
                    history_figure(
                        whole,
                        title=tr("After every half-step"),
                        shown=shown if shown < whole.count else None,
                        tr=tr,
                    ),
                    ctrl,
                    "step_history",
                    description=tr(
                        "Both losses are measured at the centres after each step, so they change when the "
                        "centres move (M-step, Lloyd step) and stay flat after an E-step; L_σ lies above J "
                        "and meets it as σ → 0."
                    )
                    + (
                        " " + tr("The grey line marks iteration {shown}, the one shown above.", shown=shown)
                        if shown < whole.count
                        else ""
                    ),
                )
            with table_col:
                st.dataframe(
                    {
                        "#": list(range(whole.count + 1)),
                        tr("step"): [tr("start")] + [TABLE_NAMES[s] for s in whole.steps],
                        # numbers as text in the reader's decimal separator (a table's numbers have none)
                        "L_σ": [tr.number(v, ".4f") for v in whole.loss],
                        "J": [tr.number(v, ".4f") for v in whole.distortion],
                    },
                    hide_index=True,
                    height=min(
                        300, 35 * (whole.count + 2) + 3
                    ),  # rows of 35 px: no empty rows below a short run
                    key="step_table",
                )

    with panel(tr("Soft steps become Lloyd steps as σ → 0")):
        if comparison is not None:
            st.markdown(
                tr(
                    "**One soft step against one Lloyd step from the same centres** (the centres before "
                    "your last E-step + M-step)"
                )
                if comparison.after_pair
                else tr(
                    "**One soft step against one Lloyd step from the same centres** (the current centres)"
                )
            )
            table_col, text_col = st.columns([1.4, 2], gap="large")
            with table_col:
                st.dataframe(
                    {
                        "σ": [
                            tr("{sigma:.3g} (now)", sigma=s) if np.isclose(s, ctrl.sigma) else tr.number(s)
                            for s in comparison.sigmas
                        ],
                        tr("max |soft step − Lloyd step|"): [tr.number(d) for d in comparison.differences],
                    },
                    hide_index=True,
                    key="sigma_table",
                )
            with text_col:
                st.caption(
                    tr(
                        "**In words:** as σ falls every responsibility row becomes one-hot (all "
                        "weight on the "
                        "nearest centre), so the soft E-step is Lloyd's assignment and the M-step is Lloyd's "
                        "mean: the gap in the table shrinks to 0. At the σ you chose it is {gap} data units.",
                        gap=fmt(comparison.difference),
                    )
                )


play_view(ctx, steps_view)

with panel(tr("The explanation")):
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(
            tr("**E-step.** Responsibilities at the current centres, with the map chosen in the sidebar:")
        )
        st.latex(r"z_{ij} = -\frac{\lVert x_i - c_j\rVert^2}{2\sigma^2}")
        st.latex(
            r"r_{i\cdot} = \operatorname{softmax}(z_{i\cdot}) \;\text{"
            + tr("or")
            + r"}\; \operatorname{entmax}_{1.5}(z_{i\cdot})"
        )
        st.markdown(tr("**M-step.** Every centre to its soft centroid (a centre with no mass stays put):"))
        st.latex(r"c_j \leftarrow \frac{\sum_i r_{ij}\, x_i}{\sum_i r_{ij}}")
        st.markdown(
            tr(
                "**Lloyd step.** The same two halves with hard r: each point to its nearest centre (r is 0 "
                "or 1), then every centre to its cluster's mean."
            )
        )
    with right:
        st.markdown(tr("**The numbers**, both at the current centres:"))
        st.latex(LOSS_EQUATION)  # L_σ and J in their colours in "L_σ and J over the steps"
        st.latex(DISTORTION_EQUATION)
        st.markdown(
            tr(
                "**The link.** The steps you take are in the address (`steps=` E, M, L, at most {most}): "
                "copy it and anyone replays the same sequence from the same start. Change σ or the map and "
                "the same steps replay at the new setting; change the data, k or the start and they begin "
                "again. The menu opens every other view without the steps. **Play** takes the steps for you "
                "at the chosen speed and stops when the centres no longer move; **Step back** and the "
                "scrubber show an earlier iteration (`at=` in the address) and keep the later ones.",
                most=MAX_STEPS,
            )
        )
