"""Static files under hashed names (config/staticfiles.py): the page loads only names hashed from
their content, every ES module it imports, however deep, included, each kept for a year."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

HASHED = re.compile(r"^/static/.+\.[0-9a-f]{12}\.[A-Za-z0-9]+$")
# Every relative module specifier of a module: what import, export … from and import() name.
SPECIFIER = re.compile(r"""["'](\.{1,2}/[^"'\s]+\.m?js)["']""")
YEAR = "max-age=31536000"


class Assets(HTMLParser):
    """The static files a page names: scripts, style sheets, icons."""

    def __init__(self) -> None:
        super().__init__()
        self.modules: list[str] = []
        self.others: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and named.get("src"):
            # A module is followed through its imports; a classic script (the looks, read
            # before the page is drawn) imports nothing.
            kept = self.modules if named.get("type") == "module" else self.others
            kept.append(str(named["src"]))
        elif tag == "link" and str(named.get("href", "")).startswith("/static/"):
            self.others.append(str(named["href"]))


def served(client: Client, url: str) -> tuple[str, str]:
    """Return the body and the Cache-Control of the static file at ``url``."""
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content).decode(errors="replace"), response["Cache-Control"]


def test_the_page_loads_only_hashed_files_and_every_module_it_imports_is_hashed(
    client: Client,
) -> None:
    # given the front page
    page = client.get("/")
    assets = Assets()
    assets.feed(page.content.decode())
    assert assets.modules and assets.others

    # when every module is followed through its imports
    seen: set[str] = set()
    waiting = list(assets.modules)
    while waiting:
        url = waiting.pop()
        if url in seen:
            continue
        seen.add(url)
        assert HASHED.match(url), f"{url} is not a hashed name"
        body, cache = served(client, url)
        assert YEAR in cache and "immutable" in cache, (url, cache)
        waiting += [urljoin(url, specifier) for specifier in SPECIFIER.findall(body)]

    # then the whole client came, under hashed names only, and so did the style sheets
    names = {re.sub(r"\.[0-9a-f]{12}\.js$", ".js", url.rsplit("/", 1)[1]) for url in seen}
    assert {"app.js", "play.js", "board.js", "i18n.js", "dom.js"} <= names
    for url in assets.others:
        assert HASHED.match(url), f"{url} is not a hashed name"
        assert YEAR in served(client, url)[1]
    # and the policy still allows the page's own scripts only
    policy = page["Content-Security-Policy"]
    scripts = re.search(r"script-src ([^;]*)", policy)
    assert scripts and scripts[1].split() == ["'self'"], policy


def test_a_plain_name_is_still_served_briefly_cached(client: Client) -> None:
    body, cache = served(client, "/static/frontend/app.js")
    assert "import" in body
    assert "immutable" not in cache
