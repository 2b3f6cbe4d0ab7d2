"""Today's daily deal won in the browser, on the line that certified it, and ranked first.

The deal is certified as the scheduler does it (the solver's winning line is stored with it).
The player starts the game from the home page's card; the first moves of that line go through
the API as the page's player (quick), the last ones on the table: clicks, then a double-click
that sends the last card home. The server verifies the game by replaying it from its seed, and
the end panel shows the rank and a share text that names no card; the day's board lists the
player as won.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.helpers import click_move, fetch_game, join_as_guest, nickname

pytestmark = pytest.mark.browser

SLUG = "capricieuse"  # its winning lines are short
ON_THE_TABLE = 4  # the line's last moves, played by hand


def certified_line(server_shell: Callable[[str], str]) -> list[dict[str, Any]]:
    """Certify today's deal of the variant on the server's database; return its winning line."""
    printed = server_shell(
        "import json\n"
        "from games import clock\n"
        "from games.models import Variant\n"
        "from games.services import deals\n"
        f"variant = Variant.objects.get(slug={SLUG!r})\n"
        "deal = deals.deal_prepare(variant=variant, date=clock.today(), seconds=10)\n"
        "if not deal.certified:\n"
        "    deal = deals.deal_check(deal_=deal, seconds=10)\n"
        "print(json.dumps(deal.solution))\n"
    )
    line = json.loads(printed.strip().splitlines()[-1])
    assert line, "today's deal was not proved winnable"
    return line


def test_todays_deal_is_won_on_the_table_verified_and_ranked(
    new_page: Any, server_shell: Callable[[str], str]
) -> None:
    # given today's certified deal, started from its card on the home page
    line = certified_line(server_shell)
    page = new_page(viewport=(1366, 768))
    name = nickname("Champion")
    join_as_guest(page, name)
    page.click(f'li.deal[data-variant="{SLUG}"] button.play')
    page.wait_for_selector(f".board[data-variant='{SLUG}'] .pile")
    page.wait_for_selector(".play[data-socket='open']")
    game_id = page.url.rsplit("/", 1)[-1]
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    page.evaluate("localStorage.setItem('daily-patience:auto-finish', 'off')")

    # when the player makes all but the line's last moves (through the API, as the page would)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    last = line[-1]
    for ply, played in enumerate(line[: len(line) - ON_THE_TABLE]):
        answer = page.request.post(
            f"/api/games/{game_id}/moves/",
            data={"ply": ply, "move": played},
            headers={"X-CSRFToken": token},
        )
        assert answer.status == 200, (ply, answer.text())
    page.reload()
    start = len(line) - ON_THE_TABLE
    page.wait_for_selector(f"#ply:text-is('{start}')")

    # and plays the rest on the table, the last card home by a double-click
    for ply in range(start, len(line) - 1):
        click_move(page, line[ply])
        page.wait_for_selector(f"#ply:text-is('{ply + 1}')")
    assert last["type"] == "move" and last["to"].startswith("foundation")
    page.locator(f'.pile[data-pile="{last["from"]}"] button.card').last.dblclick()

    # then the game is won, verified by its replay, and ranked first on the end panel
    page.wait_for_selector("#won-banner")
    page.wait_for_selector("#result-rank:text-matches('^1 of ')")
    game = fetch_game(page, game_id)
    assert (game["status"], game["verified"], game["ply"]) == ("won", True, len(line))

    # and the share text says so, naming no card
    share = page.input_value("#share-text")
    assert f"Won in {len(line)} moves" in share and "Rank 1 of" in share
    cards = {c for data in line if data["type"] == "move" for c in (data["from"], data["to"])}
    assert not any(pile in share for pile in cards)

    # and the day's board lists the player first, as won
    board = page.request.get(f"/api/leaderboards/{SLUG}/{game['date']}/").json()
    assert board["entries"][0]["player"] == name
    assert (board["entries"][0]["rank"], board["entries"][0]["status"]) == (1, "won")
