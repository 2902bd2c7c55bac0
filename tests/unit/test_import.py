"""Importing rbfviz leaves the process as it was; the server tuning is one explicit call."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hang import HANG_TIMEOUT_S

ROOT = Path(__file__).resolve().parents[2]
# both tests read one probe (a cold torch import in a subprocess): on one pytest-xdist worker
pytestmark = pytest.mark.xdist_group("import-probe")

PROBE = """
import gc, json, sys
import torch
sys.path.insert(0, {root!r})
before = dict(threads=torch.get_num_threads(), frozen=gc.get_freeze_count())
import rbfviz, rbfviz.views.explorer.figures, rbfviz.cli
after_import = dict(threads=torch.get_num_threads(), frozen=gc.get_freeze_count())
rbfviz.tune_process()
rbfviz.tune_process()  # idempotent
tuned = dict(threads=torch.get_num_threads(), frozen=gc.get_freeze_count())
print(json.dumps(dict(before=before, after_import=after_import, tuned=tuned)))
"""


def probe(threads: str = "2") -> dict:
    env = {"OMP_NUM_THREADS": threads, "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_TIMEOUT_S,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def result() -> dict:
    """The probe's reading, one subprocess for both tests."""
    return probe("2")


def test_import_leaves_torch_threads_and_the_garbage_collector_alone(result):
    assert result["before"]["threads"] == 2
    assert result["after_import"] == result["before"]


def test_tune_process_sets_one_thread_and_freezes_once(result):
    assert result["tuned"]["threads"] == 1
    assert result["tuned"]["frozen"] > result["before"]["frozen"]


TRIM_PROBE = """
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
from rbfviz.process_tuning import keep_freed_memory_for_reuse, return_freed_memory

def rss_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20

keep_freed_memory_for_reuse()
blocks = [np.ones(1 << 17) for _ in range(48)]  # 48 MB in 1 MB blocks: heap memory, below the mmap threshold
held = rss_mb()
del blocks
kept = rss_mb()  # glibc keeps them for reuse (trim threshold 64 MB)
released = return_freed_memory()
print(json.dumps(dict(held=held, kept=kept, returned=rss_mb(), released=released)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_collector_hands_freed_memory_kept_for_reuse_back_to_the_os():
    out = subprocess.run(
        [sys.executable, "-c", TRIM_PROBE.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "MALLOC_ARENA_MAX": "2"},
        timeout=HANG_TIMEOUT_S,
        check=True,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["kept"] > seen["held"] - 8  # freed, but still resident
    assert seen["released"] and seen["returned"] < seen["kept"] - 32, seen
