"""Undo takes back a move, but never a deal, a redeal or a revealed card, nor what came before."""

from __future__ import annotations

from games.engine import IllegalCode, apply_move, builtin_variant, deal, practice_seed, render
from games.engine.moves import Undo

CASTILE = "reserve-0  7C 5D\ntableau-0  6S\ntableau-1  9H\ntableau-2  8D\n"
QUAD = "redeals: unlimited\nbase: 8\nfoundation-0  8C\ntableau-1  6S\n"


def test_undo_restores_the_exact_previous_position(table) -> None:
    castile = table("castile")

    after = castile.play(CASTILE, "reserve-0 > tableau-0", "undo")

    assert after == castile.board(CASTILE)


def test_several_undos_in_a_row_walk_back_to_the_start(table) -> None:
    castile = table("castile")
    moves = ("reserve-0 > tableau-0", "tableau-2 > tableau-1", "reserve-0 > tableau-1")

    assert castile.play(CASTILE, *moves, "undo", "undo") == castile.play(CASTILE, moves[0])
    assert castile.play(CASTILE, *moves, "undo", "undo", "undo") == castile.board(CASTILE)
    refused = castile.refusal(CASTILE, *moves, "undo", "undo", "undo", "undo")
    assert refused.code is IllegalCode.NOTHING_TO_UNDO


def test_nothing_is_undone_at_the_start_of_a_game() -> None:
    state = deal(builtin_variant("castile"), practice_seed("daily-patience"))

    try:
        apply_move(state, Undo())
    except Exception as error:
        assert getattr(error, "code", None) is IllegalCode.NOTHING_TO_UNDO
    else:
        raise AssertionError("undo at the start was allowed")


def test_a_deal_cannot_be_undone_nor_anything_before_it(table) -> None:
    quad = table("quadruple-canfield")
    board = QUAD + "tableau-0  5H\nstock  (2C) (3C)\nreserve-0  4D\n"

    assert quad.refusal(board, "deal", "undo").code is IllegalCode.NOTHING_TO_UNDO
    refused = quad.refusal(board, "tableau-0 > tableau-1", "deal", "undo")
    assert refused.code is IllegalCode.NOTHING_TO_UNDO


def test_a_move_before_a_deal_cannot_be_undone_after_it(table) -> None:
    caprice = table("caprice")
    board = "tableau-0  5H\ntableau-1  6H\nstock  (2C)\n"

    refused = caprice.refusal(board, "tableau-1 > tableau-0", "deal", "undo")

    assert refused.code is IllegalCode.NOTHING_TO_UNDO


def test_a_redeal_cannot_be_undone(table) -> None:
    capricieuse = table("capricieuse")
    board = "redeals: 2\ntableau-0  5H\ntableau-1  9C\n"

    refused = capricieuse.refusal(board, "tableau-1 > tableau-2", "redeal", "undo")

    assert refused.code is IllegalCode.NOTHING_TO_UNDO


def test_a_move_that_turned_a_card_cannot_be_undone(table) -> None:
    box_kite = table("box-kite")
    board = "tableau-0  (3C) 5H\ntableau-1  6S\ntableau-2  9D\ntableau-3  TD\n"

    refused = box_kite.refusal(board, "tableau-0 > tableau-1", "undo")
    assert refused.code is IllegalCode.NOTHING_TO_UNDO
    after = box_kite.play(board, "tableau-0 > tableau-1", "tableau-2 > tableau-3", "undo")
    assert after == box_kite.board(
        "tableau-0  3C\ntableau-1  6S 5H\ntableau-2  9D\ntableau-3  TD\n"
    )


def test_a_refill_that_revealed_the_reserve_cannot_be_undone(table) -> None:
    quad = table("quadruple-canfield")
    board = QUAD + "tableau-0  5H\nreserve-0  (2D) 4D\n"

    refused = quad.refusal(board, "tableau-0 > tableau-1", "undo")

    assert refused.code is IllegalCode.NOTHING_TO_UNDO


def test_a_refill_that_revealed_nothing_can_be_undone(table) -> None:
    quad = table("quadruple-canfield")
    board = QUAD + "tableau-0  5H\nreserve-0  2D 4D\n"

    after = quad.play(board, "tableau-0 > tableau-1", "undo")

    assert after == quad.board(board)


def test_undo_after_a_dealt_games_first_move_gives_back_the_deal() -> None:
    state = deal(builtin_variant("castile"), practice_seed("daily-patience"))
    from games.engine import legal_moves

    moved = apply_move(state, legal_moves(state)[0])

    assert render(apply_move(moved, Undo())) == render(state)
