"""The full search's sideways moves: one that takes cards off a face-up card is searched only
where that card could be used next (``Search._uses``)."""

from __future__ import annotations

import random

import pytest

from games.engine import State, builtin_variant, deal, practice_seed
from games.engine.solver.position import Position
from games.engine.solver.search import Avoid, Search, sideways_pruned
from games.engine.solver.tables import SAFE, IMove, tables_for
from games.engine.text import parse
from tests.engine.conftest import Table
from tests.engine.test_solver import assert_left_out_exactly, klondike_board
from tests.engine.test_solver_blocking import ENDGAMES as BLOCKING_ENDGAMES
from tests.engine.test_solver_blocking import HOLDS, _without_returns

# Clubs up to the Seven, the other suits up to the Eight: the Ten of Clubs cannot go up, and
# the Nine of Diamonds on it cannot go up by itself (the Eight of Clubs is not up).
FOUNDATIONS = """
    foundation-0  AC 2C 3C 4C 5C 6C 7C
    foundation-1  AD 2D 3D 4D 5D 6D 7D 8D
    foundation-2  AH 2H 3H 4H 5H 6H 7H 8H
    foundation-3  AS 2S 3S 4S 5S 6S 7S 8S
"""
# The Nine of Diamonds on the Ten of Clubs, the Ten of Spades alone: the Nine may go from one
# black Ten to the other.
TENS = """
    tableau-0  (KD) TC 9D
    tableau-1  (KH) TS
    tableau-3  (9C) (9S) QH
"""
STOCK = ["TD", "TH", "JC", "JD", "JH", "QC", "QD", "QS", "KC", "KS"]


def _stock(cards: list[str]) -> str:
    return "stock " + " ".join(f"({c})" for c in cards) + "\n"


def _sideways_searched(state: State, *, avoid: bool = False) -> bool:
    """Return whether the full search's moves from ``state`` hold the Nine of Diamonds' move
    from the Ten of Clubs to the Ten of Spades."""
    rules = tables_for(state.variant, state.base_rank)
    search = Search(Position(rules, state), autos=SAFE, nodes_left=1, deadline=0, clock=float)
    if avoid:
        search.avoid = Avoid(set(), [])
    ids = state.variant.ids
    move: IMove = (0, ids.index("tableau-0"), ids.index("tableau-1"), 1)
    return move in search.children(None)


def test_a_sideways_move_whose_uncovered_card_has_no_use_is_left_out() -> None:
    # given: the Nine of Hearts, the other red Nine, face down: nothing could go on the Ten of
    # Clubs the move uncovers, and it cannot go up
    klondike = Table("klondike-draw-3")
    state = klondike.position(FOUNDATIONS + TENS + "tableau-2  (9H) (8C) JS\n" + _stock(STOCK))

    # then
    assert not _sideways_searched(state)


@pytest.mark.parametrize(
    ("where", "board"),
    [
        ("on the waste", TENS + "tableau-2  (8C) JS\nwaste 9H\n" + _stock(STOCK)),
        # Three cards a deal: the first deal shows the third card from the stock's top.
        ("in the stock", TENS + "tableau-2  (8C) JS\n" + _stock([*STOCK[:-2], "9H", *STOCK[-2:]])),
        ("face up on the tableau", TENS + "tableau-2  (8C) JS\ntableau-4  9H\n" + _stock(STOCK)),
    ],
)
def test_a_sideways_move_is_searched_where_another_card_could_go_on_the_card_it_uncovers(
    where: str, board: str
) -> None:
    # given: the Nine of Hearts could go on the Ten of Clubs next
    klondike = Table("klondike-draw-3")
    state = klondike.position(FOUNDATIONS + board)

    # then
    assert _sideways_searched(state), where


def test_a_sideways_move_is_searched_where_a_foundations_top_could_come_back_on_its_card() -> None:
    # given: the Nine of Hearts on top of its foundation: it may come back in Klondike, and
    # not in a copy whose foundations keep their cards
    board = FOUNDATIONS.replace("7H 8H", "7H 8H 9H") + TENS + "tableau-2  (8C) JS\n" + _stock(STOCK)
    returning = Table("klondike-draw-3").position(board)
    keeping = parse(_without_returns("klondike-draw-3"), board)

    # then
    assert _sideways_searched(returning)
    assert not _sideways_searched(keeping)


def test_a_sideways_move_is_searched_where_the_card_it_uncovers_could_go_up() -> None:
    # given: the Ten of Spades on the Nine of Spades' foundation can go up; the Nine of
    # Diamonds goes from it to the Ten of Clubs
    board = (
        FOUNDATIONS.replace("7S 8S", "7S 8S 9S")
        + """
        tableau-0  (KD) TS 9D
        tableau-1  (KH) TC
        tableau-2  (9H) (8C) JS
        tableau-3  (9C) QH
        """
        + _stock(STOCK)
    )
    state = Table("klondike-draw-3").position(board)

    # then
    assert _sideways_searched(state)


def test_a_hint_searches_every_sideways_move() -> None:
    # given: the board of the first test, searched for a hint (positions to avoid: a line
    # may not be moved around them)
    klondike = Table("klondike-draw-3")
    state = klondike.position(FOUNDATIONS + TENS + "tableau-2  (9H) (8C) JS\n" + _stock(STOCK))

    # then
    assert _sideways_searched(state, avoid=True)


# The builtin games where sideways moves are left out: those where the test of blocked
# positions holds (Klondike and Yukon move runs or any face-up group).
@pytest.mark.parametrize(("slug", "holds"), HOLDS)
def test_sideways_moves_are_left_out_in_one_deck_games_up_in_suit_where_sequences_move(
    slug: str, holds: bool
) -> None:
    state = deal(builtin_variant(slug), practice_seed("bench-0"))

    assert sideways_pruned(tables_for(state.variant, state.base_rank)) is holds


ENDGAMES = {
    # Klondike: each suit up to a rank from the Four to the Seven, the rest on five piles (face
    # down but for the top) and up to 12 cards in the stock and waste.
    "klondike-draw-3": lambda rng: klondike_board(rng, ranks=(4, 7), stock=(0, 12), piles=5),
    "klondike-draw-1": lambda rng: klondike_board(rng, ranks=(4, 7), stock=(0, 12), piles=5),
    # Yukon: face-up cards in any order on three piles, which move in any group.
    "yukon": BLOCKING_ENDGAMES["yukon"],
}


@pytest.mark.parametrize("slug", sorted(ENDGAMES))
def test_the_full_search_leaving_out_sideways_moves_of_no_use_agrees_on_random_endgames(
    slug: str,
) -> None:
    # given: random endgames
    table = Table(slug)
    rng = random.Random(f"{slug} sideways")
    states = [table.position(ENDGAMES[slug](rng)) for _ in range(40)]

    # when: the full search leaving out sideways moves of no use, and searching them; then:
    # the same outcomes, never more positions to prove a loss, fewer on some
    assert_left_out_exactly(states, {}, {"sideways": False})
