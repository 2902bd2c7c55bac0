"""Check every internal link of a built site: each href and src must name a file of the site, and each
#fragment an id (or a named anchor) in that file. External links are never fetched (CI has no
internet); ``--external`` lists them.

    .venv/bin/python docs/tools/check_links.py static/docs
    .venv/bin/python docs/tools/check_links.py static/docs --external

Exit status 0 when every internal link resolves, 1 otherwise (each broken link printed with its page).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# attributes that point at another resource, per tag
LINK_ATTRIBUTES = {
    "a": ("href",),
    "link": ("href",),
    "area": ("href",),
    "img": ("src",),
    "script": ("src",),
    "iframe": ("src",),
    "source": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
}
EXTERNAL_SCHEMES = {"http", "https", "mailto", "ftp", "tel", "data", "javascript"}
# MkDocs' error page links from the server's root (it is shown for any missing address, so its links
# cannot be relative); nothing links to it, and Streamlit's static serving never shows it.
SKIPPED_PAGES = {"404.html"}


@dataclass(frozen=True)
class Broken:
    """A link on ``page`` (relative to the site) whose ``target`` does not resolve, and why."""

    page: str
    target: str
    problem: str

    def __str__(self) -> str:
        return f"{self.page}: {self.target} ({self.problem})"


class _Page(HTMLParser):
    """The ids and the links of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name" if tag == "a" else "id"):
            if values.get(key):
                self.ids.add(values[key])
        for attribute in LINK_ATTRIBUTES.get(tag, ()):
            value = (values.get(attribute) or "").strip()
            if value:
                self.links.append(value)


def is_external(link: str) -> bool:
    """True for a link that leaves the site (a scheme such as https: or mailto:, or //host/…)."""
    parts = urlsplit(link)
    return bool(parts.scheme and parts.scheme.lower() in EXTERNAL_SCHEMES) or link.startswith("//")


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def check_site(site: Path) -> tuple[list[Broken], list[tuple[str, str]], int]:
    """Every broken internal link of the HTML pages under ``site``, every external link (page, link),
    both in page order, and the number of pages checked."""
    site = site.resolve()
    if not site.is_dir():
        raise FileNotFoundError(f"no built site at {site}")
    pages = {
        path: _parse(path)
        for path in sorted(site.rglob("*.html"))
        if path.relative_to(site).as_posix() not in SKIPPED_PAGES
    }
    broken: list[Broken] = []
    external: list[tuple[str, str]] = []
    for path, page in pages.items():
        name = path.relative_to(site).as_posix()
        for link in page.links:
            if is_external(link):
                external.append((name, link))
                continue
            parts = urlsplit(link)
            if parts.scheme:
                broken.append(Broken(name, link, f"unknown scheme {parts.scheme}:"))
                continue
            if parts.path.startswith("/"):
                broken.append(Broken(name, link, "absolute path: the site must work under any prefix"))
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            if not target.is_relative_to(site):
                broken.append(Broken(name, link, "points outside the site"))
                continue
            if not target.is_file():
                broken.append(Broken(name, link, "no such file"))
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    broken.append(Broken(name, link, f"no id {fragment!r} in {target.relative_to(site)}"))
    return broken, external, len(pages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("site", type=Path, help="the built site's folder (mkdocs.yml's site_dir)")
    parser.add_argument("--external", action="store_true", help="also list external links (not fetched)")
    args = parser.parse_args(argv)
    try:
        broken, external, pages = check_site(args.site)
    except FileNotFoundError as exc:
        print(f"check_links: {exc}", file=sys.stderr)
        return 1
    if args.external:
        for page, link in external:
            print(f"external (not checked): {page}: {link}")
    for item in broken:
        print(f"broken: {item}")
    print(f"{pages} pages checked, {len(broken)} broken internal links, ", end="")
    print(f"{len(external)} external links not checked")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
