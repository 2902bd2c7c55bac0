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
* ``load_run``          bench/load.py (a class of simulated students) run in a subprocess: its command line.
* ``machine``           every benchmark's header (CPU, AVX-512, exp rates, load) and --no-avx512.
* ``chromium``          Debian's Chromium as the tests, the benchmarks and the screenshots launch it.
* ``student``           a student at a browser (Playwright), for the browser tests and the benchmarks.

Not part of the rbfviz package (pyproject.toml ships ``rbfviz*`` only) nor of the container image
(.dockerignore). Importing it has no side effects.
"""
