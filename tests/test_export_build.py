"""The command line's payloads (rbfviz.views.export.build) are the app's, byte for byte: for the same
settings, every view's page in an AppTest sends the σ scrubber the bytes ``view_payload`` builds, so the
offline page draws exactly the app's figure, numbers and "In words" at every σ."""

from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S
from streamlit.testing.v1 import AppTest

from rbfviz.views.export.build import Setting, view_payload

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGES = {
    "explorer": "pages/1_Explorer.py",
    "annealing": "pages/2_Annealing.py",
    "stability": "pages/3_Stability.py",
    "equivalence": "pages/4_Equivalence.py",
}

pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


def app_payload(view: str, query: dict) -> bytes:
    at = AppTest.from_file(APP, default_timeout=HANG_TIMEOUT_S)
    at.query_params.update(query)
    at.switch_page(PAGES[view]).run()
    assert not at.exception, at.exception
    components = at.get("bidi_component")
    assert components, f"the {view} page drew no σ scrubber"
    return components[0].proto.bytes


@pytest.mark.parametrize(
    "view, setting",
    [
        ("explorer", dict()),
        ("explorer", dict(dataset="moons", k=3, kind="entmax", alpha=1.7, dtype="float32", init="random")),
        ("explorer", dict(dataset="blobs", n=300, init="anneal", kind="entmax15", seed=3)),
        ("annealing", dict()),
        ("annealing", dict(dataset="moons", n=200, k=2, kind="naive", dtype="float32")),
        ("stability", dict(n=300, dtype="float32")),
        ("equivalence", dict()),
        ("equivalence", dict(dataset="circles", n=250, kind="entmax15", seed=2)),
    ],
)
def test_the_command_lines_payload_is_the_apps(view, setting):
    s = Setting(view, **setting)
    assert view_payload(s) == app_payload(view, s.view_query())
