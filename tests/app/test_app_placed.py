"""AppTests of centres placed anywhere on the plane (init=placed, centres=x,y;...): a link's placed start is
what Step by step steps from (its numbers against numpy), the "On the plane" control and the keyboard
inputs write the address, and bad links give a notice and a page that still works."""

import numpy as np
import pytest
from app_page import ok, open_page, page_path
from numpy_reference import sq_dist

from rbfviz.datasets import make_dataset
from ui import session_keys as keys

STEPPER, EXPLORER = page_path("Step by step"), page_path("Explorer")
PLACED = "0.5,0.25;-2,3;1.5,-1"
QUERY = {"dataset": "blobs", "n": "200", "k": "3", "seed": "0", "init": "placed", "centres": PLACED}


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_link_with_placed_centres_starts_step_by_step_there():
    at = open_page(STEPPER, QUERY)
    ok(at)
    assert dict(at.query_params)["centres"] == PLACED and dict(at.query_params)["init"] == "placed"
    X, _ = make_dataset("blobs", 200, float(dict(at.query_params)["noise"]), 0)
    C = np.array([[0.5, 0.25], [-2.0, 3.0], [1.5, -1.0]])
    sigma = float(dict(at.query_params)["sigma"])
    z = -sq_dist(X, C) / (2 * sigma**2)
    r = np.exp(z - z.max(axis=1, keepdims=True))
    r /= r.sum(axis=1, keepdims=True)
    assert float(metrics(at)["L_σ (soft loss)"]) == pytest.approx((r * sq_dist(X, C)).sum(), rel=1e-4)
    assert float(metrics(at)["J (K-Means inertia)"]) == pytest.approx(
        sq_dist(X, C).min(axis=1).sum(), rel=1e-6
    )


@pytest.mark.parametrize("page", [STEPPER, EXPLORER])
def test_typing_a_centres_place_makes_it_the_start_and_restarts_the_steps(page):
    at = open_page(page, {"dataset": "blobs", "n": "200", "k": "3", "seed": "0", "steps": "EM"})
    at.radio(key=keys.PLANE_MODE).set_value("centres").run()
    ok(at)
    assert len(at.get("bidi_component")) == 1  # the plane editor
    at.selectbox(key=keys.CENTRE_CHOICE).set_value(2).run()
    at.number_input(key=keys.CENTRE_X).set_value(1.25).run()
    at.number_input(key=keys.CENTRE_Y).set_value(-0.5).run()
    ok(at)
    query = dict(at.query_params)
    assert query["init"] == "placed" and "steps" not in query
    assert query["centres"].split(";")[2] == "1.25,-0.5"
    assert len(query["centres"].split(";")) == 3


@pytest.mark.parametrize(
    "centres, says",
    [
        ("abc", "centres=abc"),
        ("1,2;3", "centres=1,2;3"),
        ("1,nan;2,2;3,3", "centres=1,nan"),
        (";".join(f"{i},{i}" for i in range(11)), "at most 10 centres"),
    ],
)
def test_bad_placed_centres_in_a_link_warn_and_ask_for_centres(centres, says):
    for page in (STEPPER, EXPLORER):
        at = open_page(page, dict(QUERY, centres=centres))
        assert not at.error, [e.value for e in at.error]
        assert any(says in w.value for w in at.warning), [w.value for w in at.warning]
        assert "centres" not in dict(at.query_params)
        # no centres placed: the page asks for them, on the plane
        assert any("3 more places" in i.value for i in at.info)
        assert at.radio(key=keys.PLANE_MODE).value == "centres"


def test_coincident_placed_centres_explain_and_other_inits_ignore_placed_centres():
    at = open_page(STEPPER, dict(QUERY, centres="1,1;1,1;2,2"))
    assert any("same place" in e.value for e in at.error)
    at = open_page(STEPPER, dict(QUERY, init="kmeanspp"))
    ok(at)
    assert dict(at.query_params)["centres"] == PLACED  # kept in the link for later, not used
