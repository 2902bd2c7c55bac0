"""AppTests of the sidebar's mark (ui.sidebar_mark): a press from a browser that had not yet received the
last answer sends the sidebar's values and the address from before it, and they do not undo what that
answer changed; the same values from a browser that had received it are the student's choice.

The browser here is AppTest, which receives every answer before its next press: a browser that is
behind is played by setting its widgets, its mark and its address back to what they were."""

from app_page import open_page, page_path

from ui import session_keys as keys

EXPLORER = page_path("Explorer")
MOONS = {"dataset": "moons", "n": "100", "k": "3", "seed": "0"}


def controls(at):
    return at.session_state[keys.CONTROLS]


def mark(at) -> int:
    return at.number_input(key=keys.SIDEBAR_MARK).value


def cleared_drawing():
    """The Explorer on moons, then "Draw points" and Clear: the run makes the data set "drawn by hand"
    (the sidebar's Dataset and the address change). Returns (at, the address and the mark before)."""
    at = open_page(EXPLORER, MOONS)
    at.radio(key=keys.PLANE_MODE).set_value("draw").run()
    before = (dict(at.query_params), mark(at))
    at.button(key="drawn_clear").click().run()
    assert controls(at).dataset == "drawn" and at.query_params["dataset"] == "drawn"
    assert mark(at) > before[1]
    return at, before


def behind(at, address: dict, old_mark: int) -> None:
    """The browser as it was before the last answer: its address and its mark."""
    at.query_params.clear()
    at.query_params.update(address)
    at.number_input(key=keys.SIDEBAR_MARK).set_value(old_mark)


def test_a_press_from_behind_keeps_what_the_last_answer_changed():
    at, (address, old_mark) = cleared_drawing()
    behind(at, address, old_mark)
    at.selectbox(key=keys.widget("dataset")).set_value("moons")  # the menu as the browser still had it
    at.run()  # a press: it sends them
    assert not at.exception
    assert controls(at).dataset == "drawn" and at.query_params["dataset"] == "drawn"


def test_an_old_address_from_behind_is_not_a_link():
    at, (address, old_mark) = cleared_drawing()
    behind(at, address, old_mark)
    at.run()
    assert controls(at).dataset == "drawn"


def test_the_same_choice_from_a_browser_that_has_the_answer_is_taken():
    at, _ = cleared_drawing()
    at.selectbox(key=keys.widget("dataset")).set_value("moons").run()
    assert controls(at).dataset == "moons" and at.query_params["dataset"] == "moons"


def test_a_link_followed_from_behind_is_still_a_link():
    at, (_, old_mark) = cleared_drawing()
    behind(at, {"dataset": "circles", "n": "200", "k": "4"}, old_mark)
    at.run()
    assert (controls(at).dataset, controls(at).k) == ("circles", 4)


def test_an_old_address_from_a_browser_that_has_the_answer_is_a_link():
    """Not behind (the mark is the last one sent): an earlier address is one the student went back to."""
    at, (address, _) = cleared_drawing()
    at.query_params.clear()
    at.query_params.update(address)
    at.run()
    assert controls(at).dataset == "moons"
