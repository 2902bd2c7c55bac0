"""examples/tour.ipynb runs from top to bottom in a fresh python3 kernel (nbclient), with no error, and
prints what its text promises: numbers checked here against the maths, and every figure present.

The notebook is stored without outputs; this test is what keeps it from going stale."""

import os
import re
import sys
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"
CELL_TIMEOUT = 600  # seconds per cell: the first import of torch on a busy shared machine is slow
PLOTLY = "application/vnd.plotly.v1+json"
# every test reads the one executed notebook (module fixture): all of them on one pytest-xdist worker
pytestmark = pytest.mark.xdist_group("notebook")


@pytest.fixture(scope="module")
def executed():
    # imported here: only the worker that runs the notebook's group pays for Jupyter's modules
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the stored notebook carries no outputs (they are large and change with every figure tweak)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")
    # Jupyter's python3 kernel is this interpreter: jupyter_client starts the "python" of the spec
    # with sys.executable, so the kernel sees the same installed packages as the tests
    assert KernelSpecManager().get_kernel_spec("python3").argv[0] in ("python", "python3", sys.executable)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},  # run where the notebook lives
    )
    # The kernel computes on one thread (torch, scikit-learn's OpenMP), as the test workers do
    # (tests/conftest.py): beside the other worker, two threads oversubscribe the two cores and the idle
    # one spins. Only the last bits of two printed differences change (the tests bound them by 1e-12).
    client.execute(env={**os.environ, "OMP_NUM_THREADS": "1"})  # raises CellExecutionError on a failing cell
    return nb


def _text(nb) -> str:
    return "\n".join(
        output.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream"
    )


def _floats(pattern: str, text: str) -> list[float]:
    found = re.findall(pattern, text)
    assert found, f"no output matches {pattern!r}"
    return [float(value) for value in found]


def test_every_cell_ran_without_error_or_warning_output(executed):
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None
        for output in cell.outputs:
            assert output.output_type != "error", output
            assert not (output.output_type == "stream" and output.name == "stderr"), output.text


def test_every_figure_is_shown(executed):
    figures = [
        output
        for cell in executed.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if PLOTLY in output.get("data", {})
    ]
    # two planes, the collapse, one step, the bifurcation diagram, the sheared plane
    assert len(figures) == 6
    for output in figures:
        assert output["data"][PLOTLY]["data"], "a figure without traces"


def test_responsibilities_become_hard_as_sigma_falls(executed):
    text = _text(executed)
    max_r = _floats(r"mean max_j r_ij = ([\d.]+)", text)
    entropy = _floats(r"mean entropy = ([\d.]+) nats", text)
    assert max_r == sorted(max_r) and max_r[-1] == 1.0
    assert entropy == sorted(entropy, reverse=True) and entropy[-1] == 0.0


def test_entmax_rows_are_exactly_one_hot_below_sigma_star(executed):
    text = _text(executed)
    rows = re.findall(r"entmax-1\.5 exactly-zero weights (\d+) of (\d+), one-hot rows (\d+) of (\d+)", text)
    assert len(rows) == 3
    above, below, far_below = ([int(v) for v in row] for row in rows)
    assert above[0] < above[1]  # at 2σ* some rows still share
    for zeros, expected, one_hot, n in (below, far_below):
        assert zeros == expected == n * 3 and one_hot == n == 500  # n·(k − 1) zeros, k = 4


def test_the_gradient_step_is_the_soft_centroid_and_lloyd_at_small_sigma(executed):
    text = _text(executed)
    to_centroid = _floats(r"gradient step vs soft centroid max \|Δ\| = (\S+);", text)
    to_lloyd = _floats(r"gradient step vs Lloyd step max \|Δ\| = (\S+)\n", text)
    assert len(to_centroid) == len(to_lloyd) == 3
    assert max(to_centroid) < 1e-12
    assert to_lloyd[0] > 1e-3 and to_lloyd[-1] < 1e-12  # a real difference at the default σ, none at σ → 0


def test_annealing_prints_the_predicted_first_split(executed):
    text = _text(executed)
    found = re.search(r"λ_max = ([\d.]+): first split predicted at σ_c = √λ_max = ([\d.]+)", text)
    lam, sigma_c = float(found.group(1)), float(found.group(2))
    assert sigma_c == pytest.approx(lam**0.5, rel=1e-3)
    assert re.search(r"split 1 \(\d+ centres → \d+\): predicted σ = [\d.]+", text)


def test_k_means_failures_are_shown(executed):
    text = _text(executed)
    for name in ("sheared", "varied", "uneven"):
        assert re.search(rf"{name} +sizes \[\d+, \d+, \d+\]: K-Means agrees", text), name
    assert "sizes [410, 82, 8]" in text  # uneven keeps 500 : 100 : 10 at n = 500


def test_splits_how_many_clusters_and_the_mixture_link(executed):
    text = _text(executed)
    assert re.search(r"split 1: stack of m = 4 centres, predicted σ = [\d.]+, seen between", text)
    for name in ("blobs", "varied"):
        assert re.search(rf"{name}: generated with k = \d; annealing answer k = \d+, elbow k = \d+, ", text)
    differences = _floats(r"max \|p\(j\|x\) − r_ij\| = (\S+)\n", text)
    assert len(differences) == 3 and max(differences) < 1e-12  # the mixture's E-step is softmax
    weights = re.search(r"learned π_j: \[([^\]]+)\]", text).group(1).split()
    assert sum(float(w) for w in weights) == pytest.approx(1.0, abs=2e-3)  # four weights rounded to 3 digits
