"""The bound of every AppTest script run (``AppTest.from_file(..., default_timeout=HANG_TIMEOUT_S)``) and
of every test's ``python -m rbfviz`` / ``python -c`` subprocess (each a cold ``import torch``).

It only catches a hang, it is never a speed limit: on a loaded 2-core machine running the suite with two
pytest-xdist workers beside other work, a heavy page (19,999 uploaded points on every σ view) has taken
more than 120 s of wall time for one script run. RBFVIZ_TEST_TIMEOUT (seconds) changes it. The browser
tests have their own bound of the same kind (harness/student.py, RBFVIZ_E2E_TIMEOUT).
"""

from harness.settings import test_timeout_s

HANG_TIMEOUT_S = test_timeout_s()
