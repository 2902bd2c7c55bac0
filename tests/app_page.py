"""Open the app in an AppTest, as every test in tests/app does.

    at = open_page(page_path("Explorer"), {"dataset": "moons"})   # the page, run, without an exception
    at = open_page(PAGE, query, check=False)                     # the test looks at exceptions itself
    at = app({"n": "6"}); at.run()                               # the home page, or switch pages yourself

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
from ui.page import PAGES

APP = str(APP_PATH)
PAGE_PATHS = [path for path, _, _ in PAGES]  # every page of the app's menu, in menu order


def page_path(label: str) -> str:
    """The script of the page the menu calls ``label`` ("Explorer", "Step by step", ...)."""
    found = [path for path, name, _ in PAGES if name == label]
    assert found, f"no page {label!r} in ui.page.PAGES: {[name for _, name, _ in PAGES]}"
    return found[0]


def app(query: dict | None = None) -> AppTest:
    """A new AppTest of app.py (the home page) with ``query`` in its address, not run yet."""
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    if query:
        at.query_params.update(query)
    return at


def open_page(page: str, query: dict | None = None, *, check: bool = True) -> AppTest:
    """``page`` (a path such as "pages/1_Explorer.py") opened with ``query`` in its address and run; with
    ``check``, the run raised no exception."""
    at = app(query)
    at.switch_page(page).run()
    if check:
        assert not at.exception, at.exception
    return at


def ok(at: AppTest) -> None:
    """The last run raised no exception and showed no error box."""
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


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
