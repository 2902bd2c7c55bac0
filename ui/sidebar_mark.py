"""Which requests come from a browser that has not yet received the page's last answer.

Every press in the browser sends the values of all its widgets and its address with it. When a run
changes a sidebar control itself (a drawn point makes the data set "drawn by hand", an upload makes it
"your file", a link sets k) or writes a new address, the browser holds the old ones until that run's
sidebar arrives. A press made meanwhile (a second tap right after the first, on a slow network) sends
them back: the old value looks like the student's choice in the widget's callback, and the old
address looks like a link that was followed, so either would undo what the run did.

So the sidebar ends with a hidden mark, a number the server raises in every full run that changed a
control's value on screen or the address. The browser sends back the mark it last received:

* ``shown(field, key, value)``  – set a sidebar widget's value; a value that differs from the browser's
                                  is remembered as changed by this run's mark.
* ``address_written()``         – this run writes a new address.
* ``send()``                    – the hidden mark, the sidebar's last widget (after the address is written).
* ``stale(field)``              – in a callback: the browser's value of ``field`` is older than the
                                  server's last change of it (ignore it).
* ``behind()``                  – the request's browser had not received the last mark (its address is
                                  older than the one last written: not a link that was followed).
"""

from __future__ import annotations

import streamlit as st

from . import session_keys as keys

# Hidden: the mark is a number for the browser to send back, not a control
_CSS = f"<style>.st-key-{keys.SIDEBAR_MARK_BOX} {{ display: none; }}</style>"


def _sent() -> int:
    return int(st.session_state.get(keys.SIDEBAR_MARK_SENT, 0))


def _browser_mark() -> int:
    """The mark the request's browser sent (the server's, if it sent none: it had no sidebar yet)."""
    mark = st.session_state.get(keys.SIDEBAR_MARK, _sent())
    return int(mark) if isinstance(mark, int | float) else 0


def shown(field: str, key: str, value) -> None:
    """Set the sidebar widget ``key`` (of Controls ``field``) to ``value`` before it is drawn."""
    if key in st.session_state and st.session_state[key] != value:
        st.session_state.setdefault(keys.SIDEBAR_CHANGED, {})[field] = _sent() + 1
        st.session_state[keys.SIDEBAR_MARK_DUE] = True
    st.session_state[key] = value


def address_written() -> None:
    st.session_state[keys.SIDEBAR_MARK_DUE] = True


def send() -> None:
    """Draw the hidden mark: the last widget of the sidebar, after the run's address."""
    if st.session_state.pop(keys.SIDEBAR_MARK_DUE, False):
        st.session_state[keys.SIDEBAR_MARK_SENT] = _sent() + 1
    st.session_state[keys.SIDEBAR_MARK] = _sent()
    with st.sidebar.container(key=keys.SIDEBAR_MARK_BOX):
        st.html(_CSS)
        st.number_input("mark", key=keys.SIDEBAR_MARK, step=1, label_visibility="collapsed")


def stale(field: str) -> bool:
    """In a widget's callback: the browser sent ``field``'s value from before the server changed it."""
    return st.session_state.get(keys.SIDEBAR_CHANGED, {}).get(field, 0) > _browser_mark()


def behind() -> bool:
    """The request comes from a browser that had not received the last mark."""
    return _browser_mark() < _sent()
