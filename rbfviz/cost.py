"""What a view's first computation costs, estimated before it starts, and the budget it should fit in.

* ``annealing_cost(n, k, kind)``      CPU seconds of the Annealing view's computation for one setting
* ``largest_n_within(budget, k, kind)`` the largest n whose Annealing computation fits in the budget
* ``how_many_cost(n, k_max)``         CPU seconds of the "How many clusters" view's three answers
* ``largest_k_max_within(budget, n)`` the largest k_max whose answers fit in the budget
* ``explorer_cost(n, k, kind)``       CPU seconds of the Explorer's new setting (every σ level of its plane)
* ``largest_within(budget, estimate, low, high)`` the largest integer whose estimate fits in the budget
* ``BUDGET_S``                         the budget: a view that would cost more asks before it starts
* ``CEILING_S``                        past it a view does not compute at all, even when asked

The model is fitted to timings of the Annealing view's own computation (``collapse_study`` on the
page's σ grid, then the view's arrays) on blobs, one torch and BLAS thread, playing a machine without
AVX-512 (docs/contribute/benchmarks.md, "Work budget"). Its form, seconds = rate × (n + N0) × k^power,
follows what a run does: each EM step touches n × k entries plus a fixed per-call cost (N0 entries'
worth, which dominates up to n = 5,000 for softmax and entmax-1.5), and the number of steps grows
steeply with k (every extra centre is one more split to walk through, with the self-consistent solves
that predict it), more steeply for the entmax maps. Fitted for 3 <= k <= 10 and n <= 5,000; other data
sets and machines differ, so read the estimate as right to within a factor of about 2, which is what
"this would take about N s" needs.
"""

from __future__ import annotations

import math

from .validate import check_int, check_kind, entmax_alpha

BUDGET_S = 5.0  # CPU seconds a view may take on its own before it asks (one student holds one process)
# CPU seconds past which a view does not compute at all, even when asked: beyond a minute one student's
# setting would hold the process's core for minutes (the models are within a factor of 1.4 of timings).
CEILING_S = 60.0

# seconds = rate × (n + N0) × k^power, per map: (rate, N0, power), fitted in log space to 5-6 timings of
# each map (3 <= k <= 10, 500 <= n <= 5,000; within a factor of 1.41 of every one). α-entmax was timed at
# α = 1.3; its cost per entry (a Newton solve for τ, powers) makes N0 small next to n.
_MODEL = {
    "softmax": (5.53e-6, 5_900, 1.68),
    "entmax15": (2.22e-6, 5_400, 2.72),
    "alpha": (8.26e-5, 100, 2.10),
}
_MODEL["naive"] = _MODEL["softmax"]  # the same exps without the shift: no dearer


def _model(kind: str) -> tuple[float, int, float]:
    """(rate, N0, power) of the map; "hard" (K-Means itself, not on the app's pages) is costed as softmax."""
    kind = check_kind(kind)
    if kind in _MODEL:
        return _MODEL[kind]
    return _MODEL["alpha"] if entmax_alpha(kind) is not None else _MODEL["softmax"]


def annealing_cost(n: int, k: int, kind: str = "softmax") -> float:
    """Estimated CPU seconds (machine without AVX-512, one thread) of the Annealing view's computation
    for n points, k centres and the map ``kind`` ("softmax", "entmax15", "naive" or an α-entmax spec
    "entmax:<α>"). Increasing in n and in k."""
    n = check_int(n, "n", 1)
    k = check_int(k, "k", 1)
    rate, n0, power = _model(kind)
    return rate * (n + n0) * k**power


def largest_n_within(budget: float, k: int, kind: str = "softmax", n_min: int = 1) -> int | None:
    """The largest n (at least n_min) whose ``annealing_cost(n, k, kind)`` is at most ``budget`` seconds,
    or None if not even n_min fits."""
    k = check_int(k, "k", 1)
    rate, n0, power = _model(kind)
    n = math.floor(budget / (rate * k**power) - n0)
    return n if n >= n_min else None


def largest_k_within(budget: float, n: int, kind: str = "softmax", k_min: int = 2) -> int | None:
    """The largest k (at least k_min) whose ``annealing_cost(n, k, kind)`` is at most ``budget`` seconds,
    or None if not even k_min fits."""
    n = check_int(n, "n", 1)
    rate, n0, power = _model(kind)
    k = math.floor((budget / (rate * (n + n0))) ** (1.0 / power))
    return k if k >= k_min else None


# "How many clusters": annealing k_max centres, K-Means for k = 1 … k_max (4 starts each) and the
# silhouettes, softmax only: seconds = rate × (n + N0) × k_max^power, fitted like the model above to
# 5 timings (k_max 8-16, n 500-5,000; within a factor of 1.7 of every one).
_HOW_MANY_MODEL = (4.45e-6, 1_375, 1.95)


def how_many_cost(n: int, k_max: int) -> float:
    """Estimated CPU seconds (machine without AVX-512, one thread) of the "How many clusters" view's
    three answers for n points and k_max centres. Increasing in n and in k_max."""
    n = check_int(n, "n", 1)
    k_max = check_int(k_max, "k_max", 1)
    rate, n0, power = _HOW_MANY_MODEL
    return rate * (n + n0) * k_max**power


def largest_k_max_within(budget: float, n: int, k_min: int = 3) -> int | None:
    """The largest k_max (at least k_min) whose ``how_many_cost(n, k_max)`` is at most ``budget`` seconds,
    or None if not even k_min fits."""
    n = check_int(n, "n", 1)
    rate, n0, power = _HOW_MANY_MODEL
    k_max = math.floor((budget / (rate * (n + n0))) ** (1.0 / power))
    return k_max if k_max >= k_min else None


# The Explorer: a new setting runs EM from the start to the soft fixed point at every σ of the grid (the
# same kind of work as the Annealing view's collapse study, so a share of that model), then draws every
# level: its field, images and point colours, which grow with n alone. Fitted to nine timings (whole page,
# blobs, the default k-means++ start, no AVX-512; docs/contribute/benchmarks.md, "Work budget"): softmax,
# entmax-1.5 and α-entmax (α = 1.05 and 1.3) at n = 500-5,000 and k = 6-10 on a real server, and softmax
# with an upload of 20,000 points in-process; within a factor of 1.38 of every one. α near 2 (sparsemax)
# costs less than α = 1.3 (5.6 s against 19.7 s at n = 5,000, k = 10): the estimate is high there.
EXPLORER_SHARE = 0.33  # of annealing_cost
EXPLORER_PER_POINT = 1.8e-4  # CPU seconds per point for drawing the levels


def explorer_cost(n: int, k: int, kind: str = "softmax") -> float:
    """Estimated CPU seconds (machine without AVX-512, one thread) of the Explorer's plane at every σ
    level for a new setting of n points, k centres and the map ``kind``. Increasing in n and in k."""
    return EXPLORER_SHARE * annealing_cost(n, k, kind) + EXPLORER_PER_POINT * n


def largest_within(budget: float, estimate, low: int, high: int) -> int | None:
    """The largest integer x in [low, high] with ``estimate(x) <= budget`` seconds, or None if not even
    ``low`` fits; ``estimate`` must be increasing (every model above is, in n and in k)."""
    if estimate(low) > budget:
        return None
    while low < high:  # estimate(low) fits; find the last x that does
        mid = (low + high + 1) // 2
        if estimate(mid) <= budget:
            low = mid
        else:
            high = mid - 1
    return low
