"""What every kind of test shares (docs/contribute/tests.md: tests/unit, app, e2e, deploy, docs).

* The repository root is importable (rbfviz, ui, harness), so `pytest` works as well as `python -m pytest`;
  this folder is too (pytest puts a conftest's folder on sys.path), for the helpers every kind may use:
  hang.py (the bound of a hang), student.py (a student at a browser).
* The browser fixtures (tests/browser.py) for the browser tests of tests/e2e and tests/deploy.
* Every test under tests/e2e/ is a browser test: it gets the marker e2e, so the fast tier
  (docs/contribute/tests.md) leaves out a new browser test file even if it forgets its pytestmark.
* Streamlit's scan of every installed distribution for components, which AppTest repeats on each run
  (about 0.1 s), done once per session: the installed packages do not change during a run.
* Hypothesis without its 200 ms deadline per example: speed is the benchmarks' to judge (bench/), and
  on a loaded machine a deadline fails a correct test.
* ``fresh_streamlit_caches`` and the pytest-xdist groups; under ``--dist loadgroup`` the order in which
  the workers take the tests (a module with a module-scoped fixture is one group; the other tests by
  kind, the longest first).
"""

import os
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pytest  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402

hypothesis_settings.register_profile("rbfviz", deadline=None)
hypothesis_settings.load_profile("rbfviz")

pytest_plugins = ["browser"]  # tests/browser.py


def pytest_configure(config):
    """On a pytest-xdist worker torch computes on one thread: the two workers fill the machine's two
    cores, where torch's default (a thread per core in each worker) oversubscribes them and its idle
    threads spin. The app's server also runs torch on one thread (rbfviz.tune_process)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def _components_scanned_once():
    from streamlit.components.v2 import manifest_scanner

    scanned = manifest_scanner.scan_component_manifests()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", lambda max_workers=None: scanned)
        yield


# the test function whose cases last ran on warm caches in this process (mark shared_streamlit_caches)
_caches_kept_for = None


@pytest.fixture
def fresh_streamlit_caches(request):
    """AppTests share a process: clear Streamlit's caches (and cache_resource singletons such as the
    annealing store and the training registry) so each test computes afresh.

    The cases of a test marked ``shared_streamlit_caches`` (each opens the same page at the same setting,
    then changes one thing) clear them before the first of its cases only: the others read that opening
    from the caches. The mark puts the cases on one pytest-xdist worker, one after another."""
    import streamlit as st

    global _caches_kept_for
    shared = request.node.get_closest_marker("shared_streamlit_caches") is not None
    key = (str(request.node.path), request.node.originalname) if shared else None
    if key is None or key != _caches_kept_for:
        st.cache_data.clear()
        st.cache_resource.clear()
    _caches_kept_for = key
    yield


TESTS = Path(__file__).resolve().parent
E2E = TESTS / "e2e"
# the kinds of tests (their folders) by how long one of their tests takes, longest first
KINDS_LONGEST_FIRST = ("e2e", "deploy", "app", "docs", "unit")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    """Every browser test gets the marker e2e. The tests on the shared app server (fixture ``server``)
    are in no pytest-xdist group: under ``-n 2 --dist loadgroup`` both workers take them as they come,
    each with its own server and Chromium (started once per worker), so that neither worker waits for
    the other at the end. The cases of a test marked shared_streamlit_caches get a group of their own
    (``fresh_streamlit_caches``)."""
    for item in items:
        if item.get_closest_marker("shared_streamlit_caches"):
            item.add_marker(pytest.mark.xdist_group(f"caches-{item.path.stem}-{item.originalname}"))
        if E2E in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.e2e)
    if getattr(config.option, "loadgroup", False):  # set on an xdist worker under --dist loadgroup
        _module_fixture_groups(items)
        _longest_kinds_first(items)
        _group_ids(items)


def _module_fixture_groups(items) -> None:
    """A module-scoped fixture is built once by each worker that runs one of its module's tests: the tests
    of a module that defines one (a fitted model, the inputs of every page) go to one worker as a group,
    which builds it once. Tests already in a group keep theirs."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group") or item.module is None:
            continue
        module = item.getparent(pytest.Module).nodeid
        defs = [d for name in info.names_closure for d in info.name2fixturedefs.get(name, ())]
        if any(d.scope == "module" and d.baseid == module for d in defs):
            item.add_marker(pytest.mark.xdist_group(f"module-{item.path.stem}"))


def _longest_kinds_first(items) -> None:
    """The tests in no group, by kind, the longest kinds first (KINDS_LONGEST_FIRST; the order within a
    kind kept). pytest-xdist's loadgroup hands out the groups first, then single tests in this order, one
    or two at a time to whichever worker is free: the run ends on the unit tests, most of them well
    under a second, which the two workers share evenly, not on a browser or load test that keeps one
    worker busy while the other has nothing left."""

    def rank(item) -> int:
        kind = Path(str(item.path)).relative_to(TESTS).parts[0]
        return KINDS_LONGEST_FIRST.index(kind) if kind in KINDS_LONGEST_FIRST else len(KINDS_LONGEST_FIRST)

    items.sort(key=rank)  # stable: each kind keeps its order, a module's tests stay together


def _group_ids(items) -> None:
    """pytest-xdist 3.8 groups a test by appending "@<group>" to ``item._nodeid``, which pytest 9.2 no
    longer reads (a node's id is ``item._id``), so its loadgroup spreads a group over every worker. Give
    each grouped test the id xdist means it to have."""
    from _pytest.nodeid import NodeId

    for item in items:
        marks = item.iter_markers("xdist_group")
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks})
        if groups and hasattr(item, "_id") and "@" not in item.nodeid.rpartition("]")[2]:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")
