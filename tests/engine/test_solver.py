"""The solver: wins found and replayed, losses proved, safe automatic moves, and its moves."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import pytest

from games.engine import (
    AnyMove,
    Deal,
    Move,
    Redeal,
    State,
    apply_move,
    builtin_rules,
    builtin_variant,
    catalogue,
    compile_rules,
    deal,
    launch_slugs,
    legal_moves,
    practice_seed,
    solve,
    state_to_json,
)
from games.engine.cards import SUIT_OF
from games.engine.rules import FOUNDATION_LIMIT, Return
from games.engine.solver.passes import _avoid, _line, _passes
from games.engine.solver.position import Position
from games.engine.solver.search import (
    REVEAL_WEIGHTS,
    SPIDER_EMPTY,
    SPIDER_EMPTY_DEALING,
    BestFirst,
    Budget,
    DeepBestFirst,
    Restarts,
    Reweighted,
    RoomyBestFirst,
    Search,
    Staged,
    luby,
)
from games.engine.solver.tables import (
    AGGRESSIVE,
    DEAL,
    PROMISE_DEPTH,
    REDEAL,
    SAFE,
    IMove,
    Record,
    Rules,
)
from games.engine.text import parse
from tests.engine.conftest import Table, engine
from tests.engine.test_rules_box_kite import BASES as BOX_KITE_BASES

CASTILE_FOUNDATIONS = """
    foundation-0  AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC
    foundation-1  AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
    foundation-2  AH 2H 3H 4H 5H 6H 7H 8H 9H TH
    foundation-3  AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS
"""


def replays_to_a_win(state: State, line: list[AnyMove]) -> bool:
    for move in line:
        state = apply_move(state, move)
    return state.won


def exhaustively_lost(state: State, limit: int | None = None) -> bool | None:
    """Return whether no line of the engine's legal moves wins (a plain search, for checks);
    None if more than ``limit`` positions are reachable."""
    seen = {state.piles}
    todo = [state]
    while todo:
        position = todo.pop()
        if position.won:
            return False
        for move in legal_moves(position):
            after = apply_move(position, move)
            if after.piles not in seen:
                if limit is not None and len(seen) >= limit:
                    return None
                seen.add(after.piles)
                todo.append(after)
    return True


def test_a_forced_win_is_found_and_its_line_replays_to_a_won_position(table) -> None:
    # given: the Queen of Hearts covers the Jack the foundation needs; only a King takes it
    castile = table("castile")
    state = castile.position(
        CASTILE_FOUNDATIONS
        + """
        tableau-0  JH QH
        tableau-1  KC
        tableau-2  KH
        """
    )

    # when
    result = solve(state)

    # then
    assert result.outcome == "won"
    assert result.line is not None
    assert replays_to_a_win(state, result.line)
    assert any(isinstance(m, Move) and m.target.startswith("tableau-") for m in result.line)


CANFIELD_FOUNDATIONS = """
    foundation-0  AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC
    foundation-1  AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD
    foundation-2  AH 2H 3H 4H 5H 6H 7H 8H 9H TH
    foundation-3  AS 2S 3S 4S 5S 6S 7S 8S
"""


def test_a_lost_position_is_proved_lost(table) -> None:
    # given: the Queen of Spades covers the Nine, and no red King is free to take her
    canfield = table("canfield")
    state = canfield.position(
        CANFIELD_FOUNDATIONS.replace("9H TH", "9H TH JH")
        + """
        tableau-0     JS
        tableau-1     9S TS QS
        tableau-2     QH KS
        tableau-3     KH
        """
    )

    # when
    result = solve(state)

    # then
    assert exhaustively_lost(state)
    assert result.outcome == "lost"
    assert result.line is None


def test_a_foundation_move_a_card_is_needed_for_is_not_forced(table) -> None:
    # given: the Jack of Hearts may go up, but the Queen of Spades needs it to move on
    canfield = table("canfield")
    state = canfield.position(
        CANFIELD_FOUNDATIONS
        + """
        tableau-0     JS
        tableau-1     9S TS QS JH
        tableau-2     QH KS
        tableau-3     KH
        """
    )
    forced = apply_move(state, Move("tableau-1", "foundation-2"))

    # when
    result = solve(state)

    # then: forcing the Jack up would lose; the solver wins
    assert exhaustively_lost(forced)
    assert result.outcome == "won"
    assert result.line is not None
    assert result.line[0] != Move("tableau-1", "foundation-2")
    assert replays_to_a_win(state, result.line)


def _safe_autos(state: State) -> tuple[Position, list[Record]]:
    """Return the full search's position on ``state`` after its automatic foundation moves
    (``SAFE``), and their records."""
    position = Position(Rules(state.variant, state.base_rank), state)
    played: list[Record] = []
    position.autos(played, SAFE)
    return position, played


def test_castiles_foundation_moves_are_played_for_the_card_only_lower_cards_lie_on(table) -> None:
    # given: every Ace and Two is up, so nothing but those can lie on the Three of Clubs;
    # Threes are still out, so the Four of Hearts has cards it may yet be needed for
    castile = table("castile")
    state = castile.position(
        """
        foundation-0  AC 2C
        foundation-1  AD 2D
        foundation-2  AH 2H
        foundation-3  AS 2S
        tableau-0     3H 3S 3D 4H 3C
        """
    )

    # when: the automatic moves of the full search, though cards may come back in Castile
    position, played = _safe_autos(state)

    # then: the Three of Clubs goes up by itself, and the Four of Hearts stays
    assert [record[:3] for record in played] == [(4, 0, 1)]
    assert position.cards[4][-1] == state.pile("tableau-0").cards[-2]


@pytest.mark.parametrize(
    ("spades", "out", "goes_up"),
    [
        # The Six of Clubs could hold only a red Five (both up), which could hold only a black
        # Four (both up), and so on down: it goes up, though the Five of Spades is still out
        # (and so the Six of Diamonds, which could hold it, stays).
        ("AS 2S 3S 4S", "5S 9H", True),
        # A red Five could hold the Four of Spades, still out: the Six of Clubs stays.
        ("AS 2S 3S", "4S 9H", False),
    ],
)
def test_klondikes_full_search_plays_a_card_up_once_nothing_still_out_could_come_to_lie_on_it(
    table, spades: str, out: str, goes_up: bool
) -> None:
    # given: cards may come back from the foundations; the card still out lies under another
    state = table("klondike-draw-3").position(
        f"""
        foundation-0  AC 2C 3C 4C 5C
        foundation-1  AD 2D 3D 4D 5D
        foundation-2  AH 2H 3H 4H 5H
        foundation-3  {spades}
        tableau-0     (KH) 6C
        tableau-1     (KC) 6D
        tableau-2     {out}
        """
    )

    # when: the automatic moves of the full search
    _, played = _safe_autos(state)

    # then
    ids = state.variant.index
    expected = [(ids["tableau-0"], ids["foundation-0"])] if goes_up else []
    assert [(record[0], record[1]) for record in played] == expected


def test_foundation_moves_of_other_games_with_returns_are_never_played_by_the_full_search():
    for slug in ["caprice", "box-kite", "quadruple-canfield"]:
        state = deal(builtin_variant(slug), practice_seed("bench-0"))
        rules = Rules(state.variant, state.base_rank)
        position = Position(rules, state)
        played: list[tuple[int, int, int, int, int, int]] = []

        position.autos(played, SAFE)

        assert not any(rules.returning_safe)
        assert played == []


RANKS = "A23456789TJQK"


def _castile_endgame(rng: random.Random) -> str:
    """Return a Castile board with each suit up to a random rank and the rest dealt at random
    on the reserves, the fans empty (so that some are lost)."""
    lines, rest = _suits_up_to_random_ranks(rng, 7, 10)
    lines += _scattered(rng, rest, [f"reserve-{i}" for i in range(4)])
    return "\n".join(lines) + "\n"


def _suits_up_to_random_ranks(
    rng: random.Random, low: int, high: int
) -> tuple[list[str], list[str]]:
    """Return the board lines of four foundations, each suit up from its Ace to a random rank
    from ``low`` to ``high`` cards, and the cards left, shuffled."""
    lines = []
    rest = []
    for f, suit in enumerate("CDHS"):
        up = rng.randint(low, high)
        lines.append(f"foundation-{f} " + " ".join(r + suit for r in RANKS[:up]))
        rest += [r + suit for r in RANKS[up:]]
    rng.shuffle(rest)
    return lines, rest


def _scattered(rng: random.Random, cards: list[str], piles: list[str]) -> list[str]:
    """Return the board lines of ``cards`` dealt one by one onto piles chosen at random."""
    dealt: dict[str, list[str]] = {}
    for card in cards:
        dealt.setdefault(rng.choice(piles), []).append(card)
    return [f"{pile} " + " ".join(on) for pile, on in dealt.items()]


def _full_search(state: State, *, autos: bool) -> str:
    return _full_search_nodes(state, autos=autos)[0]


def _full_search_nodes(
    state: State,
    *,
    autos: bool = True,
    cycles: bool = True,
    blocking: bool = True,
    sideways: bool = True,
) -> tuple[str, int]:
    """Return the full search's outcome from ``state`` and the positions it expanded, with its
    automatic moves and returns left out or not, with ``Search.dominated`` or not, with
    ``Blocking``'s test or not, with sideways moves of no use left out (``Search._uses``) or
    not."""
    rules = Rules(state.variant, state.base_rank)
    if not autos:
        rules.returning_safe = (False,) * len(rules.returning_safe)
        rules.any_returning_safe = False
    search = Search(
        Position(rules, state), autos=SAFE, nodes_left=300_000, deadline=1e18, clock=float
    )
    if not cycles:
        search.cycles = None
    if not blocking:
        search.blocking = None
    search.sideways = search.sideways and sideways
    outcome, _ = search.run()
    return outcome, search.nodes


def test_the_full_search_with_its_automatic_moves_agrees_with_one_without(table) -> None:
    # given: random Castile endgames, where cards may come back from the foundations
    castile = table("castile")
    rng = random.Random("castile endgames")
    outcomes = []
    for _ in range(40):
        state = castile.position(_castile_endgame(rng))

        # when: the pass that proves losses, with and without its automatic foundation moves
        with_autos = _full_search(state, autos=True)
        without = _full_search(state, autos=False)

        # then
        assert with_autos == without
        outcomes.append(with_autos)
    assert {"won", "lost"} <= set(outcomes)


LOW, STOCK, PILES = 7, 6, 4


def _klondike_endgame(rng: random.Random) -> str:
    """Return a Klondike board with each suit up to a random rank, some of the rest in the
    stock and the others dealt at random on the tableau, face down but for each top card."""
    lines, rest = _suits_up_to_random_ranks(rng, LOW, 11)
    stock, rest = rest[: rng.randint(0, STOCK)], rest
    rest = rest[len(stock) :]
    dealt: dict[str, list[str]] = {}
    for card in rest:
        dealt.setdefault(f"tableau-{rng.randrange(PILES)}", []).append(card)
    for pile, on in dealt.items():
        lines.append(f"{pile} " + " ".join([f"({c})" for c in on[:-1]] + [on[-1]]))
    if stock:
        lines.append("stock " + " ".join(f"({c})" for c in stock))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("slug", ["klondike-draw-3", "klondike-draw-1"])
def test_klondikes_full_search_with_its_automatic_moves_and_returns_left_out_agrees(slug) -> None:
    # given: random Klondike endgames, where a foundation's top card may come back
    klondike = Table(slug)
    rng = random.Random(f"{slug} endgames")
    outcomes = []
    for _ in range(40):
        state = klondike.position(_klondike_endgame(rng))

        # when: the pass that proves losses, with its automatic moves and with the returns no
        # card could follow left out, and with neither
        with_autos = _full_search(state, autos=True)
        without = _full_search(state, autos=False)

        # then
        assert with_autos == without
        outcomes.append(with_autos)
    assert {"won", "lost"} <= set(outcomes)


def _klondike_endgame_with_a_long_stock(rng: random.Random) -> str:
    """Return a Klondike board with each suit up to a random rank, 9 to 15 of the rest in
    the stock and on the waste, and the others on three tableau piles, face down but for the
    top."""
    return klondike_board(rng, ranks=(6, 10), stock=(9, 15), piles=3)


def klondike_board(
    rng: random.Random, *, ranks: tuple[int, int], stock: tuple[int, int], piles: int
) -> str:
    """Return a Klondike board with each suit up to a random rank within ``ranks``, from
    ``stock[0]`` to ``stock[1]`` of the rest in the stock and on the waste (a random share of
    them dealt), and the others on ``piles`` tableau piles, face down but for the top."""
    lines, rest = _suits_up_to_random_ranks(rng, *ranks)
    size = rng.randint(stock[0], min(stock[1], len(rest) - 1))
    dealt_stock, rest = rest[:size], rest[size:]
    dealt: dict[str, list[str]] = {}
    for card in rest:
        dealt.setdefault(f"tableau-{rng.randrange(piles)}", []).append(card)
    for pile, on in dealt.items():
        lines.append(f"{pile} " + " ".join([f"({c})" for c in on[:-1]] + [on[-1]]))
    waste = rng.randint(0, size)
    if waste < size:
        lines.append("stock " + " ".join(f"({c})" for c in dealt_stock[waste:]))
    if waste:
        lines.append("waste " + " ".join(dealt_stock[:waste]))
    return "\n".join(lines) + "\n"


def test_klondikes_full_search_leaving_out_what_deals_alone_reach_agrees_on_random_endgames():
    # given: random Klondike (draw 3) endgames with 9 to 15 cards in the stock and waste
    klondike = Table("klondike-draw-3")
    rng = random.Random("klondike stock cycles")
    states = [klondike.position(_klondike_endgame_with_a_long_stock(rng)) for _ in range(40)]

    # when: the full search, leaving out positions that one searched reaches by deals alone,
    # and searching them; then: the same outcomes, never more positions to prove a loss
    assert_left_out_exactly(states, {"blocking": False}, {"cycles": False, "blocking": False})


def assert_left_out_exactly(
    states: list[State], leaving_out: dict[str, bool], searching: dict[str, bool]
) -> None:
    """Check that the full search leaving positions out (``_full_search_nodes``' options
    ``leaving_out``) ends as the one searching them (``searching``) on each of ``states``,
    never with more positions to prove a loss, and with fewer on at least 3 of them; and that
    some are won and some lost."""
    outcomes = []
    fewer = 0
    for state in states:
        kept, kept_nodes = _full_search_nodes(state, **leaving_out)
        every, every_nodes = _full_search_nodes(state, **searching)
        assert kept == every
        outcomes.append(kept)
        assert kept_nodes <= every_nodes or kept == "won"
        fewer += kept_nodes < every_nodes
    assert {"won", "lost"} <= set(outcomes)
    assert fewer >= 3


def test_a_position_deals_alone_reach_from_one_searched_is_left_out() -> None:
    # given: Klondike (draw 3) positions alike but for how many of the same seven cards, in
    # the same dealing order, lie on the waste
    klondike = Table("klondike-draw-3")
    cards = ["5C", "9D", "6H", "TS", "8C", "7D", "JH"]
    board = "foundation-0  AC 2C 3C 4C\ntableau-0  (KS) QH\n"

    def dealt(p: int) -> State:
        lines = board
        if p < len(cards):
            lines += "stock " + " ".join(f"({c})" for c in cards[: len(cards) - p]) + "\n"
        if p:
            lines += "waste " + " ".join(reversed(cards[len(cards) - p :])) + "\n"
        return klondike.position(lines)

    rules = Rules(dealt(0).variant, dealt(0).base_rank)
    search = Search(Position(rules, dealt(0)), autos=SAFE, nodes_left=1, deadline=1e18, clock=float)
    assert search.cycles is not None

    def left_out(cycles: dict[bytes, list[int]], p: int) -> bool:
        search.pos.load(dealt(p).piles, -1)
        return search.dominated(cycles)

    # when: one with 1 card dealt is searched first, then one with 3 dealt first
    first: dict[bytes, list[int]] = {}
    after_one = [left_out(first, p) for p in (1, 4, 0, 3, 2, 5, 7)]
    second: dict[bytes, list[int]] = {}
    after_three = [left_out(second, p) for p in (3, 1, 6, 2)]

    # then: deals alone reach 4, 7 and every multiple of 3 from 1 dealt; from 3 dealt, only
    # the multiples of 3 and 7; those are left out, the others searched
    assert after_one == [False, True, True, True, False, True, True]
    assert after_three == [False, False, True, False]
    # and the same cards in another dealing order are another position
    assert dealt(1).piles != dealt(4).piles


@pytest.mark.parametrize(
    ("slug", "used"),
    [
        ("klondike-draw-3", True),  # three cards a deal, redeals unlimited
        ("klondike-draw-1", False),  # the waste's card may go up at once: it may differ
        ("canfield", True),
        ("spider-2-suits", False),  # the stock deals to the tableau
        ("castile", False),  # no stock
    ],
)
def test_only_a_stock_dealing_several_cards_to_a_waste_leaves_positions_out(slug, used) -> None:
    state = deal(builtin_variant(slug), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)

    search = Search(Position(rules, state), autos=SAFE, nodes_left=1, deadline=1e18, clock=float)
    greedy = Search(
        Position(rules, state), autos=AGGRESSIVE, nodes_left=1, deadline=1e18, clock=float
    )

    assert (search.cycles is not None) is used
    assert greedy.cycles is None


def test_the_full_search_leaves_out_returns_no_card_could_follow(table) -> None:
    # given: the 2 of hearts could come back, but both black Aces are up and nothing could
    # go on the Ace of hearts; the 3 of clubs could come back onto the red 4 for the 2 of
    # diamonds, face up on the tableau
    state = table("klondike-draw-3").position(
        """
        foundation-0  AC 2C 3C
        foundation-1  AD
        foundation-2  AH 2H
        foundation-3  AS
        tableau-0     (KS) 4D
        tableau-1     (KH) 3S
        tableau-2     (KC) 2D
        """
    )
    position = Position(Rules(state.variant, state.base_rank), state)
    search = Search(position, autos=SAFE, nodes_left=1, deadline=1e18, clock=float)

    # when
    returns = {(s, d) for _, s, d, _ in search.children(None) if s in position.r.foundations}

    # then
    ids = state.variant.index
    assert search.prune_returns
    assert (ids["foundation-0"], ids["tableau-0"]) in returns
    assert not any(s == ids["foundation-2"] for s, _ in returns)


@pytest.mark.parametrize("slug", ["quadruple-canfield", "capricieuse"])
def test_won_lines_of_deals_replay_to_won_positions(slug: str) -> None:
    for text in ("bench-0", "bench-3"):
        state = deal(builtin_variant(slug), practice_seed(text))

        result = solve(state, budget_nodes=20_000)

        assert result.outcome == "won"
        assert result.line is not None
        assert replays_to_a_win(state, result.line)
        assert result.nodes > 0
        # every expanded position but the passes' roots was made by a move
        assert result.made >= result.nodes - 3


def test_a_budget_that_runs_out_gives_unknown() -> None:
    state = deal(builtin_variant("box-kite"), practice_seed("bench-0"))

    result = solve(state, budget_nodes=50)

    assert result.outcome == "unknown"
    assert result.line is None
    assert result.nodes <= 50


def test_the_budget_is_counted_on_the_clock_the_caller_gives() -> None:
    # given: a clock that moves on a second each time it is read, and a hard deal
    state = deal(builtin_variant("box-kite"), practice_seed("bench-0"))
    ticks = iter(range(1_000_000))

    # when
    result = solve(state, budget_seconds=3, clock=lambda: float(next(ticks)))

    # then: the search stops after a few readings of that clock, however fast it runs
    assert result.outcome == "unknown"
    assert 3 <= result.seconds <= 10
    assert next(ticks) < 20


def _one_pass(kind: type[Search], state: State, autos: int) -> tuple[str, list[AnyMove]]:
    rules = Rules(state.variant, state.base_rank)
    search = kind(
        Position(rules, state), autos=autos, nodes_left=100_000, deadline=1e18, clock=float
    )
    outcome, logs = search.run()
    return outcome, _line(rules, logs or [])


@pytest.mark.parametrize("kind", [BestFirst, DeepBestFirst, Restarts, Reweighted, Staged, Search])
def test_each_pass_alone_wins_the_forced_win_and_exhausts_the_lost_position(table, kind) -> None:
    # given
    castile, canfield = table("castile"), table("canfield")
    won = castile.position(CASTILE_FOUNDATIONS + "tableau-0  JH QH\ntableau-1  KC\ntableau-2  KH\n")
    lost = canfield.position(
        CANFIELD_FOUNDATIONS.replace("9H TH", "9H TH JH")
        + "tableau-0 JS\ntableau-1 9S TS QS\ntableau-2 QH KS\ntableau-3 KH\n"
    )

    # when
    won_outcome, line = _one_pass(kind, won, SAFE)
    lost_outcome, _ = _one_pass(kind, lost, SAFE)

    # then
    assert won_outcome == "won"
    assert replays_to_a_win(won, line)
    assert lost_outcome == "lost"


def test_the_greedy_pass_cannot_win_what_needs_a_card_kept_back_but_solve_does(table) -> None:
    # given: the Jack of Hearts must stay down for the Queen of Spades; the greedy automatic
    # moves play it up at once
    canfield = table("canfield")
    state = canfield.position(
        CANFIELD_FOUNDATIONS
        + "tableau-0 JS\ntableau-1 9S TS QS JH\ntableau-2 QH KS\ntableau-3 KH\n"
    )

    # when
    greedy, _ = _one_pass(BestFirst, state, AGGRESSIVE)
    result = solve(state)

    # then: the greedy pass's exhaustion is no proof; the full search wins
    assert greedy == "lost"
    assert result.outcome == "won"
    assert result.line is not None
    assert replays_to_a_win(state, result.line)


@pytest.mark.parametrize("slug", launch_slugs())
def test_a_snapshot_restores_the_position_it_was_taken_of(slug: str) -> None:
    rng = random.Random(slug)
    variant = builtin_variant(slug)
    state = deal(variant, practice_seed("snapshot"))
    position = Position(Rules(variant, state.base_rank), state)
    packed = position.snapshot()
    key = position.key()
    for _ in range(30):
        moves = position.legal()
        if not moves:
            break
        _, source, target, count = rng.choice(moves)
        if source == DEAL:
            position.deal()
        elif source == REDEAL:
            position.redeal()
        else:
            position.transfer(source, target, count)

    position.restore(packed)

    assert position.to_state() == state
    assert position.key() == key
    assert position.won == state.won


def test_a_budget_that_runs_out_in_every_pass_gives_unknown_not_lost() -> None:
    state = deal(builtin_variant("castile"), practice_seed("bench-0"))

    result = solve(state, budget_nodes=300)

    assert result.outcome == "unknown"
    assert result.nodes <= 300
    with pytest.raises(Budget):
        Search(
            Position(Rules(state.variant, state.base_rank), state),
            autos=SAFE,
            nodes_left=10,
            deadline=1e18,
            clock=float,
        ).run()


@pytest.mark.parametrize("slug", ["canfield", "quadruple-canfield"])
def test_stock_macros_are_the_waste_tops_the_engines_deals_reach(slug: str) -> None:
    # given: positions along a random game of a variant whose stock deals to a waste
    rng = random.Random(slug)
    variant = builtin_variant(slug)
    state = deal(variant, practice_seed("macros"))
    for _ in range(25):
        rules = Rules(variant, state.base_rank)
        search = Search(Position(rules, state), autos=SAFE, nodes_left=1, deadline=0, clock=float)
        acc, tacc, any_empty = search.pos._accepting()

        # when
        macros = search._macros(acc, tacc, any_empty, search._waste_tops())

        # then: each is j deals of the engine and a legal play of the waste's top; none missing
        expected = set()
        dealt, recycles = state, 0
        for j in range(1, 500):
            if Deal() not in legal_moves(dealt):
                break
            stock_before = dealt.pile(variant.ids[rules.stock]).cards
            dealt = apply_move(dealt, Deal())
            if not stock_before:
                recycles += 1
                if recycles == 2:
                    break
            for move in legal_moves(dealt):
                if isinstance(move, Move) and move.source == variant.ids[rules.waste]:
                    expected.add((j, variant.ids.index(move.target)))
        assert {(j, target) for j, _, target, _ in macros} == expected
        assert len(macros) == len(expected)
        moves = legal_moves(state)
        state = apply_move(state, rng.choice(moves)) if moves else state


@pytest.mark.parametrize("slug", ["canfield", "klondike-draw-3", "klondike-draw-1"])
def test_deals_in_a_row_reach_the_engines_position_and_are_taken_back_exactly(slug: str) -> None:
    # given: positions along the stock, a run of deals from each that may turn the waste over
    variant = builtin_variant(slug)
    state = deal(variant, practice_seed("deals in a row"))
    rules = Rules(variant, state.base_rank)
    for _ in range(40):
        for j in (1, 2, 5, 9, 17):
            position = Position(rules, state)
            before = (position.snapshot(), position.key())

            # when
            record = position.deal_through(j)
            position.rekey_stock()
            dealt = position.to_state()
            key = position.key()
            position.undeal_through(record)
            position.rekey_stock()

            # then: the engine's j deals reach the same piles, and the same key as j single
            # deals; taking them back restores the position
            expected = state
            for _ in range(j):
                expected = apply_move(expected, Deal())
            assert dealt.piles == expected.piles
            assert (position.snapshot(), position.key()) == before
            singles = [position.deal() for _ in range(j)]
            assert position.key() == key
            for single in reversed(singles):
                position.undeal(single)
            assert (position.snapshot(), position.key()) == before
        state = apply_move(state, Deal())


@pytest.mark.parametrize("slug", ["canfield", "quadruple-canfield"])
def test_the_waste_tops_of_a_stock_cycle_are_those_the_engines_deals_show(slug: str) -> None:
    # given: every phase of the stock, dealt through (a full stock, a last deal of fewer
    # cards, an empty stock, the waste turned over, again)
    variant = builtin_variant(slug)
    state = deal(variant, practice_seed("waste-tops"))
    rules = Rules(variant, state.base_rank)
    stock, waste = variant.ids[rules.stock], variant.ids[rules.waste]
    phases = set()
    for step in range(3 * 80):
        left = len(state.pile(stock).cards)
        if step % 7 and left > 3:  # every seventh position, and each near the stock's end
            state = apply_move(state, Deal())
            continue
        phases.add(min(left, 4))
        search = Search(Position(rules, state), autos=SAFE, nodes_left=1, deadline=0, clock=float)

        # when
        tops = search._waste_tops()

        # then: the engine's deals show the same tops, up to the waste's second turn over
        expected = []
        dealt, turns = state, 0
        for j in range(1, 1000):
            if Deal() not in legal_moves(dealt):
                break
            if not dealt.pile(stock).cards:
                turns += 1
                if turns == 2:
                    break
            dealt = apply_move(dealt, Deal())
            shown = dealt.pile(waste).cards
            if shown:
                expected.append((j, shown[-1]))
        assert tops == expected
        if Deal() not in legal_moves(state):
            break
        state = apply_move(state, Deal())
    assert {0, 4} <= phases and phases & {1, 2}  # an empty stock; a last deal of fewer cards


def _engine_move(state: State, move: IMove) -> AnyMove:
    _, source, target, count = move
    if source == DEAL:
        return Deal()
    if source == REDEAL:
        return Redeal()
    ids = state.variant.ids
    return Move(ids[source], ids[target], count)


SHIPPED_SLUGS = [entry["slug"] for entry in catalogue()]
# The games won by clearing the tableau have a search of their own (test_rules_clearing.py).
SEARCHED_SLUGS = [slug for slug in SHIPPED_SLUGS if not builtin_variant(slug).clears_tableau]


@pytest.mark.parametrize("slug", SEARCHED_SLUGS)
def test_the_solvers_moves_agree_with_the_engine_on_random_positions(slug: str) -> None:
    rng = random.Random(slug)
    variant = builtin_variant(slug)
    for game in range(6):
        state = deal(variant, practice_seed(f"agree-{game}"))
        for _ in range(60):
            position = Position(Rules(variant, state.base_rank), state)
            moves = position.legal()
            engine = legal_moves(state)
            assert sorted(map(repr, (_engine_move(state, m) for m in moves))) == sorted(
                map(repr, engine)
            )
            if not moves:
                break
            chosen = rng.choice(moves)
            _, source, target, count = chosen
            if source == DEAL:
                record: object = position.deal()
            elif source == REDEAL:
                record = position.redeal()
            else:
                record = position.transfer(source, target, count)
            after = apply_move(state, _engine_move(state, chosen))
            assert position.to_state() == after
            # and the move is taken back exactly
            if source == DEAL:
                position.undeal(record)
            elif source == REDEAL:
                position.unredeal(record)
            else:
                assert isinstance(record, tuple)
                position.untransfer(record)
            assert position.to_state() == state
            state = after


def test_the_solve_command_prints_engine_mds_object_with_a_line_walk_replays() -> None:
    result = engine("solve", "quadruple-canfield", "--seed-text", "bench-0")

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert set(answer) == {"result", "moves", "nodes", "seconds"}
    assert answer["result"] == "won"
    walked = engine(
        "walk", "quadruple-canfield", "--seed-text", "bench-0", stdin=json.dumps(answer["moves"])
    )
    assert json.loads(walked.stdout)[-1]["won"] is True


def test_the_solve_command_reads_a_position_with_from_state() -> None:
    state = deal(builtin_variant("castile"), practice_seed("bench-3"))

    result = engine("solve", "castile", "--from-state", stdin=json.dumps(state_to_json(state)))

    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["result"] == "lost"
    assert answer["moves"] == []
    assert isinstance(answer["nodes"], int)
    assert isinstance(answer["seconds"], float)


def test_the_solve_command_says_unknown_when_its_budget_runs_out() -> None:
    result = engine("solve", "box-kite", "--seed-text", "bench-0", "--budget-nodes", "10")

    assert json.loads(result.stdout) == {
        "result": "unknown",
        "moves": [],
        "nodes": json.loads(result.stdout)["nodes"],
        "seconds": json.loads(result.stdout)["seconds"],
    }


def test_the_solve_command_refuses_an_unknown_variant() -> None:
    result = engine("solve", "no-such-game", "--seed-text", "x")

    assert result.returncode == 2
    assert "unknown variant" in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--budget-nodes", "0", "must be at least 1, not 0"),
        ("--budget-nodes", "-5", "must be at least 1, not -5"),
        ("--budget-nodes", "ten", "not a whole number: 'ten'"),
        ("--budget-seconds", "0", "must be more than 0 and finite, not 0"),
        ("--budget-seconds", "-1", "must be more than 0 and finite, not -1"),
        ("--budget-seconds", "nan", "must be more than 0 and finite, not nan"),
        ("--budget-seconds", "inf", "must be more than 0 and finite, not inf"),
        ("--budget-seconds", "soon", "not a number: 'soon'"),
    ],
)
def test_the_solve_command_refuses_a_budget_that_is_not_one(
    option: str, value: str, message: str
) -> None:
    # A budget of nothing would answer "unknown" at once, and NaN seconds would never end.
    result = engine("solve", "castile", "--seed-text", "x", option, value)

    assert result.returncode == 2
    assert f"argument {option}: {message}" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "budget",
    [
        {"budget_nodes": 0},
        {"budget_nodes": -1},
        {"budget_seconds": 0.0},
        {"budget_seconds": -2.0},
        {"budget_seconds": math.nan},
        {"budget_seconds": math.inf},
    ],
)
def test_solve_refuses_a_budget_that_is_not_one(budget: dict[str, float]) -> None:
    state = deal(builtin_variant("castile"), practice_seed("x"))

    with pytest.raises(ValueError, match="must be"):
        solve(state, **budget)


def _beleaguered_endgame_one_card_short(rng: random.Random) -> str:
    """Return a Beleaguered Castle board with each suit up to a random rank and the rest but
    one card dealt at random on six of the eight rows: no line wins, so a search visits every
    position it can reach."""
    lines, rest = _suits_up_to_random_ranks(rng, 10, 12)
    rows = [f"tableau-{i}" for i in rng.sample(range(8), 6)]
    lines += _scattered(rng, rest[1:], rows)
    return "\n".join(lines) + "\n"


def test_moves_to_empty_rows_are_tried_on_the_first_one_only(table) -> None:
    # given: three rows of Beleaguered Castle are empty
    castle = table("beleaguered-castle")
    state = castle.position(CASTILE_FOUNDATIONS + "tableau-2  KC JH\ntableau-5  KH QH\n")
    rules = Rules(state.variant, state.base_rank)
    search = Search(Position(rules, state), autos=SAFE, nodes_left=0, deadline=0, clock=float)
    empty = [rules.variant.ids.index(f"tableau-{i}") for i in (0, 1, 3, 4, 6, 7)]

    # when
    targets = {d for _, _, d, _ in search.children(None) if d in empty}
    search.one_empty_target = False
    every = {d for _, _, d, _ in search.children(None) if d in empty}

    # then
    assert targets == {empty[0]}
    assert every == set(empty)


def test_the_full_search_trying_one_empty_row_reaches_what_one_trying_each_reaches(table) -> None:
    # given: random Beleaguered Castle endgames with two or more empty rows and no win
    castle = table("beleaguered-castle")
    rng = random.Random("beleaguered endgames")
    made = [0, 0]
    for _ in range(20):
        state = castle.position(_beleaguered_endgame_one_card_short(rng))
        rules = Rules(state.variant, state.base_rank)

        # when: the pass that proves losses searches it all, with and without the pruning
        searches = []
        for one in (True, False):
            search = Search(
                Position(rules, state), autos=SAFE, nodes_left=300_000, deadline=1e18, clock=float
            )
            search.one_empty_target = one
            assert search.run()[0] == "lost"
            searches.append(search)

        # then: as many positions (keys are numbered per search, so only counts compare)
        pruned, every = searches
        assert len(pruned.seen) == len(every.seen)
        made[0] += pruned.made
        made[1] += every.made
    assert made[0] < made[1]


def test_the_deep_best_first_pass_weighs_buried_cards_the_foundations_need_twice() -> None:
    # given: a Box Kite deal, whose next foundation cards lie under others
    state = deal(builtin_variant("box-kite"), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)
    plain, deep, unweighted = (Position(rules, state) for _ in range(3))
    unweighted.depth_weight = 0

    # when
    BestFirst(plain, autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float)
    DeepBestFirst(deep, autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float)

    # then: the buried depth costs the deep estimate twice what it costs the plain one
    cost = unweighted.promise() - plain.promise()
    assert cost > 0
    assert unweighted.promise() - deep.promise() == 2 * cost


def test_the_estimate_counts_breaks_spaces_and_the_depth_of_the_cards_the_foundations_need(
    table,
) -> None:
    # given: a Klondike position: two clubs up, the Ace of hearts face down under three cards,
    # the 3 of clubs on top of a pile, three cards on one they do not build on, five spaces
    state = table("klondike-draw-3").position(
        """
        foundation-0 AC 2C
        tableau-0 (AH) KH QS JS
        tableau-1 5D 3C
        """
    )
    position = Position(Rules(state.variant, state.base_rank), state)

    # when: measured twice (the second time from the counts kept for each pile)
    first, second = position.promise(), position.promise()

    # then: 12 a card up, 3 off a break, 4 a space, and each foundation's nearest card's depth
    # weighed: the 3 of clubs (0) for the clubs, the Ace of hearts (3) for each empty one
    assert first == second == 12 * 2 - 3 * 3 + 4 * 5 - PROMISE_DEPTH * (0 + 3 * 3)


def test_keys_leave_out_face_down_counts_where_only_single_top_cards_move(table) -> None:
    # given: the same cards with one card more face down, in Box Kite (single cards) and
    # Canfield (sequences, where a face-down card cannot move with the others)
    keys = {}
    for slug, bases, pile in (
        ("box-kite", BOX_KITE_BASES, "tableau-0  (3C) {}9D 5H\ntableau-1  6S\n"),
        ("canfield", "", "tableau-0  (3C) {}9D 8C\ntableau-1  6S\n"),
    ):
        game = table(slug)
        first, second = (game.position(bases + pile.format(down)) for down in ("(4C) ", "4C "))
        position = Position(Rules(first.variant, first.base_rank), first)

        # when: one position object keys both (its pile numbers are its own)
        before = position.key()
        position.load(second.piles, position.redeals)
        keys[slug] = {before, position.key()}

    # then
    assert len(keys["box-kite"]) == 1
    assert len(keys["canfield"]) == 2


def _kite_endgame(rng: random.Random) -> str:
    """Return a Box Kite board with each foundation built to a random card and the few cards
    left dealt at random on one or two piles, some face down."""
    lines = []
    rest = []
    for f, suit in enumerate("CDHS"):
        down = rng.randint(9, 13)
        up = rng.randint(11, 13)
        lines.append(f"foundation-{f} " + " ".join(r + suit for r in RANKS[::-1][:down]))
        lines.append(f"foundation-{f + 4} " + " ".join(r + suit for r in RANKS[:up]))
        rest += [r + suit for r in RANKS[::-1][down:]] + [r + suit for r in RANKS[up:]]
    rng.shuffle(rest)
    dealt: dict[str, list[str]] = {}
    piles = rng.randint(0, 1)
    for card in rest:
        dealt.setdefault(f"tableau-{rng.randint(0, piles)}", []).append(card)
    for pile, cards in dealt.items():
        down = rng.randint(0, len(cards) - 1)
        words = [f"({c})" if i < down else c for i, c in enumerate(cards)]
        lines.append(f"{pile} " + " ".join(words))
    return "\n".join(lines) + "\n"


def test_the_full_search_keying_face_down_counts_or_not_agrees_on_random_endgames() -> None:
    # given: random endgames with face-down cards of Box Kite's rules with no foundation
    # return (so that a search ends on the lost ones too)
    document = builtin_rules("box-kite")
    document["foundation_return"] = "none"
    variant = compile_rules(document)
    rng = random.Random("kite endgames")
    outcomes = []
    for _ in range(40):
        state = parse(variant, _kite_endgame(rng))
        counts = []
        for hidden_in_keys in (False, True):
            rules = Rules(state.variant, state.base_rank)
            rules.keys_hidden = hidden_in_keys
            search = Search(
                Position(rules, state), autos=SAFE, nodes_left=300_000, deadline=1e18, clock=float
            )

            # when: the pass that proves losses searches each to the end
            outcome, _ = search.run()
            counts.append((outcome, len(search.seen)))

        # then: the same outcome, and a loss proved from no more positions
        (without, fewer), (with_hidden, more) = counts
        assert without == with_hidden
        if without == "lost":
            assert fewer <= more
        outcomes.append(without)
    assert {"won", "lost"} <= set(outcomes)


@pytest.mark.parametrize("slug", launch_slugs())
@pytest.mark.parametrize("mode", [SAFE, AGGRESSIVE])
def test_automatic_moves_after_a_move_between_other_piles_match_a_look_at_every_pile(
    slug: str, mode: int
) -> None:
    # given: positions along random games, each with no automatic move left
    rng = random.Random(f"{slug} {mode}")
    variant = builtin_variant(slug)
    checked = 0
    for game in range(4):
        state = deal(variant, practice_seed(f"autos-{game}"))
        rules = Rules(variant, state.base_rank)
        search = Search(Position(rules, state), autos=mode, nodes_left=0, deadline=0, clock=float)
        search.pos.autos([], mode)
        for _ in range(40):
            moves = search.children(None)
            if not moves:
                break
            before = search.pos.to_state()
            for move in moves:
                if move[0] or move[1] < 0:
                    continue  # deals: every pile is looked at
                # when: the search plays the move and its automatic moves
                log = search.apply(move)
                after = search.pos.to_state()
                search.undo(log)

                # then: they are those a look at every pile plays
                fresh = Position(rules, before)
                _, s, d, k = move
                fresh.transfer(s, d, k)
                fresh.autos([], mode)
                assert after == fresh.to_state()
                checked += 1
            search.apply(rng.choice(moves))
    assert checked > 100


def testlubys_sequence() -> None:
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def test_the_restarts_stop_each_run_after_its_share_and_win_in_another_order() -> None:
    # given: a deal no run wins within a share of 40 positions, with runs of 40, 40, 80…
    state = deal(builtin_variant("caprice"), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)
    search = Restarts(
        Position(rules, state), autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float
    )
    search.unit = 40
    steps = search.steps()

    # when: the pass expands the positions its first four runs are given
    for _ in range(40 + 40 + 80 + 40):
        next(steps)

    # then: the fifth run is under way, and the pass counts every run's positions
    next(steps)
    assert search.runs == 5
    assert search.nodes == 201

    # and: with a share its runs can finish in, the pass wins, and the line replays
    search = Restarts(
        Position(rules, state), autos=AGGRESSIVE, nodes_left=10**6, deadline=1e18, clock=float
    )
    search.unit = 200
    outcome, logs = search.run()
    assert outcome == "won"
    assert search.runs > 1
    assert replays_to_a_win(state, _line(rules, logs or []))


def _run_pass(
    kind: type[Search], rules: Rules, state: State, *, nodes: int, autos: int = SAFE
) -> tuple[Search, str, list[AnyMove]]:
    """Run one pass alone on ``state`` within ``nodes`` positions; return it, its outcome
    ("unknown" when the budget ran out) and its line."""
    search = kind(Position(rules, state), autos=autos, nodes_left=nodes, deadline=1e18, clock=float)
    try:
        outcome, logs = search.run()
    except Budget:
        return search, "unknown", []
    return search, outcome, _line(rules, logs or [])


def test_reweighted_runs_charge_face_down_cards_by_turns_and_win_a_deal_best_first_misses() -> None:
    # given: a Klondike deal the plain best-first pass does not win in 5,000 positions, over
    # the game without foundation returns, as ``solve`` searches it
    klondike = builtin_variant("klondike-draw-3")
    kept = replace(klondike, foundation_return=Return.NONE)
    state = deal(kept, practice_seed("bench-74"))
    rules = Rules(kept, state.base_rank)

    # when
    _, plain, _ = _run_pass(BestFirst, rules, state, nodes=5_000)
    reweighted, outcome, line = _run_pass(Reweighted, rules, state, nodes=5_000)

    # then: a later run, charging face-down cards, wins; its line is one of the real game
    assert plain == "unknown"
    assert outcome == "won"
    assert reweighted.runs > 1
    assert replays_to_a_win(deal(klondike, practice_seed("bench-74")), line)

    # and: run n charges the n-th weight, and the weights come round again
    assert [reweighted.next_run(state, n).hidden_weight for n in (1, 2, 8)] == [
        REVEAL_WEIGHTS[0],
        REVEAL_WEIGHTS[1],
        REVEAL_WEIGHTS[0],
    ]

    # and: each run breaks ties by its number, so a weight's later run takes another path
    # than its first, and a run is the same every time
    def path(number: int) -> list[Hashable]:
        run = reweighted.next_run(state, number)
        steps = run.steps()
        keys = []
        for _ in range(40):
            next(steps)
            keys.append(run.key())
        return keys

    assert all(reweighted.next_run(state, n).ties is not None for n in range(1, 8))
    assert path(2) == path(2)
    assert path(9) == path(9)
    assert path(2) != path(9)


@pytest.mark.parametrize(
    ("slug", "runs_it"),
    [
        ("klondike-draw-3", True),  # face-down cards, a stock dealing to a waste
        ("klondike-draw-1", True),
        ("yukon", True),  # face-down cards, one deck, no stock
        ("quadruple-canfield", False),  # no face-down cards on its tableau
        ("box-kite", False),  # face-down cards, but two decks
        ("spider-2-suits", False),  # a stock dealt to the tableau, runs to the foundations
    ],
)
def test_only_klondike_and_yukon_deals_get_the_reweighted_pass(slug: str, runs_it: bool) -> None:
    state = deal(builtin_variant(slug), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)
    face_down = any(state.piles[t].hidden for t in rules.tableau)

    kinds = [kind for kind, *_ in _passes(rules, face_down)]

    assert (Reweighted in kinds) is runs_it
    assert Reweighted not in [kind for kind, *_ in _passes(rules, False)]


def test_the_staged_pass_wins_a_four_suit_spider_deal_the_best_first_passes_miss() -> None:
    # given: a Spider (4 suits) deal, searched 24,000 positions by each greedy pass
    state = deal(builtin_variant("spider-4-suits"), practice_seed("bench-21"))
    rules = Rules(state.variant, state.base_rank)

    # when
    found = {
        kind: _run_pass(kind, rules, state, nodes=24_000, autos=AGGRESSIVE)[1:]
        for kind in (Staged, DeepBestFirst, Restarts)
    }

    # then: only the staged pass wins, with a line that replays
    outcome, line = found[Staged]
    assert outcome == "won"
    assert replays_to_a_win(state, line)
    assert [o for kind, (o, _) in found.items() if kind is not Staged] == ["unknown", "unknown"]
    assert Staged in [kind for kind, *_ in _passes(rules, True)]


class _BothPaths(Staged):
    """The staged pass, checking at every position that Spider's greedy path makes the moves
    the general one keeps, in its order: with no parent move, as the pass asks, and with each
    of the three best as the parent, whose undoing both leave out."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compared = 0
        self.differ = 0
        # What the moves compared did: cards moved, and where to (a "run" foundation, an
        # "empty" pile, a card of the same "suit", of an "other" one).
        self.sizes: set[int] = set()
        self.targets: set[str] = set()

    def children(self, parent: IMove | None) -> list[IMove]:
        moves = super().children(parent)
        cards = self.pos.cards
        for after in (parent, *moves[-3:]):
            self.runs_path = False
            general = super().children(after)
            self.runs_path = True
            fast = super().children(after)
            self.compared += 1
            self.differ += fast != general
            for _, s, d, k in fast:
                if s < 0:
                    continue
                self.sizes.add(k)
                if self.pos.r.is_foundation[d]:
                    self.targets.add("run")
                elif not cards[d]:
                    self.targets.add("empty")
                elif SUIT_OF[cards[d][-1]] == SUIT_OF[cards[s][-k]]:
                    self.targets.add("suit")
                else:
                    self.targets.add("other")
        return moves


def test_spiders_greedy_path_makes_the_moves_the_general_one_keeps() -> None:
    # given: a Spider (4 suits) deal the staged pass wins within 60,000 positions
    state = deal(builtin_variant("spider-4-suits"), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)

    # when: the pass runs, comparing both paths at every position it expands
    search, outcome, line = _run_pass(_BothPaths, rules, state, nodes=60_000, autos=AGGRESSIVE)

    # then: they never differ, over positions whose moves went everywhere a run may go
    assert isinstance(search, _BothPaths)
    assert search.runs_path
    assert search.compared > 10_000
    assert search.differ == 0
    assert {1, 2, 3, FOUNDATION_LIMIT} <= search.sizes
    assert search.targets == {"run", "empty", "suit", "other"}
    assert outcome == "won"
    assert replays_to_a_win(state, line)


def test_only_spider_takes_the_greedy_path_for_runs() -> None:
    for slug, takes_it in [
        ("spider-4-suits", True),
        ("spider-2-suits", True),
        ("klondike-draw-3", False),
        ("freecell", False),
        ("yukon", False),
    ]:
        state = deal(builtin_variant(slug), practice_seed("bench-0"))
        rules = Rules(state.variant, state.base_rank)
        greedy = Staged(
            Position(rules, state), autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float
        )
        full = Search(Position(rules, state), autos=SAFE, nodes_left=0, deadline=0, clock=float)
        assert (greedy.runs_path, full.runs_path) == (takes_it, False), slug


def test_the_staged_pass_grows_each_stages_share_and_the_positions_it_keeps_each_round() -> None:
    # given: a staged pass that keeps two positions a stage and gives a stage 100 positions
    state = deal(builtin_variant("spider-4-suits"), practice_seed("bench-5"))
    rules = Rules(state.variant, state.base_rank)

    class Probe(Staged):
        keep = 2
        unit = 100
        dealt_at: list[tuple[int, bool]] = []

        def apply(self, move: IMove) -> list[tuple[str, object]]:
            if move[1] == DEAL:
                self.dealt_at.append((self.nodes, self.ties is not None))
            return super().apply(move)

    # when: 1,100 positions: the first round's six stages, then the second's first stages
    _, outcome, _ = _run_pass(Probe, rules, state, nodes=1_100, autos=AGGRESSIVE)

    # then: two deals after each stage's 100 positions, rated as they are, the last stage
    # taking 300; then four after 150 in the second round, rated with a random draw
    assert outcome == "unknown"
    first = [(at, False) for at in (100, 100, 200, 200, 300, 300, 400, 400, 500, 500)]
    assert Probe.dealt_at == [*first, *[(950, True)] * 4]


def test_the_staged_passs_wider_rounds_and_cheaper_empty_piles_win_a_deal_repeatably() -> None:
    # given: a Spider (4 suits) deal; the staged pass with rounds as they were (every round
    # keeps the same eight positions a stage, rated the same way, and searches twice as deep);
    # and the staged pass whose empty piles earn as much while the stock deals as once it is
    # out (each must be filled again before a deal)
    state = deal(builtin_variant("spider-4-suits"), practice_seed("bench-61"))
    rules = Rules(state.variant, state.base_rank)

    class Deeper(Staged):
        widens = False

    class Alike(Staged):
        empty_dealing = SPIDER_EMPTY

    # when: each searches 35,000 positions (into the second round), the staged pass twice
    _, deeper, _ = _run_pass(Deeper, rules, state, nodes=35_000, autos=AGGRESSIVE)
    _, alike, _ = _run_pass(Alike, rules, state, nodes=35_000, autos=AGGRESSIVE)
    _, outcome, line = _run_pass(Staged, rules, state, nodes=35_000, autos=AGGRESSIVE)
    _, _, again = _run_pass(Staged, rules, state, nodes=35_000, autos=AGGRESSIVE)

    # then: only the pass with both wins, with a line that replays, the same line each time
    assert SPIDER_EMPTY_DEALING < SPIDER_EMPTY
    assert deeper == "unknown"
    assert alike == "unknown"
    assert outcome == "won"
    assert replays_to_a_win(state, line)
    assert again == line


def test_the_staged_passs_last_stage_gets_three_shares_and_wins_a_deal_the_first_round() -> None:
    # given: a Spider (4 suits) deal, and the staged pass whose last stage, once the stock is
    # out, gets one share like the others
    state = deal(builtin_variant("spider-4-suits"), practice_seed("bench-21"))
    rules = Rules(state.variant, state.base_rank)

    class OneShare(Staged):
        last = 1

    # when: each searches 24,000 positions, the first round with three shares for the last
    # stage (5 × 3,000 + 9,000)
    _, one_share, _ = _run_pass(OneShare, rules, state, nodes=24_000, autos=AGGRESSIVE)
    _, outcome, line = _run_pass(Staged, rules, state, nodes=24_000, autos=AGGRESSIVE)

    # then: only the pass with three shares wins, with a line that replays
    assert one_share == "unknown"
    assert outcome == "won"
    assert replays_to_a_win(state, line)


def test_the_staged_pass_keeps_off_the_positions_to_avoid() -> None:
    # given: a Spider game five moves into the staged pass's winning line, and the position
    # its sixth move leads to
    start = deal(builtin_variant("spider-4-suits"), practice_seed("bench-21"))
    rules = Rules(start.variant, start.base_rank)
    _, _, line = _run_pass(Staged, rules, start, nodes=24_000, autos=AGGRESSIVE)
    state = start
    for move in line[:5]:
        state = apply_move(state, move)
    played = apply_move(state, line[5])

    # when: told to keep off that position
    search = Staged(
        Position(rules, state), autos=AGGRESSIVE, nodes_left=24_000, deadline=1e18, clock=float
    )
    search.avoid = _avoid(state, [played], None)
    outcome, logs = search.run()

    # then: another winning line, which never enters it
    assert outcome == "won"
    other = _line(rules, logs or [])
    assert other[0] != line[5]
    reached = state
    for move in other:
        reached = apply_move(reached, move)
        assert reached != played
    assert reached.won


@pytest.mark.parametrize(("text", "wins"), [("bench-13", RoomyBestFirst), ("bench-43", BestFirst)])
def test_freecells_two_estimates_each_win_a_deal_the_other_misses(
    text: str, wins: type[Search]
) -> None:
    # given: a FreeCell deal, searched by the plain estimate and by the one that weighs free
    # cells and empty piles twice as heavily, 3,000 positions each
    state = deal(builtin_variant("freecell"), practice_seed(text))
    rules = Rules(state.variant, state.base_rank)

    # when
    found = {
        kind: _run_pass(kind, rules, state, nodes=3_000)[1:] for kind in (BestFirst, RoomyBestFirst)
    }

    # then: one wins with a line that replays, the other does not within the budget
    outcome, line = found[wins]
    assert outcome == "won"
    assert replays_to_a_win(state, line)
    assert [o for kind, (o, _) in found.items() if kind is not wins] == ["unknown"]
    assert [kind for kind, *_ in _passes(rules)] == [BestFirst, RoomyBestFirst, Search]


def test_a_restart_tries_the_moves_in_another_order() -> None:
    state = deal(builtin_variant("castile"), practice_seed("bench-0"))
    rules = Rules(state.variant, state.base_rank)
    orders = []
    for shuffle in (None, random.Random(2), random.Random(3)):
        search = Search(
            Position(rules, state), autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float
        )
        search.shuffle = shuffle
        orders.append(search.children(None))

    assert sorted(orders[0]) == sorted(orders[1]) == sorted(orders[2])
    assert len({tuple(order) for order in orders}) == 3


@pytest.mark.parametrize(
    ("slug", "shared"),
    [
        ("castile", True),  # down regardless of suit: a class is a rank
        ("box-kite", True),  # up or down regardless of suit
        ("quadruple-canfield", True),  # down in alternate colours: a class is rank and colour
        ("caprice", False),  # up or down in suit: each top card takes cards of its own
        ("capricieuse", False),
    ],
)
def test_tableau_piles_are_looked_up_by_class_of_top_card_where_top_cards_share_what_they_take(
    slug: str, shared: bool
) -> None:
    variant = builtin_variant(slug)
    rules = Rules(variant, deal(variant, practice_seed("keys")).base_rank)
    assert rules.shared_keys is shared
    # and whichever way, a card's tableau piles are those whose top card takes it
    state = deal(variant, practice_seed("keys"))
    position = Position(rules, state)
    acc, tacc, _ = position._accepting()
    for c in range(len(rules.tsucc)):
        expected = [
            t
            for t in rules.tableau
            if position.cards[t] and c in rules.tsucc[position.cards[t][-1]]
        ]
        found = [d for d in position.destinations(acc, tacc, c) if rules.is_tableau[d]]
        assert found == expected, c


CLUBS_TO_THE_EIGHT = """
    foundation-0  AC 2C 3C 4C 5C 6C 7C 8C
    foundation-1  AD
    foundation-2  AH
    foundation-3  AS
    """


def _castile_keys(table, *tableaus: str) -> list[tuple[bytes, bytes]]:
    """Return the exact and the coarse key of each Castile board (its foundations holding the
    Clubs up to the Eight and the other Aces), read by one position loaded with each in turn:
    both keys name pile contents by numbers of that position's own."""
    castile = table("castile")
    states = [castile.position(CLUBS_TO_THE_EIGHT + tableau) for tableau in tableaus]
    position = Position(Rules(states[0].variant, states[0].base_rank), states[0])
    keys = []
    for state in states:
        position.load(state.piles, -1)
        keys.append((position.key(), position.coarse_key()))
    return keys


def test_the_coarse_key_names_cards_no_foundation_takes_next_by_rank(table) -> None:
    # given: the Nines of Hearts and Spades trade places; no foundation takes either next
    one, other = _castile_keys(
        table,
        "tableau-0  KD 9H\ntableau-1  QS 9S\ntableau-2  TC\n",
        "tableau-0  KD 9S\ntableau-1  QS 9H\ntableau-2  TC\n",
    )

    # then: the exact keys differ, the coarse ones do not
    assert one[0] != other[0]
    assert one[1] == other[1]


def test_the_coarse_key_keeps_the_cards_the_foundations_take_next(table) -> None:
    # given: the Nine of Clubs, which the Clubs take next, trades places with the Nine of
    # Spades; then the Two of Hearts with the Two of Spades, each the next of its suit
    nines, swapped, twos, swapped_twos = _castile_keys(
        table,
        "tableau-0  KD 9C\ntableau-1  QS 9S\n",
        "tableau-0  KD 9S\ntableau-1  QS 9C\n",
        "tableau-0  KD 2H\ntableau-1  QS 2S\n",
        "tableau-0  KD 2S\ntableau-1  QS 2H\n",
    )

    # then
    assert nines[1] != swapped[1]
    assert twos[1] != swapped_twos[1]


def test_the_coarse_key_sees_a_foundation_move_and_sorts_interchangeable_piles(table) -> None:
    # given: the same piles on other rows; then the Nine of Clubs gone up (a later line for a
    # pile replaces the earlier one), which makes the Ten of Clubs the next card and leaves
    # the Nines alike
    one, turned, nines_up, nines_up_swapped = _castile_keys(
        table,
        "tableau-0  KD 9H TC\ntableau-1  QS 9S TD\n",
        "tableau-3  QS 9S TD\ntableau-5  KD 9H TC\n",
        "foundation-0  AC 2C 3C 4C 5C 6C 7C 8C 9C\ntableau-0  KD 9H TC\ntableau-1  QS 9S TD\n",
        "foundation-0  AC 2C 3C 4C 5C 6C 7C 8C 9C\ntableau-0  KD 9S TC\ntableau-1  QS 9H TD\n",
    )

    # then
    assert one == turned
    assert nines_up[1] != one[1]
    assert nines_up[1] == nines_up_swapped[1]


@pytest.mark.parametrize(
    ("slug", "coarse"),
    [
        ("castile", True),
        ("box-kite", False),  # two decks: measured no better, and slower
        ("caprice", False),  # builds in suit: a card's suit decides where it may lie
        ("capricieuse", False),
        ("quadruple-canfield", False),  # builds by colour, and a stock
    ],
)
def test_only_greedy_passes_use_the_coarse_key_and_only_where_builds_ignore_suit(
    slug: str, coarse: bool
) -> None:
    state = deal(builtin_variant(slug), practice_seed("keys"))
    rules = Rules(state.variant, state.base_rank)

    greedy = Search(Position(rules, state), autos=AGGRESSIVE, nodes_left=0, deadline=0, clock=float)
    full = Search(Position(rules, state), autos=SAFE, nodes_left=0, deadline=0, clock=float)

    assert rules.coarse_keys is coarse
    assert greedy.key == (greedy.pos.coarse_key if coarse else greedy.pos.key)
    assert full.key == full.pos.key  # a loss is proved on exact keys only


def test_restarts_on_coarse_keys_win_a_castile_deal_they_miss_on_exact_keys(
    monkeypatch,
) -> None:
    # given: a deal the shipped solver left undecided in 10 s before the greedy passes keyed
    # positions coarsely (practice seed train-9)
    state = deal(builtin_variant("castile"), practice_seed("train-9"))
    rules = Rules(state.variant, state.base_rank)

    def restarts() -> tuple[str, list[AnyMove]]:
        return _run_pass(Restarts, rules, state, nodes=30_000, autos=AGGRESSIVE)[1:]

    # when: the pass alone, within 30,000 positions, on coarse keys, then on exact ones
    coarse, line = restarts()
    exact_init = Search.__init__

    def exact_keys(search: Search, pos: Position, **options: Any) -> None:
        exact_init(search, pos, **options)
        search.key = pos.key

    monkeypatch.setattr(Search, "__init__", exact_keys)
    exact, _ = restarts()

    # then: the coarse keys' line is a real one
    assert (coarse, exact) == ("won", "unknown")
    assert replays_to_a_win(state, line)


# --- a game's hint: no move taken back, no position played again ----------------------------


def _taken_back(move: AnyMove) -> AnyMove | None:
    return Move(move.target, move.source, move.count) if isinstance(move, Move) else None


def _detours(
    slug: str, texts: tuple[str, ...] = ("bench-0", "bench-1", "bench-2")
) -> list[tuple[list[State], Move]]:
    """Return games that followed the solver's line of a deal (of each of ``texts``) for a
    while, then made a move of their own that can be taken back: each game's positions, the
    last one after that move."""
    games = []
    rng = random.Random(slug)
    for text in texts:
        start = deal(builtin_variant(slug), practice_seed(text))
        line = solve(start, budget_nodes=20_000).line
        assert line is not None
        for ply in range(0, len(line), len(line) // 5):
            positions = [start]
            for move in line[:ply]:
                positions.append(apply_move(positions[-1], move))
            own = [
                m
                for m in legal_moves(positions[-1])
                if isinstance(m, Move) and m != line[ply] and _can_take_back(positions[-1], m)
            ]
            if own:
                detour = rng.choice(own)
                games.append(([*positions, apply_move(positions[-1], detour)], detour))
    return games


def _can_take_back(state: State, move: Move) -> bool:
    back = _taken_back(move)
    assert back is not None
    return back in legal_moves(apply_move(state, move))


@pytest.mark.parametrize("slug", ["castile", "caprice"])
def test_a_line_never_takes_the_last_move_back_nor_comes_back_to_a_position_played(slug) -> None:
    # given: games that left the solver's line by a move that can be taken back
    games = _detours(slug)
    came_back = won = 0
    for positions, last in games:
        state = positions[-1]
        free = solve(state, budget_nodes=3000)
        if free.outcome == "won" and free.line:
            first = free.line[0]
            came_back += first == _taken_back(last) or apply_move(state, first) in positions

        # when: the same search, told the game's last move, then its positions too
        after = solve(state, budget_nodes=3000, after=last)
        result = solve(state, budget_nodes=3000, avoid=positions, after=last)

        # then: lines that win without taking the move back (nor playing a position again)
        if after.outcome == "won":
            assert after.line
            assert after.line[0] != _taken_back(last)
            assert replays_to_a_win(state, after.line)
        if result.outcome != "won":
            continue
        won += 1
        assert result.line is not None
        assert result.line[0] != _taken_back(last)
        reached = state
        for move in result.line:
            reached = apply_move(reached, move)
            assert reached not in positions
        assert reached.won
    # and without being told, the search would have done one or the other in some of them
    assert won >= len(games) * 3 // 4
    assert came_back >= 3


def test_a_klondike_line_told_the_positions_played_keeps_off_them_with_the_reweighted_runs():
    # given: Klondike games that left the solver's line by a move that can be taken back,
    # with cards still face down (so the reweighted runs search beside the full search)
    games = _detours("klondike-draw-3", ("bench-0", "bench-4", "bench-5"))
    won = 0
    for positions, last in games:
        state = positions[-1]
        rules = Rules(state.variant, state.base_rank)
        face_down = any(state.piles[t].hidden for t in rules.tableau)
        assert (Reweighted in [kind for kind, *_ in _passes(rules, face_down)]) is face_down

        # when
        result = solve(state, budget_nodes=5000, avoid=positions, after=last)

        # then: a winning line that neither takes the move back nor plays a position again,
        # but for the deals it makes on its way to a waste card
        if result.outcome != "won":
            continue
        won += 1
        assert result.line
        assert result.line[0] != _taken_back(last)
        reached = state
        for move in result.line:
            reached = apply_move(reached, move)
            assert isinstance(move, Deal) or reached not in positions
        assert reached.won
    assert len(games) >= 10
    assert won >= len(games) * 3 // 4


def test_klondike_without_foundation_returns_also_gets_reweighted_runs_with_greedy_autos() -> None:
    # given: Blake & Gent's Klondike (draw 3, no foundation returns) and its deal bench-134,
    # which the reweighted runs with the provably safe automatic moves alone do not win soon
    kept = replace(builtin_variant("klondike-draw-3"), foundation_return=Return.NONE)
    state = deal(kept, practice_seed("bench-134"))
    rules = Rules(kept, state.base_rank)

    # when
    _, safe, _ = _run_pass(Reweighted, rules, state, nodes=30_000)
    _, greedy, line = _run_pass(Reweighted, rules, state, nodes=30_000, autos=AGGRESSIVE)

    # then: the runs with the greedy automatic moves win it, and ``solve`` runs them too
    assert safe == "unknown"
    assert greedy == "won"
    assert replays_to_a_win(state, line)
    runs = [(kind, autos) for kind, _, autos, *_ in _passes(rules, True)]
    assert (Reweighted, SAFE) in runs
    assert (Reweighted, AGGRESSIVE) in runs
