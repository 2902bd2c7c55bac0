"""``python -m rbfviz``: the command line (see rbfviz.cli)."""

import sys

from .cli import main

sys.exit(main())
