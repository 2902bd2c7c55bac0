"""The app's tests (AppTest: the page scripts run without a browser). Every test here starts from cold
Streamlit caches (``fresh_streamlit_caches``, tests/conftest.py; a test marked shared_streamlit_caches
shares its first case's); tests/app/app_page.py opens the pages."""

import pytest


@pytest.fixture(autouse=True)
def _cold_caches(fresh_streamlit_caches):
    yield
