"""The distinctive rules of the shipped variants beyond the launch five."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode, builtin_variant, deal, practice_seed
from games.engine.cards import RANK_OF

SEED = practice_seed("daily-patience")


@pytest.mark.parametrize(("slug", "tableau"), [("canfield", 4), ("double-canfield", 5)])
def test_canfields_base_rank_is_the_foundation_card_of_the_deal(slug: str, tableau: int) -> None:
    state = deal(builtin_variant(slug), SEED)

    (card,) = state.pile("foundation-0").cards
    assert state.base_rank == RANK_OF[card]
    assert len(state.pile("reserve-0").cards) == 13
    assert state.pile("reserve-0").hidden == 12
    assert len(state.variant.tableau) == tableau
    assert state.redeals_left is None


def test_canfield_refills_from_the_reserve_and_never_returns_foundation_cards(table) -> None:
    canfield = table("canfield")
    board = "redeals: unlimited\nbase: 5\nfoundation-0  5C 6C\ntableau-0  9H\ntableau-1  TS\n"
    board += "reserve-0  (2D) JD\n"

    after = canfield.play(board, "tableau-0 > tableau-1")

    assert after == canfield.board(
        board.replace("9H\ntableau-1  TS", "JD\ntableau-1  TS 9H").replace("(2D) JD", "2D")
    )
    assert canfield.refusal(board, "foundation-0 > tableau-0").code is IllegalCode.SOURCE_LOCKED


def test_canfield_turns_three_cards_without_limit(table) -> None:
    canfield = table("canfield")
    board = "redeals: unlimited\nbase: 5\nfoundation-0  5C\nstock  (2C) (3C) (4C)\n"

    assert canfield.play(board, "deal") == canfield.board(
        "redeals: unlimited\nbase: 5\nfoundation-0  5C\nwaste  4C 3C 2C\n"
    )
    assert canfield.play(board, "deal", "deal") == canfield.board(board)


def test_double_canfield_founds_eight_piles_of_the_base_rank(table) -> None:
    double = table("double-canfield")
    board = "redeals: unlimited\nbase: 5\nfoundation-0  5C\nwaste  5C\n"

    assert double.play(board, "waste > foundation-7") == double.board(
        "redeals: unlimited\nbase: 5\nfoundation-0  5C\nfoundation-7  5C\n"
    )


def test_bristols_stock_deals_one_card_to_each_reserve(table) -> None:
    bristol = table("bristol")
    board = "reserve-0  9C\nreserve-2  4H\nstock  (2D) (5S) (7H) (KC)\n"

    after = bristol.play(board, "deal")

    assert after == bristol.board(
        "reserve-0  9C KC\nreserve-1  7H\nreserve-2  4H 5S\nstock  (2D)\n"
    )


def test_bristols_foundations_build_regardless_of_suit(table) -> None:
    bristol = table("bristol")
    board = "foundation-0  AC\ntableau-0  2H\n"

    assert bristol.play(board, "tableau-0 > foundation-0") == bristol.board("foundation-0  AC 2H\n")


def test_bristols_empty_tableau_is_never_filled(table) -> None:
    bristol = table("bristol")
    board = "tableau-0  QH\nreserve-0  KC\n"

    assert bristol.refusal(board, "reserve-0 > tableau-1").code is IllegalCode.EMPTY_REFUSES
    assert bristol.refusal(board, "tableau-0 > reserve-1").code is IllegalCode.TARGET_REFUSES


def test_beleaguered_castle_places_the_aces_and_deals_eight_rows_of_six() -> None:
    state = deal(builtin_variant("beleaguered-castle"), SEED)

    assert [state.pile(f"foundation-{i}").cards for i in range(4)] == [(0,), (13,), (26,), (39,)]
    assert all(len(state.pile(f"tableau-{i}").cards) == 6 for i in range(8))
    assert all(pile.hidden == 0 for pile in state.piles)


def test_beleaguered_castle_fills_a_space_with_any_card(table) -> None:
    castle = table("beleaguered-castle")
    board = "foundation-0  AC\ntableau-0  QH 7D\n"

    assert castle.play(board, "tableau-0 > tableau-5") == castle.board(
        "foundation-0  AC\ntableau-0  QH\ntableau-5  7D\n"
    )
    assert castle.refusal(board, "foundation-0 > tableau-1").code is IllegalCode.SOURCE_LOCKED
