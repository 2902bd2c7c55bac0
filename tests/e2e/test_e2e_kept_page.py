"""The kept page of tests/browser.py: a tab that the tests take in turn forgets what each test did to it,
and a tab given what a navigation cannot undo is not handed to the next test."""

from __future__ import annotations

import pytest
from browser import give_back, kept_page

from harness.student import Student

pytestmark = pytest.mark.e2e

# everything a test can leave behind that a next test could see
STATE_JS = """() => {
  const read = (what) => { try { return what(); } catch (e) { return null; } };  // about:blank: none
  return { url: location.href, local: read(() => localStorage.length),
  session: read(() => sessionStorage.length),
  dark: matchMedia('(prefers-color-scheme: dark)').matches, width: innerWidth, height: innerHeight,
  cookie: read(() => document.cookie) }; }"""


def dirty(page, url: str) -> list[str]:
    """Open the app, then leave storage, a cookie, a listener, a dark scheme, another viewport and the
    pointer on the page. Returns the list the listener appends to."""
    heard: list[str] = []
    Student(page).open(url)
    page.evaluate("() => { localStorage.setItem('a', '1'); sessionStorage.setItem('b', '2'); }")
    page.context.add_cookies([{"name": "c", "value": "3", "url": url}])
    page.on("console", lambda message: heard.append(message.text))
    page.emulate_media(color_scheme="dark")
    page.set_viewport_size({"width": 500, "height": 600})
    page.mouse.move(100, 100)
    return heard


def test_a_kept_page_comes_back_clean(server, context, browser_context_args):
    held = kept_page(context, browser_context_args)
    assert held is not None
    assert kept_page(context, browser_context_args) is None, "a held page was handed out twice"
    heard = dirty(held, f"{server.url}/")
    context.clear_cookies()  # the context fixture does this after each test
    give_back(held, failed=False)

    again = kept_page(context, browser_context_args)
    try:
        assert again is held, "a clean test's page was not kept"
        size = browser_context_args["viewport"]
        assert again.evaluate(STATE_JS) == {
            "url": "about:blank",
            "local": None,  # about:blank has no storage of its own
            "session": None,
            "dark": False,
            "width": size["width"],
            "height": size["height"],
            "cookie": None,
        }
        Student(again).open(f"{server.url}/")
        state = again.evaluate(STATE_JS)
        assert (state["local"], state["session"], state["dark"]) == (0, 0, False)
        assert "c=3" not in state["cookie"]  # Streamlit's own XSRF cookie is set anew
        again.evaluate("() => console.log('after')")
        assert "after" not in heard, "the first test's listener still hears the page"
    finally:
        give_back(again, failed=False)


@pytest.mark.parametrize("lasting", ["init script", "cdp session", "failed"])
def test_a_page_with_lasting_changes_is_not_kept(server, context, browser_context_args, lasting):
    held = kept_page(context, browser_context_args)
    if lasting == "init script":
        held.add_init_script("window.leftBehind = 1")
    elif lasting == "cdp session":
        context.new_cdp_session(held).send("Emulation.setCPUThrottlingRate", {"rate": 1})
    give_back(held, failed=lasting == "failed")
    assert held.is_closed()
    fresh = kept_page(context, browser_context_args)
    try:
        assert fresh is not held and not fresh.is_closed()
        Student(fresh).open(f"{server.url}/")
        assert fresh.evaluate("() => window.leftBehind") is None
    finally:
        give_back(fresh, failed=False)
