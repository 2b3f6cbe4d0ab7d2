"""Quadruple Canfield, as docs/variants.md says, one rule at a time on boards written as text."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode

HEAD = "redeals: unlimited\nbase: 8\n"
RESERVE = "reserve-0  (2D) (3D) 4D\n"


@pytest.fixture
def game(table):
    return table("quadruple-canfield")


def test_any_empty_foundation_takes_any_card_of_the_base_rank(game) -> None:
    board = HEAD + "foundation-0  8C\ntableau-0  8H\n" + RESERVE

    after = game.play(board, "tableau-0 > foundation-9")

    assert after == game.board(
        HEAD + "foundation-0  8C\nfoundation-9  8H\ntableau-0  4D\nreserve-0  (2D) 3D\n"
    )


def test_an_empty_foundation_refuses_another_rank(game) -> None:
    board = HEAD + "foundation-0  8C\nwaste  7H\n"

    assert game.refusal(board, "waste > foundation-1").code is IllegalCode.WRONG_BASE


def test_foundations_build_up_in_suit_wrapping_from_king_to_ace(game) -> None:
    board = HEAD + "foundation-0  8C 9C TC JC QC KC\nwaste  AH AC\n"

    after = game.play(board, "waste > foundation-0")

    assert after == game.board(HEAD + "foundation-0  8C 9C TC JC QC KC AC\nwaste  AH\n")


def test_a_foundation_stops_at_thirteen_cards(game) -> None:
    board = HEAD + "foundation-0  8C 9C TC JC QC KC AC 2C 3C 4C 5C 6C 7C\nwaste  8C\n"

    assert game.refusal(board, "waste > foundation-0").code is IllegalCode.FOUNDATION_FULL


def test_the_tableau_builds_down_in_alternating_colours_wrapping(game) -> None:
    board = HEAD + "tableau-0  AH\ntableau-1  KS\ntableau-2  KD\n" + RESERVE

    after = game.play(board, "tableau-1 > tableau-0")

    assert after == game.board(
        HEAD + "tableau-0  AH KS\ntableau-1  4D\ntableau-2  KD\nreserve-0  (2D) 3D\n"
    )
    assert game.refusal(board, "tableau-2 > tableau-0").code is IllegalCode.DOES_NOT_BUILD


def test_a_sequence_moves_as_a_unit(game) -> None:
    board = HEAD + "tableau-0  QC 9C 8H 7S\ntableau-1  TD\n" + RESERVE

    after = game.play(board, "tableau-0 > tableau-1 x3")

    assert after == game.board(HEAD + "tableau-0  QC\ntableau-1  TD 9C 8H 7S\n" + RESERVE)


def test_a_sequence_must_be_built(game) -> None:
    board = HEAD + "tableau-0  9C 8H 7H\ntableau-1  TD\n" + RESERVE

    assert game.refusal(board, "tableau-0 > tableau-1 x3").code is IllegalCode.NOT_A_SEQUENCE


def test_every_count_of_a_sequence_that_fits_is_listed(game) -> None:
    tableau = ["QC 9C 8H 7S", "TD", "8D", "9S", "5C", "5C", "5C", "5C"]
    board = HEAD + RESERVE + "".join(f"tableau-{i}  {c}\n" for i, c in enumerate(tableau))

    moves = {m for m in game.legal(board) if m.startswith("tableau-0 ")}

    assert moves == {
        "tableau-0 > tableau-1 x3",
        "tableau-0 > tableau-3 x2",
        "tableau-0 > tableau-2",
    }


def test_an_emptied_pile_is_filled_at_once_and_the_reserve_turns_its_new_top(game) -> None:
    board = HEAD + "tableau-0  5H\ntableau-1  6S\n" + RESERVE

    after = game.play(board, "tableau-0 > tableau-1")

    assert after == game.board(HEAD + "tableau-0  4D\ntableau-1  6S 5H\nreserve-0  (2D) 3D\n")


def test_an_empty_pile_waits_for_the_reserve_while_it_has_cards(game) -> None:
    board = HEAD + "tableau-1  6S\nwaste  JD\n" + RESERVE

    assert game.refusal(board, "waste > tableau-0").code is IllegalCode.EMPTY_REFUSES


def test_once_the_reserve_is_empty_an_empty_pile_takes_any_card_or_sequence(game) -> None:
    board = HEAD + "tableau-0  5H\ntableau-1  6S 5D 4C\nwaste  JD\n"

    assert game.play(board, "tableau-0 > tableau-2") == game.board(
        HEAD + "tableau-1  6S 5D 4C\ntableau-2  5H\nwaste  JD\n"
    )
    emptied = game.play(board, "tableau-1 > tableau-3 x3", "waste > tableau-1")
    assert emptied == game.board(HEAD + "tableau-0  5H\ntableau-1  JD\ntableau-3  6S 5D 4C\n")


def test_a_deal_turns_three_cards_one_at_a_time_the_last_on_top(game) -> None:
    board = HEAD + "stock  (2C) (3C) (4C) (5C)\nwaste  KH\n"

    after = game.play(board, "deal")

    assert after == game.board(HEAD + "stock  (2C)\nwaste  KH 5C 4C 3C\n")
    assert game.play(board, "deal", "deal") == game.board(HEAD + "waste  KH 5C 4C 3C 2C\n")


def test_an_empty_stock_turns_the_waste_over_its_bottom_card_on_top(game) -> None:
    board = HEAD + "waste  KH 5C 4C\n"

    after = game.play(board, "deal")

    assert after == game.board(HEAD + "stock  (4C) (5C) (KH)\n")
    assert game.play(board, "deal", "deal") == game.board(HEAD + "waste  KH 5C 4C\n")


def test_redeals_are_unlimited(game) -> None:
    board = HEAD + "waste  KH 5C 4C\n"

    after = game.play(board, *["deal", "deal"] * 5)

    assert after == game.board(board)


def test_a_foundation_card_returns_to_the_tableau_or_another_foundation(game) -> None:
    board = HEAD + "foundation-0  8S 9S\nfoundation-1  8S\ntableau-0  TH\n" + RESERVE

    assert game.play(board, "foundation-0 > tableau-0") == game.board(
        HEAD + "foundation-0  8S\nfoundation-1  8S\ntableau-0  TH 9S\n" + RESERVE
    )
    assert game.play(board, "foundation-0 > foundation-1") == game.board(
        HEAD + "foundation-0  8S\nfoundation-1  8S 9S\ntableau-0  TH\n" + RESERVE
    )
