"""Make the repository root importable, so `pytest` works as well as `python -m pytest`."""

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
