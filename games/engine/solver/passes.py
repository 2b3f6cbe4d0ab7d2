"""
The search runs on its own compact, mutable copy of the position (lists of card codes per pile,
changed in place and changed back), with its own move generation, checked against the engine's
``legal_moves``/``apply_move`` by the tests. Techniques, after the generic patience solvers:

- a transposition table on an exact canonical key: each pile's content is interned as a small
  integer; piles the rules make interchangeable (tableau piles, reserves, foundations of the same
  rule) are sorted before the integers are packed into one bytes key; where only single top
  cards move (no sequences, no redeal hook), face-down counts are left out of it; the greedy
  passes of one-deck games whose tableau builds ignore suit key more coarsely, naming each card
  no foundation takes next by its rank alone (``Position.coarse_key``: it may miss a win,
  never claim a false one);
- in the full search with a stock dealing several cards at a time to a waste and turned over
  without limit, no position that deals alone reach from one searched (``Search.dominated``);
- positions no line can win, found on a relaxation of the rules (``blocked.Blocking``): ``solve``
  answers ``lost`` at once for one, and the depth-first passes leave them out;
- in Klondike and Yukon, no sideways move (cards taken off a face-up card) after which the card
  uncovered could not be used by the next move (``Search._uses``);
- safe automatic foundation moves (dominance), played as part of the move before them and never
  searched as a choice; only provably safe ones are used when a ``lost`` result is possible
  (where cards may come back from the foundations, only in one-deck games whose foundations
  build up in suit, for a card whose lower cards are all up: ``_safe_returning``);
- macro moves through the stock: with a stock dealing to a waste, the search never deals on its
  own: it plays "deal k times, then play the waste's top card", for every k of one stock cycle;
- move ordering (foundation moves, reveals and emptied piles first), never undoing the
  parent move, and a move to an empty tableau pile tried on the first empty one only where
  the key sorts the tableau (the same position);
- passes that take turns by slices of work (positions made): a depth-first and two
  best-first passes (the most promising position first, by ``promise``; the second weighs the
  buried cards the foundations take next twice as heavily) with greedy automatic moves where
  those differ from the safe ones, which may only prove a win, and the full search, whose
  exhaustion is a proof of loss (where the greedy moves are the safe ones, the best-first pass
  is a full search too). Where a foundation's top card may come back and a stock deals to a
  waste (Klondike), or the tableau of a one-deck game without a stock has face-down cards
  (Yukon), best-first runs search the same game without returns, whose lines are lines of the
  game too, each charging face-down cards a weight of its own (``Reweighted``). With free
  cells, a second best-first pass weighs them twice (``RoomyBestFirst``). Spider's greedy pass
  searches in stages between the stock's deals (``Staged``): each stage has its share of
  positions (the last, once the stock is out, three), rated by Spider's own measure
  (``search.spider_promise``, where an empty pile earns less while the stock still deals),
  before its most promising positions deal; each round after the first gives the stages half
  as many positions again and deals from twice as many, drawn with a seeded random term added
  to the measure. Budgets are counted on a clock the caller gives, CPU time by default.

The line of a ``won`` result holds moves a player could send (no undo), and replays with the
engine from the given position to a won one. A game's hint passes ``avoid`` and ``after``
(``Avoid``): the positions to avoid go into each pass's table before it starts, and the first
moves ruled out are struck from the starting position's moves. Every call builds its own
tables: there is no mutable global state, so calls may run in several threads at once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..moves import AnyMove, Deal, Move, Redeal
from ..play import apply_move, legal_moves
from ..rules import (
    Return,
)
from ..state import State
from .blocked import blocking_for
from .clearing import solve_clearing
from .position import Position, redeals_left
from .search import (
    Avoid,
    BestFirst,
    Budget,
    DeepBestFirst,
    Outcome,
    Restarts,
    Reweighted,
    RoomyBestFirst,
    Search,
    Staged,
)
from .tables import AGGRESSIVE, SAFE, Rules, tables_for

DEFAULT_NODES = 1_000_000
DEFAULT_SECONDS = 60.0


@dataclass(frozen=True)
class SolveResult:
    """What ``solve`` found.

    ``outcome`` is ``"won"`` (``line`` is a complete winning line from the position),
    ``"lost"`` (the whole reachable game was searched: no line wins) or ``"unknown"`` (a budget
    ran out; ``line`` is None). ``nodes`` counts the positions expanded by every pass (one
    that several passes, or several restarts, expand counts for each), ``seconds`` the time
    spent, on the clock ``solve`` was given (CPU time by default). ``made`` counts every
    position made by a move and looked up in a transposition table (the expanded ones, and
    those found already searched).
    """

    outcome: Outcome
    line: list[AnyMove] | None
    nodes: int
    seconds: float
    made: int = 0


def _line(rules: Rules, logs: list[list[tuple[str, object]]]) -> list[AnyMove]:
    ids = rules.variant.ids
    line: list[AnyMove] = []
    for log in logs:
        for kind, record in log:
            if kind == "d":
                line.append(Deal())
            elif kind == "w":
                assert isinstance(record, tuple)
                line.extend(Deal() for _ in range(record[0]))
            elif kind == "r":
                line.append(Redeal())
            else:
                assert isinstance(record, tuple)
                s, d, k = record[0], record[1], record[2]
                line.append(Move(ids[s], ids[d], k))
    return line


# A pass: its kind, the rules it searches, its automatic moves, its quantum of work a turn,
# and whether its end without a win proves a loss.
Pass = tuple[type[Search], Rules, int, int, bool]


def _without_returns(rules: Rules) -> Rules:
    """Return the tables of the same game with no foundation returns: its lines are lines of
    ``rules`` too, and its automatic moves are provably safe."""
    return tables_for(replace(rules.variant, foundation_return=Return.NONE), rules.base_rank)


def _passes(rules: Rules, face_down: bool = False) -> list[Pass]:
    """Return the passes ``solve`` runs for ``rules``, on a position with cards face down on
    the tableau or not (``face_down``)."""
    # Klondike: short best-first runs under several estimates (``Reweighted``) win deals that
    # one estimate misses for its whole budget, over the game without foundation returns.
    reweighted = rules.macro and rules.redeal_hook is None and face_down
    if rules.runs:
        # Spider: the staged pass, between deals (``Staged``), and the full search beside.
        return [(Staged, rules, AGGRESSIVE, 16384, False), (Search, rules, SAFE, 1024, True)]
    if rules.back is Return.NONE and rules.redeal_hook is None:
        if reweighted:
            # Klondike without foundation returns (Blake & Gent's rule): reweighted runs with
            # the greedy automatic moves too, beside those with the safe ones. On bench-0 …
            # bench-199 at 30 s a deal, measured at the same time of day, this won 155 deals
            # where the three other passes alone won 154 (docs/winrates.md, "Sideways moves").
            return [
                (Reweighted, rules, SAFE, 16384, False),
                (Reweighted, rules, AGGRESSIVE, 8192, False),
                (BestFirst, rules, SAFE, 8192, True),
                (Search, rules, SAFE, 4096, True),
            ]
        if rules.cells:
            # FreeCell: two estimates, each winning deals the other misses for long.
            return [
                (BestFirst, rules, SAFE, 4096, True),
                (RoomyBestFirst, rules, SAFE, 4096, True),
                (Search, rules, SAFE, 2048, True),
            ]
        return [(BestFirst, rules, SAFE, 4096, True), (Search, rules, SAFE, 4096, True)]
    if rules.macro and rules.redeal_hook is None:
        # Klondike, where a foundation's top card may come back: a line that never takes a
        # card back is a line of these rules too, and the game without returns has provably
        # safe automatic moves, so best-first passes over it find many wins soonest.
        kept = _without_returns(rules)
        if reweighted:
            # With face-down cards, the reweighted runs and the full search share the work
            # evenly: on bench-0 … bench-99 at 10 s a deal, this pair decided 86 deals, where
            # the four passes below decided 82 (the full search alone wins 69 of them).
            return [(Reweighted, kept, SAFE, 8192, False), (Search, rules, SAFE, 8192, True)]
        return [
            (BestFirst, kept, SAFE, 16384, False),
            (Restarts, rules, AGGRESSIVE, 8192, False),
            (BestFirst, rules, AGGRESSIVE, 4096, False),
            (Search, rules, SAFE, 2048, True),
        ]
    if face_down and rules.stock is None and rules.decks == 1 and rules.redeal_hook is None:
        # Yukon: the restarts, the reweighted runs over the game without foundation returns
        # and the full search, evenly. On bench-0 … bench-99 at 10 s a deal this decided 85
        # deals, where the four passes below decided 83: alone, the full search proves some
        # deals lost in 2–4 s, past its share of 10 s there.
        kept = _without_returns(rules)
        return [
            (Restarts, rules, AGGRESSIVE, 8192, False),
            (Reweighted, kept, SAFE, 8192, False),
            (Search, rules, SAFE, 8192, True),
        ]
    return [
        (Restarts, rules, AGGRESSIVE, 8192, False),
        (BestFirst, rules, AGGRESSIVE, 4096, False),
        (DeepBestFirst, rules, AGGRESSIVE, 4096, False),
        (Search, rules, SAFE, 2048, True),
    ]


def _reverse(move: AnyMove | None) -> AnyMove | None:
    """Return the move that takes ``move``'s cards back, if it moved cards."""
    return Move(move.target, move.source, move.count) if isinstance(move, Move) else None


def _avoid(state: State, avoid: Iterable[State], after: AnyMove | None) -> Avoid | None:
    """Return what ``avoid`` and ``after`` rule out from ``state``, or None for nothing."""
    positions = {(s.piles, redeals_left(s)) for s in avoid}
    first: set[AnyMove] = set()
    reverse = _reverse(after)
    if reverse is not None:
        first.add(reverse)
    if positions:
        for move in legal_moves(state):
            reached = apply_move(state, move)
            if (reached.piles, redeals_left(reached)) in positions:
                first.add(move)
    if not first and not positions:
        return None
    return Avoid(first, sorted(positions, key=repr))


def solve(
    state: State,
    *,
    budget_nodes: int | None = None,
    budget_seconds: float | None = None,
    clock: Callable[[], float] = time.process_time,
    avoid: Iterable[State] = (),
    after: AnyMove | None = None,
) -> SolveResult:
    """Search ``state`` with full information and return a ``SolveResult``.

    Solve a deal with ``solve(deal(variant, seed))``. ``budget_nodes`` bounds the positions
    expanded, ``budget_seconds`` the seconds of ``clock``; give either or both. Without either,
    the search stops at 1,000,000 nodes or 60 s. When a budget runs out, the outcome is
    ``"unknown"``. ``clock`` defaults to the CPU time of the process (``time.process_time``), so
    a budget means the same work on a busy machine; a caller whose budget is a wait (a request)
    passes a wall clock such as ``time.monotonic``. A budget of no nodes, or of seconds that
    are not more than 0 and finite, raises ``ValueError``.

    A game's hint passes ``avoid``, the positions the game has been in, and ``after``, the move
    that led to ``state``: a ``won`` line then never enters one of those positions (after any
    of its moves and the automatic ones it brings; its first move alone, exactly) and never
    starts by taking ``after``'s cards back. The deals a line makes through a stock on the way
    to the waste card it plays are the exception: a game that has turned its stock over has
    been in every position those deals pass, so only the position after the card is played
    counts. ``lost`` then means that no winning line keeps to that, not that none is left at
    all.
    """
    if budget_nodes is not None and budget_nodes < 1:
        raise ValueError(f"budget_nodes must be at least 1, not {budget_nodes}")
    if budget_seconds is not None and not (math.isfinite(budget_seconds) and budget_seconds > 0):
        raise ValueError(f"budget_seconds must be more than 0 and finite, not {budget_seconds}")
    start = clock()
    if budget_nodes is None and budget_seconds is None:
        budget_nodes, budget_seconds = DEFAULT_NODES, DEFAULT_SECONDS
    nodes_limit = budget_nodes if budget_nodes is not None else 1 << 62
    deadline = start + budget_seconds if budget_seconds is not None else float("inf")
    if state.won:
        return SolveResult("won", [], 0, clock() - start)
    ruled_out = _avoid(state, avoid, after)
    if state.variant.clears_tableau:
        found = solve_clearing(
            state, nodes_limit=nodes_limit, deadline=deadline, clock=clock, avoid=ruled_out
        )
        return SolveResult(found[0], found[1], found[2], clock() - start, found[3])
    rules = tables_for(state.variant, state.base_rank)
    blocking = blocking_for(rules)
    if blocking is not None:
        root = Position(rules, state)
        if blocking.blocked(root.cards, root.hidden):
            return SolveResult("lost", None, 0, clock() - start)
    # The passes take turns, each making its quantum of positions in a turn, so a deal one of
    # them wins quickly is won quickly. The streamlined passes play automatic moves that are
    # only likely safe: they may prove a win, never a loss; they are needed only where such
    # moves differ from the provably safe ones. A best-first pass and a depth-first one find
    # different wins, so both run; the full search, whose exhaustion proves a loss, runs beside.
    running = []
    face_down = any(state.piles[t].hidden for t in rules.tableau)
    for kind, searched, autos, quantum, proves in _passes(rules, face_down):
        search = kind(Position(searched, state), autos=autos, nodes_left=0, deadline=0, clock=clock)
        search.avoid = ruled_out
        running.append((search, search.steps(), proves, quantum))
    searches = [turn[0] for turn in running]

    def made() -> int:
        return sum(search.made for search in searches)

    nodes = 0
    check = 0
    while running:
        for turn in list(running):
            search, steps, proves, quantum = turn
            until = search.work + quantum
            try:
                while search.work < until:
                    next(steps)
                    nodes += 1
                    if nodes >= nodes_limit:
                        return SolveResult("unknown", None, nodes, clock() - start, made())
                    check += 1
                    if check >= 64:
                        check = 0
                        if clock() >= deadline:
                            return SolveResult("unknown", None, nodes, clock() - start, made())
            except StopIteration as stop:
                outcome, logs = stop.value
                if outcome == "won":
                    assert logs is not None
                    return SolveResult("won", _line(rules, logs), nodes, clock() - start, made())
                if proves:
                    return SolveResult("lost", None, nodes, clock() - start, made())
                running.remove(turn)
            except Budget:
                running.remove(turn)
    return SolveResult("unknown", None, nodes, clock() - start, made())


__all__ = ["SolveResult", "solve"]
