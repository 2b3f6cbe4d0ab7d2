"""The browser client end to end: headless Chromium against a uvicorn server with WebSockets."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.engine import Move, builtin_variant, legal_moves, state_from_json
from tests.e2e.helpers import fetch_game, join_as_guest, nickname, shown_piles

pytestmark = pytest.mark.browser

LAUNCH = ["caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse"]


def start_daily(page: Any, variant: str) -> dict[str, Any]:
    """Click "Play today's deal" of a variant; return the game the server answered."""
    with page.expect_response(
        lambda r: r.url.endswith("/api/games/") and r.request.method == "POST"
    ) as answer:
        page.click(f'li.deal[data-variant="{variant}"] button.play')
    game = answer.value.json()
    page.wait_for_selector(".board .pile")
    assert page.url.endswith(f"#/play/{game['id']}")
    return game


def click_move(page: Any, source: str, index: int, target: str) -> None:
    # A click-click move: the one-click assist (a card with one place to go moves at once) is off.
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    page.click(f'.pile[data-pile="{source}"] button.card[data-index="{index}"]')
    page.locator(f'.pile[data-pile="{target}"] button').last.click()


def test_new_visitor_picks_a_nickname_and_plays_castile(new_page: Any) -> None:
    # given a new visitor on the home page
    page = new_page()
    page.goto("/")
    page.wait_for_selector("#identity-form")
    page.wait_for_selector("li.deal")

    # when they pick a nickname
    name = nickname("Alice")
    join_as_guest(page, name)

    # then they see the five launch variants with their commitment
    page.wait_for_selector("li.deal")
    shown = page.eval_on_selector_all("li.deal", "items => items.map(i => i.dataset.variant)")
    assert shown[:5] == LAUNCH or sorted(shown) == sorted(LAUNCH)
    assert page.locator('li.deal[data-variant="castile"] h3').inner_text() == "Castile"
    assert page.locator('li.deal[data-variant="castile"] .commitment code').get_attribute("title")

    # when they start today's Castile deal and make a legal move
    game = start_daily(page, "castile")
    assert page.inner_text("#ply") == "0"
    state = state_from_json(builtin_variant("castile"), game["state"])
    move = next(m for m in legal_moves(state) if isinstance(m, Move) and m.count == 1)
    source = next(p for p in game["state"]["piles"] if p["id"] == move.source)
    card = source["cards"][-1]
    click_move(page, move.source, len(source["cards"]) - 1, move.target)

    # then the ply counter increases and the card lies on its new pile
    page.wait_for_selector("#ply:text-is('1')")
    assert shown_piles(page)[move.target][-1] == card
    assert card not in shown_piles(page)[move.source][-1:]
    after = fetch_game(page, game["id"])
    assert after["ply"] == 1

    # when they try an illegal move: a tableau top onto a tableau top it cannot go on
    state = state_from_json(builtin_variant("castile"), after["state"])
    legal = {(m.source, m.target) for m in legal_moves(state) if isinstance(m, Move)}
    tableau = [p for p in after["state"]["piles"] if p["id"].startswith("tableau") and p["cards"]]
    source_pile, target_pile = next(
        (a, b) for a in tableau for b in tableau if a is not b and (a["id"], b["id"]) not in legal
    )
    before = shown_piles(page)
    click_move(page, source_pile["id"], len(source_pile["cards"]) - 1, target_pile["id"])

    # then the server's explanation is shown and nothing changes
    error = page.locator("#play-message .message.error")
    error.wait_for()
    assert error.inner_text().strip()
    assert page.inner_text("#ply") == "1"
    assert shown_piles(page) == before
    assert fetch_game(page, game["id"])["ply"] == 1


@pytest.mark.parametrize("variant", ["box-kite", "quadruple-canfield"])
def test_face_down_cards_are_drawn_as_backs_without_identity(new_page: Any, variant: str) -> None:
    # given a player who starts today's deal of a variant with face-down cards
    page = new_page()
    join_as_guest(page, nickname("Bob"))
    game = start_daily(page, variant)

    # then every pile draws what the API gave: a face for a card, a back for null
    shown = shown_piles(page)
    assert sorted(p["id"] for p in game["state"]["piles"]) == sorted(shown)
    for pile in game["state"]["piles"]:
        cards = pile["cards"]
        drawn = shown[pile["id"]]
        if pile["id"].startswith("tableau"):
            assert drawn == cards, pile["id"]
        else:  # a stacked pile draws its top card and a count
            assert drawn == cards[-1:], pile["id"]
    backs = page.locator(".board .card.back[data-index]")
    assert backs.count() > 0
    assert all(text.strip() == "" for text in backs.all_inner_texts()), (
        "a card back shows something"
    )
    assert page.locator(".board .card.back[data-card]").count() == 0
    if variant == "quadruple-canfield":
        assert page.inner_text('.pile[data-pile="stock"] .badge') == "160"
        assert page.inner_text('.pile[data-pile="reserve-0"] .badge') == "39"
        assert page.locator("#deal").is_visible()


def test_leaderboard_shows_another_players_resigned_game_live(new_page: Any, server: str) -> None:
    # given a spectator on the leaderboard of today's Castile deal, connected to its live feed
    page = new_page()
    page.goto("/")
    page.wait_for_selector('li.deal[data-variant="castile"] a.leaderboard-link')
    page.click('li.deal[data-variant="castile"] a.leaderboard-link')
    page.wait_for_selector("#live-state[data-state='open']")
    assert re.search(r"#/daily/castile/\d{4}-\d{2}-\d{2}$", page.url)

    # when a second player, in another browser, plays a move and resigns today's Castile deal
    other = new_page()
    name = nickname("Carol")
    join_as_guest(other, name)
    game = start_daily(other, "castile")
    state = state_from_json(builtin_variant("castile"), game["state"])
    move = next(m for m in legal_moves(state) if isinstance(m, Move) and m.count == 1)
    source = next(p for p in game["state"]["piles"] if p["id"] == move.source)
    click_move(other, move.source, len(source["cards"]) - 1, move.target)
    other.wait_for_selector("#ply:text-is('1')")
    other.click("#resign")
    other.click("#confirm-resign")
    other.wait_for_selector("#over-banner")

    # then the spectator's page shows the progress and the resigned game without a reload
    row = page.locator(f'#leaderboard-rows tr[data-player="{name}"]')
    row.wait_for(timeout=15_000)
    assert "resigned" in row.inner_text()
    assert page.locator("#live-feed li", has_text=name).count() >= 1
