"""Make the repository root importable, so `pytest` works as well as `python -m pytest`.

Every test under tests/e2e/ is a browser test: it gets the marker e2e (so the fast tier, README: Tests,
leaves out a new browser test file even if it forgets its pytestmark) and the xdist group "browser".
pytest.ini runs the suite on pytest-xdist workers with --dist loadgroup: the browser tests all run on
one worker, in file order, sharing one app server and one Chromium (tests/e2e/conftest.py), while the
other workers take the rest.
"""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pytest  # noqa: E402


@pytest.fixture
def fresh_streamlit_caches():
    """AppTests share a process: clear Streamlit's caches (and cache_resource singletons such as the
    annealing store and the training registry) so each test computes afresh."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield


E2E = Path(__file__).resolve().parent / "e2e"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group marks
def pytest_collection_modifyitems(items):
    for item in items:
        if E2E in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.xdist_group("browser"))
