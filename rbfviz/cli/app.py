"""``rbfviz app``: start the web app, ``streamlit run app.py`` from the repository this rbfviz belongs to
(the app's scripts, app.py, pages/ and ui/, are not part of the installed package)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from .arguments import positive_int

# rbfviz/cli/app.py -> the repository's root, where app.py sits beside rbfviz/
APP_SCRIPT = Path(__file__).resolve().parents[2] / "app.py"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "app",
        help="start the web app (Streamlit) on this machine",
        description="Start the web app: `streamlit run app.py` from the repository this rbfviz belongs to. "
        "The app's scripts (app.py, pages/, ui/) live in the repository, not in the installed "
        'package: run it from a clone (pip install -e ".[app]" there).',
    )
    parser.add_argument("--port", type=positive_int, default=8501, help="port (default 8501)")
    parser.add_argument(
        "--address",
        default="localhost",
        help="address to listen on (default localhost; 0.0.0.0 for a classroom network)",
    )
    parser.set_defaults(handler=run)


def run(args) -> int:
    entry = APP_SCRIPT
    if not entry.is_file():
        raise ValueError(
            f"the web app is not next to this rbfviz ({entry} is missing): it lives in the "
            'repository. Clone it and run `pip install -e ".[app]"` there, then `rbfviz app`.'
        )
    if importlib.util.find_spec("streamlit") is None:
        raise ValueError('Streamlit is not installed: `pip install ".[app]"` (or -r requirements.txt) first.')
    return subprocess.call(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(entry),
            f"--server.port={args.port}",
            f"--server.address={args.address}",
        ],
        cwd=entry.parent,
    )
