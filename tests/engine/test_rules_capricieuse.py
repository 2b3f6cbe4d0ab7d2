"""Capricieuse, as docs/variants.md says, one rule at a time on boards written as text."""

from __future__ import annotations

import pytest

from games.engine import IllegalCode, builtin_variant, card_code, parse_card
from games.engine.dealing import found_while_dealing


@pytest.fixture
def game(table):
    return table("capricieuse")


def test_the_deal_founds_and_builds_and_a_founded_card_does_not_advance_the_pile() -> None:
    variant = builtin_variant("capricieuse")
    cards: list[list[int]] = [[] for _ in variant.piles]
    pack = [parse_card(c) for c in ["5H", "AC", "9S", "2C", "KD", "QD", "AC", "3H"]]

    found_while_dealing(variant, cards, pack)

    dealt = {variant.ids[i]: " ".join(card_code(c) for c in pile) for i, pile in enumerate(cards)}
    assert {pile_id: text for pile_id, text in dealt.items() if text} == {
        "foundation-0": "AC 2C",
        "foundation-5": "KD QD",
        "tableau-0": "5H",
        "tableau-1": "9S",
        "tableau-2": "AC",
        "tableau-3": "3H",
    }


def test_a_second_ace_goes_on_its_suits_king_pile_when_it_builds(game) -> None:
    board = """
        redeals: 2
        foundation-0  AC 2C
        foundation-4  KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C
        tableau-11    AC
    """

    after = game.play(board, "redeal")

    assert after == game.board(
        board.replace("3C 2C", "3C 2C AC")
        .replace("redeals: 2", "redeals: 1")
        .replace("tableau-11    AC", "")
    )


def test_a_redeal_gathers_tableau_eleven_first_and_tableau_zero_last(game) -> None:
    board = """
        redeals: 2
        tableau-0   7D
        tableau-5   3C
        tableau-11  5H 9S
    """

    after = game.play(board, "redeal")

    assert after == game.board(
        "redeals: 1\ntableau-0  5H\ntableau-1  9S\ntableau-2  3C\ntableau-3  7D\n"
    )


def test_a_redeal_founds_what_it_can_without_shuffling(game) -> None:
    board = """
        redeals: 2
        tableau-0  5H AS
        tableau-1  KS 9D
    """

    after = game.play(board, "redeal")

    assert after == game.board(
        "redeals: 1\nfoundation-3  AS\nfoundation-7  KS\ntableau-0  9D\ntableau-1  5H\n"
    )


def test_there_are_exactly_two_redeals(game) -> None:
    board = "redeals: 2\ntableau-0  5H\n"

    assert game.play(board, "redeal", "redeal") == game.board("redeals: 0\ntableau-0  5H\n")
    refused = game.refusal(board, "redeal", "redeal", "redeal")
    assert refused.code is IllegalCode.NO_REDEALS_LEFT


def test_foundation_cards_stay_there(game) -> None:
    board = "foundation-0  AC 2C\ntableau-0  3C\n"

    assert game.refusal(board, "foundation-0 > tableau-0").code is IllegalCode.SOURCE_LOCKED


def test_the_tableau_builds_up_or_down_in_suit(game) -> None:
    board = "tableau-0  5H\ntableau-1  6H\ntableau-2  4H\n"

    assert game.play(board, "tableau-1 > tableau-0") == game.board(
        "tableau-0  5H 6H\ntableau-2  4H\n"
    )
    assert game.play(board, "tableau-2 > tableau-0") == game.board(
        "tableau-0  5H 4H\ntableau-1  6H\n"
    )


@pytest.mark.parametrize(("lower", "upper"), [("KH", "AH"), ("AH", "KH"), ("5H", "6D")])
def test_the_tableau_never_wraps_nor_changes_suit(game, lower, upper) -> None:
    board = f"tableau-0  {lower}\ntableau-1  {upper}\n"

    assert game.refusal(board, "tableau-1 > tableau-0").code is IllegalCode.DOES_NOT_BUILD


def test_an_empty_pile_takes_any_card(game) -> None:
    board = "tableau-0  5H 9C\n"

    assert game.play(board, "tableau-0 > tableau-7") == game.board("tableau-0  5H\ntableau-7  9C\n")


def test_the_foundations_take_their_own_suit_and_base(game) -> None:
    board = "tableau-0  AD\ntableau-1  KD\n"

    assert game.refusal(board, "tableau-0 > foundation-0").code is IllegalCode.WRONG_BASE
    assert game.refusal(board, "tableau-1 > foundation-1").code is IllegalCode.WRONG_BASE
    assert game.play(board, "tableau-1 > foundation-5") == game.board(
        "foundation-5  KD\ntableau-0  AD\n"
    )
