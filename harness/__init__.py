"""What the tests (tests/) and the benchmarks (bench/) both use, each written once.

* ``settings``          the test- and bench-only environment variables (RBFVIZ_REQUIRE_BROWSER, ...),
                        read here and nowhere else; documented in docs/contribute/tests.md.
* ``ports``             a free loopback port.
* ``proc``              a process's CPU seconds and memory, read from /proc.
* ``streamlit_server``  ``streamlit run app.py`` in a subprocess: start, wait until healthy, stop, logs.
* ``streamlit_client``  Streamlit's websocket protocol, as one browser tab speaks it.
* ``run_local``         ``deploy/run-local`` (HAProxy in front of app processes) in the background.
* ``scratch_pg``        a throw-away PostgreSQL cluster from Debian's binaries.
* ``payload_reference`` the σ payloads built the slow way (a full Plotly figure per σ), to compare with.

Not part of the rbfviz package (pyproject.toml ships ``rbfviz*`` only) nor of the container image
(.dockerignore). Importing it has no side effects.
"""
