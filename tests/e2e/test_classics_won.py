"""Each classic played to a win in the browser, on the solver's line.

For every classic a practice deal is pinned that the solver wins quickly; the test solves it
in-process (the engine deals the same seed as the server), plays all but the line's last moves
through the API as the page's player (quick), then the rest on the table: a click on the cards
to move (the card at the foot of a group for several), a click on where they go, the Deal
button, and the last card home by a double-click (two taps on a phone). FreeCell and Spider are
won at a phone's size (touch), FreeCell, Klondike and Yukon at a laptop's.

Spider (2 suits) is the exception: the deals its solver wins take it 2.5 to 5 s of CPU time
(docs/winrates.md), so its line is kept in ``lines/spider-2-suits.json`` as the solver found
it, and the test replays it with the engine before playing it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from games.engine import builtin_variant, deal, practice_seed, replay, solve
from tests.e2e.helpers import (
    fetch_game,
    join_as_guest,
    nickname,
    start_practice,
    variants_offered,
)

pytestmark = pytest.mark.browser

PHONE, LAPTOP = (390, 844), (1366, 768)
SEEDS = {  # practice seed texts the solver wins quickly
    "klondike-draw-3": "win-2",
    "freecell": "win-4",
    "spider-2-suits": "study-3",
    "yukon": "win-3",
}
LINES = Path(__file__).with_name("lines")
ON_THE_TABLE = 8  # the line's last moves, played by hand


@pytest.fixture(scope="module")
def classics_offered(server_shell: Callable[[str], str]) -> Iterator[None]:
    """Offer the classics for practice, as an admin does (Yukon is not offered by default)."""
    with variants_offered(server_shell, list(SEEDS)):
        yield


def winning_line(variant: str) -> list[dict[str, Any]]:
    """Return the solver's winning line of the variant's pinned deal, as moves of the API."""
    seed = practice_seed(SEEDS[variant])
    kept = LINES / f"{variant}.json"
    if kept.exists():
        pinned = json.loads(kept.read_text())
        assert (pinned["variant"], pinned["seed_text"]) == (variant, SEEDS[variant])
        assert replay(builtin_variant(variant), seed, pinned["line"]).state.won
        return pinned["line"]
    result = solve(deal(builtin_variant(variant), seed), budget_seconds=5)
    assert result.outcome == "won" and result.line, (variant, result.outcome)
    return [move.to_json() for move in result.line]


def press(page: Any, locator: Any, touch: bool, *, top: bool) -> None:
    """Click (or tap) a card or a slot: the top card anywhere, a card under others on the strip
    that shows above the next one."""
    position = None if top else {"x": 12, "y": 5}
    if touch:
        locator.tap(position=position)
    else:
        locator.click(position=position)


def play_on_table(page: Any, move: dict[str, Any], touch: bool) -> None:
    """Make a move of the line on the table, as a player does."""
    if move["type"] in ("deal", "redeal"):
        press(page, page.locator(f"#{move['type']}"), touch, top=True)
        return
    count = move.get("count", 1)
    source = page.locator(f'.pile[data-pile="{move["from"]}"] .card[data-index]')
    index = source.count() - count
    card = page.locator(f'.pile[data-pile="{move["from"]}"] button.card[data-index="{index}"]')
    press(page, card, touch, top=count == 1)
    target = page.locator(f'.pile[data-pile="{move["to"]}"] :is(button.card, .slot)').last
    press(page, target, touch, top=True)


@pytest.mark.parametrize(
    ("variant", "viewport"),
    [(variant, size) for variant in SEEDS for size in (PHONE, LAPTOP)],
    ids=[f"{variant}-{name}" for variant in SEEDS for name in ("phone", "laptop")],
)
@pytest.mark.usefixtures("classics_offered")
def test_a_classic_is_won_on_the_table_on_the_solvers_line(
    new_page: Any, variant: str, viewport: tuple[int, int]
) -> None:
    began = time.monotonic()
    # given the solver's winning line of a practice deal, started on the table
    line = winning_line(variant)
    touch = viewport == PHONE
    page = new_page(viewport=viewport, has_touch=touch, is_mobile=touch)
    join_as_guest(page, nickname("Winner"))
    for key in ("one-click", "auto-foundations", "auto-finish"):
        page.evaluate(f"localStorage.setItem('daily-patience:{key}', 'off')")
    game = start_practice(page, variant, SEEDS[variant])

    # when the player makes all but the line's last moves (through the API, as the page would)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    start = len(line) - ON_THE_TABLE
    for ply, played in enumerate(line[:start]):
        answer = page.request.post(
            f"/api/games/{game['id']}/moves/",
            data={"ply": ply, "move": played},
            headers={"X-CSRFToken": token},
        )
        assert answer.status == 200, (ply, answer.text())
    page.reload()
    page.wait_for_selector(f"#ply:text-is('{start}')")
    page.wait_for_selector(".play[data-socket='open']")

    # and plays the rest on the table, the last card home by a double-click (or two taps)
    for ply in range(start, len(line) - 1):
        play_on_table(page, line[ply], touch)
        page.wait_for_selector(f"#ply:text-is('{ply + 1}')")
    last = line[-1]
    assert last["type"] == "move" and last["to"].startswith("foundation"), last
    top = page.locator(f'.pile[data-pile="{last["from"]}"] button.card').last
    if touch:
        # Two taps make a double one only within the page's DOUBLE_MS (350 ms): the card's place
        # is read once and both taps sent at once, not each after its own checks, which a busy
        # machine can stretch past that.
        top.scroll_into_view_if_needed()
        box = top.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.touchscreen.tap(x, y)
        page.touchscreen.tap(x, y)
    else:
        top.dblclick()

    # then the game is won, and the server's replay of it agrees
    page.wait_for_selector("#won-banner")
    won = fetch_game(page, game["id"])
    assert (won["status"], won["ply"]) == ("won", len(line))
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
    assert time.monotonic() - began < 30, "a win should take the suite seconds, not minutes"
