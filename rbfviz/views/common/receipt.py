"""Reproducibility receipts: every parameter of a view, the package versions, and a short Python
script that recomputes the view's numbers with the public rbfviz API.

A receipt is a runnable Python file. ``SHOWN`` holds the numbers the view showed (full precision);
the script below it rebuilds the data, reruns the same computations and leaves its results in
``numbers``; run as a script, it prints both side by side. The app's tests run every kind of
receipt and require ``numbers`` to equal ``SHOWN`` to 1e-12 (float64).

* ``Receipt``                         – view, parameters, numbers, snippet, versions; ``to_python()``.
* ``explorer_receipt(params, numbers)`` and the same for ``equivalence``, ``annealing``, ``stability``.
* ``equivalence_numbers``, ``annealing_numbers``, ``stability_numbers`` – the numbers a view shows,
  taken from its results (the Explorer's are ``explore.plane_numbers`` as they are).
* ``package_versions()``              – Python and the versions of the packages the numbers depend on.

``params`` is a plain dict: dataset, n, noise, seed, k, init, picks, placed, kind, dtype, sigma; for drawn
data also points (their rbfviz.drawn text); for an
uploaded file also file_name, file_sha256 and columns (None: the loader's default, two numeric
columns or the first two principal components).
"""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata

PACKAGES = ("rbfviz", "numpy", "torch", "scikit-learn", "scipy", "entmax", "plotly", "streamlit")
PARAMETER_ORDER = (
    "dataset",
    "n",
    "noise",
    "seed",
    "points",
    "file_name",
    "file_sha256",
    "columns",
    "k",
    "init",
    "picks",
    "placed",
    "kind",
    "dtype",
    "sigma",
    "steps",
)


def package_versions() -> dict[str, str]:
    """{"python": ..., package: version} for the packages the numbers depend on ("not installed" if
    absent)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name == "rbfviz":  # run from a source tree, not installed
                from rbfviz import __version__

                versions[name] = __version__ + " (source tree)"
            else:
                versions[name] = "not installed"
    return versions


def literal(value) -> str:
    """A Python expression for value (numbers, strings, None, bools, lists, tuples, dicts); NaN and
    infinities as float("nan") / float("inf") so the receipt stays valid Python."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float) or hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:
        x = float(value)
        if math.isnan(x):
            return 'float("nan")'
        if math.isinf(x):
            return 'float("inf")' if x > 0 else '-float("inf")'
        return repr(x)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} into a receipt")


@dataclass(frozen=True)
class Receipt:
    """A view's receipt. ``to_python()`` is the downloadable file."""

    view: str
    parameters: dict
    numbers: dict
    snippet: str
    versions: dict = field(default_factory=package_versions)
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    def file_name(self) -> str:
        return f"rbfviz_receipt_{self.view.lower()}.py"

    def to_python(self) -> str:
        params = "\n".join(
            f"    {key} = {literal(self.parameters[key])}"
            for key in PARAMETER_ORDER
            if key in self.parameters
        )
        versions = "\n".join(f"    {name} {version}" for name, version in self.versions.items())
        upload = ""
        if self.parameters.get("dataset") == "upload":
            upload = (
                f"\nThe data are the uploaded file {self.parameters.get('file_name')!r} "
                f"(SHA-256 {self.parameters.get('file_sha256')}): put it next to this script.\n"
            )
        return (
            f'"""rbfviz reproducibility receipt: the {self.view} view, {self.created}.\n\n'
            f"Run it with rbfviz and the package versions below installed:\n\n"
            f"    python {self.file_name()}\n\n"
            f"It recomputes the numbers the view showed (SHOWN) and prints them side by side.\n{upload}\n"
            f"Parameters\n{params}\n\nPackage versions\n{versions}\n"
            f'"""\n'
            f"SHOWN = {literal(self.numbers)}\n\n"
            f"{self.snippet.strip()}\n\n"
            f'if __name__ == "__main__":\n'
            f"    for name, value in numbers.items():\n"
            f'        print(f"{{name}}: {{value!r}}  (the view showed {{SHOWN.get(name)!r}})")\n'
        )


# --- the snippets -----------------------------------------------------------------------------------


def data_lines(p: dict) -> tuple[list[str], list[str]]:
    """(imports, lines building X in the view's dtype) for generated, uploaded or drawn data."""
    if p["dataset"] == "drawn":
        return (
            ["from rbfviz.drawn import decode_points"],
            [f"X = decode_points({p['points']!r}).astype({p['dtype']!r})  # the points drawn by hand"],
        )
    if p["dataset"] == "upload":
        columns = p.get("columns")
        pick = f", columns={literal(tuple(columns))}" if columns else ""
        return (
            ["from pathlib import Path", "from rbfviz import load_points"],
            [f"X = load_points(Path({p['file_name']!r}).read_bytes(){pick}).X.astype({p['dtype']!r})"],
        )
    return (
        ["from rbfviz import make_dataset"],
        [
            f"X, _ = make_dataset({p['dataset']!r}, n={int(p['n'])}, noise={literal(float(p['noise']))}, "
            f"seed={int(p['seed'])})",
            f"X = X.astype({p['dtype']!r})",
        ],
    )


def start_lines(p: dict, init: str) -> tuple[list[str], list[str]]:
    """(imports, lines making the starting centres C0) for init "kmeans++", "random", "custom" or "placed"."""
    if init == "custom":
        picks = list(p.get("picks") or ())[: int(p["k"])]
        return (
            ["from rbfviz.views.explorer.picks import picked_centers"],
            [f"C0 = picked_centers(X, {literal(picks)}, k)  # the points picked on the plot"],
        )
    if init == "placed":
        placed = [list(centre) for centre in p.get("placed") or ()][: int(p["k"])]
        return (
            ["from rbfviz.views.explorer.placed import placed_centers"],
            [f"C0 = placed_centers({literal(placed)}, k, {p['dtype']!r})  # the centres placed on the plane"],
        )
    return (
        ["from rbfviz.views.explorer.arrays import initial_centers"],
        [f"C0 = initial_centers(X, k, {init!r}, seed)"],
    )


def settings_line(p: dict) -> str:
    return (
        f"k, seed, kind, sigma = {int(p['k'])}, {int(p['seed'])}, {p['kind']!r}, {literal(float(p['sigma']))}"
    )


def view_receipt(
    view: str,
    params: dict,
    numbers: dict | None,
    imports: list[str],
    lines: list[str],
    data: dict | None = None,
) -> Receipt:
    """A view's ``Receipt``: the lines that build X and set k, seed, kind and σ (from ``data``, default
    ``params``), then the view's own ``lines`` with their ``imports``."""
    p = params if data is None else data
    data_imports, data_body = data_lines(p)
    code = assemble(data_imports + imports, data_body + [settings_line(p)] + lines)
    return Receipt(view, dict(params), dict(numbers or {}), code)


def assemble(imports: list[str], body: list[str]) -> str:
    """Import lines (``from m import a, b`` merged per module, stdlib first) above the body."""
    code = "\n".join(body)
    names: dict[str, set[str]] = {}
    for line in imports:
        module, _, items = line.removeprefix("from ").partition(" import ")
        names.setdefault(module, set()).update(item.strip() for item in items.split(","))
    head = ["import math"] if "math." in code else []
    head += [
        f"from {m} import {', '.join(sorted(names[m]))}" for m in sorted(names) if not m.startswith("rbfviz")
    ]
    head += ["", "import numpy as np"]
    head += [
        f"from {m} import {', '.join(sorted(names[m]))}" for m in sorted(names) if m.startswith("rbfviz")
    ]
    return "\n".join(head).lstrip("\n") + "\n\n" + code + "\n"
