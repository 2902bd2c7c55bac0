"""The EM's float64 exp is torch's, whose values do not depend on whether AVX-512 is used: so the EM shows the
same numbers on a processor with AVX-512 as when it is played as one without (where numpy's float64 exp is
glibc's scalar exp, which differs in the last bit of a few percent of values).

Both tests need a processor with AVX-512, to turn it off: torch's exp alone in each of torch's CPU modes, and
the EM's results with numpy's and torch's AVX-512 kernels turned off (harness.machine.NO_AVX512) and on.
Whether torch's exp equals numpy's AVX-512 exp depends on the processor (equal on an Intel Xeon, 5 % of
last bits apart on an AMD EPYC, docs/contribute/benchmarks.md), so that is not a property tested here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.machine import NO_AVX512, has_avx512
from rbfviz import make_dataset
from rbfviz.annealing import default_sigmas

ROOT = Path(__file__).resolve().parents[2]


def _logits() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate(
        [
            -np.geomspace(1e-12, 1e4, 100_001),
            np.linspace(-745.2, -700.0, 20_001),  # tiny and subnormal results
            -rng.random(200_000) * 700.0,  # the EM's clipped logits
            [0.0, -0.0, -np.inf, -745.1332, -708.4],
        ]
    )


_TORCH_EXP = """
import hashlib, sys
import numpy as np
import torch

z = np.frombuffer(sys.stdin.buffer.read(), dtype=np.float64)
exp = torch.exp(torch.from_numpy(z)).numpy()
print(torch.backends.cpu.get_cpu_capability(), hashlib.sha256(exp.tobytes()).hexdigest())
"""


def _torch_exp(capability: str) -> tuple[str, str]:
    """(torch's CPU mode, the digest of torch's float64 exp of ``_logits()``) in a fresh interpreter with
    ``ATEN_CPU_CAPABILITY=capability`` (read when torch is imported)."""
    clean = {k: v for k, v in os.environ.items() if k not in NO_AVX512}
    out = subprocess.run(
        [sys.executable, "-c", _TORCH_EXP],
        input=_logits().tobytes(),
        capture_output=True,
        check=True,
        env={**clean, "ATEN_CPU_CAPABILITY": capability},
    )
    mode, digest = out.stdout.decode().split()
    return mode, digest


@pytest.mark.skipif(not has_avx512(), reason="this processor has no AVX-512 to turn off")
def test_torch_float64_exp_is_the_same_with_and_without_avx512():
    """The logits of the EM's range, tiny and subnormal results included, in torch's AVX-512, AVX2 and
    plain modes: the same bits (the logits are made once, here: numpy's geomspace is itself not the same
    on both kinds of processor)."""
    modes = {capability: _torch_exp(capability) for capability in ("avx512", "avx2", "default")}
    assert [mode for mode, _ in modes.values()] == ["AVX512", "AVX2", "DEFAULT"]
    assert len({digest for _, digest in modes.values()}) == 1


# Digests of the EM's results, and of numpy's own exp, in a fresh interpreter (whose environment can turn
# AVX-512 off): the annealing path at the defaults and the Explorer's fixed points on every σ level. The σ
# grids come from this process (numpy's geomspace, by its logarithms and powers, is itself not the same
# on both kinds of processor), as float.hex strings on standard input.
_DIGESTS = """
import hashlib, json, sys
import numpy as np
from harness.machine import numpy_uses_avx512
from rbfviz import anneal, make_dataset
from rbfviz.annealing import fixed_points

def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()

grids = {name: np.array([float.fromhex(v) for v in grid]) for name, grid in json.load(sys.stdin).items()}
out = {"numpy_avx512": numpy_uses_avx512()}
rng = np.random.default_rng(0)
out["numpy_exp"] = digest(np.exp(-rng.random(100_000) * 700.0))
for name, k in (("blobs", 5), ("circles", 5), ("moons", 6)):
    X, _ = make_dataset(name, n=500, seed=0)
    path = anneal(X, k, grids[name], seed=0)
    out[name + " anneal"] = digest(path.centers, path.iterations, path.loss, path.entropy, path.masses)
    out[name + " fixed points"] = digest(*fixed_points(X, X[:k], grids[name][::6]))
print(json.dumps(out))
"""


def _grids() -> dict:
    grids = {}
    for name, k in (("blobs", 5), ("circles", 5), ("moons", 6)):
        X, _ = make_dataset(name, n=500, seed=0)
        grids[name] = [float(s).hex() for s in default_sigmas(X, k)]
    return grids


def _digests(env: dict) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in NO_AVX512}
    out = subprocess.run(
        [sys.executable, "-c", _DIGESTS],
        input=json.dumps(_grids()),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
    )
    return json.loads(out.stdout)


@pytest.mark.skipif(not has_avx512(), reason="this processor has no AVX-512 to turn off")
def test_the_em_gives_the_same_bits_with_and_without_avx512():
    native, played = _digests({}), _digests(NO_AVX512)
    assert native.pop("numpy_avx512") and not played.pop("numpy_avx512")
    # the comparison can see a difference: numpy's own float64 exp is not the same on the two
    assert native.pop("numpy_exp") != played.pop("numpy_exp")
    assert native == played
