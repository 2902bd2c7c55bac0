"""Make the repository root importable, so `pytest` works as well as `python -m pytest`.

Every test under tests/e2e/ is a browser test: it gets the marker e2e, so the fast tier (README: Tests)
leaves out a new browser test file even if it forgets its pytestmark.
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


def pytest_collection_modifyitems(items):
    for item in items:
        if E2E in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.e2e)
