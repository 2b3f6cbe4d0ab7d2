"""Hints in a real browser: a practice game won by pressing Hint and playing each hint."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Move, apply_move, builtin_variant, deal, parse_move, practice_seed
from tests.e2e.helpers import click_move, join_as_guest, nickname
from tests.e2e.test_table import new_practice

pytestmark = pytest.mark.browser

# The practice Castile deal whose hints once took each other back (proved winnable).
SEED = "hints-1"


def test_a_castile_deal_is_won_by_playing_each_hint(new_page: Any) -> None:
    # given a practice Castile game on the table, the engine's position kept beside it
    page = new_page()
    join_as_guest(page, nickname("Follower"))
    game = new_practice(page, "castile", SEED)
    page.evaluate("localStorage.setItem('daily-patience:one-click', 'off')")
    # (every move is the hint's: the table would finish the game by itself at the end)
    page.evaluate("localStorage.setItem('daily-patience:auto-finish', 'off')")
    state = deal(builtin_variant("castile"), practice_seed(SEED))
    seen = [state]
    hints: list[dict[str, Any]] = []

    # when the player presses Hint and plays the move it shows, until the game is over
    while not state.won:
        assert len(hints) < 300, "the hints do not lead to a win"
        with page.expect_response(lambda r: r.url.endswith(f"/{game['id']}/hint/")) as asked:
            page.click("#hint")
        answer = asked.value.json()
        move = answer["move"]
        assert move is not None, answer["detail"]
        page.wait_for_selector(".card.hinted, .pile.stock.hinted")
        if move["type"] == "move":
            hinted = page.locator(f'.pile[data-pile="{move["from"]}"] button.card.hinted')
            assert hinted.count() == move["count"]
        click_move(page, move)
        hints.append(move)
        page.wait_for_selector(f"#ply:text-is('{len(hints)}')")
        state = apply_move(state, parse_move(move))

        # then no hint takes the one before back, nor leads to a position already played
        if len(hints) > 1 and hints[-2]["type"] == "move" and move["type"] == "move":
            before = parse_move(hints[-2])
            assert isinstance(before, Move)
            assert (move["from"], move["to"]) != (before.target, before.source), len(hints)
        assert state not in seen, len(hints)
        seen.append(state)

    # and the game is won on the table
    page.wait_for_selector("#won-banner")
    assert page.inner_text("#status") == "won"
