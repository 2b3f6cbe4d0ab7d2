"""The pages around the table in a real browser: the end-of-game panel and its share text, the
live board, the replay viewer, the player page and the calendar of past days."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from typing import Any

import pytest

from games.engine import Move, builtin_variant, legal_moves, state_from_json

pytestmark = pytest.mark.browser

_names = itertools.count(1)
CARD_CODE = re.compile(r"\b[A2-9TJQK][CDHS]\b")


def nickname(prefix: str) -> str:
    return f"{prefix}{next(_names)}"


def console_errors(page: Any) -> list[str]:
    """Return the list the page's console errors will be added to (a failed request included),
    but for the anonymous visitor's ``GET /api/me/``: docs/api.md answers it 401, which the browser
    logs before the page learns it has no player."""
    errors: list[str] = []

    def note(message: Any) -> None:
        if message.type == "error" and not message.location.get("url", "").endswith("/api/me/"):
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", note)
    return errors


def join_as_guest(page: Any, name: str) -> None:
    page.goto("/")
    page.fill("#identity-nickname", name)
    page.click("#play-as-guest")
    page.wait_for_selector(f"#nickname:has-text('{name}')")


def call(page: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    """Call the API from the page, as the client does (session cookie and CSRF token)."""
    answer = page.evaluate(
        """async ([method, path, body]) => {
            const csrf = await (await fetch('/api/auth/csrf/')).json();
            const init = {method, headers: {'Content-Type': 'application/json',
                                            'X-CSRFToken': csrf.csrf_token}};
            if (body !== null) init.body = JSON.stringify(body);
            const response = await fetch(path, init);
            return {status: response.status, body: await response.json()};
        }""",
        [method, path, body],
    )
    assert answer["status"] < 400, answer
    return answer["body"]


def play_moves(page: Any, game: dict[str, Any], count: int) -> dict[str, Any]:
    """Play ``count`` single-card moves of an open game (Castile) through the API."""
    for _ in range(count):
        state = state_from_json(builtin_variant(game["variant"]), game["state"])
        move = next(m for m in legal_moves(state) if isinstance(m, Move) and m.count == 1)
        body = {"ply": game["ply"], "move": move.to_json()}
        game = call(page, "POST", f"/api/games/{game['id']}/moves/", body)
    return game


def test_a_finished_daily_shows_rank_streak_and_a_spoiler_free_share_text(new_page: Any) -> None:
    # given a rival who resigned today's Castile at once, in a browser of their own
    rival = new_page()
    join_as_guest(rival, nickname("Rival"))
    rival_game = call(rival, "POST", "/api/games/", {"variant": "castile", "mode": "daily"})
    call(rival, "POST", f"/api/games/{rival_game['id']}/resign/")

    # and a player who plays two moves of today's Castile and resigns
    page = new_page()
    errors = console_errors(page)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    name = nickname("Dora")
    join_as_guest(page, name)
    game = call(page, "POST", "/api/games/", {"variant": "castile", "mode": "daily"})
    game = play_moves(page, game, 2)
    game = call(page, "POST", f"/api/games/{game['id']}/resign/")

    # when they open the finished game
    page.goto(f"/#/play/{game['id']}")

    # then the panel gives the result, the rank among today's players and the streak
    panel = page.locator("#result-panel")
    panel.wait_for()
    assert panel.get_attribute("data-status") == "resigned"
    assert "Resigned" in page.inner_text("#result-panel .result-status")
    assert page.inner_text("#result-panel .result-moves dd") == "2"
    page.wait_for_selector("#share-text")
    assert re.fullmatch(r"\d+ of \d+", page.inner_text("#result-rank"))
    assert page.inner_text("#result-streak") == "0 days"
    assert re.fullmatch(r"Next deal in \d+:\d\d:\d\d", page.inner_text("#result-countdown"))

    # then the share text names the game, day, cards home and moves, and no card
    text = page.input_value("#share-text")
    lines = text.split("\n")
    assert lines[0] == f"Daily Patience · Castile · {game['date']}"
    assert re.fullmatch(r"[🟩⬜]{10} \d+/52 cards home", lines[1])
    assert lines[2] == "✖️ Resigned after 2 moves"
    place = re.fullmatch(r"🏅 Rank (\d+) of (\d+)(?: · top (\d+)%)?", lines[3])
    assert place, lines[3]
    # and the player's place among the day's players ("top N%"), the rival ranked too
    rank, players = int(place[1]), int(place[2])
    assert players > 1 and place[3] == str(math.ceil(100 * rank / players))
    assert not CARD_CODE.search(text)

    # and the day's story: the players by cards home and by moves, the player's bar marked
    assert page.locator("#story-cards .mine").count() == 1
    assert page.locator("#story-moves .mine").count() == 1
    assert page.text_content("#story-cards-title") == "Players by cards home"
    assert page.inner_text("#story-own-moves") == "2"

    # when they copy it, then the clipboard holds it
    page.click("#share-copy")
    page.wait_for_selector("#result-message :text('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == text

    # when they go home, then today's Castile shows their result and rank; the panel is gone
    page.click("header a[href='#/']")
    status = page.locator('li.deal[data-variant="castile"] .my-status')
    status.wait_for()
    assert re.fullmatch(r"Resigned with \d+ cards? home · rank \d+ of \d+", status.inner_text())
    assert page.locator("#result-panel").count() == 0
    assert page.inner_text('li.deal[data-variant="caprice"] .my-status') == "Not started"
    assert page.locator('li.deal[data-variant="castile"] .certified dd').inner_text()
    assert page.get_attribute('li.deal[data-variant="castile"] a.rules-link', "href") == (
        "/rules/castile/"
    )

    # when they open their page from the header, then it shows their stats and history
    page.click("#my-page")
    page.wait_for_selector('#player-stats tr[data-variant="castile"]')
    row = page.locator('#player-stats tr[data-variant="castile"]')
    assert row.locator(".played").inner_text() == "1"
    assert row.locator(".won").inner_text() == "0"
    assert row.locator(".rate").inner_text() == "0%"
    history = page.locator(f'#history-rows tr[data-date="{game["date"]}"]')
    history.wait_for()
    assert "resigned" in history.inner_text()
    assert history.locator("a.replay-link").count() == 1
    assert page.locator("#player-chart svg rect.bar").count() == 1
    assert "resigned" in page.locator("#chart-desc").text_content()
    # and the chart has its axes: the share of cards home, and the day under the bar
    assert page.locator("#player-chart .chart-y").inner_text().split() == ["100%", "50%", "0%"]
    day = dt.date.fromisoformat(game["date"])
    assert page.locator("#player-chart .chart-x").inner_text() == f"{day:%b} {day.day}"
    axes = page.locator("#player-chart .chart-axis-title").all_inner_texts()
    assert axes == ["Cards home", "Day"]

    # when they open the past days of Castile, then today links to its board
    page.goto("/#/days/castile")
    today = page.locator(f'#calendar a.day-link[data-date="{game["date"]}"]')
    today.wait_for()
    assert today.get_attribute("href") == f"#/daily/castile/{game['date']}"
    assert errors == []


def test_a_second_browser_sees_the_first_players_progress_live(new_page: Any) -> None:
    # given a player in progress on today's Castile and a spectator on its board
    player = new_page()
    name = nickname("Eve")
    join_as_guest(player, name)
    game = call(player, "POST", "/api/games/", {"variant": "castile", "mode": "daily"})
    spectator = new_page()
    errors = console_errors(spectator) + console_errors(player)
    spectator.goto(f"/#/daily/castile/{game['date']}")
    spectator.wait_for_selector("#live-state[data-state='open']")

    # when the player makes moves
    play_moves(player, game, 2)

    # then the spectator sees them without reloading
    spectator.locator("#live-feed li", has_text=name).first.wait_for(timeout=15_000)

    # then the player's home shows the game in progress with its cards home
    player.goto("/")
    status = player.locator('li.deal[data-variant="castile"] .my-status')
    status.wait_for()
    assert status.get_attribute("data-status") == "playing"
    assert re.fullmatch(r"In progress: \d+ cards? home", status.inner_text())
    assert player.inner_text('li.deal[data-variant="castile"] button.play') == (
        "Continue today's deal"
    )

    # when the player's table says the game is over (it resigned from another tab)
    player.goto(f"/#/play/{game['id']}")
    player.wait_for_selector("#view[data-ready='play']")
    assert player.locator("#result-panel").count() == 0
    over = call(player, "POST", f"/api/games/{game['id']}/resign/")
    player.evaluate(
        "game => document.dispatchEvent(new CustomEvent('game-over', {detail: {game}}))", over
    )

    # then the end-of-game panel opens with the focus on its heading
    player.wait_for_selector("#result-panel")
    assert player.evaluate("document.activeElement.id") == "result-title"
    player.wait_for_selector("#share-text")

    # then the spectator's board ranks the game, and its name leads to the player's page
    row = spectator.locator(f'#leaderboard-rows tr[data-player="{name}"]')
    row.wait_for(timeout=15_000)
    row.locator(f"a[href='#/players/{name}']").click()
    spectator.wait_for_selector('#player-stats tr[data-variant="castile"]')
    player.goto("/")
    status = player.locator('li.deal[data-variant="castile"] .my-status')
    status.wait_for()
    assert status.get_attribute("data-status") == "resigned"
    assert player.inner_text('li.deal[data-variant="castile"] button.play') == "See my game"
    assert errors == []


def test_the_replay_viewer_steps_through_a_finished_game(new_page: Any) -> None:
    # given a player's practice game of Castile, three moves then resigned
    page = new_page()
    errors = console_errors(page)
    join_as_guest(page, nickname("Finn"))
    game = call(page, "POST", "/api/games/", {"variant": "castile", "mode": "practice"})
    game = play_moves(page, game, 3)
    call(page, "POST", f"/api/games/{game['id']}/resign/")
    positions = call(page, "GET", f"/api/games/{game['id']}/replay/positions/")["positions"]

    def drawn() -> dict[str, list[str | None]]:
        return page.eval_on_selector_all(
            "#replay-board .pile",
            """piles => Object.fromEntries(piles.map(pile => [pile.dataset.pile,
                [...pile.querySelectorAll('.card[data-index]')]
                    .map(c => c.dataset.card || null)]))""",
        )

    def expected(ply: int) -> dict[str, list[str | None]]:
        return {p["id"]: p["cards"] for p in positions[ply]["state"]["piles"] if p["cards"]}

    def at(ply: int) -> None:
        page.wait_for_selector(f"#replay-board[data-ply='{ply}']")
        shown = {pile: cards for pile, cards in drawn().items() if cards}
        want = expected(ply)
        assert {p: c[-1] for p, c in shown.items()} == {p: c[-1] for p, c in want.items()}

    # when they open the finished game, then its panel gives the result only, and a replay link
    page.goto(f"/#/play/{game['id']}")
    page.wait_for_selector("#result-panel")
    assert page.locator("#result-rank, #share-text, #result-countdown").count() == 0
    assert "never reaches a leaderboard" in page.inner_text("#result-panel")

    # when they follow it, then the deal is drawn and the move list has every move
    page.click("#result-replay")
    at(0)
    assert page.locator("#result-panel").count() == 0
    assert page.locator("#move-list button.move").count() == 4
    assert page.is_disabled("#replay-back")

    # when they step forward, back, with the keyboard and from the move list
    page.click("#replay-forward")
    at(1)
    assert drawn() != expected(0)
    page.keyboard.press("ArrowRight")
    at(2)
    page.click("#replay-back")
    at(1)
    page.click("#move-list button.move[data-ply='3']")
    at(3)
    assert page.is_disabled("#replay-forward")
    assert page.get_attribute("#move-list button.move[data-ply='3']", "aria-current") == "step"
    page.keyboard.press("Home")
    at(0)

    # when they play it, then it runs to the last move and stops
    page.click("#replay-play")
    at(3)
    page.wait_for_selector("#replay-play[aria-pressed='false']")
    assert errors == []
