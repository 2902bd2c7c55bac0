"""The σ payload codec (rbfviz.views.common.scrub) imports without torch, so a load-test client that
decodes payloads stays light."""

import subprocess
import sys
from pathlib import Path

from hang import HANG_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[2]


def test_the_scrub_codec_imports_without_torch():
    code = (
        "import sys\n"
        "from rbfviz.views.common.scrub import ScrubLevel, figure_at, read_payload, scrub_payload\n"
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.startswith('torch'))[:5]\n"
        "assert 'streamlit' not in sys.modules\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_TIMEOUT_S
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_rbfviz_still_exports_its_names():
    """The names load on first use, and ``from rbfviz import ...`` gives the owning module's object."""
    import rbfviz
    from rbfviz import steps

    assert rbfviz.kmeans is steps.kmeans
    assert set(rbfviz.__all__) <= set(dir(rbfviz))
    for name in rbfviz.__all__:
        assert getattr(rbfviz, name) is not None
