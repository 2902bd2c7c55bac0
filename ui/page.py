"""Page setup shared by every page: page config, the sidebar of shared controls, notices, and an
error boundary so one failing panel never takes the page down.

    ctx = setup_page("Explorer")        # config + sidebar + URL state; ctx.ctrl has a resolved σ
    with panel("The plane"):            # any exception inside becomes a short st.error
        chart(fig, ctx.ctrl, "plane", description=explorer_words.plane(...))  # figure + one sentence
        ...

Presenter mode (``?presenter=1`` or the sidebar toggle): ``chart`` enlarges every figure's fonts,
markers and lines (rbfviz.views.common.presenter), page text is larger, and the controls a class does not
need (n, noise, seed, initialisation, precision, downloads) fold away.

Why every page calls ``setup_page`` itself and the menu is drawn here, not by ``st.navigation``:
measured on Streamlit 1.67 with a real server and Chromium, an entry script that calls
``st.navigation`` next to a ``pages/`` folder is skipped on a freshly started server. The first
visitors who open a deep link (``/Explorer?n=9``) get the page script alone: no entry script, so no
shared sidebar and no page config, and a menu that names the home page "app". That lasts until
somebody opens ``/`` (Streamlit decides per process, before any of our code runs, that a ``pages/``
folder means the old multipage mode, and only an ``st.navigation`` call in a run ends it). A
teacher's link opened after a restart hits exactly this. Keeping the page scripts in ``pages/``
(the documented layout) therefore rules ``st.navigation`` out: the only way around it would reset a
private Streamlit attribute (``PagesManager.uses_pages_directory``) from a page and rerun. A second
measurement rules out ``bind="query-params"`` for the sidebar controls (see ui.state).
tests/e2e/test_e2e_streamlit_multipage.py repeats both measurements on tiny apps. If it fails after a
Streamlit upgrade, the reason is gone, and the switch can be made.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

import plotly.graph_objects as go
import streamlit as st

from rbfviz.classroom import format_code, is_student_id, new_student_id, normalise_code
from rbfviz.datasets import DATASET_LABELS, MAX_NOISE
from rbfviz.i18n import N_, Translator, explain, translator
from rbfviz.views.common.kinds import KIND_CONTROL_LABELS
from rbfviz.views.common.layout import THEME_INK_RGB, streamlit_themed
from rbfviz.views.common.presenter import presenter_figure
from rbfviz.views.explorer.arrays import SigmaScale

from . import compute, exports, language, session_log, sidebar_mark, state
from . import session_keys as keys
from . import upload as uploads
from .progress import progress_slot
from .state import (
    ALPHA_MAX,
    ALPHA_MIN,
    DRAWN,
    DTYPES,
    INIT_LABELS,
    K_MIN,
    KIND_CHOICES,
    N_MIN,
    SEED_MAX,
    UPLOAD,
    Controls,
)

log = logging.getLogger("rbfviz.app")

PAGES = (  # (script, name, blurb): names and blurbs shown as tr(name), tr(blurb)
    (
        "pages/1_Explorer.py",
        N_("Explorer"),
        N_("the plane at one σ: soft field, points, centres, the numbers"),
    ),
    ("pages/2_Step_by_step.py", N_("Step by step"), N_("one E-step, one M-step, one Lloyd step at a time")),
    (
        "pages/3_Annealing.py",
        N_("Annealing"),
        N_("centres as σ falls: trajectories, bifurcations, collapse error"),
    ),
    (
        "pages/4_How_many_clusters.py",
        N_("How many clusters"),
        N_("three answers side by side: annealing, elbow, silhouette"),
    ),
    (
        "pages/5_Stability.py",
        N_("Stability"),
        N_("softmax vs entmax-1.5 vs naive across σ, float32 and float64"),
    ),
    (
        "pages/6_Equivalence.py",
        N_("Equivalence"),
        N_("one gradient step with η_j = 1/(2N_j) is one Lloyd step"),
    ),
    (
        "pages/7_Gaussian_mixture.py",
        N_("Gaussian mixture"),
        N_("softmax responsibilities are the E-step of a Gaussian mixture"),
    ),
    ("pages/8_Lessons.py", N_("Lessons"), N_("a guided tour in ten steps: predict, then see")),
    (
        "pages/9_Neural_network.py",
        N_("Neural network"),
        N_("K-Means as a layer: a classifier, deep clustering, low σ, trained live"),
    ),
)
HOME_TITLE = N_("K-Means is the σ → 0 limit of an RBF network")  # the Home page's title (app.py)
LESSONS = "Lessons"  # the page of the class sessions
ROOM_PARAM, SEAT_PARAM = "room", "seat"  # a student's class room and anonymous seat, in the address
CHART_CONFIG = {"displayModeBar": False, "scrollZoom": False}
# Captions carry real content ("In words", the bound, lesson hints): Streamlit's faded grey is 3.9:1 on
# white, under the 4.5:1 that WCAG AA asks for. The text colour at 80 % follows the light or dark theme
# and stays above 6:1 on either. Figure download buttons: small, in the theme's colours.
CAPTION_CSS = (
    "<style>[data-testid='stCaptionContainer'], [data-testid='stCaptionContainer'] p "
    "{ color: inherit; } [data-testid='stCaptionContainer'] { opacity: 0.8; }\n"
    ".rbfviz-figure-tools { display: flex; justify-content: flex-end; align-items: center; gap: 0.4rem; "
    "font-size: 0.875rem; }\n"
    ".rbfviz-figure-tools button { font: inherit; padding: 0.1rem 0.6rem; border-radius: 0.5rem; "
    "cursor: pointer; color: inherit; background: transparent; border: 1px solid rgba(128,128,128,0.6); }\n"
    ".rbfviz-figure-tools button:focus-visible { outline: 2px solid #0068c9; outline-offset: 2px; }\n"
    # a formula wider than its column breaks after = or + like inline math, instead of scrolling
    # sideways in a box that a keyboard cannot reach (axe: scrollable-region-focusable)
    ".katex-display > .katex { white-space: normal; }\n"
    # a slider's value above its thumb: the theme's text colour, since the dark theme's red on the dark
    # sidebar is 3.5:1 (axe: color-contrast)
    "[data-testid='stSliderThumbValue'], [data-testid='stSliderThumbValue'] p { color: inherit; }\n"
    # a phone: a smaller title and less space above it, the view's introduction folded (ui.page.intro),
    # so that the σ control and the first figure are on the first screen
    "@media (max-width: 640px) { [data-testid='stMainBlockContainer'] { padding-top: 3rem; } "
    "[data-testid='stMainBlockContainer'] h1 { font-size: 1.75rem; } "
    ".st-key-intro-wide { display: none; } }\n"
    "@media (min-width: 641px) { .st-key-intro-narrow { display: none; } }</style>"
)
# Figures drawn by st.plotly_chart follow the theme in the browser, also right after a switch:
# Streamlit's chart theme gives the backgrounds, grid, legend and hover colours; this stylesheet draws
# the ink (rbfviz.views.common.layout.THEME_INK) and the axis text in the theme's text colour
# (Streamlit's own tick grey is 3.7:1 on white, under the 4.5:1 WCAG AA asks for text). No "$" in it:
# st.markdown would read it as mathematics.
_SUBPLOTS = ("", "2", "3", "4", "5", "6", "7", "8", "9")  # Plotly's class suffix of subplot n
CHART_CSS = (
    "<style>"
    f"[data-testid='stPlotlyChart'] [style*='fill: {THEME_INK_RGB}'] {{ fill: currentColor !important; }}\n"
    f"[data-testid='stPlotlyChart'] [style*='stroke: {THEME_INK_RGB}'] "
    "{ stroke: currentColor !important; }\n"
    "[data-testid='stPlotlyChart'] :is("  # subplot n > 1 has ticks .x<n>tick, .y<n>tick
    + ", ".join(f".{axis}{n}tick" for n in _SUBPLOTS for axis in "xy")
    + ") text, "
    "[data-testid='stPlotlyChart'] text:is("  # axis titles, legends n > 1, Play/Pause buttons
    + ", ".join(
        [f".{axis}{n}title" for n in _SUBPLOTS for axis in "xy"]
        + [f".legend{n}text" for n in _SUBPLOTS[1:]]  # the first legend: Streamlit's or a field's colour
        + [".updatemenu-item-text"]
    )
    + ") { fill: currentColor !important; }"
    "</style>"
)
# Presenter mode: page text and metrics readable from the back of a room, the page as wide as the
# screen (the sidebar starts collapsed). Only sizes change: focus outlines and every keyboard path stay
# as Streamlit draws them.
PRESENTER_CSS = (
    """<style>
[data-testid="stMainBlockContainer"] { max-width: none; padding: 3.5rem 2.5rem 4rem 2.5rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] li """
    """{ font-size: 1.3rem; line-height: 1.5; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] p { font-size: 1.1rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.8rem; }
[data-testid="stMainBlockContainer"] h3 { font-size: 1.9rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] p { font-size: 1.35rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"],
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"] p { font-size: 3.2rem; line-height: 1.25; }
[data-testid="stMainBlockContainer"] .katex { font-size: 1.45em; }
</style>"""
)

# A presenter's main chart() figure: as tall as the window less the title and the controls above it,
# so the whole figure is on screen at 1280×720 and 1920×1080 alike.
FILL_KEY = "presenter_fill"
PRESENTER_FILL_CSS = (
    "<style>[data-testid='stLayoutWrapper']:has(> [class*='st-key-"
    + FILL_KEY
    + "']) { height: calc(100vh - 15rem) !important; flex: 0 0 calc(100vh - 15rem) !important; "
    "min-height: 24rem; }</style>"
)


@dataclass(frozen=True)
class PageContext:
    """What a page gets from ``setup_page``: the controls (σ resolved to a grid value) and the σ range."""

    ctrl: Controls
    scale: SigmaScale

    @property
    def tr(self) -> Translator:
        """The translator of the page's language (ctrl.lang): ``_ = ctx.tr`` then ``_("words")``."""
        return translator(self.ctrl.lang)


# --- error boundary ------------------------------------------------------------------------------


def error_message(what: str, exc: BaseException, tr: Translator | None = None) -> str:
    """A short message for users, in ``tr``'s language (default: this session's): our ValueErrors say what
    was wrong (``rbfviz.i18n.explain``: an ``Invalid`` translated); anything else shows its type only.
    ``what``: the panel's name, already in that language."""
    tr = tr or language.current()
    if isinstance(exc, ValueError):
        return tr("{what}: {reason}", what=what, reason=explain(exc, tr))
    return tr(
        "{what} could not be computed ({error}). The rest of the page still works; try another setting.",
        what=what,
        error=type(exc).__name__,
    )


def intro(text: str) -> None:
    """A view's introduction (markdown): the paragraph itself on a laptop, folded into "About this view"
    on a screen up to 640 px wide (CAPTION_CSS picks one), where it would push the view's controls and
    first figure below the first screen."""
    with st.container(key="intro-wide"):
        st.markdown(text)
    tr = language.current()
    with st.container(key="intro-narrow"), st.expander(tr("About this view")):
        st.markdown(text)


@contextmanager
def panel(what: str):
    """Run a block; if it raises, show ``st.error`` with a short message and carry on with the page.
    ``what``: the panel's name in the reader's language (``panel(tr("The plane"))``).

    Streamlit's own control flow (st.stop, st.rerun) derives from BaseException and passes through.
    """
    try:
        yield
    except Exception as exc:  # noqa: BLE001 — the boundary's whole job
        log.exception("panel %r failed", what)
        st.error(error_message(what, exc))


# --- sidebar ---------------------------------------------------------------------------------------


def _on_change(field: str) -> None:
    """Widget callback (runs before the script): fold the widget's value into the shared controls, unless
    the browser sent a value from before the server changed it (ui.sidebar_mark)."""
    if sidebar_mark.stale(field):
        return
    value = st.session_state[keys.widget(field)]
    ctrl = st.session_state.get(keys.CONTROLS) or Controls()
    new, notes = state.changed(ctrl, field, value)
    st.session_state[keys.CONTROLS] = new
    st.session_state[keys.NOTICES] = notes


# The sidebar's tooltips: what each control changes, in a student's words, and its name in the address
# (docs/teach/address.md lists every parameter with its label).
HELP = {  # shown as tr(HELP[field])
    "dataset": N_(
        "The points: scikit-learn's generators (blobs, moons, circles), a three-armed spiral, the "
        "iris measurements, three sets on which K-Means fails (sheared, unequal-variance and "
        "unequal-size blobs), or your own CSV file (Your own data, below). URL parameter: "
        "`dataset`."
    ),
    "n": N_(
        "How many points to generate (iris has 150: below that, a seeded subsample of them). URL "
        "parameter: `n`."
    ),
    "seed": N_(
        "Seed of the generated points and of the random starting centres: the same seed gives the "
        "same data and the same start. URL parameter: `seed`."
    ),
    "noise": N_(
        "How far the generator scatters the points around its shapes, in its own units. URL "
        "parameter: `noise`."
    ),
    "k": N_("How many RBF centres, that is clusters. URL parameter: `k`."),
    "kind": N_(
        "How distances become responsibilities: stable softmax, sparse entmax-1.5, the α-entmax "
        "family from softmax to sparsemax, or the literal exp/sum that breaks down (NaN) at small "
        "σ. URL parameter: `kind`."
    ),
    "alpha": N_(
        "α of α-entmax, r = [(α−1)z − τ]₊^(1/(α−1)): near 1 it is almost softmax, 1.5 is "
        "entmax-1.5, 2 is sparsemax. A row turns exactly one-hot once its logit gap reaches "
        "1/(α−1), so a larger α gives exact K-Means at a larger σ: σ*(α) = √((α−1)·g_min/2). URL "
        "parameter: `alpha`."
    ),
    "init": N_(
        "Where EM starts at each σ: k-means++ seeding, k random points, the farthest points (the "
        "first nearest the mean), annealing from the data mean, points you click on the Explorer's "
        "plot, or centres you place anywhere on the plane (On the plane: Place and drag centres). "
        "URL parameter: `init`."
    ),
    "dtype": N_(
        "The floating-point precision of the views' computations (the Neural network page has its "
        "own): float32 breaks the naive map at a larger σ than float64. URL parameter: `dtype`."
    ),
}


def _widget(kind, label: str, field: str, value, tr: Translator, **kwargs):
    """A sidebar control of ``field`` (its key ``keys.widget(field)``, the same in every language), its
    tooltip HELP[field] in ``tr``'s language."""
    key = keys.widget(field)
    sidebar_mark.shown(field, key, value)
    if field in HELP:
        kwargs.setdefault("help", tr(HELP[field]))
    return kind(label, key=key, on_change=_on_change, args=(field,), **kwargs)


def _on_typed_number(field: str, label: str, low: float, high: float) -> None:
    """Callback of a number typed as text (``_number_text``): the controls take it when it is a number
    in [low, high]; otherwise they keep theirs and a notice says what was wrong."""
    if sidebar_mark.stale(field):
        return
    ctrl = st.session_state.get(keys.CONTROLS) or Controls()
    tr = translator(ctrl.lang)
    text = st.session_state[keys.widget(field)]
    try:
        value = tr.parse_number(text)
    except ValueError:
        value = math.nan
    if not low <= value <= high:  # NaN too
        st.session_state[keys.NOTICES] = [
            tr(
                "“{text}” is not a number from {low:g} to {high:g}: {label} stays {value:g}.",
                text=str(text),
                low=low,
                high=high,
                label=label,
                value=getattr(ctrl, field),
            )
        ]
        return
    new, notes = state.changed(ctrl, field, value)
    st.session_state[keys.CONTROLS] = new
    st.session_state[keys.NOTICES] = notes


def _number_text(label: str, field: str, value: float, low: float, high: float, tr: Translator) -> None:
    """A decimal number typed as text, for a language that writes it with a decimal comma: Chromium's
    number input (Streamlit's st.number_input) drops a typed comma ("0,529" becomes 529), so the text is
    read by ``tr.parse_number`` ("0,529" and "0.529" alike). Same key, field and address as the number
    input it replaces."""
    key = keys.widget(field)
    sidebar_mark.shown(field, key, tr.number(value, "g"))
    st.text_input(
        label, key=key, on_change=_on_typed_number, args=(field, label, low, high), help=tr(HELP[field])
    )


def _data_controls(ctrl: Controls, more, tr: Translator) -> None:
    """Dataset (with "your file" once a file is uploaded); n, seed, noise (in ``more``)."""
    upload = uploads.current()
    labels = {code: tr(label) for code, label in DATASET_LABELS.items()}
    if upload is not None:
        labels[UPLOAD] = tr("your file ({name})", name=upload.name)
    labels[DRAWN] = tr(uploads.DRAWN_LABEL)
    st.markdown(tr("**Data**"))
    _widget(
        st.selectbox, tr("Dataset"), "dataset", ctrl.dataset, tr, options=list(labels), format_func=labels.get
    )
    with more:
        if ctrl.dataset in (UPLOAD, DRAWN):
            _widget(
                st.number_input,
                tr("Seed (for the starting centres)"),
                "seed",
                int(ctrl.seed),
                tr,
                min_value=0,
                max_value=SEED_MAX,
                step=1,
            )
            return
        cols = st.columns(2, vertical_alignment="bottom")  # a label over two lines keeps the boxes level
        with cols[0]:
            _widget(
                st.number_input,
                tr("Points n"),
                "n",
                int(ctrl.n),
                tr,
                min_value=N_MIN,
                max_value=state.n_max(ctrl.dataset),
                step=50,
            )
        with cols[1]:
            _widget(
                st.number_input,
                tr("Data seed"),
                "seed",
                int(ctrl.seed),
                tr,
                min_value=0,
                max_value=SEED_MAX,
                step=1,
            )
        if tr.decimal_comma:
            _number_text(tr("Noise (generator units)"), "noise", float(ctrl.noise), 0.0, float(MAX_NOISE), tr)
            return
        _widget(
            st.number_input,
            tr("Noise (generator units)"),
            "noise",
            float(ctrl.noise),
            tr,
            min_value=0.0,
            max_value=float(MAX_NOISE),
            step=0.05,
            format="%.3f",
        )


def alpha_choices() -> list[float]:
    """The α control's values: ALPHA_MIN to ALPHA_MAX in steps of 0.01, rounded as the address writes them."""
    return [round(ALPHA_MIN + 0.01 * i, 2) for i in range(round((ALPHA_MAX - ALPHA_MIN) / 0.01) + 1)]


def _model_controls(ctrl: Controls, more, tr: Translator) -> None:
    """k and the map; initialisation and precision (in ``more``)."""
    st.markdown(tr("**Model**"))
    # (a drawing of 0 to 2 points still offers k = 3, which it asks more points for)
    k_top = max(state.k_max(ctrl.n), K_MIN + 1, int(ctrl.k))
    _widget(st.slider, tr("Clusters k"), "k", int(ctrl.k), tr, min_value=K_MIN, max_value=k_top)
    choice = ctrl.map_choice()
    _widget(
        st.selectbox,
        tr("Map"),
        "kind",
        choice,
        tr,
        options=KIND_CHOICES,
        format_func=lambda kind: tr(KIND_CONTROL_LABELS[kind]),
    )
    if choice == state.ENTMAX_FAMILY and tr.decimal_comma:
        # Streamlit's slider writes its value with a decimal point whatever the language: the same values
        # (ALPHA_MIN to ALPHA_MAX in steps of 0.01) on a select slider that writes them as the reader does
        _widget(
            st.select_slider,
            tr("α of entmax"),
            "alpha",
            round(float(ctrl.alpha), 2),
            tr,
            options=alpha_choices(),
            format_func=lambda alpha: tr.number(alpha, ".2f"),
        )
    elif choice == state.ENTMAX_FAMILY:
        _widget(
            st.slider,
            tr("α of entmax"),
            "alpha",
            float(ctrl.alpha),
            tr,
            min_value=ALPHA_MIN,
            max_value=ALPHA_MAX,
            step=0.01,
        )
    with more:
        _widget(
            st.selectbox,
            tr("Initialisation"),
            "init",
            ctrl.init,
            tr,
            options=list(INIT_LABELS),
            format_func=lambda init: tr(INIT_LABELS[init]),
        )
        _widget(st.radio, tr("Precision"), "dtype", ctrl.dtype, tr, options=DTYPES, horizontal=True)


def _sidebar_controls(ctrl: Controls) -> Controls:
    """Presenter toggle, data, "Your own data", model. Returns the controls (a new upload switches them).

    In presenter mode the controls a class does not need fold into a "More controls" expander.
    """
    tr = translator(ctrl.lang)
    with st.sidebar:
        language.language_switch(ctrl.lang, _on_change, ("lang",))
        _widget(
            st.toggle,
            tr("Presenter mode"),
            "presenter",
            bool(ctrl.presenter),
            tr,
            help=tr(
                "Large text, markers and figures for a projector; fewer controls. Also ?presenter=1 in the "
                "URL."
            ),
        )
        data_slot = st.container()
    # before the data controls are drawn: a new file switches the data set
    ctrl = uploads.upload_section(ctrl)
    with st.sidebar:
        more = (
            st.expander(tr("More controls (n, noise, seed, start, precision)"))
            if ctrl.presenter
            else nullcontext()
        )
        with data_slot:
            _data_controls(ctrl, more if ctrl.presenter else nullcontext(), tr)
        _model_controls(ctrl, more, tr)
    return ctrl


def resolve_sigma(ctrl: Controls, scale: SigmaScale) -> tuple[float, list[str]]:
    """ctrl.sigma snapped to the σ grid; the default if unset. Out-of-range values say so (in ctrl's
    language)."""
    if ctrl.sigma is None:
        return scale.default, []
    sigma = float(ctrl.sigma)
    nearest = scale.nearest(sigma)
    step = math.log(scale.grid[0] / scale.grid[1]) if len(scale.grid) > 1 else 0.0
    if abs(math.log(sigma / nearest)) > step:  # further out than one grid step: outside the range
        tr = translator(ctrl.lang)
        return nearest, [
            tr(
                "σ = {sigma:.3g} is outside this data set's range [{low:.3g}, {high:.3g}] (from above the "
                "first critical σ to below the exact collapse); using σ = {nearest:.3g}.",
                sigma=sigma,
                low=scale.low,
                high=scale.high,
                nearest=nearest,
            )
        ]
    return nearest, []


def _sigma_control(ctrl: Controls, scale: SigmaScale, on_figure: bool) -> None:
    tr = translator(ctrl.lang)
    with st.sidebar:
        st.markdown(tr("**Temperature** (logits z = −‖x − c‖² / (2σ²))"))
        if on_figure:  # no σ value here: a settled σ reruns the page's σ panels, not the sidebar
            st.markdown(
                tr(
                    "σ: move it with the σ slider above the figure; the figure follows at once, this page's "
                    "other panels and the address when you stop."
                )
            )
        else:
            options = [float(s) for s in scale.grid[::-1]]  # small σ on the left
            _widget(
                st.select_slider,
                tr("σ (log scale)"),
                "sigma",
                float(ctrl.sigma),
                tr,
                options=options,
                format_func=tr.number,
            )
        st.caption(
            tr(
                "First split σ_c: softmax {softmax:.3g}, entmax-1.5 {entmax:.3g} · entmax exact below "
                "σ* = √g_min/2 = {exact_entmax:.3g} · softmax float64-exact below {exact_softmax:.3g}.",
                softmax=scale.sigma_c_softmax,
                entmax=scale.sigma_c_entmax,
                exact_entmax=scale.sigma_exact_entmax,
                exact_softmax=scale.sigma_exact_softmax,
            )
        )
        st.caption(tr("The URL holds these controls and σ: copy it to share this view with them."))


# The tab's icon, ◎ (a centre and its cell) drawn as an SVG inside the page: Streamlit takes a page icon
# that is neither an emoji nor a material icon for an address, so "◎" itself made every first visit
# fetch the app's HTML twice as an image (and show no icon); a data: address is drawn as it is.
FAVICON = "data:image/svg+xml," + quote(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16' fill='none' stroke='#4a5b8c' "
    "stroke-width='1.6'><circle cx='8' cy='8' r='6.6'/><circle cx='8' cy='8' r='3'/></svg>"
)


def setup_page(
    title: str,
    icon: str = FAVICON,
    sigma_on_figure: bool = False,
    steps: bool = False,
    drawing: bool = False,
) -> PageContext:
    """Page config, the shared sidebar, the URL state and its notices. Call first on every page.

    title: the page's English name (PAGES, or HOME_TITLE), shown in the reader's language; file names and
    the session's view keep the English one.

    sigma_on_figure: the page scrubs σ on its figure (ui.scrub), so the sidebar only states σ.
    steps: the page replays a step sequence (ctrl.steps); every other page drops it from its URL.
    drawing: the page draws points by hand (ui.plane_tools): while fewer points are drawn than k (or 2),
    it shows the drawing plane and stops; every other page says so and stops.

    Returns a PageContext whose ctrl.sigma is a value of the σ grid. If the data or the σ range
    cannot be computed, shows an error and stops the page (no traceback).
    """
    ctrl = state.load_controls(st, behind=sidebar_mark.behind())
    # presenter mode starts with the sidebar collapsed: the figure gets the projector's whole width
    st.set_page_config(
        page_title=f"{translator(ctrl.lang)(title)} · rbfviz",
        page_icon=icon,
        layout="wide",
        initial_sidebar_state="collapsed" if ctrl.presenter else "auto",
    )
    session_log.track_session()
    st.session_state[keys.VIEW] = title
    nav_slot = st.sidebar.container()  # filled last, when the links' state is known
    if not steps:
        ctrl = state.without_steps(ctrl)
    ctrl = _sidebar_controls(ctrl)
    if ctrl.dataset == DRAWN and ctrl.n < max(ctrl.k, K_MIN):
        _too_few_drawn(ctrl, nav_slot, drawing)
    try:
        scale = compute.scale(ctrl)
    except Exception as exc:  # noqa: BLE001
        log.exception("sigma scale failed")
        tr = translator(ctrl.lang)
        st.error(error_message(tr("The σ range of these data"), exc))
        sidebar_mark.send()
        st.stop()
    sigma, notes = resolve_sigma(ctrl, scale)
    ctrl = replace(ctrl, sigma=sigma)
    state.add_notices(st, notes)
    _sigma_control(ctrl, scale, sigma_on_figure)
    _save_and_mark(ctrl, nav_slot)
    st.html(CAPTION_CSS + CHART_CSS)
    if ctrl.presenter:
        st.html(PRESENTER_CSS)
    for note in state.notices(st):
        st.warning(note, icon="⚠️")
    st.session_state[keys.NOTICES] = []  # shown once
    uploads.show_messages(ctrl)
    room = room_query()
    tr = translator(ctrl.lang)
    if room and title != LESSONS:  # a student in a class, away from the lesson: the way back, on top
        st.page_link(
            _page(page_path(LESSONS)),
            label=tr("**Back to the class** (room {room})", room=format_code(room[ROOM_PARAM])),
            icon=":material/groups:",
            query_params={**state.menu_query(ctrl), **room},
        )
    return PageContext(ctrl=ctrl, scale=scale)


def _save_and_mark(ctrl: Controls, nav_slot) -> None:
    """The run's address and page menu, then the sidebar's mark: sent after both (ui.sidebar_mark)."""
    if state.save_controls(st, ctrl):
        sidebar_mark.address_written()
    _navigation(nav_slot, ctrl)
    sidebar_mark.send()


def _too_few_drawn(ctrl: Controls, nav_slot, drawing: bool) -> None:
    """A drawing with fewer points than k (or 2) has nothing to cluster yet: the page asks for more (on a
    drawing page, on the plane itself) and stops."""
    from . import plane_tools

    _save_and_mark(ctrl, nav_slot)
    for note in state.notices(st):
        st.warning(note, icon="⚠️")
    st.session_state[keys.NOTICES] = []
    more = max(ctrl.k, K_MIN) - ctrl.n
    tr = translator(ctrl.lang)
    so_far = tr.ngettext("{n} point", "{n} points", ctrl.n)
    if drawing:
        ask = tr(
            "**Drawn data:** {so_far} so far; draw {more} more for k = {k} (click or tap the plane below).",
            so_far=so_far,
            more=more,
            k=ctrl.k,
        )
    else:
        ask = tr(
            "**Drawn data:** {so_far} so far; draw {more} more for k = {k} on the Explorer or Step by step "
            "(On the plane: Draw points).",
            so_far=so_far,
            more=str(more),
            k=str(ctrl.k),
        )
    st.info(ask)
    if drawing:
        plane_tools.drawing_panel(ctrl, forced=True)
    else:
        st.page_link(
            _page(page_path("Explorer")),
            label=tr("Draw on the Explorer"),
            query_params=state.menu_query(ctrl),
        )
    st.stop()


def room_query() -> dict[str, str]:
    """The class room of a student's address and their seat, for every link the app draws for them:
    a student who follows a link stays in the class. Empty when the address has no room code.

    The seat is this session's (``class_seat``); the address gets it too, so a reload keeps it."""
    code = normalise_code(st.query_params.get(ROOM_PARAM))
    if code is None:
        return {}
    seat = class_seat()
    if st.query_params.get(SEAT_PARAM) != seat:
        st.query_params[SEAT_PARAM] = seat
    return {ROOM_PARAM: code, SEAT_PARAM: seat}


def class_seat() -> str:
    """This session's anonymous seat id in a class: kept in the session, else the address's, else new."""
    seat = st.session_state.get(keys.CLASS_SEAT)
    if seat is None:
        seat = st.query_params.get(SEAT_PARAM)
        if not is_student_id(seat):
            seat = new_student_id()
        st.session_state[keys.CLASS_SEAT] = seat
    return seat


def page_path(label: str) -> str:
    """The script of the page called ``label`` in PAGES."""
    return next(path for path, name, _ in PAGES if name == label)


ROOT = Path(__file__).resolve().parents[1]  # app.py and pages/ live here


@functools.cache
def _page(path: str) -> st.Page:
    """The st.Page of a script (relative to the repository root), built once per process.

    st.page_link given a path resolves it on the file system (os.path.realpath) on every call; given
    the Page that Streamlit registers for its ``pages/`` folder (same file, same URL path) it only
    looks the page up. app.py is the default page, as in Streamlit's own list.
    """
    return st.Page(ROOT / path, default=path == "app.py")


def _navigation(slot, ctrl: Controls) -> None:
    """The sidebar's page menu: Home and one link per view, each carrying the current controls but σ.

    Replaces Streamlit's automatic menu (client.showSidebarNavigation = false), which names the home
    page after its file ("app") and drops the query string when switching pages. A student's class
    room comes along (``room_query``). σ is left out: a
    settled σ reruns only the page's σ panels (``follows_sigma``), not the sidebar, and the session's σ
    comes along anyway (ui.state.load_controls takes a link that differs from the address only by σ as
    this session's own).
    """
    query = {**state.menu_query(ctrl), **room_query()}
    tr = translator(ctrl.lang)
    with slot:
        st.page_link(_page("app.py"), label=tr("Home"), icon=":material/home:", query_params=query)
        for path, label, _ in PAGES:
            st.page_link(_page(path), label=tr(label), query_params=query)
        st.divider()


def page_links(ctrl: Controls) -> None:
    """One link per view, carrying the current controls in the URL (and a student's class room)."""
    query = {**ctrl.to_query(), **room_query()}
    tr = translator(ctrl.lang)
    for path, label, blurb in PAGES:
        st.page_link(
            _page(path),
            label=tr("**{page}** — {blurb}", page=tr(label), blurb=tr(blurb)),
            query_params=query,
        )


# --- σ panels: rerun alone when the scrubber settles ------------------------------------------------


def follows_sigma(ctx: PageContext, draw: Callable[[Controls], None]) -> None:
    """Draw the panels that follow σ, ``draw(ctrl)``, as one fragment (st.fragment).

    A settled σ from the scrubber (ui.scrub, which must be drawn inside ``draw``) reruns this fragment
    alone: the panels get the controls with the new σ and the address follows, while setup_page's
    sidebar, the menu and everything outside ``draw`` stay as they are and cost nothing. ``draw`` must
    not keep state between runs in variables outside itself (a fragment rerun calls it again with the
    page's last full run's closure). If anything but σ changed (a pick, a button inside the fragment),
    the whole page reruns instead.
    """
    _sigma_fragment(ctx, draw)


@st.fragment
def _sigma_fragment(ctx: PageContext, draw: Callable[[Controls], None]) -> None:
    # the scrubber keeps its position (and so its DOM and focus) on the run after a first computation
    with progress_slot():
        draw(_sigma_controls(ctx))


def _sigma_controls(ctx: PageContext) -> Controls:
    """ctx.ctrl with the session's σ, saved to the address; a full rerun if anything else changed."""
    now = st.session_state.get(keys.CONTROLS)
    if now is None or replace(now, sigma=ctx.ctrl.sigma) != ctx.ctrl or state.notices(st):
        st.rerun()  # scope "app": the sidebar, the menu and the notices follow too
    # the scrubber commits grid values: resolving only checks; the address is written when it differs
    ctrl = (
        ctx.ctrl if now.sigma == ctx.ctrl.sigma else replace(ctx.ctrl, sigma=resolve_sigma(now, ctx.scale)[0])
    )
    state.save_controls(st, ctrl)
    return ctrl


class _Spec(go.Figure):
    """A finished figure spec (a dict) for st.plotly_chart. Streamlit reads a Plotly figure through its
    ``to_dict()`` and serialises that dict (``plotly.tools.return_figure_from_figure_or_data``), where a
    plain dict it would first validate by building a Figure from it. So the spec goes over as it is,
    without a Figure built from it and two deep copies of it: about half of a chart's server time (the
    Stability curves 20.7 → 9.4 ms). Only ``to_dict`` is read: the Figure itself is never initialised
    (tests/app/test_app_framework.py checks what Streamlit sends)."""

    def __init__(self, spec: dict):  # the Figure's own __init__ is skipped on purpose
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec


def chart(fig, ctrl: Controls, key: str, description: str | None = None, fill: bool = False, **kwargs):
    """Show a figure (enlarged in presenter mode) in the page's light or dark theme, PNG and SVG
    download buttons (not in presenter mode), and its one-sentence description.

    fill: the page's main figure. In presenter mode it fills the window's height (PRESENTER_FILL_CSS)
    instead of keeping the height its builder set, so a projector of any size shows it whole.

    Returns (the figure as shown, in the light colours of the figure builders; st.plotly_chart's
    return value: the selection event when ``on_select`` is given). Extra keyword arguments go to
    st.plotly_chart (``config`` replaces CHART_CONFIG: no tool bar, no scroll zoom).
    The download's file name says the view, the figure (its key), the data set and σ.
    """
    fill = fill and ctrl.presenter
    if ctrl.presenter:
        fig = presenter_figure(fig)
    # numbers on the axes and in hover labels in the language's decimal and thousands separators (the
    # figure builders that take a translator set them too; this covers every figure shown)
    tr = translator(ctrl.lang)
    fig.layout.separators = tr.separators
    if fill:
        fig = go.Figure(fig).update_layout(height=None, autosize=True)
        kwargs["height"] = "stretch"
        st.html(PRESENTER_FILL_CSS)
    kwargs.setdefault("config", CHART_CONFIG)
    with st.container(key=exports.FIGURE_HOLDER + key):
        # the theme's colours are applied in the browser (Streamlit's chart theme), so a theme switch
        # needs no rerun
        with st.container(key=f"{FILL_KEY}_{key}", height=720, border=False) if fill else nullcontext():
            event = st.plotly_chart(_Spec(streamlit_themed(fig)), width="stretch", key=key, **kwargs)
        if not ctrl.presenter:
            view = st.session_state.get(keys.VIEW, "figure")
            name = exports.figure_file_name(view, key, ctrl.dataset, ctrl.sigma)
            exports.figure_tools(key, name, what=tr("the {view} figure ({key})", view=tr(view), key=key))
        if description:
            st.caption(tr("**In words:** {description}", description=description))
    return fig, event
