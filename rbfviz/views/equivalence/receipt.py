"""The Equivalence view's receipt: the Python that recomputes the numbers on screen."""

from __future__ import annotations

from rbfviz.views.common.receipt import Receipt, start_lines, view_receipt


def equivalence_numbers(step, paths) -> dict:
    """The Equivalence view's numbers from ``equivalence.one_step`` and ``equivalence.trajectories``."""
    return {
        "gd_vs_lloyd": float(step.gd_vs_lloyd),
        "gd_vs_em": float(step.gd_vs_em),
        "masses": [float(m) for m in step.masses],
        "final_difference": float(paths.difference[-1]),
    }


def equivalence_receipt(params: dict, numbers: dict) -> Receipt:
    """The Equivalence view: one GD step vs one Lloyd step, and ``steps`` steps of each."""
    p = params
    init = "kmeans++" if p["init"] == "anneal" else p["init"]  # annealing has no start to step from
    more, start = start_lines(p, init)
    imports = more + ["from rbfviz.views.equivalence.arrays import one_step, trajectories"]
    body = start + [
        "step = one_step(X, C0, sigma, kind)  # gradient step with η_j = 1/(2N_j), EM step, Lloyd step",
        f"paths = trajectories(X, C0, sigma, kind, steps={int(p.get('steps', 25))})",
        "numbers = {",
        '    "gd_vs_lloyd": step.gd_vs_lloyd,  # max |GD step − Lloyd step|',
        '    "gd_vs_em": step.gd_vs_em,  # max |GD step − soft centroid|: rounding only',
        '    "masses": step.masses.tolist(),  # N_j at the start',
        '    "final_difference": float(paths.difference[-1]),  # max |c_GD − c_Lloyd| after the last step',
        "}",
    ]
    return view_receipt("Equivalence", params, numbers, imports, body)
