"""Caprice, as docs/variants.md says, one rule at a time on boards written as text."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode

FOUNDATIONS = """
    redeals: 0
    foundation-0  AC
    foundation-1  AD
    foundation-2  AH
    foundation-3  AS 2S 3S 4S 5S 6S 7S
    foundation-4  KC
    foundation-5  KD
    foundation-6  KH
    foundation-7  KS QS JS TS 9S
"""


@pytest.fixture
def game(table):
    return table("caprice")


def test_eight_of_spades_goes_on_the_ace_pile_showing_seven(game) -> None:
    after = game.play(FOUNDATIONS + "tableau-0  8S\n", "tableau-0 > foundation-3")

    assert after == game.board(FOUNDATIONS.replace("6S 7S", "6S 7S 8S"))


def test_eight_of_spades_goes_on_the_king_pile_showing_nine(game) -> None:
    after = game.play(FOUNDATIONS + "tableau-0  8S\n", "tableau-0 > foundation-7")

    assert after == game.board(FOUNDATIONS.replace("TS 9S", "TS 9S 8S"))


def test_a_foundation_takes_only_its_suit(game) -> None:
    refused = game.refusal(FOUNDATIONS + "tableau-0  8H\n", "tableau-0 > foundation-3")

    assert refused.code is IllegalCode.DOES_NOT_BUILD


def test_the_tableau_builds_up_in_suit(game) -> None:
    after = game.play("tableau-0  5H\ntableau-1  6H\n", "tableau-1 > tableau-0")

    assert after == game.board("tableau-0  5H 6H\n")


def test_the_tableau_builds_down_in_suit(game) -> None:
    after = game.play("tableau-0  5H\ntableau-1  4H\n", "tableau-1 > tableau-0")

    assert after == game.board("tableau-0  5H 4H\n")


@pytest.mark.parametrize(
    ("lower", "upper"), [("5H", "6D"), ("5H", "7H"), ("KH", "AH"), ("AH", "KH")]
)
def test_the_tableau_refuses_another_suit_a_gap_and_a_wrap(game, lower, upper) -> None:
    board = f"tableau-0  {lower}\ntableau-1  {upper}\n"

    assert game.refusal(board, "tableau-1 > tableau-0").code is IllegalCode.DOES_NOT_BUILD


def test_an_empty_pile_takes_any_card_by_the_players_choice(game) -> None:
    board = "tableau-0  5H\ntableau-1  JC\n"

    assert game.play(board, "tableau-1 > tableau-2") == game.board("tableau-0  5H\ntableau-2  JC\n")
    assert game.play(board, "tableau-0 > tableau-5") == game.board("tableau-1  JC\ntableau-5  5H\n")


def test_only_single_cards_move(game) -> None:
    refused = game.refusal("tableau-0  5H 6H\n", "tableau-0 > tableau-1 x2")

    assert refused.code is IllegalCode.SINGLE_CARDS


def test_a_deal_puts_one_card_on_each_pile_empty_ones_included(game) -> None:
    before = """
        tableau-0   5H
        tableau-2   9C
        stock       (2D) (3D) (4D) (5D) (6D) (7D) (8D) (9D) (TD) (JD) (QD) (KD) (AC)
    """
    after = """
        tableau-0   5H AC
        tableau-1   KD
        tableau-2   9C QD
        tableau-3   JD
        tableau-4   TD
        tableau-5   9D
        tableau-6   8D
        tableau-7   7D
        tableau-8   6D
        tableau-9   5D
        tableau-10  4D
        tableau-11  3D
        stock       (2D)
    """

    assert game.play(before, "deal") == game.board(after)


def test_a_deal_may_be_made_at_any_time_but_the_stock_is_never_redealt(game) -> None:
    board = "tableau-0  5H\nstock  (2D)\n"

    after = game.play(board, "deal")

    assert after == game.board("tableau-0  5H 2D\n")
    assert game.refusal(board, "deal", "deal").code is IllegalCode.NOTHING_TO_DEAL
    assert game.refusal(board, "redeal").code is IllegalCode.NO_REDEAL


def test_a_foundation_card_returns_to_the_tableau(game) -> None:
    after = game.play(FOUNDATIONS + "tableau-0  8S\n", "foundation-3 > tableau-0")

    assert after == game.board(FOUNDATIONS.replace("6S 7S", "6S") + "tableau-0  8S 7S\n")


def test_a_foundation_card_never_goes_to_another_foundation(game) -> None:
    board = FOUNDATIONS.replace("TS 9S", "TS 9S 8S")

    refused = game.refusal(board, "foundation-3 > foundation-7")

    assert refused.code is IllegalCode.SOURCE_LOCKED


def test_a_base_card_never_returns(game) -> None:
    refused = game.refusal(FOUNDATIONS + "tableau-0  2C\n", "foundation-0 > tableau-0")

    assert refused.code is IllegalCode.BASE_CARD


def test_the_foundation_return_is_listed_but_never_a_base_card(game) -> None:
    legal = game.legal(FOUNDATIONS + "tableau-0  8S\n")

    assert "foundation-3 > tableau-0" in legal
    assert "foundation-7 > tableau-0" in legal
    assert not any(m.startswith(("foundation-0", "foundation-4")) for m in legal)
