"""Golf, TriPeaks and Pyramid: the waste that takes tableau cards, covered cards, pairs, and the
goal of clearing the tableau, one new key of the rules document at a time."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import (
    Deal,
    IllegalCode,
    RulesError,
    Undo,
    apply_move,
    builtin_rules,
    builtin_variant,
    compile_rules,
    deal,
    legal_moves,
    practice_seed,
    replay,
    shuffled_pack,
)
from games.engine.moves import Move
from games.engine.solver import solve
from games.engine.solver.clearing import PAIR, Clearing
from tests.engine.conftest import move

SEED = practice_seed("daily-patience")


# --- stock.waste_build: Golf's waste takes a tableau card one rank up or down -----------------


def test_golf_deals_seven_piles_of_five_face_up_one_card_to_the_waste_and_the_rest_to_stock() -> (
    None
):
    state = deal(builtin_variant("golf"), SEED)
    pack = shuffled_pack(state.variant, SEED)

    for i in range(7):
        pile = state.pile(f"tableau-{i}")
        assert (len(pile.cards), pile.hidden) == (5, 0)
        assert pile.cards == tuple(pack[i::7][:5])
    assert state.pile("waste").cards == (pack[35],)
    assert len(state.pile("stock").cards) == 16
    assert state.pile("stock").cards[-1] == pack[36]
    assert state.variant.foundations == ()
    assert state.redeals_left == 0


def test_the_golf_waste_takes_a_card_one_rank_up_or_down_whatever_its_suit(table) -> None:
    golf = table("golf")
    board = """
        tableau-0  9C 8H
        tableau-1  TS
        tableau-2  5D
        stock      (3S)
        waste      9D
    """

    assert golf.legal(board) == {"tableau-0 > waste", "tableau-1 > waste", "deal"}
    assert golf.play(board, "tableau-0 > waste", "tableau-0 > waste") == golf.board(
        """
        tableau-1  TS
        tableau-2  5D
        stock      (3S)
        waste      9D 8H 9C
        """
    )
    refused = golf.refusal(board, "tableau-2 > waste")
    assert refused.code is IllegalCode.DOES_NOT_BUILD
    assert refused.detail == (
        "5♦ cannot go on 9♦: the waste takes a card up or down by one regardless of suit."
    )


@pytest.mark.parametrize(("slug", "legal"), [("golf", False), ("golf-wrap", True)])
def test_only_golf_with_wrap_plays_an_ace_on_a_king(table, slug: str, legal: bool) -> None:
    board = """
        tableau-0  AS
        tableau-1  QH
        waste      KC
    """
    moves = table(slug).legal(board)

    assert ("tableau-0 > waste" in moves) is legal
    assert "tableau-1 > waste" in moves


def test_nothing_is_played_onto_golfs_tableau_and_the_waste_takes_only_tableau_cards(
    table,
) -> None:
    golf = table("golf")
    board = """
        tableau-0  9C
        tableau-1  TS
        stock      (3S)
        waste      8D
    """

    assert golf.refusal(board, "tableau-0 > tableau-1").code is IllegalCode.TARGET_REFUSES
    assert golf.refusal(board, "waste > tableau-0").code is IllegalCode.TARGET_REFUSES
    assert golf.refusal(board, "tableau-0 > waste x2").code is IllegalCode.TOO_MANY_CARDS


def test_a_golf_stock_turns_once_through_and_the_game_is_won_when_the_tableau_is_clear(
    table,
) -> None:
    golf = table("golf")
    board = """
        tableau-0  4H
        stock      (5S)
        waste      9D
    """

    after = golf.position(board)
    after = apply_move(after, Deal())
    assert not after.won
    won = apply_move(after, move("tableau-0 > waste"))
    assert won.won
    assert legal_moves(won) == []
    refused = golf.refusal(board, "deal", "tableau-0 > waste", "deal")
    assert refused.code is IllegalCode.GAME_WON
    assert refused.detail == "The game is won: every tableau card is cleared away."
    assert golf.refusal("waste  9D\ntableau-0  4H", "deal").code is IllegalCode.NO_REDEALS_LEFT


def test_a_play_onto_the_waste_is_taken_back_by_undo_and_a_deal_is_not(table) -> None:
    golf = table("golf")
    board = """
        tableau-0  9C TS
        stock      (3S)
        waste      9D
    """
    state = golf.position(board)

    played = apply_move(state, move("tableau-0 > waste"))
    dealt = apply_move(played, Deal())

    assert apply_move(played, Undo()) == state
    assert dealt.previous is None


# --- tableau.covered_by: TriPeaks' peaks and Pyramid's rows ------------------------------------


def test_tripeaks_deals_three_peaks_face_down_but_for_the_bottom_row() -> None:
    state = deal(builtin_variant("tripeaks"), SEED)
    pack = shuffled_pack(state.variant, SEED)

    assert [state.pile(f"tableau-{i}").cards for i in range(28)] == [(c,) for c in pack[:28]]
    assert [state.pile(f"tableau-{i}").hidden for i in range(28)] == [1] * 18 + [0] * 10
    assert state.pile("waste").cards == (pack[28],)
    assert len(state.pile("stock").cards) == 23


def test_a_covered_card_plays_only_once_both_cards_over_it_are_gone_and_turns_up_then(
    table,
) -> None:
    peaks = table("tripeaks")
    # tableau-9 is covered by tableau-18 and tableau-19
    board = """
        tableau-9   (8D)
        tableau-18  6C
        tableau-19  7H
        stock       (KS)
        waste       5S
    """

    refused = peaks.refusal(board, "tableau-9 > waste")
    assert refused.code is IllegalCode.COVERED
    assert refused.detail == (
        "tableau-9 lies under other cards: it plays once every card over it is cleared."
    )
    half = peaks.play(board, "tableau-18 > waste")
    assert "tableau-9   (8D)" in half
    state = apply_move(peaks.position(half), move("tableau-19 > waste"))
    assert state.pile("tableau-9").hidden == 0
    assert state.previous is None  # a card turned up: no undo
    assert apply_move(state, move("tableau-9 > waste")).won


def test_tripeaks_wraps_king_to_ace(table) -> None:
    board = """
        tableau-27  AS
        waste       KD
    """

    assert table("tripeaks").legal(board) == {"tableau-27 > waste"}


# --- pairs and a discard foundation: Pyramid --------------------------------------------------


PYRAMID = """
    tableau-21  9D
    tableau-22  4S
    tableau-23  6S
    tableau-27  KC
    stock       (2H) (8C)
    waste       7H
"""


def test_pyramid_deals_twenty_eight_face_up_cards_in_rows_and_the_rest_to_the_stock() -> None:
    state = deal(builtin_variant("pyramid"), SEED)
    pack = shuffled_pack(state.variant, SEED)

    assert [state.pile(f"tableau-{i}").cards for i in range(28)] == [(c,) for c in pack[:28]]
    assert all(state.pile(f"tableau-{i}").hidden == 0 for i in range(28))
    assert state.pile("stock").cards[-1] == pack[28]
    assert state.pile("waste").cards == ()
    assert state.redeals_left == 2


def test_pyramid_removes_pairs_of_thirteen_and_a_king_alone(table) -> None:
    pyramid = table("pyramid")

    assert pyramid.legal(PYRAMID) == {
        "tableau-21 > tableau-22",
        "tableau-22 > tableau-21",
        "tableau-23 > waste",
        "waste > tableau-23",
        "tableau-27 > foundation-0",
        "deal",
    }
    assert pyramid.play(PYRAMID, "waste > tableau-23", "tableau-22 > tableau-21") == pyramid.board(
        """
        foundation-0  7H 6S 4S 9D
        tableau-27    KC
        stock         (2H) (8C)
        """
    )


def test_a_pair_that_does_not_add_up_or_a_lone_card_that_is_not_a_king_is_refused(table) -> None:
    pyramid = table("pyramid")

    not_a_pair = pyramid.refusal(PYRAMID, "tableau-21 > tableau-23")
    alone = pyramid.refusal(PYRAMID, "tableau-21 > foundation-0")

    assert not_a_pair.code is alone.code is IllegalCode.NOT_A_PAIR
    assert not_a_pair.detail == "9♦ and 6♠ are not a pair: their ranks must add up to 13."
    assert alone.detail == (
        "9♦ is not removed alone: only a card of rank 13 is; the others go in pairs whose "
        "ranks add up to 13."
    )
    # tableau-15 is covered by tableau-21 and tableau-22
    covered = pyramid.refusal(PYRAMID + "tableau-15  4D\n", "waste > tableau-15")
    assert covered.code is IllegalCode.COVERED
    assert pyramid.refusal(PYRAMID, "stock > tableau-21").code is IllegalCode.SOURCE_LOCKED


def test_a_pair_is_taken_back_by_undo(table) -> None:
    state = table("pyramid").position(PYRAMID)

    paired = apply_move(state, move("tableau-23 > waste"))

    assert apply_move(paired, Undo()) == state


def test_pyramid_is_won_when_the_pyramid_is_clear_whatever_the_stock_holds(table) -> None:
    pyramid = table("pyramid")
    board = """
        tableau-27  KC
        stock       (2H) (8C)
        waste       7H
    """

    won = apply_move(pyramid.position(board), move("tableau-27 > foundation-0"))

    assert won.won
    assert legal_moves(won) == []


# --- the solver decides them, and its won lines replay -----------------------------------------


@pytest.mark.parametrize("slug", ["golf", "golf-wrap", "tripeaks", "pyramid"])
def test_the_solver_wins_a_deal_of_each_and_its_line_replays(slug: str) -> None:
    variant = builtin_variant(slug)
    for n in range(40):
        seed = practice_seed(f"bench-{n}")
        result = solve(deal(variant, seed), budget_seconds=5)
        if result.outcome == "won":
            assert result.line
            assert replay(variant, seed, result.line).state.won
            return
    raise AssertionError(f"no deal of {slug} won in 40")


@pytest.mark.parametrize("slug", ["golf", "golf-wrap", "tripeaks", "pyramid"])
def test_the_clearing_searchs_moves_agree_with_the_engine_on_random_positions(slug: str) -> None:
    rng = random.Random(slug)
    variant = builtin_variant(slug)
    for game in range(6):
        state = deal(variant, practice_seed(f"agree-{game}"))
        for _ in range(60):
            search = Clearing(state)
            moves = search.moves(every=True)
            ours = [search.engine_move(m) for m in moves]
            ours += [
                Move(m.target, m.source) for m, i in zip(ours, moves, strict=True) if i[0] == PAIR
            ]
            assert sorted(map(repr, ours)) == sorted(map(repr, legal_moves(state)))
            if not moves:
                break
            chosen = rng.choice(moves)
            before = (list(search.heights), search.stock, search.waste, search.redeals)
            saved = search.play(chosen)
            state = apply_move(state, search.engine_move(chosen))
            assert search.heights == [len(state.piles[i].cards) for i in variant.tableau]
            assert (search.stock, search.waste) == (
                state.pile("stock").cards,
                state.pile("waste").cards,
            )
            search.unplay(chosen, saved)
            assert (search.heights, search.stock, search.waste, search.redeals) == before


def test_the_solver_proves_a_hopeless_golf_position_lost(table) -> None:
    # given: nothing left is a neighbour of the 5♦
    state = table("golf").position(
        """
        tableau-0  5D
        tableau-1  KS
        waste      9D
        """
    )

    assert solve(state, budget_seconds=5).outcome == "lost"


def test_the_solver_finds_a_pyramid_win_through_the_stock_and_a_redeal(table) -> None:
    state = table("pyramid").position(
        """
        redeals: 1
        tableau-27  6C
        waste       7D 2H
        """
    )

    result = solve(state, budget_seconds=5)

    assert result.outcome == "won"
    assert result.line is not None
    moves = [m.to_json() for m in result.line]
    assert moves[-1] == {"type": "move", "from": "tableau-27", "to": "waste", "count": 1}
    final = state
    for m in result.line:
        final = apply_move(final, m)
    assert final.won


def test_a_hint_avoids_the_positions_of_the_game(table) -> None:
    golf = table("golf")
    state = golf.position(
        """
        tableau-0  TS
        tableau-1  TH
        stock      (9C)
        waste      9D
        """
    )
    first = apply_move(state, move("tableau-0 > waste"))

    result = solve(state, budget_seconds=5, avoid=[first])

    assert result.outcome == "won"
    assert result.line is not None
    assert result.line[0] == move("tableau-1 > waste")


# --- the documents: each key checked ----------------------------------------------------------


def document(slug: str, change: Any) -> dict[str, Any]:
    rules = builtin_rules(slug)
    change(rules)
    return rules


BAD = {
    "goal": document("golf", lambda d: d.update(goal="clear")),
    "foundations": document("golf", lambda d: d.pop("goal")),
    "stock.waste_build": document(
        "golf", lambda d: d["stock"].update(deal_to="tableau", redeals=0, cards=None)
    ),
    "tableau.covered_by": document("tripeaks", lambda d: d["tableau"]["covered_by"].pop()),
    "tableau.covered_by[0][0]": document(
        "tripeaks", lambda d: d["tableau"]["covered_by"][0].__setitem__(0, 0)
    ),
    "pairs": document("pyramid", lambda d: d.update(foundations=[])),
    "pairs.total": document("pyramid", lambda d: d.update(pairs={"total": 40})),
    "foundations[0].discard": document("pyramid", lambda d: d["foundations"][0].update(count=2)),
    "tableau.empty": document("golf", lambda d: d["tableau"].update(empty="any")),
}


@pytest.mark.parametrize("field", list(BAD))
def test_a_bad_clearing_key_is_named_by_the_error(field: str) -> None:
    with pytest.raises(RulesError) as error:
        compile_rules(BAD[field])

    assert error.value.field == field


def test_the_clearing_games_are_not_dailies_by_default() -> None:
    from games.engine.catalogue import daily_slugs

    assert not {"golf", "golf-wrap", "tripeaks", "pyramid"} & set(daily_slugs())


@pytest.mark.parametrize(("slug", "cards"), [("golf", 35), ("tripeaks", 28), ("pyramid", 28)])
def test_the_cards_home_of_a_clearing_game_are_those_cleared_off_the_tableau(
    slug: str, cards: int
) -> None:
    state = deal(builtin_variant(slug), SEED)
    assert (state.variant.goal_cards, state.foundation_cards()) == (cards, 0)

    for _ in range(12):
        moves = [m for m in legal_moves(state) if not isinstance(m, Deal)] or legal_moves(state)
        if not moves:
            break
        state = apply_move(state, moves[0])

    on_tableau = sum(len(state.piles[i].cards) for i in state.variant.tableau)
    assert state.foundation_cards() == cards - on_tableau
