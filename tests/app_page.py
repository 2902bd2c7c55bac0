"""Open the app in an AppTest, as every test in tests/app does (and the browser tests, for the bytes
a page sends).

    at = open_page(page_path("Explorer"), {"dataset": "moons"})   # the page, run, without an exception
    at = open_page(PAGE, query, check=False)                     # the test looks at exceptions itself
    at = app({"n": "6"}); at.run()                               # the home page, or switch pages yourself
    set_control(at, "w_k", 3)                                    # a sidebar control changed, page rerun
    data = page_payload(page_path("Stability"), query)           # the σ payload bytes the page sends
    html = download(at, media, "Interactive page (HTML)")       # what a download button gives

AppTest runs the scripts without a browser; its timeout (tests/hang.py) only catches a hang (a cold
``import torch``, a heavy page on a busy machine). The pages are ui.page.PAGES: tests that cover every
page take them from there (``PAGE_PATHS``), so a new page is tested without editing a list.
"""

from __future__ import annotations

import base64

import numpy as np
from hang import HANG_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from harness.settings import APP as APP_PATH
from rbfviz.datasets import make_dataset
from ui import page as ui_page
from ui.page import PAGES

APP = str(APP_PATH)
PAGE_PATHS = [path for path, _, _ in PAGES]  # every page of the app's menu, in menu order


def page_path(label: str) -> str:
    """The script of the page the menu calls ``label`` ("Explorer", "Step by step", ...)."""
    names = [name for _, name, _ in PAGES]
    assert label in names, f"no page {label!r} in ui.page.PAGES: {names}"
    return ui_page.page_path(label)


def app(query: dict | None = None) -> AppTest:
    """A new AppTest of app.py (the home page) with ``query`` in its address, not run yet."""
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    if query:
        at.query_params.update(query)
    return at


def open_page(
    page: str, query: dict | None = None, *, check: bool = True, session: dict | None = None
) -> AppTest:
    """``page`` (a path such as "pages/1_Explorer.py") opened with ``query`` in its address and run; with
    ``check``, the run raised no exception. session: widget states set before the run, as a user's earlier
    clicks left them (e.g. an expander opened: {ui.session_keys.FAMILY_OPEN: True})."""
    at = app(query)
    for key, value in (session or {}).items():
        at.session_state[key] = value
    at.switch_page(page).run()
    if check:
        assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> None:
    """The last run raised no exception and showed no error box."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


# The controls by their widget keys (the sidebar's, ui.session_keys; the Explorer's field): the kind of
# AppTest element each one is.
CONTROLS = {
    "w_dataset": "selectbox",
    "w_n": "number_input",
    "w_noise": "number_input",
    "w_seed": "number_input",
    "w_k": "slider",
    "w_init": "selectbox",
    "w_kind": "selectbox",
    "w_dtype": "radio",
    "explorer_field": "radio",
}


def set_control(at: AppTest, key: str, value) -> AppTest:
    """The control ``key`` (a key of CONTROLS) set to ``value`` as a user sets it; the page rerun without
    an exception or an error box."""
    getattr(at, CONTROLS[key])(key=key).set_value(value).run()
    ok(at)
    return at


def download(at: AppTest, media, label: str) -> bytes:
    """The bytes the download button ``label`` delivers when clicked (its deferred generator); media: the
    media-file managers AppTest created (tests/app/conftest.py's fixture)."""
    buttons = [b for b in at.get("download_button") if b.proto.label == label]
    assert len(buttons) == 1, [b.proto.label for b in at.get("download_button")]
    entry = media[-1]._deferred_callables[buttons[0].proto.deferred_file_id]
    data = entry["callable"]()
    return data if isinstance(data, bytes) else data.encode("utf-8")


def page_payload(page: str, query: dict | None = None, index: int = 0) -> bytes:
    """The bytes of the σ payload (every level: rbfviz.views.common.scrub) that ``page`` opened with
    ``query`` sends its ``index``-th scrubber."""
    components = open_page(page, query).get("bidi_component")
    assert len(components) > index, f"{page} drew no σ scrubber number {index}"
    return components[index].proto.bytes


# --- what a page shows, against the library ------------------------------------------------------------


def values(array) -> np.ndarray:
    """A figure's array as numpy: a plain list, or Plotly's typed array ({"bdata": base64, "dtype": ...})."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), array["dtype"])
    return np.asarray(array)


def xy(trace: dict) -> np.ndarray:
    """(n, 2) the points of a scatter trace."""
    return np.column_stack([values(trace["x"]), values(trace["y"])]).astype(np.float64)


def data_set(at: AppTest) -> np.ndarray:
    """(n, 2) the data set the page's address names (dataset, n, noise, seed), from the library."""
    q = at.query_params
    X, _ = make_dataset(q["dataset"], int(q["n"]), float(q["noise"]), int(q["seed"]))
    return np.asarray(X, np.float64)


def assert_same_points(shown: np.ndarray, expected: np.ndarray) -> None:
    """The same points, in any order (a figure may draw them grouped by colour)."""
    assert shown.shape == expected.shape, (shown.shape, expected.shape)
    order = lambda a: a[np.lexsort(a.T[::-1])]  # noqa: E731
    np.testing.assert_allclose(order(shown), order(expected), rtol=0, atol=1e-6)


def is_float32(array) -> bool:
    """Every value is a float32 value (what a float32 computation shows, widened to float64)."""
    a = np.asarray(array, np.float64)
    return bool(np.array_equal(a.astype(np.float32).astype(np.float64), a))
