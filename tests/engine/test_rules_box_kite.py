"""Box Kite, as docs/variants.md says, one rule at a time on boards written as text."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode

BASES = """
    foundation-0  KC
    foundation-1  KD
    foundation-2  KH
    foundation-3  KS
    foundation-4  AC
    foundation-5  AD
    foundation-6  AH
    foundation-7  AS
"""


@pytest.fixture
def game(table):
    return table("box-kite")


def test_a_face_down_card_turns_up_by_itself_when_uncovered(game) -> None:
    board = BASES + "tableau-0  (3C) (9D) 5H\ntableau-1  6S\n"

    after = game.play(board, "tableau-0 > tableau-1")

    assert after == game.board(BASES + "tableau-0  (3C) 9D\ntableau-1  6S 5H\n")


def test_a_face_down_card_never_moves(game) -> None:
    board = BASES + "tableau-0  (3C) (9D) 5H\ntableau-1  6S\n"

    assert game.refusal(board, "tableau-0 > tableau-1 x2").code is IllegalCode.FACE_DOWN


@pytest.mark.parametrize(
    ("lower", "upper"), [("4C", "5H"), ("6S", "5H"), ("AH", "KS"), ("KS", "AH"), ("9D", "8D")]
)
def test_the_tableau_builds_up_or_down_regardless_of_suit_wrapping(game, lower, upper) -> None:
    board = BASES + f"tableau-0  {lower}\ntableau-1  {upper}\n"

    after = game.play(board, "tableau-1 > tableau-0")

    assert after == game.board(BASES + f"tableau-0  {lower} {upper}\n")


@pytest.mark.parametrize(("lower", "upper"), [("4C", "6C"), ("4C", "4H"), ("QS", "AH")])
def test_the_tableau_refuses_anything_but_the_next_rank(game, lower, upper) -> None:
    board = BASES + f"tableau-0  {lower}\ntableau-1  {upper}\n"

    assert game.refusal(board, "tableau-1 > tableau-0").code is IllegalCode.DOES_NOT_BUILD


def test_an_empty_pile_is_never_refilled(game) -> None:
    board = BASES + "tableau-0  5H\n"

    assert game.refusal(board, "tableau-0 > tableau-1").code is IllegalCode.EMPTY_REFUSES


def test_foundations_build_in_suit_kings_down_aces_up(game) -> None:
    board = BASES + "tableau-0  QC\ntableau-1  2C\n"

    after = game.play(board, "tableau-0 > foundation-0", "tableau-1 > foundation-4")

    assert after == game.board(BASES.replace("KC", "KC QC").replace("AC", "AC 2C"))


def test_a_foundation_card_returns_anywhere(game) -> None:
    board = BASES.replace("AC", "AC 2C 3C").replace("KC", "KC QC JC TC 9C 8C 7C 6C 5C 4C")
    board += "tableau-0  2D\n"

    assert game.play(board, "foundation-4 > tableau-0") == game.board(
        board.replace("AC 2C 3C", "AC 2C") + "tableau-0  2D 3C\n"
    )
    assert game.play(board, "foundation-4 > foundation-0") == game.board(
        board.replace("AC 2C 3C", "AC 2C").replace("5C 4C", "5C 4C 3C")
    )


def test_a_base_card_never_moves(game) -> None:
    board = BASES + "tableau-0  2D\n"

    assert game.refusal(board, "foundation-4 > tableau-0").code is IllegalCode.BASE_CARD
    assert game.refusal(board, "foundation-0 > tableau-0").code is IllegalCode.BASE_CARD


def test_there_is_no_stock_and_no_redeal(game) -> None:
    board = BASES + "tableau-0  2D\n"

    assert game.refusal(board, "deal").code is IllegalCode.NO_STOCK
    assert game.refusal(board, "redeal").code is IllegalCode.NO_REDEAL
