"""The app's menu as the browser tests walk it: every page by its sidebar link, in one page load."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ui.page import PAGES

# (address, sidebar label in English) of every page of the menu after the home page: /Explorer, "Explorer"
MENU = [(path.split("_", 1)[1].removesuffix(".py"), label) for path, label, _ in PAGES]


def walk_the_menu(student, label: Callable[[str], str] = str) -> Iterator[str]:
    """With ``student`` on the home page (opened and idle): yield "" for it, then click each page's link
    in the sidebar in turn (``label`` turns its English label into the shown one) and yield the page's
    address ("Explorer") once its run is done and the address is the page's."""
    yield ""
    for name, english in MENU:
        student.go_to(label(english))
        assert student.path() == f"/{name}", f"the link {label(english)!r} led to {student.page.url}"
        yield name
