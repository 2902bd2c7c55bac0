"""AppTests of the Step-by-step view: every button, the counter, the URL's `steps`, the numbers against a
replay written here in numpy, bad links, and other views dropping the sequence."""

import numpy as np
import pytest
from app_page import open_page, page_path
from numpy_reference import sq_dist
from streamlit.testing.v1 import AppTest

from rbfviz.datasets import make_dataset
from rbfviz.views.explorer.arrays import initial_centers
from rbfviz.views.step_by_step.arrays import MAX_STEPS
from ui import session_keys

PAGE = page_path("Step by step")
BUTTONS = {"E": "step_E", "M": "step_M", "L": "step_L"}


def stepper(query=None) -> AppTest:
    return open_page(PAGE, query)


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def url_steps(at) -> str | None:
    return dict(at.query_params).get("steps")


def expected_numbers(steps: str, sigma: float):
    """(L_σ, J, max |soft − Lloyd|) after ``steps`` on the default blobs, in numpy: softmax E-steps,
    r-weighted means, hard Lloyd steps from the k-means++ start the app uses."""
    X, _ = make_dataset("blobs", 500, 1.5, 0)
    C = initial_centers(X, 4, "kmeans++", 0).astype(np.float64)

    def soft(C):
        z = -sq_dist(X, C) / (2 * sigma**2)
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def hard(C):
        d = sq_dist(X, C)
        return (np.arange(C.shape[0]) == d.argmin(axis=1)[:, None]).astype(float)

    def mean(r):
        return (r.T @ X) / r.sum(axis=0)[:, None]

    r, history = soft(C), [C]
    for letter in steps:
        if letter == "E":
            r = soft(C)
        elif letter == "M":
            C = mean(r)
        else:
            r = hard(C)
            C = mean(r)
        history.append(C)
    start = history[-3] if steps.endswith("EM") else C
    gap = np.abs(mean(soft(start)) - mean(hard(start))).max()
    return (soft(C) * sq_dist(X, C)).sum(), sq_dist(X, C).min(axis=1).sum(), gap


def assert_numbers(at, steps: str):
    shown = metrics(at)
    sigma = float(dict(at.query_params)["sigma"])
    loss, inertia, gap = expected_numbers(steps, sigma)
    assert shown["Steps taken"] == str(len(steps))
    # shown to 6 significant digits; σ in the URL has 4, so compare at 1e-4 relative
    assert float(shown["L_σ (soft loss)"]) == pytest.approx(loss, rel=1e-4)
    assert float(shown["J (K-Means inertia)"]) == pytest.approx(inertia, rel=1e-4)
    assert float(shown["max |soft step − Lloyd step|"]) == pytest.approx(gap, rel=1e-3, abs=1e-9)


def test_every_button_counts_writes_the_url_and_shows_the_right_numbers():
    at = stepper()
    assert not at.error and not at.warning
    assert url_steps(at) is None
    assert_numbers(at, "")
    assert at.button(key="step_reset").disabled
    taken = ""
    for letter in "EMLEM":
        at.button(key=BUTTONS[letter]).click().run()
        taken += letter
        assert not at.exception and not at.error
        assert url_steps(at) == taken
        assert_numbers(at, taken)
        assert f"Iteration {len(taken)}" in " ".join(m.value for m in at.markdown)
    assert len(at.get("plotly_chart")) == 2  # the plane and the history
    at.button(key="step_reset").click().run()
    assert url_steps(at) is None and metrics(at)["Steps taken"] == "0"
    assert_numbers(at, "")


def test_a_link_replays_the_same_numbers():
    at = stepper()
    for letter in "LEMEM":
        at.button(key=BUTTONS[letter]).click().run()
    shown, query = metrics(at), dict(at.query_params)
    again = stepper(query)
    assert metrics(again) == shown and url_steps(again) == "LEMEM"


@pytest.mark.parametrize("bad", ["EXQ", "E-M"])
@pytest.mark.shared_streamlit_caches
def test_a_bad_steps_value_warns_and_starts_from_zero(bad):
    at = stepper({"steps": bad})
    assert any("steps=" in w.value for w in at.warning)
    assert metrics(at)["Steps taken"] == "0" and url_steps(at) is None
    assert not at.error


def test_a_too_long_sequence_is_cut_with_a_warning_and_the_buttons_stop():
    at = stepper({"steps": "EM" * MAX_STEPS})
    assert any(str(MAX_STEPS) in w.value for w in at.warning)
    assert metrics(at)["Steps taken"] == str(MAX_STEPS)
    assert url_steps(at) == "EM" * (MAX_STEPS // 2)
    assert all(at.button(key=key).disabled for key in BUTTONS.values())
    assert not at.button(key="step_reset").disabled


def test_sigma_keeps_the_steps_and_k_ends_them():
    at = stepper({"steps": "LEM"})
    before = metrics(at)
    options = at.select_slider(key="w_sigma").options
    at.select_slider(key="w_sigma").set_value(float(options[0])).run()  # the smallest σ
    assert url_steps(at) == "LEM" and metrics(at)["Steps taken"] == before["Steps taken"] == "3"
    assert_numbers(at, "LEM")  # the same steps, replayed at the new σ
    gap = float(metrics(at)["max |soft step − Lloyd step|"])
    assert gap < 1e-2 * float(before["max |soft step − Lloyd step|"])  # soft → Lloyd as σ → 0
    at.slider(key="w_k").set_value(3).run()
    assert url_steps(at) is None and metrics(at)["Steps taken"] == "0"


def test_other_views_drop_the_sequence():
    at = stepper({"steps": "EM"})
    at.switch_page(page_path("Explorer")).run()
    assert not at.exception
    assert url_steps(at) is None
    at.switch_page(PAGE).run()
    assert metrics(at)["Steps taken"] == "0"


@pytest.mark.parametrize(
    "query", [{"kind": "naive", "dtype": "float32", "sigma": "0.03"}, {"init": "anneal"}]
)
def test_hard_settings_give_messages_not_tracebacks(query):
    at = stepper({**query, "steps": "EMEML"})
    assert not at.exception and not at.error
    assert metrics(at)["Steps taken"] == "5"
    if query.get("kind") == "naive":
        assert any("naive" in w.value for w in at.warning)
    else:
        assert any("k-means++" in i.value for i in at.info)


def test_custom_start_without_picks_explains():
    at = stepper({"init": "custom", "steps": "EM"})
    assert not at.exception
    assert any("pick" in e.value.lower() for e in at.error)


# --- Play, step back, the scrubber -------------------------------------------------------------------


def tick(at) -> None:
    """What Play's clock does when its interval has passed: make the next step due and run."""
    at.session_state[session_keys.STEP_PLAYED_AT] = 0.0
    at.run()
    assert not at.exception, at.exception


def test_play_takes_steps_at_each_tick_and_pause_stops_it():
    at = stepper()
    assert at.button(key="step_play").label == "▶ Play"
    at.button(key="step_play").click().run()
    assert at.session_state[session_keys.STEP_PLAYING] and at.button(key="step_play").label == "❚❚ Pause"
    assert url_steps(at) is None  # the first step comes one interval after the press
    for taken in ("E", "EM", "EME"):  # E and M by turns
        tick(at)
        assert url_steps(at) == taken
    assert_numbers(at, "EME")
    at.button(key="step_play").click().run()
    assert not at.session_state[session_keys.STEP_PLAYING] and at.button(key="step_play").label == "▶ Play"
    tick(at)
    assert url_steps(at) == "EME"  # paused: a due tick takes nothing


def test_step_back_and_the_scrubber_show_earlier_iterations_and_keep_the_later_ones():
    at = stepper({"steps": "LEM"})
    assert at.slider(key=session_keys.STEP_SCRUBBER).value == 3
    at.button(key="step_back").click().run()
    assert dict(at.query_params)["at"] == "2" and url_steps(at) == "LEM"
    assert_numbers_at(at, "LEM", 2)
    at.slider(key=session_keys.STEP_SCRUBBER).set_value(0).run()
    assert dict(at.query_params)["at"] == "0" and metrics(at)["Steps taken"] == "0 of 3"
    assert at.button(key="step_back").disabled
    at.slider(key=session_keys.STEP_SCRUBBER).set_value(3).run()  # the end again: no `at`
    assert "at" not in dict(at.query_params) and metrics(at)["Steps taken"] == "3"


def assert_numbers_at(at, steps: str, shown: int) -> None:
    """The plane's numbers are those after the first ``shown`` steps; the counter says which of how many."""
    loss, inertia, _ = expected_numbers(steps[:shown], float(dict(at.query_params)["sigma"]))
    numbers = metrics(at)
    assert numbers["Steps taken"] == f"{shown} of {len(steps)}"
    assert float(numbers["L_σ (soft loss)"]) == pytest.approx(loss, rel=1e-4)
    assert float(numbers["J (K-Means inertia)"]) == pytest.approx(inertia, rel=1e-4)


def test_play_from_an_earlier_iteration_walks_forward_first():
    at = stepper({"steps": "LEM", "at": "1"})
    at.button(key="step_play").click().run()
    tick(at)
    assert dict(at.query_params)["at"] == "2" and url_steps(at) == "LEM"
    tick(at)
    assert "at" not in dict(at.query_params) and url_steps(at) == "LEM"
    tick(at)
    assert url_steps(at) == "LEME"


def test_a_step_from_an_earlier_iteration_replaces_the_later_steps():
    at = stepper({"steps": "LEM", "at": "1"})
    at.button(key=BUTTONS["L"]).click().run()
    assert url_steps(at) == "LL" and "at" not in dict(at.query_params)
    assert_numbers(at, "LL")


def test_speed_and_what_play_takes_are_in_the_url():
    at = stepper({"steps": "E"})
    at.select_slider(key=session_keys.STEP_SPEED).set_value(2.0).run()
    at.radio(key=session_keys.STEP_PLAY_STEPS).set_value("lloyd").run()
    query = dict(at.query_params)
    assert (query["speed"], query["play"], query["steps"]) == ("2", "lloyd", "E")
    again = stepper(query)
    assert again.select_slider(key=session_keys.STEP_SPEED).value == 2.0
    assert again.radio(key=session_keys.STEP_PLAY_STEPS).value == "lloyd"
    again.button(key="step_play").click().run()
    tick(again)
    assert url_steps(again) == "EL"


def test_play_pauses_by_itself_once_lloyd_has_settled():
    at = stepper({"steps": "L" * 40, "play": "lloyd"})
    at.button(key="step_play").click().run()
    assert not at.session_state[session_keys.STEP_PLAYING]
    assert any("no longer moves the centres" in i.value for i in at.info)
    tick(at)
    assert url_steps(at) == "L" * 40


@pytest.mark.parametrize("query", [{"steps": "EM", "at": "7"}, {"speed": "100"}, {"play": "rewind"}])
def test_bad_play_values_in_the_url_warn_and_fall_back(query):
    at = stepper(query)
    key = next(k for k in query if k != "steps")
    assert any(f"`{key}=" in w.value for w in at.warning)
    assert key not in dict(at.query_params) and not at.error


def test_the_loss_equations_are_coloured_like_the_history():
    from rbfviz.views.step_by_step.figures import DISTORTION_COLOR, LOSS_COLOR

    at = stepper({"steps": "EM"})
    equations = [e.value.strip("$").strip() for e in at.latex]  # st.latex wraps in $$
    assert any(LOSS_COLOR in e and e.startswith("{\\color") for e in equations)
    assert any(DISTORTION_COLOR in e and "J(C)" in e for e in equations)
