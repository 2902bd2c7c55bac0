"""Step by step's Play (rbfviz.views.step_by_step.arrays: play_step, advance, settled) and its URL values
(ui.state: at, speed, play)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_blobs

from rbfviz.views.step_by_step.arrays import (
    MAX_STEPS,
    PLAY_STEPS,
    SETTLED,
    SPEEDS,
    advance,
    play_step,
    replay,
    settled,
)
from rbfviz.views.step_by_step.figures import history_figure
from ui.state import Controls, changed, menu_query, parse_query, without_steps


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs(300, centers=4, cluster_std=1.0, center_box=(-6, 6), random_state=3)
    return X, X[[0, 1, 2, 5]].copy()


def test_play_step_alternates_e_and_m_or_takes_lloyd_steps():
    assert [play_step(s, "em") for s in ("", "E", "EM", "L", "LE", "EE")] == ["E", "M", "E", "E", "M", "M"]
    assert {play_step(s, "lloyd") for s in ("", "E", "EM", "L")} == {"L"}
    with pytest.raises(ValueError, match="play='fast' is unknown; allowed: em, lloyd"):
        play_step("", "fast")


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.text("EML", max_size=12), st.sampled_from(list(PLAY_STEPS)), st.data())
def test_advance_walks_the_taken_iterations_then_adds_one_step(steps, play, data):
    shown = data.draw(st.integers(0, len(steps)))
    new_steps, new_shown = advance(steps, shown, play)
    if shown < len(steps):
        assert (new_steps, new_shown) == (steps, shown + 1)  # nothing taken, one iteration on
    else:
        assert new_steps == steps + play_step(steps, play) and new_shown == len(new_steps)


def test_advance_stops_when_full_and_checks_its_arguments():
    full = "L" * MAX_STEPS
    assert advance(full, MAX_STEPS, "lloyd") is None
    assert advance(full, 3, "lloyd") == (full, 4)  # behind the end it still walks
    with pytest.raises(ValueError, match="shown must be an iteration from 0 to 2"):
        advance("EM", 3, "em")
    with pytest.raises(ValueError, match="letters E"):
        advance("EX", 0, "em")


def test_lloyd_play_settles_where_the_centres_stop(blobs):
    X, C0 = blobs
    extent = float(np.ptp(X, axis=0).max())
    steps = ""
    while not settled(replay(X, C0, 0.5, "softmax", steps), extent, "lloyd"):
        steps = advance(steps, len(steps), "lloyd")[0]
        assert len(steps) < 60
    run = replay(X, C0, 0.5, "softmax", steps)
    assert np.array_equal(run.centers[-1], run.centers[-2])  # Lloyd's fixed point: exactly still
    assert not np.array_equal(run.centers[-2], run.centers[-3])  # and not one step earlier
    # a settled Lloyd sequence is not settled for soft EM: its M-step still moves the centres
    assert not settled(run, extent, "em")


def test_em_play_settles_below_a_millionth_of_the_extent(blobs):
    X, C0 = blobs
    extent = float(np.ptp(X, axis=0).max())
    steps = ""
    while not settled(replay(X, C0, 1.0, "softmax", steps), extent, "em"):
        steps = advance(steps, len(steps), "em")[0]
        assert len(steps) <= MAX_STEPS
    run = replay(X, C0, 1.0, "softmax", steps)
    assert steps.endswith("EM")
    assert np.abs(run.centers[-1] - run.centers[-2]).max() <= SETTLED * extent
    assert np.abs(run.centers[-3] - run.centers[-4]).max() > SETTLED * extent  # the M before was not


def test_nothing_is_settled_before_a_step_moves_and_nan_centres_stop_play(blobs):
    X, C0 = blobs
    assert not settled(replay(X, C0, 0.5, "softmax", ""), 1.0, "em")
    assert not settled(replay(X, C0, 0.5, "softmax", "EEE"), 1.0, "em")
    broken = replay(X.astype(np.float32), C0, 0.05, "naive", "EM")
    assert not np.isfinite(broken.current).all() and settled(broken, 1.0, "em")


def test_history_figure_marks_the_iteration_shown(blobs):
    X, C0 = blobs
    run = replay(X, C0, 0.5, "softmax", "EMLL")
    assert not history_figure(run).layout.shapes
    (line,) = history_figure(run, shown=2).layout.shapes
    assert (line.x0, line.x1, line.yref) == (2, 2, "paper")


# --- the URL (ui.state) ------------------------------------------------------------------------------


def test_shown_iteration_speed_and_play_round_trip_through_the_url():
    ctrl = Controls(sigma=0.4, steps="EMEML", at=2, speed=2.0, play="lloyd")
    query = ctrl.to_query()
    assert (query["at"], query["speed"], query["play"]) == ("2", "2", "lloyd")
    back, notices = parse_query(query)
    assert back == ctrl and notices == [] and back.shown_step() == 2
    plain = Controls(sigma=0.4, steps="EM").to_query()  # the defaults: no parameter
    assert not {"at", "speed", "play"} & set(plain)
    assert Controls(steps="EM").shown_step() == 2
    # at the last iteration is "the last": a link stays at the end when steps are added
    assert parse_query({"steps": "EM", "at": "2"})[0].at is None


@pytest.mark.parametrize(
    "query, key",
    [
        ({"steps": "EM", "at": "3"}, "at"),
        ({"steps": "EM", "at": "-1"}, "at"),
        ({"steps": "EM", "at": "x"}, "at"),
        ({"at": "1"}, "at"),  # no steps: only the start
        ({"speed": "5"}, "speed"),
        ({"speed": "nan"}, "speed"),
        ({"play": "backwards"}, "play"),
    ],
)
def test_bad_play_values_are_notices_and_defaults(query, key):
    ctrl, notices = parse_query(query)
    assert len(notices) == 1 and f"`{key}=" in notices[0]
    assert (ctrl.at, ctrl.speed, ctrl.play) == (None, 1.0, "em")
    if key == "speed":
        assert ", ".join(f"{s:g}" for s in SPEEDS) in notices[0]


def test_the_shown_iteration_follows_the_steps():
    ctrl = Controls(steps="EML", at=1, speed=2.0)
    for field, value in (("sigma", 0.2), ("kind", "entmax15"), ("speed", 0.5), ("play", "lloyd")):
        assert changed(ctrl, field, value)[0].at == 1
    new, _ = changed(ctrl, "k", 3)  # other start: no steps, nothing to show but the start
    assert (new.steps, new.at, new.speed) == ("", None, 2.0)
    assert without_steps(ctrl) == Controls(speed=2.0)
    assert "at" not in menu_query(ctrl) and "steps" not in menu_query(ctrl)
