"""The shared controls: one dataclass, its URL form, and how it survives reruns and page switches.

The whole state lives in the query string (``?dataset=moons&n=500&...&sigma=0.21``) so a link opens
exactly the same view. Query values are strings typed by people: ``parse_query`` never raises; a
bad value falls back to its default and adds a notice naming the parameter.

Where the state is kept during a session (pages run one at a time, and widgets are dropped when
the user leaves a page):
* ``st.session_state[STATE_KEY]``  the current ``Controls`` (a non-widget key, so it survives);
* ``st.session_state[QUERY_KEY]``  the query dict last read from or written to the URL. If the URL
  differs from it, somebody edited the URL or followed a link: the URL wins. If the URL carries
  none of our keys (the sidebar's page menu drops them), the session's controls win.
Widgets write into the controls through ``on_change`` callbacks (see ui.page), which run before
the script, so the widgets can always be (re)initialised from the controls.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from rbfviz.datasets import DATASETS, DEFAULT_NOISE, IRIS_SIZE, MAX_NOISE, NATURAL_K
from rbfviz.explore import INITS
from rbfviz.figures.palette import MAX_CLUSTERS

KINDS = ("softmax", "entmax15", "naive")
DTYPES = ("float64", "float32")
N_MIN, N_MAX, N_DEFAULT = 5, 5000, 500
K_MIN = 2
SEED_MAX = 2**31 - 1

QUERY_KEYS = ("dataset", "n", "noise", "seed", "k", "init", "kind", "dtype", "sigma")
# "+" is a space in a query string, so k-means++ travels as "kmeanspp"; the spellings people
# type by hand are accepted too.
_INIT_TO_URL = {"kmeans++": "kmeanspp", "random": "random", "anneal": "anneal"}
_INIT_ALIASES = {"kmeanspp": "kmeans++", "kmeans++": "kmeans++", "k-means++": "kmeans++", "kmeans": "kmeans++",
                 "k-means": "kmeans++", "random": "random", "anneal": "anneal", "annealing": "anneal"}
INIT_LABELS = {"kmeans++": "k-means++ seeding", "random": "k random points",
               "anneal": "anneal from the data mean"}

STATE_KEY = "_rbfviz_controls"
QUERY_KEY = "_rbfviz_query"
NOTICE_KEY = "_rbfviz_notices"


def n_max(dataset: str) -> int:
    return IRIS_SIZE if dataset == "iris" else N_MAX


def n_default(dataset: str) -> int:
    return IRIS_SIZE if dataset == "iris" else N_DEFAULT


def k_max(n: int) -> int:
    return min(MAX_CLUSTERS, n)


@dataclass(frozen=True)
class Controls:
    """Every shared control. ``sigma=None`` means "the data set's default σ" (resolved per page)."""

    dataset: str = "blobs"
    n: int = N_DEFAULT
    noise: float = DEFAULT_NOISE["blobs"]
    seed: int = 0
    k: int = NATURAL_K["blobs"]
    init: str = "kmeans++"
    kind: str = "softmax"
    dtype: str = "float64"
    sigma: float | None = None

    @classmethod
    def for_dataset(cls, dataset: str, **overrides) -> "Controls":
        """Defaults that suit the data set (its noise, natural k, size), then the overrides."""
        base = cls(dataset=dataset, n=n_default(dataset), noise=DEFAULT_NOISE[dataset], k=NATURAL_K[dataset])
        return replace(base, **overrides)

    def data_key(self) -> tuple:
        """The parameters that fix the data set: (dataset, n, noise, seed)."""
        return (self.dataset, self.n, self.noise, self.seed)

    def to_query(self) -> dict[str, str]:
        """Every control as a query-string value (sigma only once resolved)."""
        query = dict(dataset=self.dataset, n=str(self.n), noise=_fmt(self.noise), seed=str(self.seed),
                     k=str(self.k), init=_INIT_TO_URL[self.init], kind=self.kind, dtype=self.dtype)
        if self.sigma is not None:
            query["sigma"] = _fmt(self.sigma)
        return query

    def as_dict(self) -> dict:
        return asdict(self)


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


def parse_query(query) -> tuple[Controls, list[str]]:
    """Controls from query-string values (a mapping of str to str); never raises.

    Missing parameters take their defaults silently; a bad value takes its default and adds a
    notice saying which parameter was wrong and what is allowed. Defaults of n, noise and k
    follow the (valid) dataset. Returns (controls, notices).
    """
    query = {key: query[key] for key in QUERY_KEYS if key in query and query[key] is not None}
    notices: list[str] = []

    def bad(key: str, allowed: str, used) -> None:
        notices.append(f"URL parameter `{key}={query[key]}` is not valid ({allowed}); using {key}={used}.")

    dataset = str(query.get("dataset", "blobs")).strip().lower()
    if dataset not in DATASETS:
        dataset = "blobs"
        bad("dataset", f"one of {', '.join(DATASETS)}", dataset)
    ctrl = Controls.for_dataset(dataset)

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

    n = read("n", _as_int, lambda v: N_MIN <= v <= n_max(dataset),
             f"an integer from {N_MIN} to {n_max(dataset)}", ctrl.n)
    noise = read("noise", _as_float, lambda v: 0 <= v <= MAX_NOISE, f"a number from 0 to {MAX_NOISE:g}", ctrl.noise)
    seed = read("seed", _as_int, lambda v: 0 <= v <= SEED_MAX, f"an integer from 0 to {SEED_MAX}", ctrl.seed)
    k_default = min(ctrl.k, n)
    k = read("k", _as_int, lambda v: v >= K_MIN, f"an integer from {K_MIN} to {k_max(n)}", k_default)
    if k > n:
        notices.append(f"URL parameter `k={query['k']}` asks for more clusters than points: k must be at most "
                       f"the number of points n = {n}; using k={k_default}.")
        k = k_default
    elif k > MAX_CLUSTERS:
        notices.append(f"URL parameter `k={query['k']}` is too large: the app shows at most {MAX_CLUSTERS} "
                       f"clusters (one distinct colour each); using k={k_default}.")
        k = k_default
    init_text = str(query.get("init", "kmeanspp")).strip().lower()
    init = _INIT_ALIASES.get(init_text)
    if init is None:
        init = "kmeans++"
        bad("init", "one of kmeanspp, random, anneal", _INIT_TO_URL[init])
    kind = read("kind", lambda s: s.lower(), lambda v: v in KINDS, f"one of {', '.join(KINDS)}", ctrl.kind)
    dtype = read("dtype", lambda s: s.lower(), lambda v: v in DTYPES, f"one of {', '.join(DTYPES)}", ctrl.dtype)
    sigma = read("sigma", _as_float, lambda v: v > 0, "a positive number", None)
    return replace(ctrl, n=n, noise=noise, seed=seed, k=k, init=init, kind=kind, dtype=dtype, sigma=sigma), notices


def changed(ctrl: Controls, field: str, value) -> tuple[Controls, list[str]]:
    """Controls after the user set ``field`` to ``value``, with the dependent resets. Returns (controls, notices).

    A new dataset takes that dataset's noise, k, size and default σ (the previous noise may be
    meaningless for it: blobs 1.5 vs moons 0.1). A new n below k lowers k. Any change of the data
    or of k re-derives the σ range, so σ is re-snapped later (ui.page).
    """
    notices: list[str] = []
    if field == "dataset":
        return Controls.for_dataset(value, seed=ctrl.seed, init=ctrl.init, kind=ctrl.kind, dtype=ctrl.dtype), notices
    new = replace(ctrl, **{field: value})
    if field == "n" and new.k > k_max(new.n):
        notices.append(f"k lowered from {new.k} to {k_max(new.n)}: k must be at most the number of points n = {new.n}.")
        new = replace(new, k=k_max(new.n))
    return new, notices


# --- session glue (Streamlit) -----------------------------------------------------------------------

def _url_query(st) -> dict[str, str]:
    return {key: st.query_params[key] for key in QUERY_KEYS if key in st.query_params}


def load_controls(st) -> Controls:
    """The controls for this run: from the URL on a fresh session or an edited link, else the session's."""
    url = _url_query(st)
    known = st.session_state.get(STATE_KEY)
    if known is None or (url and url != st.session_state.get(QUERY_KEY)):
        ctrl, notices = parse_query(url)
        st.session_state[STATE_KEY] = ctrl
        st.session_state[NOTICE_KEY] = notices
        st.session_state[QUERY_KEY] = url
        return ctrl
    return known


def notices(st) -> list[str]:
    return list(st.session_state.get(NOTICE_KEY, []))


def add_notices(st, new: list[str]) -> None:
    st.session_state[NOTICE_KEY] = notices(st) + list(new)


def save_controls(st, ctrl: Controls) -> None:
    """Keep ctrl in the session and write the URL, touching only the parameters that changed."""
    st.session_state[STATE_KEY] = ctrl
    query = ctrl.to_query()
    url = _url_query(st)
    for key in QUERY_KEYS:
        if key in query and url.get(key) != query[key]:
            st.query_params[key] = query[key]
        elif key not in query and key in url:
            del st.query_params[key]
    st.session_state[QUERY_KEY] = query
