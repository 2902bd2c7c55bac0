"""The app's tests (AppTest: the page scripts run without a browser). Every test here starts from cold
Streamlit caches (``fresh_streamlit_caches``, tests/conftest.py; a test marked shared_streamlit_caches
shares its first case's); tests/app_page.py opens the pages.

* ``media``  the media-file managers AppTest creates (one per run): they hold the download buttons' files.
"""

import pytest
import streamlit.testing.v1.app_test as app_test_module
from streamlit.runtime.media_file_manager import MediaFileManager


@pytest.fixture(autouse=True)
def _cold_caches(fresh_streamlit_caches):
    yield


@pytest.fixture
def media(monkeypatch):
    """The media-file managers AppTest creates (one per run): they hold the download generators."""
    managers = []

    class Recording(MediaFileManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            managers.append(self)

    monkeypatch.setattr(app_test_module, "MediaFileManager", Recording)
    return managers
