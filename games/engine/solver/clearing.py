"""The search for the clearing games: those won by clearing the tableau (Golf, TriPeaks, Pyramid).

They are small: at most a few dozen tableau cards, each leaving its pile once, and a stock dealt
through a few times. A depth-first search on a compact copy of the position (the tableau piles'
heights, the stock and the waste as tuples), with a table of the positions already searched,
decides them: its exhaustion proves a loss. Its key names the waste by its top card's rank alone
where the waste only grows and takes cards regardless of suit (Golf, TriPeaks): only that rank
decides what may follow. A tableau card that no card left in play can ever let go (no card of a
neighbouring rank for the waste; no partner for a pair, or none but cards it covers or that
cover it) proves the position lost at once. A card removed alone pairs with nothing: where one
can be, that is the only move searched (a dominance). Moves that clear a tableau card are tried
before a deal.

The won line is made of the engine's moves; the tests replay it with the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..building import builds
from ..cards import CARDS_PER_DECK, RANK_OF
from ..moves import AnyMove, Deal, Move
from ..rules import SuitRule
from ..state import State
from .search import Avoid, Outcome

Found = tuple[Outcome, list[AnyMove] | None, int, int]
"""What ``solve_clearing`` found: outcome, winning line, positions expanded and made."""

# Internal moves: (kind, a, b). TO_WASTE: tableau pile a onto the waste; ALONE: tableau pile a
# (or the waste, a = -1) onto the discard pile; PAIR: tableau piles a and b (b = -1: the
# waste's top card); DEAL: the stock's deal (or its redeal).
TO_WASTE, ALONE, PAIR, DEAL = 0, 1, 2, 3
WASTE = -1


class _Stop(Exception):
    """The budget ran out."""


class Clearing:
    """A clearing game's position, changed in place by the search and changed back."""

    def __init__(self, state: State) -> None:
        variant = state.variant
        self.variant = variant
        self.tableau = variant.tableau
        self.cards = [state.piles[i].cards for i in self.tableau]
        self.heights = [len(cards) for cards in self.cards]
        offset = self.tableau[0]
        self.covered_by = [
            tuple(k - offset for k in variant.piles[i].covered_by) for i in self.tableau
        ]
        stock_i, waste_i = variant.stock_index, variant.waste_index
        self.stock: tuple[int, ...] = state.piles[stock_i].cards if stock_i is not None else ()
        self.waste: tuple[int, ...] = state.piles[waste_i].cards if waste_i is not None else ()
        self.redeals = -1 if state.redeals_left is None else state.redeals_left
        self.stock_shrinks = self.redeals == 0
        # The ranks of the cards in the tableau, kept up to date by ``play`` and ``unplay``;
        # the ranks in the stock by its size where it only shrinks.
        self.tableau_ranks = [0] * 15
        for p, height in enumerate(self.heights):
            for c in self.cards[p][:height]:
                self.tableau_ranks[RANK_OF[c]] += 1
        self.stock_ranks: list[list[int]] = []
        if self.stock_shrinks:
            ranks = [0] * 15
            self.stock_ranks.append(list(ranks))
            for c in self.stock:
                ranks[RANK_OF[c]] += 1
                self.stock_ranks.append(list(ranks))
        rule = variant.stock
        self.deal_cards = rule.cards if rule is not None else 0
        self.has_stock = rule is not None
        build = rule.waste_build if rule is not None else None
        self.takes = (
            [[builds(build, w, c) for c in range(CARDS_PER_DECK)] for w in range(CARDS_PER_DECK)]
            if build is not None
            else None
        )
        self.pairs = variant.pairs
        # The waste's top card decides alone what may follow, and only by its rank, where the
        # waste only grows (no pairs) and takes cards regardless of suit.
        self.rank_only = build is not None and build.suit is SuitRule.ANY and self.pairs is None
        self.wrap = build is not None and build.wrap
        # For each tableau pile, the piles it covers or is covered by, at any remove: no card
        # of one pairs with a card of the other (one must leave before the other plays).
        over: list[set[int]] = [set(c) for c in self.covered_by]
        for p in reversed(range(len(over))):
            for q in list(over[p]):
                over[p] |= over[q]
        self.related = [
            frozenset(over[p] | {q for q in range(len(over)) if p in over[q]})
            for p in range(len(over))
        ]
        self.single_cards = all(len(cards) <= 1 for cards in self.cards)
        self.layered = any(self.covered_by)
        # For each tableau pile, the piles it covers, and how many non-empty piles cover it.
        self.covers = [
            tuple(q for q in range(len(self.cards)) if p in self.covered_by[q])
            for p in range(len(self.cards))
        ]
        self.blockers = [sum(1 for k in over if self.heights[k]) for over in self.covered_by]
        # Where each tableau pile holds one card: the rank a pair needs with it (0 for a card
        # removed alone, whose count of 0 never fails), and the piles that could give it.
        total = variant.pairs or 0
        ranks = [RANK_OF[cards[0]] if cards else 0 for cards in self.cards]
        self.pair_rank = [0 if r == total else total - r for r in ranks]
        self.partners = [
            tuple(
                q
                for q in range(len(ranks))
                if q != p and q not in self.related[p] and ranks[q] == self.pair_rank[p]
            )
            for p in range(len(ranks))
        ]
        self.neighbours = [
            [other for other in range(1, 14) if build is not None and _near(build.wrap, r, other)]
            for r in range(14)
        ]

    def free(self, p: int) -> bool:
        """Return whether tableau pile ``p`` has a card that plays (not covered)."""
        return bool(self.heights[p]) and not self.blockers[p]

    def _lower(self, p: int) -> None:
        """Take the top card off tableau pile ``p``: the piles it covered lose a blocker when
        it empties."""
        self.heights[p] -= 1
        self.tableau_ranks[RANK_OF[self.cards[p][self.heights[p]]]] -= 1
        if not self.heights[p]:
            for q in self.covers[p]:
                self.blockers[q] -= 1

    def _raise(self, p: int) -> None:
        """Put the top card of tableau pile ``p`` back (``_lower`` undone)."""
        if not self.heights[p]:
            for q in self.covers[p]:
                self.blockers[q] += 1
        self.tableau_ranks[RANK_OF[self.cards[p][self.heights[p]]]] += 1
        self.heights[p] += 1

    def key(self) -> Hashable:
        waste = self.waste
        if self.rank_only and self.redeals == 0:
            top: Hashable = RANK_OF[waste[-1]] if waste else -1
        else:
            top = waste
        # Without a redeal, ever, the stock only loses cards from its top: its size names it.
        stock: Hashable = len(self.stock) if self.stock_shrinks else self.stock
        return (tuple(self.heights), stock, top, self.redeals)

    def won(self) -> bool:
        return not any(self.heights)

    def moves(self, every: bool = False) -> list[tuple[int, int, int]]:
        """Return the moves of the position, clearing moves first, in a good order; where a
        card may be removed alone, that move only, unless ``every``."""
        out: list[tuple[int, int, int]] = []
        if self.layered:
            free = [p for p in range(len(self.heights)) if self.free(p)]
        else:
            free = [p for p, height in enumerate(self.heights) if height]
        waste = self.waste
        if self.takes is not None and waste:
            row = self.takes[waste[-1]]
            for p in free:
                if row[self.cards[p][self.heights[p] - 1]]:
                    out.append((TO_WASTE, p, 0))
        if self.pairs is not None:
            total = self.pairs
            tops = [(p, RANK_OF[self.cards[p][self.heights[p] - 1]]) for p in free]
            # A card removed alone never spoils a game (it pairs with nothing): the one move.
            alone = [(ALONE, p, 0) for p, r in tops if r == total]
            if waste and RANK_OF[waste[-1]] == total:
                alone.append((ALONE, WASTE, 0))
            if alone and not every:
                return alone[:1]
            out.extend(alone)
            for k, (p, r) in enumerate(tops):
                for q, s in tops[k + 1 :]:
                    if r + s == total:
                        out.append((PAIR, p, q))
            if waste:
                w = RANK_OF[waste[-1]]
                for p, r in tops:
                    if r + w == total:
                        out.append((PAIR, p, WASTE))
        if self.has_stock and (self.stock or (waste and self.redeals != 0)):
            out.append((DEAL, 0, 0))
        return out

    def play(self, move: tuple[int, int, int]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """Make ``move``; return what ``unplay`` needs (the stock, waste and redeals before)."""
        saved = (self.stock, self.waste, self.redeals)
        kind, a, b = move
        if kind == TO_WASTE:
            self._lower(a)
            self.waste = (*self.waste, self.cards[a][self.heights[a]])
        elif kind == DEAL:
            if self.stock:
                n = min(self.deal_cards, len(self.stock))
                self.waste = self.waste + self.stock[-n:][::-1]
                self.stock = self.stock[:-n]
            else:
                self.stock = self.waste[::-1]
                self.waste = ()
                if self.redeals > 0:
                    self.redeals -= 1
        else:
            for p in (a, b) if kind == PAIR else (a,):
                if p == WASTE:
                    self.waste = self.waste[:-1]
                else:
                    self._lower(p)
        return saved

    def unplay(
        self, move: tuple[int, int, int], saved: tuple[tuple[int, ...], tuple[int, ...], int]
    ) -> None:
        kind, a, b = move
        self.stock, self.waste, self.redeals = saved
        if kind == TO_WASTE:
            self._raise(a)
        elif kind != DEAL:
            for p in (a, b) if kind == PAIR else (a,):
                if p != WASTE:
                    self._raise(p)

    def hopeless(self) -> bool:
        """Return whether some tableau card can never leave: a proof of loss.

        Where the waste takes cards one rank up or down, a tableau card needs a card of a
        neighbouring rank on the waste's top, now or later: from the stock, the waste (where it
        is turned again) or the tableau. With pairs, a card other than one of rank ``total``
        needs a partner left in play.
        """
        tableau = self.tableau_ranks
        if self.stock_shrinks:
            stock = self.stock_ranks[len(self.stock)]
            counts = [t + u for t, u in zip(tableau, stock, strict=True)]
        else:
            counts = list(tableau)
            for c in self.stock:
                counts[RANK_OF[c]] += 1
        if self.redeals != 0 or self.pairs is not None:
            for c in self.waste:
                counts[RANK_OF[c]] += 1
        if self.pairs is not None:
            return self._unpaired(counts, {r for r in range(1, 14) if tableau[r]})
        top = RANK_OF[self.waste[-1]] if self.waste else 0
        neighbours = self.neighbours
        for r in range(1, 14):
            if tableau[r]:
                near = neighbours[r]
                if top not in near and not (counts[near[0]] or (len(near) > 1 and counts[near[1]])):
                    return True
        return False

    def _unpaired(self, counts: list[int], needed: set[int]) -> bool:
        """Return whether a tableau card has no partner left that it could ever meet: none in
        the stock or waste, and none in the tableau but cards it covers or that cover it."""
        total = self.pairs
        assert total is not None
        for r in needed:
            partner = total - r
            if r != total and (
                not 0 < partner < 14 or counts[partner] < (2 if partner == r else 1)
            ):
                return True
        if not self.single_cards:
            return False
        free = [0] * 15
        for c in self.stock:
            free[RANK_OF[c]] += 1
        for c in self.waste:
            free[RANK_OF[c]] += 1
        heights, partners, pair_rank = self.heights, self.partners, self.pair_rank
        for p, height in enumerate(heights):
            need = pair_rank[p]
            if height and need and not free[need] and not any(heights[q] for q in partners[p]):
                return True
        return False

    def engine_move(self, move: tuple[int, int, int]) -> AnyMove:
        kind, a, b = move
        ids = self.variant.ids
        waste = ids[self.variant.waste_index] if self.variant.waste_index is not None else ""
        if kind == DEAL:
            return Deal()
        source = waste if a == WASTE else ids[self.tableau[a]]
        if kind == TO_WASTE:
            return Move(source, waste)
        if kind == ALONE:
            discard = self.variant.discard_index
            assert discard is not None
            return Move(source, ids[discard])
        return Move(source, waste if b == WASTE else ids[self.tableau[b]])


def _near(wrap: bool, rank: int, other: int) -> bool:
    step = (other - rank) % 13 if wrap else other - rank
    return step in ((1, 12) if wrap else (1, -1))


def solve_clearing(
    state: State,
    *,
    nodes_limit: int,
    deadline: float,
    clock: Callable[[], float],
    avoid: Avoid | None,
) -> Found:
    """Search ``state`` depth first; return the outcome, a won line, nodes and positions made.

    The outcome is ``"unknown"`` when ``nodes_limit`` positions have been expanded or ``clock``
    passes ``deadline``.
    """
    game = Clearing(state)
    seen: set[Hashable] = set()
    if avoid is not None:
        for piles, redeals in avoid.positions:
            view = Clearing(state)
            view.heights = [len(piles[i].cards) for i in game.tableau]
            if view.variant.stock_index is not None:
                view.stock = piles[view.variant.stock_index].cards
            if view.variant.waste_index is not None:
                view.waste = piles[view.variant.waste_index].cards
            view.redeals = redeals
            seen.add(view.key())
    seen.add(game.key())
    line: list[tuple[int, int, int]] = []
    counters = [0, 0, 0]  # nodes, made, checks

    def search(first: bool) -> bool:
        if game.hopeless():
            return False
        for move in game.moves(every=first):
            if first and avoid is not None and game.engine_move(move) in avoid.first:
                continue
            saved = game.play(move)
            counters[1] += 1
            if game.won():
                line.append(move)
                return True
            key = game.key()
            if key not in seen:
                seen.add(key)
                counters[0] += 1
                if counters[0] >= nodes_limit:
                    raise _Stop
                counters[2] += 1
                if counters[2] >= 256:
                    counters[2] = 0
                    if clock() >= deadline:
                        raise _Stop
                if search(False):
                    line.append(move)
                    return True
            game.unplay(move, saved)
        return False

    start = Clearing(state)
    try:
        won = search(True)
    except _Stop:
        return "unknown", None, counters[0], counters[1]
    if not won:
        return "lost", None, counters[0], counters[1]
    moves = []
    for move in reversed(line):
        moves.append(start.engine_move(move))
        start.play(move)
    return "won", moves, counters[0], counters[1]


__all__ = ["solve_clearing"]
