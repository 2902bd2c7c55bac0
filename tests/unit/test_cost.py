"""The work budget's cost model (rbfviz.cost): its shape, and where the settings the app offers fall."""

import pytest

from rbfviz.cost import (
    BUDGET_S,
    CEILING_S,
    annealing_cost,
    explorer_cost,
    how_many_cost,
    largest_k_max_within,
    largest_k_within,
    largest_n_within,
    largest_within,
)
from rbfviz.loader import MAX_ROWS

MAPS = ("softmax", "entmax15", "entmax:1.3")


def test_the_ceiling_offers_the_built_in_data_and_refuses_the_largest_upload_at_alpha():
    """Past CEILING_S no view computes even when asked (one student would hold the process for
    minutes): the built-in data's heaviest setting (n = 5,000, k = 10, α-entmax, about 53 s) stays
    below it; the largest upload at the same k and map (about 209 s) is above it."""
    assert BUDGET_S < CEILING_S <= 60.0
    assert annealing_cost(5000, 10, "entmax:1.3") <= CEILING_S
    assert annealing_cost(MAX_ROWS, 10, "entmax:1.3") > CEILING_S


@pytest.mark.parametrize("kind", MAPS)
def test_increasing_in_n_and_in_k(kind):
    for k in (2, 3, 6, 10, 16):
        costs = [annealing_cost(n, k, kind) for n in (5, 50, 500, 2000, 5000)]
        assert all(a < b for a, b in zip(costs, costs[1:]))
    for n in (5, 500, 5000):
        costs = [annealing_cost(n, k, kind) for k in range(2, 17)]
        assert all(a < b for a, b in zip(costs, costs[1:]))


@pytest.mark.parametrize("n, k", [(500, 3), (500, 10), (2000, 6), (5000, 3), (5000, 10)])  # fitted there
def test_entmax_costs_more_than_softmax(n, k):
    softmax = annealing_cost(n, k, "softmax")
    assert softmax < annealing_cost(n, k, "entmax15") and softmax < annealing_cost(n, k, "entmax:1.3")


def test_alpha_entmax_costs_most_at_the_largest_n():
    # measured at n = 5,000, k = 10: 3 s, 15 s, 54 s (at n = 500 the fits of α-entmax and entmax-1.5 cross)
    assert annealing_cost(5000, 10, "entmax15") < annealing_cost(5000, 10, "entmax:1.3")


def test_the_heavy_settings_are_over_the_budget_and_the_defaults_far_under():
    # measured: about 15 s (entmax-1.5) and 41-54 s (α = 1.3) of CPU at n = 5,000, k = 10
    assert annealing_cost(5000, 10, "entmax15") > 2 * BUDGET_S
    assert annealing_cost(5000, 10, "entmax:1.3") > 5 * BUDGET_S
    for kind in MAPS:  # the app's defaults: n = 500, blobs' k = 3
        assert annealing_cost(500, 3, kind) < BUDGET_S / 4
    assert annealing_cost(5000, 10, "softmax") <= BUDGET_S  # measured ~3 s: it never asks


@pytest.mark.parametrize("kind", MAPS)
@pytest.mark.parametrize("k", [3, 6, 10])
def test_the_largest_n_and_k_within_the_budget_fit_and_one_more_does_not(kind, k):
    n = largest_n_within(BUDGET_S, k, kind, n_min=k + 1)
    if n is not None:
        assert annealing_cost(n, k, kind) <= BUDGET_S < annealing_cost(n + 1, k, kind)
    else:
        assert annealing_cost(k + 1, k, kind) > BUDGET_S
    big = largest_k_within(BUDGET_S, 5000, kind)
    if big is not None:
        assert annealing_cost(5000, big, kind) <= BUDGET_S < annealing_cost(5000, big + 1, kind)
    else:
        assert annealing_cost(5000, 2, kind) > BUDGET_S


@pytest.mark.parametrize("bad", [dict(n=0), dict(k=0), dict(kind="cosine"), dict(n=2.5)])
def test_bad_arguments_say_what_is_allowed(bad):
    with pytest.raises(ValueError):
        annealing_cost(**{"n": 500, "k": 3, "kind": "softmax", **bad})


def test_how_many_cost_is_increasing_and_its_largest_setting_over_the_budget():
    for n in (50, 500, 5000):
        costs = [how_many_cost(n, k_max) for k_max in range(3, 17)]
        assert all(a < b for a, b in zip(costs, costs[1:]))
    assert how_many_cost(500, 16) < how_many_cost(2000, 16) < how_many_cost(5000, 16)
    assert how_many_cost(5000, 16) > BUDGET_S  # measured ~5.4-6.3 s
    assert how_many_cost(500, 8) < BUDGET_S / 4  # the defaults: n = 500, k_max = 8
    fits = largest_k_max_within(BUDGET_S, 5000)
    assert how_many_cost(5000, fits) <= BUDGET_S < how_many_cost(5000, fits + 1)


# The Explorer's timings on a real server, no AVX-512, server CPU s (docs/contribute/benchmarks.md, "Work
# budget"): (map, n, k) -> seconds
EXPLORER_TIMINGS = {
    ("softmax", 5000, 10): 1.84,
    ("entmax15", 5000, 10): 4.24,
    ("entmax:1.3", 5000, 10): 19.73,
    ("entmax:1.05", 5000, 10): 18.21,
    ("entmax:1.3", 5000, 6): 9.52,
    ("entmax:1.3", 2000, 10): 5.68,
    ("entmax:1.3", 1000, 10): 4.72,
    ("entmax:1.3", 500, 10): 2.68,
    ("softmax", 20000, 10): 7.90,  # the largest upload, in-process (bench/bench_upload.py)
}


@pytest.mark.parametrize("setting, seconds", EXPLORER_TIMINGS.items())
def test_the_explorer_estimate_is_within_a_factor_of_1_4_of_its_timings(setting, seconds):
    kind, n, k = setting
    assert 1 / 1.4 <= explorer_cost(n, k, kind) / seconds <= 1.4


def test_the_explorer_asks_before_alpha_entmax_at_the_largest_n_and_the_largest_upload():
    assert explorer_cost(5000, 10, "entmax:1.3") > 2 * BUDGET_S  # measured ~20 s
    assert explorer_cost(20000, 10, "softmax") > BUDGET_S  # measured 7.9 s
    assert explorer_cost(5000, 10, "softmax") <= BUDGET_S  # measured 1.8 s
    assert explorer_cost(5000, 10, "entmax15") <= BUDGET_S  # measured 4.2 s
    for kind in MAPS:  # the defaults
        assert explorer_cost(500, 3, kind) < BUDGET_S / 4


@pytest.mark.parametrize("kind", MAPS)
def test_largest_within_finds_the_last_setting_that_fits(kind):
    for k in (3, 6, 10):
        n = largest_within(BUDGET_S, lambda n: explorer_cost(n, k, kind), k + 1, 20000)
        if n is None:
            assert explorer_cost(k + 1, k, kind) > BUDGET_S
        elif n < 20000:
            assert explorer_cost(n, k, kind) <= BUDGET_S < explorer_cost(n + 1, k, kind)
    # the closed forms of the Annealing model agree with the search
    for k in (3, 6, 10):
        found = largest_within(BUDGET_S, lambda n: annealing_cost(n, k, kind), k + 1, 10**7)
        assert found == largest_n_within(BUDGET_S, k, kind, n_min=k + 1)
    assert largest_within(1.0, lambda x: x, 5, 9) is None
    assert largest_within(7.0, lambda x: x, 5, 9) == 7 and largest_within(99.0, lambda x: x, 5, 9) == 9
