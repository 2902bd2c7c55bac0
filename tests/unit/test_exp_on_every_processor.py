"""The EM's float64 exp is torch's, whose values are numpy's on a processor with AVX-512: so the EM shows
the same numbers on a processor with AVX-512 and on one without (where numpy's float64 exp is glibc's
scalar exp, which differs in the last bit of a few percent of values).

Both tests need a processor with AVX-512: the first compares with numpy's AVX-512 exp, the second runs the
same computations with numpy's and torch's AVX-512 kernels turned off (harness.machine.NO_AVX512) and on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from harness.machine import NO_AVX512, has_avx512, numpy_uses_avx512
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


@pytest.mark.skipif(not numpy_uses_avx512(), reason="numpy's AVX-512 exp is not in use in this process")
def test_torch_float64_exp_gives_the_bits_of_numpys_avx512_exp():
    z = _logits()
    got = torch.exp(torch.from_numpy(z)).numpy()
    assert np.array_equal(got.view(np.uint64), np.exp(z).view(np.uint64))


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
