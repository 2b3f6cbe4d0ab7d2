"""Castile, as docs/variants.md says, one rule at a time on boards written as text."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode, builtin_variant, deal, player_view, practice_seed


@pytest.fixture
def game(table):
    return table("castile")


def test_only_a_reserves_top_card_plays(game) -> None:
    board = "reserve-0  7C 5D\ntableau-0  6S\n"

    assert game.play(board, "reserve-0 > tableau-0") == game.board(
        "reserve-0  7C\ntableau-0  6S 5D\n"
    )
    assert game.refusal(board, "reserve-0 > tableau-0 x2").code is IllegalCode.SINGLE_CARDS


def test_a_reserve_card_plays_to_a_foundation(game) -> None:
    board = "reserve-0  7C AH\n"

    assert game.play(board, "reserve-0 > foundation-2") == game.board(
        "reserve-0  7C\nfoundation-2  AH\n"
    )


def test_a_reserve_never_takes_a_card_even_when_empty(game) -> None:
    board = "reserve-0  7C\ntableau-0  6S\n"

    assert game.refusal(board, "tableau-0 > reserve-0").code is IllegalCode.TARGET_REFUSES
    assert game.refusal(board, "tableau-0 > reserve-1").code is IllegalCode.TARGET_REFUSES


def test_the_tableau_builds_down_regardless_of_suit(game) -> None:
    board = "tableau-0  9H\ntableau-1  8H\ntableau-2  8C\n"

    assert game.play(board, "tableau-2 > tableau-0") == game.board(
        "tableau-0  9H 8C\ntableau-1  8H\n"
    )
    assert game.play(board, "tableau-1 > tableau-0") == game.board(
        "tableau-0  9H 8H\ntableau-2  8C\n"
    )


@pytest.mark.parametrize(("lower", "upper"), [("9H", "TH"), ("AH", "KS"), ("9H", "7C")])
def test_the_tableau_refuses_up_wrap_and_gaps(game, lower, upper) -> None:
    board = f"tableau-0  {lower}\ntableau-1  {upper}\n"

    assert game.refusal(board, "tableau-1 > tableau-0").code is IllegalCode.DOES_NOT_BUILD


def test_only_a_king_fills_an_empty_pile(game) -> None:
    board = "tableau-0  QD\nreserve-0  KH\n"

    assert game.play(board, "reserve-0 > tableau-3") == game.board("tableau-0  QD\ntableau-3  KH\n")
    assert game.refusal(board, "tableau-0 > tableau-3").code is IllegalCode.EMPTY_REFUSES


def test_any_ace_starts_any_empty_foundation_which_builds_up_in_suit(game) -> None:
    board = "tableau-0  AS\ntableau-1  2S\ntableau-2  2H\n"

    after = game.play(board, "tableau-0 > foundation-1", "tableau-1 > foundation-1")

    assert after == game.board("foundation-1  AS 2S\ntableau-2  2H\n")
    refused = game.refusal(board, "tableau-0 > foundation-1", "tableau-2 > foundation-1")
    assert refused.code is IllegalCode.DOES_NOT_BUILD


def test_a_foundation_card_returns_anywhere(game) -> None:
    board = "foundation-0  AS 2S\nfoundation-1  AH\ntableau-0  3D\n"

    assert game.play(board, "foundation-0 > tableau-0") == game.board(
        "foundation-0  AS\nfoundation-1  AH\ntableau-0  3D 2S\n"
    )
    assert game.play(board, "foundation-1 > foundation-3") == game.board(
        "foundation-0  AS 2S\nfoundation-3  AH\ntableau-0  3D\n"
    )


def test_castile_is_an_open_game(game) -> None:
    state = deal(builtin_variant("castile"), practice_seed("daily-patience"))

    view = player_view(state)

    assert all(card is not None for pile in view["piles"] for card in pile["cards"])
    assert sum(len(pile["cards"]) for pile in view["piles"]) == 52


def test_there_is_no_stock(game) -> None:
    assert game.refusal("tableau-0  5H\n", "deal").code is IllegalCode.NO_STOCK
