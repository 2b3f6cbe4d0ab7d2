"""The table teaches a new player: the goal, the board in reach, a way on, a finish, a glide."""

from __future__ import annotations

import os
from typing import Any

import pytest

from games.engine import builtin_variant, deal, practice_seed, solve
from tests.e2e.helpers import fetch_game, join_as_guest, nickname
from tests.e2e.test_pages import call
from tests.e2e.test_table import is_home, new_practice, playable_seed, single_moves
from tests.e2e.test_table import screenshot as write_screenshot

pytestmark = pytest.mark.browser

UP = "{n} foundations build up in suit from the Ace to the King."
DOWN = "{n} foundations build down in suit from the King to the Ace."
GOALS = {
    "caprice": ("Goal: all 104 cards on the foundations.", UP.format(n=4), DOWN.format(n=4)),
    "castile": ("Goal: all 52 cards on the foundations.", UP.format(n=4)),
    "box-kite": ("Goal: all 104 cards on the foundations.", DOWN.format(n=4), UP.format(n=4)),
    "capricieuse": ("Goal: all 104 cards on the foundations.", UP.format(n=4), DOWN.format(n=4)),
}
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RANK_WORDS = {
    "en": {"T": "10", "J": "J", "Q": "Q", "K": "K"},
    "fr": {"T": "10", "J": "V", "Q": "D", "K": "R"},
}


def screenshot(page: Any, name: str) -> None:
    """With ``SCREENSHOTS=1``, write the page as shown into ``docs/screenshots/<name>.png``."""
    if os.environ.get("SCREENSHOTS"):
        write_screenshot(page, name)


def focused_pile(page: Any) -> str | None:
    """Return the board's pile that holds the focus, or None when the focus is off the board."""
    return page.evaluate(
        "() => document.activeElement?.closest('.board .pile')?.dataset.pile ?? null"
    )


def base_card(game: dict[str, Any], language: str) -> tuple[str, str]:
    """Return the rank and the card the deal put on foundation 0, as the table writes them."""
    code = next(p["cards"][0] for p in game["state"]["piles"] if p["id"] == "foundation-0")
    rank = RANK_WORDS[language].get(code[0], code[0])
    return rank, rank + SUITS[code[1]]


def test_the_table_says_every_launch_variants_goal_and_focuses_the_board(new_page: Any) -> None:
    # given a player on a laptop
    page = new_page(viewport=(1366, 768))
    join_as_guest(page, nickname("Goal"))

    for variant, sentences in GOALS.items():
        # when a practice table opens
        new_practice(page, variant, "goal")

        # then it says the goal in one line, as the variant's rules build its foundations
        assert page.inner_text("#play-goal") == " ".join(sentences), variant
        # and the focus is on the board, where the arrows move it from pile to pile
        first = focused_pile(page)
        assert first is not None, variant
        page.keyboard.press("ArrowRight")
        assert focused_pile(page) not in (None, first), variant

    # and Quadruple Canfield's goal names the base card this deal set
    game = new_practice(page, "quadruple-canfield", "goal")
    rank, card = base_card(fetch_game(page, game["id"]), "en")
    assert page.inner_text("#play-goal") == (
        "Goal: all 208 cards on the foundations. 16 foundations build up in suit from the base "
        f"rank, {rank}, that the deal set with the {card}; the Ace follows the King."
    )
    screenshot(page, "goal-quadruple-canfield-1366x768")


def test_a_french_phone_reads_the_goal_in_french(new_page: Any) -> None:
    # given a French phone
    page = new_page(viewport=(390, 844), locale="fr-FR", has_touch=True, is_mobile=True)
    join_as_guest(page, nickname("But"))

    # when Caprice's table opens, then its goal reads in French
    new_practice(page, "caprice", "but")
    assert focused_pile(page) is not None
    assert page.inner_text("#play-goal") == (
        "But\u00a0: les 104 cartes sur les fondations. 4 fondations montent par couleur de l’as au "
        "roi. 4 fondations descendent par couleur du roi à l’as."
    )

    # and Quadruple Canfield's names its base card with the French letters
    game = new_practice(page, "quadruple-canfield", "but-2")
    rank, card = base_card(fetch_game(page, game["id"]), "fr")
    assert page.inner_text("#play-goal") == (
        "But\u00a0: les 208 cartes sur les fondations. 16 fondations montent par couleur à partir "
        f"du rang de base, {rank}, que la donne a fixé avec le {card}\u00a0; l’as suit le roi."
    )
    # and it fits on one line, which a tap unfolds
    assert page.eval_on_selector("#play-goal", "el => el.getBoundingClientRect().height") < 24
    page.tap("#play-goal")
    assert page.eval_on_selector("#play-goal", "el => el.getBoundingClientRect().height") > 40
    screenshot(page, "goal-quadruple-canfield-fr-390x844")


def finished_practice(page: Any, variant: str, seed: str) -> dict[str, Any]:
    """Resign a new practice game through the API and open it: the end panel shows."""
    game = call(page, "POST", "/api/games/", {"variant": variant, "mode": "practice", "seed": seed})
    call(page, "POST", f"/api/games/{game['id']}/resign/")
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector("#result-panel[data-status='resigned']")
    return game


def test_the_practice_panel_opens_a_new_deal_on_a_phone(new_page: Any) -> None:
    # given a French phone at the end of a practice game
    page = new_page(viewport=(390, 844), locale="fr-FR", has_touch=True, is_mobile=True)
    join_as_guest(page, nickname("Donne"))
    over = finished_practice(page, "castile", "panel")
    assert page.inner_text("#result-new-deal") == "Nouvelle donne"
    page.locator("#result-next").scroll_into_view_if_needed()
    screenshot(page, "practice-panel-fr-390x844")

    # when the player taps "New deal"
    page.tap("#result-new-deal")

    # then a new practice game of the same variant opens, ready to play
    page.wait_for_selector(".play[data-socket='open']")
    fresh = fetch_game(page, page.evaluate("location.hash").rsplit("/", 1)[-1])
    assert fresh["id"] != over["id"]
    assert (fresh["variant"], fresh["mode"], fresh["status"]) == ("castile", "practice", "playing")
    assert page.locator("#result-panel").count() == 0


def test_the_practice_panel_opens_todays_deal_on_a_laptop(new_page: Any) -> None:
    # given a player at the end of a practice game on a laptop
    page = new_page(viewport=(1366, 768))
    join_as_guest(page, nickname("Today"))
    finished_practice(page, "box-kite", "panel")

    # when the player clicks "Play today's deal"
    page.click("#result-today")

    # then the variant's daily game opens
    page.wait_for_selector(".play[data-socket='open']")
    daily = fetch_game(page, page.evaluate("location.hash").rsplit("/", 1)[-1])
    assert (daily["variant"], daily["mode"], daily["status"]) == ("box-kite", "daily", "playing")
    assert page.inner_text(".game-info").startswith(f"Daily deal of {daily['date']}")


def home_moves_at_the_end(line: list[dict[str, Any]]) -> int:
    """Return how many moves at the end of a line send a card home from outside the foundations."""
    count = 0
    for move in reversed(line):
        home = move.get("to", "").startswith("foundation")
        if move["type"] != "move" or not home or move["from"].startswith("foundation"):
            break
        count += 1
    return count


# What the page hears in its message area; with `stop`, a click as soon as the finish begins.
NOTES = """(stop) => { window.notes = []; const area = document.querySelector('#play-message');
  new MutationObserver(() => { window.notes.push(area.textContent);
    if (stop && area.textContent.startsWith('Finishing')) document.body.dispatchEvent(
      new PointerEvent('pointerdown', {bubbles: true})); })
    .observe(area, {childList: true, subtree: true}); }"""


@pytest.mark.parametrize("stop", [False, True], ids=["finished", "stopped"])
def test_the_table_finishes_a_game_once_only_moves_home_are_left(new_page: Any, stop: bool) -> None:
    # given a practice game played by the solver's line to its last few moves, all of them home
    result = solve(deal(builtin_variant("capricieuse"), practice_seed("win-14")), budget_seconds=5)
    line = [move.to_json() for move in result.line]
    tail = home_moves_at_the_end(line)
    assert tail >= 3
    if stop:
        page = new_page(viewport=(1366, 768))
    else:
        page = new_page(viewport=(390, 844), has_touch=True, is_mobile=True)
    join_as_guest(page, nickname("Finish"))
    body = {"variant": "capricieuse", "mode": "practice", "seed": "win-14"}
    game = call(page, "POST", "/api/games/", body)
    for ply, move in enumerate(line[:-tail]):
        call(page, "POST", f"/api/games/{game['id']}/moves/", {"ply": ply, "move": move})
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector(".play[data-socket='open']")
    page.evaluate(NOTES, stop)

    # when the player sends the next card home with a double click
    first = line[-tail]
    page.locator(f'.pile[data-pile="{first["from"]}"] button.card').last.dblclick()

    if stop:
        # then a click as the finish begins stops it after the move in flight, and says so
        page.wait_for_selector("#play-message:has-text('Stopped finishing')")
        assert page.inner_text("#play-message") == "Stopped finishing: play on as you like."
        played = fetch_game(page, game["id"])
        assert (played["status"], played["ply"]) == ("playing", len(line) - tail + 2)
        return
    # then the table plays the rest home by itself, saying so, and the game is won
    page.wait_for_selector("#won-banner")
    assert "Finishing… (click anywhere to stop)" in page.evaluate("window.notes")
    won = fetch_game(page, game["id"])
    assert (won["status"], won["ply"]) == ("won", len(line))
    assert page.inner_text("#play-message") == ""


GLIDES = """window.glides = []; const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    window.glides.push(options.duration); return animate.call(this, frames, options); };"""


def test_a_moved_card_glides_briefly_but_not_under_reduced_motion(new_page: Any) -> None:
    # given the same move on a table in motion and on one whose system asks for reduced motion
    seed, state = playable_seed("castile")
    data = next(m for m in single_moves(state) if not is_home(m)).to_json()
    for reduced in (False, True):
        page = new_page(
            viewport=(1366, 768), reduced_motion="reduce" if reduced else "no-preference"
        )
        page.add_init_script(GLIDES)
        join_as_guest(page, nickname("Glide"))
        new_practice(page, "castile", seed)
        page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")

        # when the player moves a card by clicking it and then its new pile
        page.locator(f'.pile[data-pile="{data["from"]}"] button.card').last.click()
        page.locator(f'.pile[data-pile="{data["to"]}"] :is(.card, .slot)').last.click()
        page.wait_for_selector("#ply:text-is('1')")

        # then it glides there in at most 200 ms, or does not move at all under reduced motion
        glides = page.evaluate("window.glides")
        moving = page.evaluate(
            "document.getAnimations().filter(a => a.effect?.target?.closest?.('.board')).length"
        )
        if reduced:
            assert glides == [] and moving == 0
        else:
            assert glides and max(glides) <= 200
