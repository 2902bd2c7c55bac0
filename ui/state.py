"""The shared controls: one dataclass, its URL form, and how it survives reruns and page switches.

The shared controls live in the query string (``?dataset=moons&n=500&...&sigma=0.21``) so a link opens
the same view with them; an uploaded file (dataset=upload) stays in the session that uploaded it
(``resolve_upload``). Controls inside one page (the Explorer's field, How many clusters' k_max, the
Neural network's forms) are not in the address: docs/teach/address.md, generated from the code, lists
every parameter and every such control. Query values are strings typed by people:
``parse_query`` never raises; a bad value falls back to its default and adds a notice naming the
parameter.

Where the state is kept during a session (pages run one at a time, and widgets are dropped when
the user leaves a page):
* ``st.session_state[keys.CONTROLS]``  the current ``Controls`` (a non-widget key, so it survives);
* ``st.session_state[keys.QUERY]``  the query dict last read from or written to the URL. If the URL
  differs from it, somebody edited the URL or followed a link: the URL wins. If the URL carries
  none of our keys (the sidebar's page menu drops them), the session's controls win.
Widgets write into the controls through ``on_change`` callbacks (see ui.page), which run before
the script, so the widgets can always be (re)initialised from the controls.

Why this URL sync is written by hand rather than with Streamlit's ``bind="query-params"``: measured on
Streamlit 1.67 with our layout (pages in ``pages/``; tests/e2e/test_e2e_streamlit_multipage.py):
* a bound parameter does not survive a page switch: a link to another view that carries it
  arrives without it, and the new page starts from the widget's default;
* a value equal to the widget's default is dropped from the address, so the links would no longer
  hold every shared control;
* a bad value is dropped silently, and ours must name the parameter, so the URL would still have to
  be parsed here before the widgets read it (two parsers of one address);
* σ (committed by the browser component ui.scrub), the picks (plot clicks) and ``dataset=upload``
  are not widgets, so ``save_controls`` would stay anyway, next to a second writer of the same URL.
The dependent resets (a new dataset resets n, noise and k; a smaller n lowers k) would have to
be written into the bound widgets' session state, as ``changed`` does for the controls now.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from rbfviz.datasets import DATASETS, DEFAULT_NOISE, IRIS_SIZE, MAX_NOISE, NATURAL_K
from rbfviz.drawn import MAX_DRAWN, decode_points, encode_points
from rbfviz.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, Translator, explain, language_of_locale, translator
from rbfviz.loader import MAX_ROWS
from rbfviz.validate import (
    ALPHA_MAX,
    ALPHA_MIN,
    COMPARED_KINDS,
    DTYPES,
    ENTMAX_FAMILY,
    check_alpha,
    entmax_alpha,
    entmax_kind,
)
from rbfviz.views.common.palette import MAX_CLUSTERS
from rbfviz.views.explorer.picks import MAX_PICKS
from rbfviz.views.explorer.placed import MAX_PLACED, encode_placed, parse_placed
from rbfviz.views.step_by_step.arrays import MAX_STEPS, PLAY_STEPS, SPEEDS, check_steps

from . import session_keys as keys

KINDS = COMPARED_KINDS  # the maps the app offers (rbfviz.validate.DTYPES: its precisions)
# the Map menu: those, with α-entmax ("entmax", its α from the α control) after entmax-1.5
KIND_CHOICES = (*KINDS[:2], ENTMAX_FAMILY, *KINDS[2:])
ALPHA_DEFAULT = 1.5
N_MIN, N_MAX, N_DEFAULT = 5, 5000, 500
K_MIN = 2
SEED_MAX = 2**31 - 1

# The user's own CSV file: a session-only data set. The URL says dataset=upload, but a link
# cannot carry the file (see ``resolve_upload``).
UPLOAD = "upload"
UPLOAD_N_DEFAULT, UPLOAD_K_DEFAULT = N_DEFAULT, 3
# Points drawn by hand on the plane (On the plane: Draw points): the link carries them (``points=``, the
# text of rbfviz.drawn), so n is their number and noise and the generator's seed play no part.
DRAWN = "drawn"
NO_POINTS = encode_points([])
DATASET_CHOICES = DATASETS + (UPLOAD, DRAWN)

QUERY_KEYS = (
    "dataset",
    "n",
    "noise",
    "seed",
    "k",
    "init",
    "picks",
    "centres",
    "points",
    "kind",
    "alpha",
    "dtype",
    "sigma",
    "steps",
    "at",
    "speed",
    "play",
    "presenter",
    "lang",
)
# The step sequence belongs to the Step-by-step view: a change that gives other data or another start
# ends it, while σ, the map and presenter mode keep it (the same steps replay at the new σ, which is how
# the view shows soft steps turning into Lloyd steps). Other views drop it (``without_steps``).
_KEEP_STEPS = ("sigma", "kind", "alpha", "presenter", "at", "speed", "play", "lang")
SPEED_DEFAULT, PLAY_DEFAULT = 1.0, "em"  # Step by step's Play: steps per second, and what it takes
# "+" is a space in a query string, so k-means++ travels as "kmeanspp"; the spellings people
# type by hand are accepted too.
_INIT_TO_URL = {
    "kmeans++": "kmeanspp",
    "random": "random",
    "farthest": "farthest",
    "anneal": "anneal",
    "custom": "custom",
    "placed": "placed",
}
_INIT_ALIASES = {
    "kmeanspp": "kmeans++",
    "kmeans++": "kmeans++",
    "k-means++": "kmeans++",
    "kmeans": "kmeans++",
    "k-means": "kmeans++",
    "random": "random",
    "farthest": "farthest",
    "farthest-point": "farthest",
    "anneal": "anneal",
    "annealing": "anneal",
    "custom": "custom",
    "clicked": "custom",
    "picked": "custom",
    "placed": "placed",
}
INIT_LABELS = {  # shown as tr(INIT_LABELS[init])
    "kmeans++": N_("k-means++ seeding"),
    "random": N_("k random points"),
    "farthest": N_("farthest points (first nearest the mean)"),
    "anneal": N_("anneal from the data mean"),
    "custom": N_("custom (points clicked on the Explorer plot)"),
    "placed": N_("placed (centres put anywhere on the plane)"),
}
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def n_max(dataset: str) -> int:
    return {"iris": IRIS_SIZE, UPLOAD: MAX_ROWS}.get(dataset, N_MAX)


def n_default(dataset: str) -> int:
    return {"iris": IRIS_SIZE, UPLOAD: UPLOAD_N_DEFAULT}.get(dataset, N_DEFAULT)


def k_max(n: int) -> int:
    return min(MAX_CLUSTERS, n)


@dataclass(frozen=True)
class Controls:
    """Every shared control. ``sigma=None`` means "the data set's default σ" (resolved per page).

    picks: indices of data points clicked on the Explorer's plot; init "custom" starts from the
    first k of them. upload: for dataset "upload", the content hash of the session's uploaded points
    (never in the URL: a link cannot carry the file). presenter: large fonts and markers, fewer controls.
    placed: centres put anywhere on the plane (x, y), on the Explorer or Step by step; init "placed" starts
    from the first k of them (rbfviz.views.explorer.placed).
    drawn: for dataset "drawn", the points' text (rbfviz.drawn.encode_points); the link's ``points``.
    steps: the Step-by-step view's sequence of E-, M- and Lloyd steps from the start, as letters E, M, L
    (rbfviz.views.step_by_step.arrays); empty on every other view. at: the iteration Step by step shows
    (0 the start), None for the last; speed, play: its Play's steps per second and what Play takes.
    """

    dataset: str = "blobs"
    n: int = N_DEFAULT
    noise: float = DEFAULT_NOISE["blobs"]
    seed: int = 0
    k: int = NATURAL_K["blobs"]
    init: str = "kmeans++"
    kind: str = "softmax"  # a library map name; α-entmax as its spec "entmax:<α>" (with alpha = that α)
    dtype: str = "float64"
    sigma: float | None = None
    picks: tuple[int, ...] = ()
    placed: tuple[tuple[float, float], ...] = ()
    drawn: str = NO_POINTS
    upload: str | None = None
    presenter: bool = False
    steps: str = ""
    alpha: float = ALPHA_DEFAULT  # α of α-entmax: the α control's value, kept while another map is chosen
    at: int | None = None
    speed: float = SPEED_DEFAULT
    play: str = PLAY_DEFAULT
    lang: str = DEFAULT_LANGUAGE  # the language on screen (rbfviz.i18n.LANGUAGES): always in the address

    @classmethod
    def for_dataset(cls, dataset: str, **overrides) -> "Controls":
        """Defaults that suit the data set (its noise, natural k, size), then the overrides."""
        if dataset == UPLOAD:
            base = cls(dataset=dataset, n=n_default(dataset), noise=0.0, k=UPLOAD_K_DEFAULT)
        elif dataset == DRAWN:
            base = cls(dataset=dataset, n=0, noise=0.0, k=UPLOAD_K_DEFAULT)
        else:
            base = cls(
                dataset=dataset, n=n_default(dataset), noise=DEFAULT_NOISE[dataset], k=NATURAL_K[dataset]
            )
        return replace(base, **overrides)

    def data_key(self) -> tuple:
        """The parameters that fix the data set: (dataset, n, noise, seed); an upload is named by its hash."""
        name = {UPLOAD: f"{UPLOAD}:{self.upload}", DRAWN: f"{DRAWN}:{self.drawn}"}.get(
            self.dataset, self.dataset
        )
        return (name, self.n, self.noise, self.seed)

    def start_picks(self) -> tuple[int, ...]:
        """The picks the start depends on: the first k for init "custom", none otherwise."""
        return tuple(self.picks[: self.k]) if self.init == "custom" else ()

    def shown_step(self) -> int:
        """The iteration Step by step shows: ``at``, or the last one."""
        return len(self.steps) if self.at is None else self.at

    def start_placed(self) -> tuple[tuple[float, float], ...]:
        """The placed centres the start depends on: the first k for init "placed", none otherwise."""
        return tuple(self.placed[: self.k]) if self.init == "placed" else ()

    def to_query(self) -> dict[str, str]:
        """Every control as a query-string value (sigma once resolved; picks, steps, the shown iteration,
        presenter, and Play's speed and steps if set)."""
        query = dict(
            dataset=self.dataset,
            n=str(self.n),
            noise=_fmt(self.noise),
            seed=str(self.seed),
            k=str(self.k),
            init=_INIT_TO_URL[self.init],
            kind=self.kind,
            dtype=self.dtype,
        )
        if self.map_choice() == ENTMAX_FAMILY:
            query.update(kind=ENTMAX_FAMILY, alpha=_fmt(self.alpha))
        if self.picks:
            query["picks"] = ",".join(str(i) for i in self.picks)
        if self.placed:
            query["centres"] = encode_placed(self.placed)
        if self.dataset == DRAWN:
            query["points"] = self.drawn
        if self.sigma is not None:
            query["sigma"] = _fmt(self.sigma)
        if self.steps:
            query["steps"] = self.steps
        if self.at is not None:
            query["at"] = str(self.at)
        if self.speed != SPEED_DEFAULT:
            query["speed"] = _fmt(self.speed)
        if self.play != PLAY_DEFAULT:
            query["play"] = self.play
        if self.presenter:
            query["presenter"] = "1"
        query["lang"] = self.lang
        return query

    def as_dict(self) -> dict:
        return asdict(self)

    def map_choice(self) -> str:
        """The Map menu's entry for ``kind``: "entmax" for an α-entmax spec, else kind itself."""
        return ENTMAX_FAMILY if self.kind != "entmax15" and entmax_alpha(self.kind) is not None else self.kind


def with_map(ctrl: Controls, choice: str, alpha: float) -> Controls:
    """ctrl with the Map menu's ``choice`` (one of KIND_CHOICES) at α-entmax's ``alpha``."""
    kind = entmax_kind(alpha) if choice == ENTMAX_FAMILY else choice
    return replace(ctrl, kind=kind, alpha=float(alpha))


def _fmt(x: float) -> str:
    return f"{float(x):.4g}"


def _as_int(text: str) -> int:
    value = float(text)  # accepts "500", "5e2", " 500 "
    if not math.isfinite(value) or value != int(value):
        raise ValueError
    return int(value)


def _as_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError
    return value


def parse_query(query, browser_language: str = DEFAULT_LANGUAGE) -> tuple[Controls, list[str]]:
    """Controls from query-string values (a mapping of str to str); never raises.

    Missing parameters take their defaults silently; a bad value takes its default and adds a
    notice saying which parameter was wrong and what is allowed. Defaults of n, noise and k
    follow the (valid) dataset. ``lang`` is read first: without it (or with an unknown one) the page
    speaks ``browser_language`` (rbfviz.i18n.language_of_locale), and the notices are in that language.
    Returns (controls, notices).
    """
    query = {key: query[key] for key in QUERY_KEYS if key in query and query[key] is not None}
    notices: list[str] = []
    lang, tr = _read_language(query, browser_language, notices)

    def bad(key: str, allowed: str, used) -> None:
        if isinstance(used, bool):
            used = int(used)
        elif isinstance(used, tuple):
            used = ",".join(map(str, used)) or tr("(none)")
        notices.append(
            tr(
                "URL parameter `{key}={value}` is not valid ({allowed}); using {key}={used}.",
                key=key,
                value=str(query[key]),
                allowed=allowed,
                used=str(used),
            )
        )

    dataset = str(query.get("dataset", "blobs")).strip().lower()
    if dataset not in DATASET_CHOICES:
        dataset = "blobs"
        bad("dataset", tr("one of {values}", values=", ".join(DATASET_CHOICES)), dataset)
    drawn = _read_drawn(query, notices, tr) if dataset == DRAWN else None
    if dataset == DRAWN and drawn is None:
        dataset = "blobs"
    ctrl = Controls.for_dataset(dataset)
    if drawn is not None:  # n is the number of points drawn, whatever the link says
        ctrl = replace(ctrl, drawn=drawn, n=len(decode_points(drawn)))
        query.pop("n", None)

    def read(key, convert, ok, allowed, default):
        if key not in query:
            return default
        try:
            value = convert(str(query[key]).strip())
        except (TypeError, ValueError):
            value = None
        if value is None or not ok(value):
            bad(key, allowed, default)
            return default
        return value

    n = read(
        "n",
        _as_int,
        lambda v: N_MIN <= v <= n_max(dataset),
        tr("an integer from {low} to {high}", low=str(N_MIN), high=str(n_max(dataset))),
        ctrl.n,
    )
    noise = read(
        "noise",
        _as_float,
        lambda v: 0 <= v <= MAX_NOISE,
        tr("a number from {low} to {high}", low=0, high=float(MAX_NOISE)),
        ctrl.noise,
    )
    seed = read(
        "seed",
        _as_int,
        lambda v: 0 <= v <= SEED_MAX,
        tr("an integer from {low} to {high}", low="0", high=str(SEED_MAX)),
        ctrl.seed,
    )
    k_default = min(ctrl.k, n) if n >= K_MIN else ctrl.k  # a drawing of 0 or 1 points keeps k
    k = read(
        "k",
        _as_int,
        lambda v: v >= K_MIN,
        tr("an integer from {low} to {high}", low=str(K_MIN), high=str(k_max(n))),
        k_default,
    )
    if k > n and n < K_MIN:
        k = min(k, MAX_CLUSTERS)  # too few points drawn for any k: the page asks for more
    elif k > n:
        notices.append(
            tr(
                "URL parameter `k={value}` asks for more clusters than points: k must be at most the "
                "number of points n = {n}; using k={k}.",
                value=str(query["k"]),
                n=str(n),
                k=str(k_default),
            )
        )
        k = k_default
    elif k > MAX_CLUSTERS:
        notices.append(
            tr(
                "URL parameter `k={value}` is too large: the app shows at most {most} clusters (one "
                "distinct colour each); using k={k}.",
                value=str(query["k"]),
                most=str(MAX_CLUSTERS),
                k=str(k_default),
            )
        )
        k = k_default
    init_text = str(query.get("init", "kmeanspp")).strip().lower()
    init = _INIT_ALIASES.get(init_text)
    if init is None:
        init = "kmeans++"
        bad("init", tr("one of {values}", values=", ".join(_INIT_TO_URL.values())), _INIT_TO_URL[init])
    picks = read(
        "picks",
        _as_picks,
        lambda v: len(v) <= MAX_PICKS and all(0 <= i < n for i in v) and len(set(v)) == len(v),
        tr(
            "at most {most} different point numbers from 0 to {last}, separated by commas",
            most=str(MAX_PICKS),
            last=str(n - 1),
        ),
        (),
    )
    placed = _read_placed(query.get("centres"), notices, tr)
    kind = read(
        "kind",
        lambda s: s.lower(),
        lambda v: v in KIND_CHOICES,
        tr("one of {values}", values=", ".join(KIND_CHOICES)),
        ctrl.kind,
    )
    alpha = read(
        "alpha",
        _as_alpha,
        lambda v: True,
        tr(
            "a number from {low} to {high}: 1.5 is entmax-1.5, 2 is sparsemax",
            low=float(ALPHA_MIN),
            high=float(ALPHA_MAX),
        ),
        ALPHA_DEFAULT,
    )
    dtype = read(
        "dtype",
        lambda s: s.lower(),
        lambda v: v in DTYPES,
        tr("one of {values}", values=", ".join(DTYPES)),
        ctrl.dtype,
    )
    sigma = read("sigma", _as_float, lambda v: v > 0, tr("a positive number"), None)
    steps = _read_steps(query.get("steps"), notices, tr)
    at = read(
        "at",
        _as_int,
        lambda v: 0 <= v <= len(steps),
        tr("an iteration from 0 to {last}, the steps taken", last=str(len(steps))),
        None,
    )
    speed = read(
        "speed",
        _as_float,
        lambda v: v in SPEEDS,
        tr("steps per second, one of {values}", values=", ".join(map(_fmt, SPEEDS))),
        SPEED_DEFAULT,
    )
    play = read(
        "play",
        lambda s: s.lower(),
        lambda v: v in PLAY_STEPS,
        tr("one of {values}", values=", ".join(PLAY_STEPS)),
        PLAY_DEFAULT,
    )
    presenter = read("presenter", _as_flag, lambda v: v is not None, tr("1 or 0"), False)
    return replace(
        ctrl,
        n=n,
        noise=noise,
        seed=seed,
        k=k,
        init=init,
        picks=picks,
        placed=placed,
        kind=entmax_kind(alpha) if kind == ENTMAX_FAMILY else kind,
        alpha=alpha,
        dtype=dtype,
        sigma=sigma,
        steps=steps,
        at=None if at == len(steps) else at,
        speed=speed,
        play=play,
        presenter=presenter,
        lang=lang,
    ), notices


def _read_language(query, browser_language: str, notices: list[str]) -> tuple[str, Translator]:
    """The address's ``lang`` if it is one of ours, else the browser's language (with a notice, in that
    language, naming the value and the allowed ones); and its translator."""
    fallback = browser_language if browser_language in LANGUAGES else DEFAULT_LANGUAGE
    text = query.get("lang")
    if text is None:
        return fallback, translator(fallback)
    wanted = {code.lower(): code for code in LANGUAGES}.get(str(text).strip().lower().replace("_", "-"))
    if wanted is not None:
        return wanted, translator(wanted)
    tr = translator(fallback)
    notices.append(
        tr(
            "URL parameter `lang={value}` is not a language of this app ({allowed}); showing {language}, "
            "the browser's language.",
            value=str(text),
            allowed=", ".join(LANGUAGES),
            language=LANGUAGES[fallback],
        )
    )
    return fallback, tr


def _read_drawn(query, notices: list[str], tr: Translator) -> str | None:
    """The text of the drawn points of a URL (``points``; none: no points yet), written as the app
    writes it; None (with a notice) for a text rbfviz.drawn cannot read."""
    text = str(query.get("points", ""))
    try:
        return encode_points(decode_points(text))
    except ValueError as err:
        shown = text if len(text) <= 40 else text[:40] + "…"
        notices.append(
            tr(
                "URL parameter `points={value}` is not valid ({reason}; at most {most} points, as the app "
                "writes them); showing the built-in blobs data instead.",
                value=shown,
                reason=explain(err, tr),
                most=str(MAX_DRAWN),
            )
        )
        return None


def _read_placed(text, notices: list[str], tr: Translator) -> tuple[tuple[float, float], ...]:
    """The placed centres of a URL ("x,y;x,y"); a bad text drops them all, with a notice saying why."""
    if text is None:
        return ()
    try:
        return parse_placed(text)
    except ValueError as err:
        shown = text if len(text) <= 60 else text[:60] + "…"
        notices.append(
            tr(
                "URL parameter `centres={value}` is not valid ({reason}; write x,y;x,y with at most {most} "
                "centres); using no placed centres.",
                value=shown,
                reason=explain(err, tr),
                most=str(MAX_PLACED),
            )
        )
        return ()


def _as_alpha(text: str) -> float:
    """α of α-entmax from a URL: rbfviz's own check (a number in [1.05, 2]), to the α control's step 0.01."""
    return round(check_alpha(_as_float(text)), 2)


def _read_steps(text, notices: list[str], tr: Translator) -> str:
    """The step sequence of a URL: letters E, M, L (any case). Other letters drop the whole sequence;
    one longer than MAX_STEPS keeps its first MAX_STEPS steps. Either way a notice says why."""
    if text is None:
        return ""
    text = str(text)
    letters = text.strip().upper()
    shown = text if len(text) <= 40 else text[:40] + "…"
    if len(letters) > MAX_STEPS:
        try:
            check_steps(letters[:MAX_STEPS])
        except ValueError:
            pass
        else:
            notices.append(
                tr(
                    "URL parameter `steps={value}` has {count} steps; the Step-by-step view replays at "
                    "most {most}, so it shows the first {most}.",
                    value=shown,
                    count=str(len(letters)),
                    most=str(MAX_STEPS),
                )
            )
            return letters[:MAX_STEPS]
    try:
        return check_steps(letters)
    except ValueError as err:
        reason = explain(err, tr).rstrip(".")
        notices.append(
            tr(
                "URL parameter `steps={value}` is not valid ({reason}); starting with no steps taken.",
                value=shown,
                reason=reason,
            )
        )
        return ""


def without_steps(ctrl: Controls) -> Controls:
    """ctrl without a step sequence: what every view but Step by step shows, links to and keeps."""
    return replace(ctrl, steps="", at=None) if ctrl.steps or ctrl.at is not None else ctrl


QUERIES_KEPT = 8  # our last addresses kept for load_controls: more than a browser is ever behind
MENU_DROPS = ("sigma", "steps", "at")  # what the sidebar's page menu leaves out of its links


def menu_query(ctrl: Controls) -> dict[str, str]:
    """The query of the sidebar's page links: every control but σ (it follows the session, see
    ``load_controls``) and the step sequence (every view opens without one)."""
    return {key: value for key, value in ctrl.to_query().items() if key not in MENU_DROPS}


def _as_picks(text: str) -> tuple[int, ...]:
    return tuple(_as_int(part) for part in text.split(",") if part.strip()) if text.strip() else ()


def _as_flag(text: str) -> bool | None:
    text = text.lower()
    return True if text in _TRUE else False if text in _FALSE else None


def lesson_query(lesson, presenter: bool = False, lang: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """The address of a lesson step's view (rbfviz.views.lessons.arrays.Prepared): its settings at its σ,
    in the reader's language."""
    return Controls(**lesson.step.settings, sigma=lesson.sigma, presenter=presenter, lang=lang).to_query()


def resolve_upload(ctrl: Controls, upload) -> tuple[Controls, list[str]]:
    """Controls whose dataset "upload" points at the session's uploaded points, or the defaults if none.

    upload: the session's ``ui.upload.Upload`` (anything with ``digest`` and ``n``) or None. A link
    can say dataset=upload, but the file itself never travels in a URL: without an upload in this
    session the view falls back to the default data set and says why. Returns (controls, notices).
    """
    if ctrl.dataset != UPLOAD:
        return (replace(ctrl, upload=None) if ctrl.upload is not None else ctrl), []
    if upload is None:
        fallback = Controls.for_dataset(
            "blobs",
            seed=ctrl.seed,
            init="kmeans++" if ctrl.init == "custom" else ctrl.init,
            kind=ctrl.kind,
            alpha=ctrl.alpha,
            dtype=ctrl.dtype,
            presenter=ctrl.presenter,
            lang=ctrl.lang,
        )
        tr = translator(ctrl.lang)
        return fallback, [
            tr(
                "This link asks for uploaded data (`dataset=upload`), but an uploaded file stays in the "
                "browser session that uploaded it: links and bookmarks cannot carry it. Showing the built-in "
                "blobs data instead. To see your own points, upload the CSV file under **Your own data** in "
                "the sidebar."
            )
        ]
    if ctrl.upload == upload.digest and ctrl.n == upload.n:
        return ctrl, []
    return with_upload(ctrl, upload)


def with_upload(ctrl: Controls, upload) -> tuple[Controls, list[str]]:
    """Controls switched to the session's uploaded points: n from the file, k kept if the file has
    enough points, picks dropped unless they still fit, σ re-derived. Returns (controls, notices)."""
    notices: list[str] = []
    k = ctrl.k
    if k > k_max(upload.n):
        k = k_max(upload.n)
        notices.append(
            translator(ctrl.lang).ngettext(
                "k lowered from {old} to {k}: the file has {n} point.",
                "k lowered from {old} to {k}: the file has {n} points.",
                upload.n,
                old=str(ctrl.k),
                k=str(k),
            )
        )
    # the same upload (or a link to "the upload" opened in the session that has it) keeps picks and σ
    same = ctrl.dataset == UPLOAD and ctrl.upload in (None, upload.digest)
    picks = ctrl.picks if same and all(i < upload.n for i in ctrl.picks) else ()
    return replace(
        ctrl,
        dataset=UPLOAD,
        upload=upload.digest,
        n=upload.n,
        noise=0.0,
        k=k,
        picks=picks,
        sigma=ctrl.sigma if same else None,
        steps=ctrl.steps if same and ctrl.n == upload.n else "",
        at=ctrl.at if same and ctrl.n == upload.n else None,
    ), notices


def changed(ctrl: Controls, field: str, value) -> tuple[Controls, list[str]]:
    """Controls after the user set ``field`` to ``value``, with the dependent resets.

    Returns (controls, notices).

    A new dataset takes that dataset's noise, k, size and default σ (the previous noise may be
    meaningless for it: blobs 1.5 vs moons 0.1). A new n below k lowers k. Any change of the data
    or of k re-derives the σ range, so σ is re-snapped later (ui.page). Any change but σ, the map and
    presenter mode ends the Step-by-step view's sequence (its steps belong to the old data and start).
    """
    notices: list[str] = []
    if field == "dataset":
        return Controls.for_dataset(
            value,
            seed=ctrl.seed,
            init=ctrl.init,
            kind=ctrl.kind,
            alpha=ctrl.alpha,
            dtype=ctrl.dtype,
            presenter=ctrl.presenter,
            lang=ctrl.lang,
        ), notices
    if field == "kind":
        new = with_map(ctrl, value, ctrl.alpha)
    elif field == "alpha":  # the slider's float (1.05 + 0.01·j) rounded to its step, as the URL writes it
        new = with_map(ctrl, ctrl.map_choice(), round(float(value), 2))
    else:
        new = replace(ctrl, **{field: value})
    if field not in _KEEP_STEPS and new.steps:
        new = replace(
            new, steps="", at=None
        )  # other data or another start: the old steps belong to the old one
    if field in ("n", "noise", "seed") and new.picks:
        new = replace(new, picks=())  # picks are rows of the old data
        tr = translator(new.lang)
        notices.append(tr("The picked points were cleared: they belonged to the previous data."))
    if field == "n" and new.k > k_max(new.n):
        tr = translator(new.lang)
        notices.append(
            tr(
                "k lowered from {old} to {k}: k must be at most the number of points n = {n}.",
                old=str(new.k),
                k=str(k_max(new.n)),
                n=str(new.n),
            )
        )
        new = replace(new, k=k_max(new.n))
    return new, notices


# --- session glue (Streamlit) -----------------------------------------------------------------------


def _url_query(st) -> dict[str, str]:
    """Our parameters of the request's address (one read of st.query_params: each access is a lookup)."""
    query = st.query_params.to_dict()
    return {key: query[key] for key in QUERY_KEYS if key in query}


def load_controls(st, behind: bool = False) -> Controls:
    """The controls for this run: from the URL on a fresh session or an edited link, else the session's.

    behind: the request's browser had not yet received the last run's sidebar (ui.sidebar_mark), so an
    address we wrote before the last one is its old address, not a link.
    dataset=upload is resolved against the session's upload (``keys.UPLOAD``): a link cannot carry
    the file, so without one the defaults are used and a notice says why."""
    url = _url_query(st)
    known = st.session_state.get(keys.CONTROLS)
    # A rerun request carries the address as the browser had it when the request was sent; after
    # quick successive changes it can be older than what the last run wrote. So an address that
    # differs from our last write counts as a new link only when no widget changed the controls
    # in this rerun (a widget change is the user's newest intent), and not when it is one of our
    # earlier writes sent by a browser that had not received the last.
    changed_by_widget = known is not None and known != st.session_state.get(keys.SAVED_CONTROLS)
    last = st.session_state.get(keys.QUERY) or {}
    old_address = behind and url in st.session_state.get(keys.QUERIES_WRITTEN, [])
    if known is not None and url and url == {k: v for k, v in last.items() if k not in MENU_DROPS}:
        # the sidebar's menu link (``menu_query``): this session's own view, σ included, no steps
        url = last = {}
        known = without_steps(known)
    if known is None or (not changed_by_widget and not old_address and url and url != last):
        ctrl, notices = parse_query(url, language_of_locale(st.context.locale))
        ctrl, more = resolve_upload(ctrl, st.session_state.get(keys.UPLOAD))
        st.session_state[keys.CONTROLS] = ctrl
        st.session_state[keys.NOTICES] = notices + more
        st.session_state[keys.QUERY] = url
        return ctrl
    ctrl, more = resolve_upload(known, st.session_state.get(keys.UPLOAD))
    if more:
        add_notices(st, more)
    st.session_state[keys.CONTROLS] = ctrl
    return ctrl


def notices(st) -> list[str]:
    return list(st.session_state.get(keys.NOTICES, []))


def add_notices(st, new: list[str]) -> None:
    st.session_state[keys.NOTICES] = notices(st) + list(new)


def save_controls(st, ctrl: Controls) -> bool:
    """Keep ctrl in the session and write the URL, touching only the parameters that changed. Returns
    whether the address changed from our last write."""
    st.session_state[keys.CONTROLS] = ctrl
    st.session_state[keys.SAVED_CONTROLS] = ctrl
    query = ctrl.to_query()
    url = _url_query(st)
    last = st.session_state.get(keys.QUERY) or {}
    # compare with the request's address and with our last write: the request's address may be stale,
    # and the browser's is then the last one written
    writes = {
        key: query[key]
        for key in QUERY_KEYS
        if key in query and (url.get(key) != query[key] or last.get(key) != query[key])
    }
    if writes:  # one address message for them all (each item set alone sends its own)
        st.query_params.update(writes)
    for key in QUERY_KEYS:
        if key not in query and key in url:
            del st.query_params[key]
    st.session_state[keys.QUERY] = query
    if query == last:
        return False
    # the addresses a browser that is behind may still send (load_controls): the last few we wrote
    written = st.session_state.get(keys.QUERIES_WRITTEN, [])
    st.session_state[keys.QUERIES_WRITTEN] = [*written[-(QUERIES_KEPT - 1) :], query]
    return True
