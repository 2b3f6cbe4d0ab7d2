"""The pages around the table on a phone (390 px, touch) and a laptop (1366 px), in English and
French: the replay viewer lays out the board as the table does, the leaderboard never scrolls
sideways, the live feed counts moves, dates read in the page's language, and every page has its
icon.

With ``SCREENSHOTS=1`` the replay and the phone leaderboard are also written to
``docs/screenshots/``.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.helpers import join_as_guest, nickname
from tests.e2e.test_pages import call, play_moves

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"viewport": (390, 844), "has_touch": True}
LAPTOP = {"viewport": (1366, 768)}
FRENCH_MONTHS = [
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
]


def screenshot(page: Any, name: str) -> None:
    """Write ``docs/screenshots/<name>.png`` on plain felt (a gradient makes a PNG far larger)."""
    if not os.environ.get("SCREENSHOTS"):
        return
    page.evaluate("document.body.style.background = '#0b5d3b'")
    page.screenshot(path=str(ROOT / "docs" / "screenshots" / f"{name}.png"))
    page.evaluate("document.body.style.background = ''")


def in_french(page: Any, server: str, language: str = "fr") -> None:
    """Choose French (or ``language``) for the page (the language cookie), whatever the
    browser's own locale."""
    page.context.add_cookies([{"name": "django_language", "value": language, "url": server}])


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not on the page"
    return found


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[1] == page.viewport_size["width"]
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


@pytest.mark.parametrize(
    ("language", "device"), [("en", "laptop"), ("fr", "phone")], ids=["en-1366", "fr-390"]
)
def test_the_replay_lays_out_the_board_as_wide_and_about_as_tall_as_the_table(
    new_page: Any, server: str, language: str, device: str
) -> None:
    # given a finished practice game of Castile (its thirteen piles drew one column in a replay)
    options = PHONE if device == "phone" else LAPTOP
    page = new_page(**options)
    if language != "en":
        in_french(page, server, language)
    join_as_guest(page, nickname("Wide"))
    game = call(page, "POST", "/api/games/", {"variant": "castile", "mode": "practice"})
    game = play_moves(page, game, 3)
    call(page, "POST", f"/api/games/{game['id']}/resign/")
    # when its player looks at the table of the finished game
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector("#result-panel")
    table = box(page, ".board-area .board")
    # and then at its replay, at the same position
    page.click("#result-replay")
    page.wait_for_selector("#replay-board[data-ply='0']")
    page.keyboard.press("End")
    page.wait_for_selector("#replay-board[data-ply='3']")
    replay = box(page, "#replay-board .board")
    # then the board is as wide as the table's and about as tall, on a page that fits
    assert abs(replay["width"] - table["width"]) <= 2, (replay, table)
    assert abs(replay["height"] - table["height"]) <= 0.2 * table["height"], (replay, table)
    no_sideways_scroll(page)
    width, height = options["viewport"]
    screenshot(page, f"replay-{language}-{width}x{height}")
    # and stepping through the moves scrolled the move list, never the page
    assert page.evaluate("window.scrollY") == 0


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_the_phone_leaderboard_never_scrolls_sideways_and_the_feed_counts_moves(
    new_page: Any, server: str, language: str
) -> None:
    # given a player whose nickname is as long as may be, on the leaderboard of today's Castile
    page = new_page(**PHONE)
    if language != "en":
        in_french(page, server, language)
    name = nickname("Longest_nickname_") + "_" * 4
    join_as_guest(page, name)
    game = call(page, "POST", "/api/games/", {"variant": "castile", "mode": "daily"})
    page.goto(f"/#/daily/castile/{game['date']}")
    page.wait_for_selector("#live-state[data-state='open']")
    # when they play two moves, then the live feed counts them as moves
    game = play_moves(page, game, 2)
    feed = page.locator("#live-feed li").first
    words = {
        "en": " home, 2 moves",
        "fr": " aux fondations, 2 coups",
        "es": " en las fundaciones, 2 jugadas",
    }[language]
    page.wait_for_function(
        "words => document.querySelector('#live-feed li')?.textContent.includes(words)", arg=words
    )
    assert "ply" not in feed.inner_text()
    # when they resign, then their row shows, and the page never scrolls sideways
    call(page, "POST", f"/api/games/{game['id']}/resign/")
    row = page.locator(f"#leaderboard-rows tr[data-player='{name}']")
    row.wait_for()
    no_sideways_scroll(page)
    # and the cards home, the moves and the duration are on the screen, the table needing no
    # scroll of its own
    fits = page.eval_on_selector(
        "table.leaderboard", "t => [t.offsetWidth, t.parentElement.clientWidth]"
    )
    assert fits[0] <= fits[1], f"the table is {fits[0]} px wide in a {fits[1]} px box"
    for cell in row.locator("td.num").all():
        where = cell.bounding_box()
        assert where is not None and where["x"] >= 0 and where["x"] + where["width"] <= 390
    assert row.locator("td.num").all_inner_texts()[1] == "2"
    screenshot(page, f"leaderboard-{language}-390x844")


def test_the_french_player_page_writes_its_join_date_in_french(new_page: Any, server: str) -> None:
    # given a browser whose own locale is American, on a page the player reads in French
    page = new_page(locale="en-US", timezone_id="UTC")
    in_french(page, server)
    name = nickname("Date")
    join_as_guest(page, name)
    # when they open their page
    page.goto(f"/#/players/{name}")
    joined = page.locator("h2 .joined")
    joined.wait_for()
    # then the date reads as a French reader writes it
    today = dt.datetime.now(dt.UTC).date()
    french = f"{today.day} {FRENCH_MONTHS[today.month - 1]} {today.year}"
    assert french in joined.inner_text(), joined.inner_text()


def test_every_page_has_its_icon(new_page: Any) -> None:
    # given a visitor
    page = new_page()
    # when the browser asks the icon of a page that names none (the admin's), or the one it names
    page.goto("/admin/login/")
    root_icon = page.request.get("/favicon.ico")
    page.goto("/")
    named = page.get_attribute("link[rel='icon']", "href")
    named_icon = page.request.get(named)
    # then both are there, and are images
    assert root_icon.status == 200, root_icon.status
    assert root_icon.headers["content-type"] in {"image/x-icon", "image/vnd.microsoft.icon"}
    assert root_icon.body()[:4] == b"\x00\x00\x01\x00"
    assert named_icon.status == 200
    assert named_icon.headers["content-type"].startswith("image/svg+xml")
