"""The solver's test of positions no line can win (``games/engine/solver/blocked.py``)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games.engine import (
    State,
    apply_move,
    builtin_variant,
    deal,
    practice_seed,
    solve,
)
from games.engine.cards import CARDS_PER_DECK
from games.engine.rules import Return, Variant
from games.engine.solver.blocked import (
    Blocking,
    _ends_a_group,
    _group_ends,
    _Start,
    blocking_for,
)
from games.engine.solver.position import Position
from games.engine.solver.search import Search
from games.engine.solver.tables import SAFE, tables_for
from games.engine.text import parse
from tests.engine.conftest import Table
from tests.engine.test_solver import (
    _suits_up_to_random_ranks,
    assert_left_out_exactly,
    exhaustively_lost,
    klondike_board,
)

# Every card of Hearts from 3, of Clubs and Spades from 4: the stock of the boards below.
REST = [r + s for s in "CS" for r in "456789TJQK"] + [r + "H" for r in "3456789TJQK"]
FOUNDATIONS = """
    foundation-0  AC 2C
    foundation-1  AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
    foundation-3  AS 2S
"""


def blocked(state: State) -> bool:
    rules = tables_for(state.variant, state.base_rank)
    blocking = blocking_for(rules)
    assert blocking is not None
    position = Position(rules, state)
    return blocking.blocked(position.cards, position.hidden)


# Builtin games, and whether the test holds for them (one deck, foundations up in suit from the
# Ace, no free cells: Klondike and Yukon).
HOLDS = [
    ("klondike-draw-3", True),
    ("klondike-draw-1", True),
    ("yukon", True),
    ("beleaguered-castle", False),
    ("freecell", False),
    ("spider-2-suits", False),
    ("canfield", False),
    ("castile", False),
    ("quadruple-canfield", False),
]


@pytest.mark.parametrize(("slug", "holds"), HOLDS)
def test_the_test_holds_for_one_deck_games_up_in_suit_from_the_ace_without_cells(
    slug: str, holds: bool
) -> None:
    state = deal(builtin_variant(slug), practice_seed("bench-0"))

    rules = tables_for(state.variant, state.base_rank)

    assert (blocking_for(rules) is not None) is holds


def test_a_card_lying_on_the_cards_it_may_go_on_and_the_one_under_it_in_suit_blocks_the_game() -> (
    None
):
    # given: the Two of Hearts on both black Threes and on the Ace of Hearts, in one pile
    klondike = Table("klondike-draw-3")
    stock = "stock " + " ".join(f"({c})" for c in REST) + "\n"
    state = klondike.position(FOUNDATIONS + "tableau-0  (AH) (3C) (3S) 2H\n" + stock)

    # when
    result = solve(state, budget_seconds=5)

    # then: lost before any position is searched
    assert blocked(state)
    assert result.outcome == "lost"
    assert result.nodes == 0


def test_a_card_with_one_card_to_go_on_elsewhere_does_not_block_the_game() -> None:
    # given: the same, but the Three of Spades on a pile of its own
    klondike = Table("klondike-draw-3")
    stock = "stock " + " ".join(f"({c})" for c in REST) + "\n"
    state = klondike.position(FOUNDATIONS + "tableau-0  (AH) (3C) 2H\ntableau-1  3S\n" + stock)

    # then
    assert not blocked(state)


def _without_returns(slug: str) -> Variant:
    return replace(builtin_variant(slug), foundation_return=Return.NONE)


def test_a_stock_card_that_never_comes_to_the_waste_top_blocks_the_game() -> None:
    # given: Klondike without foundation returns, every card up but the Hearts from the Two,
    # all in the stock, the Two dealt first and the King second: dealt three at a time,
    # neither is ever on top of the waste, and no other card can play before the Two
    board = "".join(
        f"foundation-{f}  " + " ".join(r + suit for r in "A23456789TJQK") + "\n"
        for f, suit in enumerate("CDS")
    )
    board += "foundation-3  AH\n"
    middle = [r + "H" for r in "3456789TJ"]
    two_first = board + "stock " + " ".join(f"({c})" for c in [*middle, "QH", "KH", "2H"])
    two_third = board + "stock " + " ".join(f"({c})" for c in [*middle, "2H", "KH", "QH"])
    draw_3 = _without_returns("klondike-draw-3")

    # then: blocked where the stock deals three at a time, not where it deals one, nor where
    # the Two comes third, nor where the black Kings may come back to the tableau for the
    # Queen of Hearts to go on
    assert blocked(parse(draw_3, two_first))
    assert exhaustively_lost(parse(draw_3, two_first))
    assert not blocked(parse(_without_returns("klondike-draw-1"), two_first))
    assert not blocked(parse(draw_3, two_third))
    assert not blocked(Table("klondike-draw-3").position(two_first))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_the_table_of_cards_that_can_end_a_stock_group_answers_as_the_rule(k: int) -> None:
    # given: the table the test reads for a stock dealing k cards at a time
    table = _group_ends(k, 30)

    # then: for every card of a stock of up to 30, every start and every count of cards gone,
    # it says what the rule says
    for j in range(30):
        for start in range(j + 1):
            for gone in range(31):
                assert table[gone][(j - start) % k] == _ends_a_group(j, start, gone, k)


def _yukon_endgame(rng: random.Random) -> str:
    """Return a Yukon board with each suit up to a random rank from the Five and the rest on
    three tableau piles, up to six face down under face-up cards in any order."""
    lines, rest = _suits_up_to_random_ranks(rng, 5, 9)
    dealt: dict[str, list[str]] = {}
    for card in rest:
        dealt.setdefault(f"tableau-{rng.randrange(3)}", []).append(card)
    for pile, on in dealt.items():
        down = rng.randint(0, min(6, len(on) - 1))
        lines.append(f"{pile} " + " ".join([f"({c})" for c in on[:down]] + on[down:]))
    return "\n".join(lines) + "\n"


ENDGAMES = {
    # Klondike: each suit up from the Eight, the rest on two piles and in the stock.
    "klondike-draw-3": lambda rng: klondike_board(rng, ranks=(8, 11), stock=(0, 9), piles=2),
    "klondike-draw-1": lambda rng: klondike_board(rng, ranks=(8, 11), stock=(0, 6), piles=2),
    "yukon": _yukon_endgame,
}


@pytest.mark.parametrize("slug", sorted(ENDGAMES))
def test_the_full_search_with_the_test_agrees_with_one_without_on_random_endgames(slug) -> None:
    # given: random endgames of a game the test holds for
    table = Table(slug)
    rng = random.Random(f"{slug} blocking")
    states = [table.position(ENDGAMES[slug](rng)) for _ in range(40)]

    # when: the full search with the test, and without it; then: the same outcomes, never
    # more positions to prove a loss
    assert_left_out_exactly(states, {}, {"blocking": False})


@pytest.mark.parametrize("slug", sorted(ENDGAMES))
def test_a_blocked_endgame_is_one_no_line_of_the_engines_moves_wins(slug) -> None:
    # given: small random endgames, some blocked
    table = Table(slug)
    rng = random.Random(f"{slug} blocked endgames")
    checked = 0
    for _ in range(80):
        state = table.position(ENDGAMES[slug](rng))

        # then: each the test calls blocked is lost by the engine's own search of every
        # position (where there are few enough)
        if blocked(state):
            lost = exhaustively_lost(state, limit=3000)
            assert lost is not False
            checked += lost is True
    assert checked >= 2


@pytest.mark.parametrize(
    ("slug", "numbers"),
    [("klondike-draw-3", range(6)), ("klondike-draw-1", range(4)), ("yukon", (1, 3, 4, 5))],
)
def test_no_position_of_a_won_line_is_blocked(slug: str, numbers: range | tuple[int, ...]) -> None:
    won = 0
    for number in numbers:
        state = deal(builtin_variant(slug), practice_seed(f"bench-{number}"))
        result = solve(state, budget_seconds=5)
        if result.outcome != "won":
            continue
        won += 1
        assert result.line is not None
        for move in result.line:
            assert not blocked(state)
            state = apply_move(state, move)
        assert state.won
    assert won >= 3


def test_the_full_search_leaves_a_blocked_position_out_and_counts_the_test_as_work() -> None:
    # given: the blocked board of the first test
    klondike = Table("klondike-draw-3")
    stock = "stock " + " ".join(f"({c})" for c in REST) + "\n"
    state = klondike.position(FOUNDATIONS + "tableau-0  (AH) (3C) (3S) 2H\n" + stock)
    rules = tables_for(state.variant, state.base_rank)
    search = Search(Position(rules, state), autos=SAFE, nodes_left=10, deadline=1e18, clock=float)

    # when
    outcome, _ = search.run()

    # then
    assert outcome == "lost"
    assert search.nodes == 0
    assert search.work > 0


# A Klondike (draw 3) endgame the relaxation alone does not find lost: in it, the Jack of Clubs
# takes both red Tens at once. Each Ten has to go onto a black Jack, and whichever goes onto
# the Jack of Clubs first has to leave it, by going up or onto the Jack of Spades, before the
# other can go there.
HELD = """
    foundation-0  AC 2C 3C 4C 5C 6C 7C 8C 9C
    foundation-1  AD 2D 3D 4D 5D 6D
    foundation-2  AH 2H 3H 4H 5H
    foundation-3  AS 2S 3S 4S 5S 6S 7S 8S
    tableau-0  (TC) (JH) (9D) (TD) (TH) (JD) KH
    tableau-1  (KS) (7D) (KC) (7H) (QS) 9S
    tableau-2  (TS) (QC) (9H) (6H) (8D) (JC) 8H
    stock  (QD) (JS) (QH) (KD)
"""


def _relaxation_alone(blocking: Blocking, state: State) -> bool:
    """Return whether the relaxation blocks ``state`` without the cases of ``_held``."""
    position = Position(blocking.r, state)
    start = blocking._start(position.cards, position.hidden)
    return start is not None and blocking._close(start, -1, -1, -1, -1) is None


def test_two_cards_that_need_the_same_card_in_turn_block_the_game() -> None:
    # given
    state = Table("klondike-draw-3").position(HELD)
    blocking = blocking_for(tables_for(state.variant, state.base_rank))
    assert blocking is not None

    # when
    result = solve(state, budget_seconds=5)

    # then: the relaxation alone lets it be won; with the cases, it is lost before any
    # position is searched, as the engine's own search of every position finds
    assert not _relaxation_alone(blocking, state)
    assert blocked(state)
    assert result.outcome == "lost"
    assert result.nodes == 0
    assert exhaustively_lost(state) is True


def test_a_deal_whose_full_search_took_half_a_million_positions_is_lost_at_once() -> None:
    # given: Klondike (draw 3)'s bench-13, which the full search proved lost in 555,967
    # positions: the Ten of Diamonds takes the Nine of Spades, whose cards free the Nine of
    # Clubs, and would have to take the Nine of Clubs too
    state = deal(builtin_variant("klondike-draw-3"), practice_seed("bench-13"))
    blocking = blocking_for(tables_for(state.variant, state.base_rank))
    assert blocking is not None

    # when
    result = solve(state, budget_seconds=5)

    # then
    assert not _relaxation_alone(blocking, state)
    assert result.outcome == "lost"
    assert result.nodes == 0


def _held_every_way(blocking: Blocking, start: _Start) -> bool:
    """``Blocking._held`` without leaving out any case: every pair of twins, with each of the
    two cards they may go on as the one they share."""
    for y in range(CARDS_PER_DECK):
        x = blocking.twins[y]
        if x < 0 or x > y:
            continue
        for q in blocking.parents[y]:
            p = blocking.parents[y][0] if blocking.parents[y][1] == q else blocking.parents[y][1]
            if (
                blocking._close(start, y, q, x, p) is None
                and blocking._close(start, x, q, y, p) is None
            ):
                return True
    return False


# Random endgames, as many of each as hold a few that only the cases of ``_held`` block.
HELD_ENDGAMES = {
    "klondike-draw-3": (lambda rng: klondike_board(rng, ranks=(6, 10), stock=(0, 9), piles=2), 300),
    "yukon": (_yukon_endgame, 1500),
}


@pytest.mark.parametrize("slug", sorted(HELD_ENDGAMES))
def test_the_cases_left_out_of_the_held_test_never_block(slug: str) -> None:
    # given: random endgames and deals the relaxation alone does not block
    table = Table(slug)
    rng = random.Random(f"{slug} held cases")
    endgame, count = HELD_ENDGAMES[slug]
    states = [table.position(endgame(rng)) for _ in range(count)]
    states += [deal(builtin_variant(slug), practice_seed(f"bench-{n}")) for n in range(40)]
    blocking = blocking_for(tables_for(states[0].variant, states[0].base_rank))
    assert blocking is not None
    held = 0
    for state in states:
        position = Position(blocking.r, state)
        start = blocking._start(position.cards, position.hidden)
        trace = None if start is None else blocking._close(start, -1, -1, -1, -1)
        if start is None or trace is None:
            continue

        # then: the test that runs only the cases that can block answers as one running all
        found = blocking._held(start, trace)
        assert found == _held_every_way(blocking, start)
        held += found
    assert held >= 3


@pytest.mark.parametrize("slug", sorted(HELD_ENDGAMES))
def test_a_held_endgame_is_one_no_line_of_the_engines_moves_wins(slug: str) -> None:
    # given: random endgames, some of them blocked only by the cases of two cards needing
    # the same card
    table = Table(slug)
    rng = random.Random(f"{slug} held endgames")
    endgame, count = HELD_ENDGAMES[slug]
    blocking = None
    checked = 0
    for _ in range(count):
        state = table.position(endgame(rng))
        blocking = blocking or blocking_for(tables_for(state.variant, state.base_rank))
        assert blocking is not None
        if _relaxation_alone(blocking, state) or not blocked(state):
            continue

        # then: none is won by the engine's own search of every position (where there are
        # few enough)
        lost = exhaustively_lost(state, limit=1000)
        assert lost is not False
        checked += lost is True
    assert checked >= 2
