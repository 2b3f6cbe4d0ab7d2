"""A full-information solver for any rules document: ``solve(state)``.

The search runs on its own compact, mutable copy of the position (lists of card codes per pile,
changed in place and changed back), with its own move generation, checked against the engine's
``legal_moves``/``apply_move`` by the tests. Techniques, after the generic patience solvers:

- a transposition table on an exact canonical key: each pile's content is interned as a small
  integer; piles the rules make interchangeable (tableau piles, reserves, foundations of the same
  rule) are sorted before the integers are packed into one bytes key; where only single top
  cards move (no sequences, no redeal hook), face-down counts are left out of it; the greedy
  passes of one-deck games whose tableau builds ignore suit key more coarsely, naming each card
  no foundation takes next by its rank alone (``_Position.coarse_key``: it may miss a win,
  never claim a false one);
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
  is a full search too). Budgets are counted on a clock the caller gives, CPU time by default.

The line of a ``won`` result holds moves a player could send (no undo), and replays with the
engine from the given position to a won one. A game's hint passes ``avoid`` and ``after``
(``_Avoid``): the positions to avoid go into each pass's table before it starts, and the first
moves ruled out are struck from the starting position's moves. Every call builds its own
tables: there is no mutable global state, so calls may run in several threads at once.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from array import array
from collections.abc import Callable, Generator, Hashable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Literal

from .building import builds
from .cards import CARDS_PER_DECK, RANK_OF, SUIT_OF
from .dealing import redeal as engine_redeal
from .moves import AnyMove, Deal, Move, Redeal
from .play import apply_move, legal_moves
from .rules import (
    ANY_RANK,
    BASE_FROM_DEAL,
    FOUNDATION_LIMIT,
    NO_CARD,
    Build,
    Direction,
    Kind,
    PileRule,
    Return,
    SuitRule,
    Variant,
)
from .state import Pile, State

Outcome = Literal["won", "lost", "unknown"]
# What a pass ends with: its outcome and, if won, the undo logs of the line's moves.
_Found = tuple[Outcome, "list[list[tuple[str, object]]] | None"]
DEFAULT_NODES = 1_000_000
DEFAULT_SECONDS = 60.0
# The restarts' runs stop after this many positions expanded times a term of Luby's sequence;
# a later run's order ranks a move by its rank in ``children`` (its score times 64, plus the
# deals of a stock macro) plus up to this much of a random number: below 1, only moves of the
# same rank change places.
RESTART_UNIT = 1000
RESTART_NOISE = 1.0
# The best-first pass keeps the positions it has yet to expand; past this many it gives way
# to the depth-first pass (about 200 bytes each).
MAX_FRONTIER = 1_000_000
# What each card above the nearest card a foundation takes next costs the best-first pass's
# estimate (a card on a foundation earns 12, a card on one it does not build on costs 3).
PROMISE_DEPTH = 6

# An internal move: (deals first, source, target, count). ``source`` DEAL or REDEAL marks those
# moves; a transfer with ``deals`` > 0 is a stock macro: deal that many times, then transfer.
IMove = tuple[int, int, int, int]
# What ``untransfer`` needs: source, target, count, the source's face-down count before, the
# pile that refilled the source (or -1) and its face-down count before, the source's chain
# nodes the cards took with them.
Record = tuple[int, int, int, int, int, int, list[int]]
# Card codes are below 64: a trie node's child by card is at ``node << CARD_BITS | card``, a
# foundation's table entry for card c on top card t at ``(t + 1) << CARD_BITS | c``.
CARD_BITS = 6
DEAL = -1
REDEAL = -2
# Automatic foundation moves: provably safe ones only, or every foundation move a card has
# (greedy, used only to find wins).
SAFE = 1
AGGRESSIVE = 2
# The provably safe rule applied even where a card may come back from a foundation or a redeal
# gathers the tableau: likely safe there, so used only to find wins.
LIKELY = 3


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


class _Avoid:
    """What ``solve``'s ``avoid`` and ``after`` ask of the line: ``first``, the first moves
    ruled out (each as the engine's move for its first ply); ``positions``, the positions the
    line never enters (their piles and redeals left), keyed by each search in its own terms."""

    def __init__(self, first: set[AnyMove], positions: list[tuple[tuple[Pile, ...], int]]) -> None:
        self.first = first
        self.positions = positions
        self._keys: dict[tuple[int, object], list[Hashable]] = {}

    def keys(self, pos: _Position, key: Callable[[], Hashable]) -> list[Hashable]:
        """Return the keys ``key`` gives the positions on ``pos`` (whose trie numbers the
        piles), computed once per position object and key; ``pos`` is left as it was."""
        known = self._keys.get((id(pos), key.__name__))
        if known is None:
            root = pos.to_state()
            known = []
            for piles, redeals in self.positions:
                pos._load(piles, redeals)
                known.append(key())
            pos._load(root.piles, _redeals(root))
            self._keys[(id(pos), key.__name__)] = known
        return known


class _Budget(Exception):
    """The node or time budget ran out."""


@lru_cache(maxsize=64)
def _successors(build: Build) -> tuple[tuple[int, ...], ...]:
    """Return, for each card, the cards that may lie on it under ``build``."""
    return tuple(
        tuple(u for u in range(CARDS_PER_DECK) if builds(build, lower, u))
        for lower in range(CARDS_PER_DECK)
    )


@lru_cache(maxsize=64)
def _builds_table(build: Build) -> bytes:
    return bytes(
        1 if builds(build, lower, upper) else 0
        for lower in range(CARDS_PER_DECK)
        for upper in range(CARDS_PER_DECK)
    )


_first = itemgetter(0)


def _getter(indexes: list[int] | tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    """Return a function of a list giving the tuple of its items at ``indexes``."""
    if len(indexes) >= 2:
        return itemgetter(*indexes)
    if indexes:
        only = indexes[0]
        return lambda values: (values[only],)
    return lambda values: ()


class _Rules:
    """The rules of one variant laid out as lookup tables for the search (read-only)."""

    def __init__(self, variant: Variant, base_rank: int | None) -> None:
        self.variant = variant
        piles = variant.piles
        self.n = len(piles)
        self.kind = tuple(p.kind for p in piles)
        self.foundations = variant.foundations
        self.tableau = variant.tableau
        self.reserves = variant.reserves
        self.stock = variant.stock_index
        self.waste = variant.waste_index
        self.is_foundation = tuple(p.kind is Kind.FOUNDATION for p in piles)
        self.is_tableau = tuple(p.kind is Kind.TABLEAU for p in piles)
        self.placed = tuple(p.placed for p in piles)
        self.back = variant.foundation_return
        self.total = variant.total_cards
        self.decks = variant.decks
        self.base_rank = base_rank
        self.stock_rule = variant.stock
        self.redeal_hook = variant.redeal_hook
        none: tuple[tuple[int, ...], ...] = ((),) * CARDS_PER_DECK
        self.succ = tuple(_successors(p.build) if p.build is not None else none for p in piles)
        first = piles[variant.tableau[0]]
        assert first.build is not None
        self.tableau_build = first.build
        self.tsucc = _successors(first.build)
        self.tbuilds = _builds_table(first.build)
        self.sequences = tuple(p.sequences for p in piles)
        self.refill = tuple(p.refill_from for p in piles)
        # What an empty tableau pile takes: None for any card, else a tuple of cards.
        empty = first.empty_rank
        if empty == BASE_FROM_DEAL:
            empty = base_rank or 0
        self.empty_any = empty == ANY_RANK
        self.empty_cards: tuple[int, ...] = (
            ()
            if empty in (ANY_RANK, NO_CARD)
            else tuple(c for c in range(CARDS_PER_DECK) if RANK_OF[c] == empty)
        )
        # Where tableau piles are looked up for the card they take: a top card registers
        # under its keys (``top_keys``), an empty pile that takes only some cards under
        # ``empty_keys``, and a card looks up its first key and its other keys. Where several
        # top cards take the same cards (a build regardless of suit, or of colour), a key is
        # such a class of top cards: one entry a pile instead of one per card it takes. Else
        # (a build in suit) the tableau piles go with the foundations, under the cards they
        # take, and a card has no key of its own.
        accepted: dict[tuple[int, ...], int] = {}
        for took in self.tsucc:
            if took:
                accepted.setdefault(took, len(accepted))
        self.shared_keys = len(accepted) < sum(1 for took in self.tsucc if took)
        if self.shared_keys:
            empty_class = CARDS_PER_DECK  # no class number reaches it
            self.top_keys: tuple[tuple[int, ...], ...] = tuple(
                (accepted[took],) if took else () for took in self.tsucc
            )
            self.empty_keys: tuple[int, ...] = (empty_class,) if self.empty_cards else ()
            keys_of: list[list[int]] = [[] for _ in range(CARDS_PER_DECK)]
            for took, k in accepted.items():
                for c in took:
                    keys_of[c].append(k)
            for c in self.empty_cards:
                keys_of[c].append(empty_class)
        else:
            self.top_keys = self.tsucc
            self.empty_keys = self.empty_cards
            keys_of = [[] for _ in range(CARDS_PER_DECK)]
        self.key_first = tuple(ks[0] if ks else -1 for ks in keys_of)
        self.key_others = tuple(tuple(ks[1:]) for ks in keys_of)
        # What an empty foundation takes.
        self.base_cards: list[tuple[int, ...]] = []
        for i in range(self.n):
            rule = piles[i]
            if rule.kind is not Kind.FOUNDATION:
                self.base_cards.append(())
                continue
            rank = base_rank if rule.base_rank == BASE_FROM_DEAL else rule.base_rank
            self.base_cards.append(
                tuple(
                    c
                    for c in range(CARDS_PER_DECK)
                    if RANK_OF[c] == rank
                    and (rule.base_suit is None or SUIT_OF[c] == rule.base_suit)
                )
            )
        # Foundations of the same rule form one class.
        classes: dict[tuple[object, ...], int] = {}
        self.fclass = [0] * self.n
        for i in self.foundations:
            rule = piles[i]
            key = (rule.build, rule.base_rank, rule.base_suit, rule.placed)
            self.fclass[i] = classes.setdefault(key, len(classes))
        self.groups_by_class = tuple(
            tuple(i for i in self.foundations if self.fclass[i] == k) for k in range(len(classes))
        )
        self.sources = tuple(
            p.index
            for p in piles
            if p.kind in (Kind.TABLEAU, Kind.RESERVE, Kind.WASTE)
            or (p.kind is Kind.FOUNDATION and self.back is not Return.NONE)
        )
        self.auto_sources = tuple(
            p.index for p in piles if p.kind in (Kind.TABLEAU, Kind.RESERVE, Kind.WASTE)
        )
        stock = variant.stock
        refills = {p.refill_from for p in piles if p.refill_from is not None}
        self.macro = (
            stock is not None
            and stock.deal_to is Kind.WASTE
            and not refills & {variant.stock_index, variant.waste_index}
        )
        self.tableau_dealt = stock is not None and stock.deal_to is Kind.TABLEAU
        self.reserve_dealt = stock is not None and stock.deal_to is Kind.RESERVE
        self.reserve_refill = len(self.reserves) > 1 and bool(refills & set(self.reserves))
        self.sound_autos = self.back is Return.NONE
        # Where cards may come back from the foundations, a foundation move is still provably
        # safe in a one-deck game whose foundations all build up in suit from the Ace, with no
        # stock, refill, redeal or sequence moves, when every lower card is on the foundations
        # and no card but those can lie on it (see ``_safe_returning``).
        self.lower: tuple[tuple[int, ...], ...] = ((),) * CARDS_PER_DECK
        self.returning_safe = self._returning_safe_cards(variant, piles, refills)
        self.any_returning_safe = any(self.returning_safe)
        # For each card, the foundations that may ever take it, in order; for each foundation,
        # whether it takes card c on top card t (t = -1: empty; see CARD_BITS).
        takers: list[list[int]] = [[] for _ in range(CARDS_PER_DECK)]
        self.takes = [b""] * self.n
        for f in self.foundations:
            table = bytearray((CARDS_PER_DECK + 1) << CARD_BITS)
            taken = set(self.base_cards[f])
            for c in self.base_cards[f]:
                table[c] = 1
            for t in range(CARDS_PER_DECK):
                for c in self.succ[f][t]:
                    table[(t + 1) << CARD_BITS | c] = 1
                    taken.add(c)
            self.takes[f] = bytes(table)
            for c in sorted(taken):
                takers[c].append(f)
        self.takers = tuple(map(tuple, takers))
        self.is_auto_source = tuple(i in self.auto_sources for i in range(self.n))
        # Where only single cards move and no redeal hook gathers the piles, only top cards
        # play and a top card is always face up (the stock's cards all face down): how many
        # cards lie face down decides nothing, so the key leaves it out (positions that differ
        # in it alone have the same legal moves, and after each the same again, so the same
        # outcome).
        self.keys_hidden = any(self.sequences) or self.redeal_hook is not None
        # A pile's number in the key is its trie node, shifted left past its face-down count
        # where the key holds those.
        self.hidden_shift = max(8, (self.total + 1).bit_length())
        self.key_packing = "Q" if self.keys_hidden else "I"
        self.layouts = {
            settled: {empty: self._layout(settled, empty) for empty in (False, True)}
            for settled in (False, True)
        }
        # Where tableau builds ignore suit, with no stock, redeal hook or face-down counts in
        # the key, a card on the tableau or in a reserve that no foundation takes next counts
        # only by its rank until one does: the greedy passes key such cards by rank alone
        # (``_Position.coarse_key``), their token a number past every card's. One deck only,
        # as measured: with it the solver won 88 of Castile's practice deals train-0 …
        # train-99 in 10 s, against 73; Box Kite (two decks) won 13 of 20 with it and without,
        # at 15% fewer positions a second with it.
        self.coarse_keys = (
            self.tableau_build.suit is SuitRule.ANY
            and self.decks == 1
            and self.stock is None
            and self.redeal_hook is None
            and not self.keys_hidden
        )
        self.rank_token = tuple(CARDS_PER_DECK + RANK_OF[c] for c in range(CARDS_PER_DECK))
        self.coarse_piles = tuple(p.kind in (Kind.TABLEAU, Kind.RESERVE) for p in piles)
        self.coarse_layout = self._layout_indexes(True, True)

    def _layout(
        self, settled: bool, stock_empty: bool
    ) -> tuple[
        Callable[[list[int]], tuple[int, ...]], tuple[Callable[[list[int]], tuple[int, ...]], ...]
    ]:
        """Return how the key reads the piles' numbers where the redeals are over (or not) and
        the stock is empty (or not): a getter of the piles kept in order, then one for each
        group of interchangeable piles, whose numbers the key sorts.

        The stock comes first, after the redeals left, in every layout: two positions with
        the same key have the same redeals left and stock, so the same layout read them.
        """
        fixed, groups = self._layout_indexes(settled, stock_empty)
        return _getter(fixed), tuple(_getter(group) for group in groups)

    def _layout_indexes(
        self, settled: bool, stock_empty: bool
    ) -> tuple[list[int], list[tuple[int, ...]]]:
        """Return the piles of ``_layout``: those kept in order, and the groups sorted."""
        fixed = [i for i in (self.stock, self.waste) if i is not None]
        groups: list[tuple[int, ...]] = []
        if settled:
            groups.extend(self.groups_by_class)
        else:
            fixed.extend(self.foundations)
        if self.sorts_tableau(settled, stock_empty):
            groups.append(self.tableau)
        else:
            fixed.extend(self.tableau)
        if self.reserves:
            if (not self.reserve_dealt or stock_empty) and not self.reserve_refill:
                groups.append(self.reserves)
            else:
                fixed.extend(self.reserves)
        for group in [g for g in groups if len(g) < 2]:
            groups.remove(group)
            fixed.extend(group)
        return fixed, groups

    def sorts_tableau(self, settled: bool, stock_empty: bool) -> bool:
        """Return whether the order of the tableau piles cannot matter any more: no redeal to
        come, and no stock that deals to them."""
        return settled and (not self.tableau_dealt or self.stock is None or stock_empty)

    def _returning_safe_cards(
        self, variant: Variant, piles: tuple[PileRule, ...], refills: set[int]
    ) -> tuple[bool, ...]:
        """Return, for each card, whether ``_safe_returning`` may play it (all False where the
        rules are not of the kind its proof is for)."""
        never = (False,) * CARDS_PER_DECK
        foundation_rules = {(piles[i].build, piles[i].base_rank) for i in self.foundations}
        if (
            self.back is Return.NONE
            or self.decks != 1
            or variant.stock is not None
            or self.redeal_hook is not None
            or refills
            or any(self.sequences)
            or len(self.foundations) != 4
            or foundation_rules != {(Build(Direction.UP, SuitRule.SAME, False), 1)}
        ):
            return never
        self.lower = tuple(
            tuple(x for x in range(CARDS_PER_DECK) if RANK_OF[x] < RANK_OF[c])
            for c in range(CARDS_PER_DECK)
        )
        out = []
        for c in range(CARDS_PER_DECK):
            # No card outside the lower ones and c may lie on one of them or on c.
            below = set(self.lower[c]) | {c}
            out.append(all(u in below for t in below for u in self.tsucc[t]))
        return tuple(out)


@lru_cache(maxsize=32)
def _rules(variant: Variant, base_rank: int | None) -> _Rules:
    """Return the tables of ``variant``, made once for each (they are only read)."""
    return _Rules(variant, base_rank)


class _Position:
    """A mutable position with in-place moves and their exact reversal."""

    def __init__(self, rules: _Rules, state: State) -> None:
        self.r = rules
        self.cards = [list(p.cards) for p in state.piles]
        self.hidden = [p.hidden for p in state.piles]
        self.redeals = -1 if state.redeals_left is None else state.redeals_left
        self.onf = [0] * CARDS_PER_DECK
        for i in rules.foundations:
            for c in self.cards[i]:
                self.onf[c] += 1
        self.infound = sum(len(self.cards[i]) for i in rules.foundations)
        # Pile contents are interned as the nodes of a trie: node 0 is the empty pile, and the
        # content of node p with card c on top is ``trie[p << CARD_BITS | c]``; ``up``,
        # ``top`` and ``depth`` give each node's parent, top card and number of cards. Each
        # pile keeps its chain (the nodes of its every bottom part, the empty one first), so a
        # card put on or taken off changes its node in one step.
        self.trie: dict[int, int] = {}
        self.up = [0]
        self.top = [-1]
        self.depth = [0]
        self.flipped: dict[int, list[int]] = {}
        self.chains = [self._chain(cards) for cards in self.cards]
        # The number each pile stands for in the key: its node, and its face-down count where
        # the key holds those.
        self.ids = [0] * rules.n
        for i in range(rules.n):
            self._rekey(i)
        # What each card above the nearest card a foundation takes next costs ``promise``.
        self.depth_weight = PROMISE_DEPTH
        # ``coarse_key``'s tables: the foundations it last read and the cards they take next,
        # each pile content's number for those, and the numbers of the contents it has seen.
        self.coarse_found: list[int] = []
        self.coarse_wanted: set[int] = set()
        self.coarse_names: dict[int, int] = {}
        self.coarse_contents: dict[tuple[int, ...], int] = {}

    # --- keys ----------------------------------------------------------------------------

    def _node(self, parent: int, c: int) -> int:
        """Return the trie node of the content of ``parent`` with ``c`` on top."""
        key = parent << CARD_BITS | c
        node = self.trie.get(key)
        if node is None:
            node = self.trie[key] = len(self.up)
            self.up.append(parent)
            self.top.append(c)
            self.depth.append(self.depth[parent] + 1)
        return node

    def _chain(self, cards: list[int]) -> list[int]:
        """Return the nodes of every bottom part of ``cards``, the empty one first."""
        chain = [0]
        node = 0
        for c in cards:
            node = self._node(node, c)
            chain.append(node)
        return chain

    def _rekey(self, i: int) -> None:
        """Renew the number pile ``i`` stands for in the key."""
        if self.r.keys_hidden:
            self.ids[i] = self.chains[i][-1] << self.r.hidden_shift | self.hidden[i]
        else:
            self.ids[i] = self.chains[i][-1]

    def _flipped(self, node: int, cards: list[int]) -> list[int]:
        """Return the chain of ``cards``, the content of ``node`` turned over (remembered:
        the stock turns the same waste over again and again)."""
        chain = self.flipped.get(node)
        if chain is None:
            chain = self.flipped[node] = self._chain(cards)
        return list(chain)

    def _phase(self) -> tuple[bool, bool]:
        """Return whether the redeals are over (or there are none) and the stock is empty (or
        there is none): what the key's layout depends on."""
        r = self.r
        return r.redeal_hook is None or self.redeals == 0, r.stock is None or not self.cards[
            r.stock
        ]

    def key(self) -> bytes:
        """Return the canonical key: equal for positions the rules cannot tell apart."""
        r = self.r
        ids = self.ids
        settled, stock_empty = self._phase()
        fixed, groups = r.layouts[settled][stock_empty]
        out = [self.redeals + 1]
        out += fixed(ids)
        for group in groups:
            out += sorted(group(ids))
        return array(r.key_packing, out).tobytes()

    def coarse_key(self) -> bytes:
        """Return the greedy passes' key (where ``_Rules.coarse_keys``): as ``key``, but each
        card on the tableau or in a reserve that no foundation takes next is named by its rank
        alone.

        Tableau builds ignore suit there, so such cards differ only in when the foundations
        will take them. Positions that differ only in where cards of one rank lie among them
        get one key, and a greedy pass searches one of them: it may miss a win that way, never
        claim a false one (its line is played on the real cards). The full search keeps the
        exact key, since its end proves a loss. In Castile the greedy passes otherwise spend
        their work on the same runs with cards of one rank swapped among them.
        """
        r = self.r
        ids = self.ids
        # Which cards the foundations take next changes only with the foundations: each
        # pile's content (its trie node) is named once for them, by a number that stands for
        # its cards as the key sees them.
        found = [ids[f] for f in r.foundations]
        if found != self.coarse_found:
            self.coarse_found = found
            self.coarse_names = {}
            cards = self.cards
            wanted: set[int] = set()
            for f in r.foundations:
                pile = cards[f]
                n = len(pile)
                if n < FOUNDATION_LIMIT:
                    wanted.update(r.succ[f][pile[-1]] if n else r.base_cards[f])
            self.coarse_wanted = wanted
        names = self.coarse_names
        named = []
        for i, coarse in enumerate(r.coarse_piles):
            if not coarse:
                named.append(ids[i])
                continue
            name = names.get(ids[i])
            if name is None:
                wanted = self.coarse_wanted
                token = r.rank_token
                seen = tuple([c if c in wanted else token[c] for c in self.cards[i]])
                contents = self.coarse_contents
                name = names[ids[i]] = contents.setdefault(seen, len(contents))
            named.append(name)
        fixed, groups = r.coarse_layout
        out = [named[i] for i in fixed]
        for group in groups:
            out.extend(sorted([named[i] for i in group]))
        return array("Q", out).tobytes()

    def tableau_interchangeable(self) -> bool:
        """Return whether the key sorts the tableau piles (the order of the piles cannot matter
        any more: no redeal to come, and no stock that deals to them)."""
        return self.r.sorts_tableau(*self._phase())

    @property
    def won(self) -> bool:
        return self.infound == self.r.total

    # --- move generation -----------------------------------------------------------------

    def _accepting(self) -> tuple[dict[int, list[int]], dict[int, list[int]], list[int]]:
        """Return the piles taking each card now, the tableau piles under each key
        (``_Rules.top_keys``; where keys are shared, the first holds only the foundations)
        and the empty tableau piles taking any card. ``destinations`` reads a card's piles
        off the first two."""
        r = self.r
        cards = self.cards
        acc: dict[int, list[int]] = {}
        for f in r.foundations:
            pile = cards[f]
            n = len(pile)
            if n >= FOUNDATION_LIMIT:
                continue
            for c in r.succ[f][pile[-1]] if n else r.base_cards[f]:
                acc.setdefault(c, []).append(f)
        tacc: dict[int, list[int]] = {}
        keyed = tacc if r.shared_keys else acc
        any_empty: list[int] = []
        top_keys = r.top_keys
        for t in r.tableau:
            pile = cards[t]
            if pile:
                for k in top_keys[pile[-1]]:
                    keyed.setdefault(k, []).append(t)
                continue
            refill = r.refill[t]
            if refill is not None and cards[refill]:
                continue
            if r.empty_any:
                any_empty.append(t)
            else:
                for k in r.empty_keys:
                    keyed.setdefault(k, []).append(t)
        return acc, tacc, any_empty

    def destinations(
        self, acc: dict[int, list[int]], tacc: dict[int, list[int]], c: int
    ) -> list[int]:
        """Return the piles of ``_accepting`` taking card ``c`` (not the empty piles taking
        any card): its foundations, then the tableau piles in order."""
        r = self.r
        found = acc.get(c)
        tableau = tacc.get(r.key_first[c])
        for k in r.key_others[c]:
            more = tacc.get(k)
            if more:
                tableau = sorted(tableau + more) if tableau else more
        if not found:
            return tableau or []
        if not tableau:
            return found
        return [*found, *tableau]

    def sequence_length(self, s: int) -> int:
        pile = self.cards[s]
        hidden = self.hidden[s]
        table = self.r.tbuilds
        length = 1 if pile and hidden < len(pile) else 0
        i = len(pile) - 1
        while i > hidden and table[pile[i - 1] * CARDS_PER_DECK + pile[i]]:
            length += 1
            i -= 1
        return length

    def transfers(
        self,
        acc: dict[int, list[int]],
        tacc: dict[int, list[int]],
        any_empty: list[int],
        sources: tuple[int, ...],
    ) -> list[IMove]:
        """Return every legal transfer from ``sources``."""
        r = self.r
        cards = self.cards
        hidden = self.hidden
        out: list[IMove] = []
        is_found = r.is_foundation
        is_tab = r.is_tableau
        shared = r.shared_keys
        key_first = r.key_first
        key_others = r.key_others
        for s in sources:
            pile = cards[s]
            if hidden[s] >= len(pile):
                continue
            c = pile[-1]
            # ``destinations``, inlined: this is the search's innermost loop.
            found = acc.get(c)
            tableau = None
            if shared:
                tableau = tacc.get(key_first[c])
                for k in key_others[c]:
                    more = tacc.get(k)
                    if more:
                        tableau = sorted(tableau + more) if tableau else more
            if is_found[s]:
                if r.placed[s] and len(pile) == 1:
                    continue
                only_tableau = r.back is Return.TABLEAU
                if found:
                    for d in found:
                        if d != s and (is_tab[d] or not only_tableau):
                            out.append((0, s, d, 1))
                if tableau:
                    for d in tableau:
                        out.append((0, s, d, 1))
            else:
                if found:
                    for d in found:
                        if d != s:
                            out.append((0, s, d, 1))
                if tableau:
                    for d in tableau:
                        if d != s:
                            out.append((0, s, d, 1))
            for d in any_empty:
                out.append((0, s, d, 1))
            if r.sequences[s]:
                for k in range(2, self.sequence_length(s) + 1):
                    for d in self.destinations(acc, tacc, pile[-k]):
                        if d != s and is_tab[d]:
                            out.append((0, s, d, k))
                    for d in any_empty:
                        if d != s:
                            out.append((0, s, d, k))
        return out

    def can_deal(self) -> bool:
        r = self.r
        if r.stock is None or r.stock_rule is None:
            return False
        if self.cards[r.stock]:
            return True
        if r.stock_rule.deal_to is not Kind.WASTE:
            return False
        assert r.waste is not None
        return bool(self.cards[r.waste]) and self.redeals != 0

    def can_redeal(self) -> bool:
        return self.r.redeal_hook is not None and self.redeals != 0

    def legal(self) -> list[IMove]:
        """Return every legal move, as the engine's ``legal_moves`` lists them (for checks)."""
        if self.won:
            return []
        acc, tacc, any_empty = self._accepting()
        out = self.transfers(acc, tacc, any_empty, self.r.sources)
        if self.can_deal():
            out.append((0, DEAL, 0, 0))
        if self.can_redeal():
            out.append((0, REDEAL, 0, 0))
        return out

    # --- moves and their reversal ---------------------------------------------------------

    def transfer(self, s: int, d: int, k: int) -> Record:
        """Move the top ``k`` cards of ``s`` onto ``d``; return what ``untransfer`` needs."""
        r = self.r
        cards = self.cards
        hidden = self.hidden
        chains = self.chains
        src = cards[s]
        moved = src[-k:]
        del src[-k:]
        cards[d].extend(moved)
        schain = chains[s]
        removed = schain[-k:]
        del schain[-k:]
        dchain = chains[d]
        node = dchain[-1]
        trie = self.trie
        for c in moved:
            after = trie.get(node << CARD_BITS | c)
            node = self._node(node, c) if after is None else after
            dchain.append(node)
        old_hs = hidden[s]
        n = len(src)
        if old_hs >= n:
            hidden[s] = n - 1 if n else 0
        refilled = -1
        old_hr = 0
        refill = r.refill[s]
        if refill is not None and not n and cards[refill]:
            feeder = cards[refill]
            c = feeder.pop()
            chains[refill].pop()
            src.append(c)
            schain.append(self._node(0, c))
            hidden[s] = 0
            old_hr = hidden[refill]
            left = len(feeder)
            if old_hr >= left:
                hidden[refill] = left - 1 if left else 0
            refilled = refill
            self._rekey(refill)
        if r.is_foundation[d]:
            self.infound += k
            onf = self.onf
            for c in moved:
                onf[c] += 1
        if r.is_foundation[s]:
            self.infound -= k
            onf = self.onf
            for c in moved:
                onf[c] -= 1
        self._rekey(s)
        self._rekey(d)
        return (s, d, k, old_hs, refilled, old_hr, removed)

    def untransfer(self, record: Record) -> None:
        s, d, k, old_hs, refilled, old_hr, removed = record
        r = self.r
        cards = self.cards
        chains = self.chains
        if refilled >= 0:
            c = cards[s].pop()
            chains[s].pop()
            cards[refilled].append(c)
            feeder = chains[refilled]
            feeder.append(self._node(feeder[-1], c))
            self.hidden[refilled] = old_hr
            self._rekey(refilled)
        dst = cards[d]
        moved = dst[-k:]
        del dst[-k:]
        del chains[d][-k:]
        cards[s].extend(moved)
        chains[s].extend(removed)
        self.hidden[s] = old_hs
        if r.is_foundation[d]:
            self.infound -= k
            onf = self.onf
            for c in moved:
                onf[c] -= 1
        if r.is_foundation[s]:
            self.infound += k
            onf = self.onf
            for c in moved:
                onf[c] += 1
        self._rekey(s)
        self._rekey(d)

    def deal(self, keys: bool = True) -> object:
        """Deal from the stock (or turn the waste over); return what ``undeal`` needs.

        With ``keys`` False, a deal to the waste leaves the stock's and waste's keys stale, for
        ``rekey_stock`` to renew after a run of deals."""
        r = self.r
        assert r.stock is not None and r.stock_rule is not None
        cards = self.cards
        chains = self.chains
        stock = cards[r.stock]
        schain = chains[r.stock]
        if r.stock_rule.deal_to is Kind.WASTE:
            assert r.waste is not None
            waste = cards[r.waste]
            if stock:
                n = min(r.stock_rule.cards, len(stock))
                wchain = chains[r.waste]
                node = wchain[-1]
                for _ in range(n):
                    c = stock.pop()
                    schain.pop()
                    waste.append(c)
                    node = self._node(node, c)
                    wchain.append(node)
                self.hidden[r.stock] = len(stock)
                record: object = n
            else:
                turned = chains[r.waste][-1]
                waste.reverse()
                stock.extend(waste)
                waste.clear()
                chains[r.stock] = self._flipped(turned, stock)
                chains[r.waste] = [0]
                self.hidden[r.stock] = len(stock)
                if self.redeals > 0:
                    self.redeals -= 1
                record = 0
            if keys:
                self.rekey_stock()
            return record
        targets = r.tableau if r.stock_rule.deal_to is Kind.TABLEAU else r.reserves
        given = []
        for i in targets:
            if not stock:
                break
            c = stock.pop()
            schain.pop()
            cards[i].append(c)
            chain = chains[i]
            chain.append(self._node(chain[-1], c))
            given.append(i)
            self._rekey(i)
        self.hidden[r.stock] = len(stock)
        self._rekey(r.stock)
        return given

    def rekey_stock(self) -> None:
        """Renew the keys of the stock and the waste."""
        r = self.r
        assert r.stock is not None and r.waste is not None
        self._rekey(r.stock)
        self._rekey(r.waste)

    def undeal(self, record: object, keys: bool = True) -> None:
        r = self.r
        assert r.stock is not None
        cards = self.cards
        chains = self.chains
        stock = cards[r.stock]
        schain = chains[r.stock]
        if isinstance(record, int):
            assert r.waste is not None
            waste = cards[r.waste]
            if record:
                wchain = chains[r.waste]
                node = schain[-1]
                for _ in range(record):
                    c = waste.pop()
                    wchain.pop()
                    stock.append(c)
                    node = self._node(node, c)
                    schain.append(node)
            else:
                turned = schain[-1]
                waste.extend(reversed(stock))
                stock.clear()
                chains[r.waste] = self._flipped(turned, waste)
                chains[r.stock] = [0]
                if self.redeals >= 0:
                    self.redeals += 1
            self.hidden[r.stock] = len(stock)
            if keys:
                self.rekey_stock()
            return
        assert isinstance(record, list)
        for i in reversed(record):
            c = cards[i].pop()
            chains[i].pop()
            stock.append(c)
            schain.append(self._node(schain[-1], c))
            self._rekey(i)
        self.hidden[r.stock] = len(stock)
        self._rekey(r.stock)

    def to_state(self) -> State:
        r = self.r
        piles = tuple(Pile(tuple(c), h) for c, h in zip(self.cards, self.hidden, strict=True))
        redeals = None if self.redeals < 0 else self.redeals
        return State(r.variant, piles, redeals, r.base_rank)

    def _load(self, piles: tuple[Pile, ...], redeals: int) -> None:
        for i, pile in enumerate(piles):
            self.cards[i] = list(pile.cards)
            self.hidden[i] = pile.hidden
            self.chains[i] = self._chain(self.cards[i])
            self._rekey(i)
        self.redeals = redeals
        self.onf = [0] * CARDS_PER_DECK
        for i in self.r.foundations:
            for c in self.cards[i]:
                self.onf[c] += 1
        self.infound = sum(len(self.cards[i]) for i in self.r.foundations)

    def redeal(self) -> object:
        """Apply the variant's redeal hook (through the engine); return the previous piles."""
        before = self.to_state()
        redeals = self.redeals
        after = engine_redeal(before)
        self._load(after.piles, -1 if after.redeals_left is None else after.redeals_left)
        return (before.piles, redeals)

    def unredeal(self, record: object) -> None:
        assert isinstance(record, tuple)
        piles, redeals = record
        self._load(piles, redeals)

    def snapshot(self) -> bytes:
        """Return the position packed as bytes, for ``restore``: each pile's trie node and
        face-down count (the trie stays with this object: a snapshot is restored by it)."""
        values = [self.redeals + 1]
        values += [chain[-1] for chain in self.chains]
        values += self.hidden
        return array("I", values).tobytes()

    def restore(self, packed: bytes) -> None:
        """Set the position to one ``snapshot`` packed; only the piles that differ change,
        each from the last card it shares with the pile wanted."""
        values = array("I")
        values.frombytes(packed)
        self.redeals = values[0] - 1
        r = self.r
        n = r.n
        chains = self.chains
        cards = self.cards
        hidden = self.hidden
        up = self.up
        top = self.top
        depth = self.depth
        onf = self.onf
        is_foundation = r.is_foundation
        for i in range(n):
            node = values[1 + i]
            face_down = values[1 + n + i]
            chain = chains[i]
            if chain[-1] != node:
                pile = cards[i]
                added = []
                x = node
                while depth[x] >= len(chain) or chain[depth[x]] != x:
                    added.append(x)
                    x = up[x]
                kept = depth[x]
                if is_foundation[i]:
                    for c in pile[kept:]:
                        onf[c] -= 1
                    for y in added:
                        onf[top[y]] += 1
                del chain[kept + 1 :]
                del pile[kept:]
                for y in reversed(added):
                    chain.append(y)
                    pile.append(top[y])
            elif hidden[i] == face_down:
                continue
            hidden[i] = face_down
            self._rekey(i)
        self.infound = sum(len(cards[i]) for i in r.foundations)

    def promise(self) -> int:
        """Return how near the position looks to a win (higher is nearer): cards on the
        foundations, less the cards that lie on one they do not build on and the depth of the
        cards the foundations take next, plus empty piles."""
        r = self.r
        cards = self.cards
        table = r.tbuilds
        score = 12 * self.infound
        depth: dict[int, int] = {}
        for t in r.tableau:
            pile = cards[t]
            if not pile:
                score += 4
                continue
            n = len(pile) - 1
            previous = pile[0]
            depth[previous] = min(depth.get(previous, n), n)
            for i in range(1, n + 1):
                c = pile[i]
                if not table[previous * CARDS_PER_DECK + c]:
                    score -= 3
                d = n - i
                if depth.get(c, d) >= d:
                    depth[c] = d
                previous = c
        for t in r.reserves:
            pile = cards[t]
            n = len(pile) - 1
            score -= 2 * (n + 1)
            for i, c in enumerate(pile):
                d = n - i
                if depth.get(c, d) >= d:
                    depth[c] = d
        for f in r.foundations:
            pile = cards[f]
            if len(pile) >= FOUNDATION_LIMIT:
                continue
            nearest = 99
            for c in r.succ[f][pile[-1]] if pile else r.base_cards[f]:
                d = depth.get(c, 99)
                if d < nearest:
                    nearest = d
            if nearest < 99:
                score -= self.depth_weight * nearest
        return score

    # --- automatic foundation moves -------------------------------------------------------

    def _future_accepts(self, f: int, c: int) -> bool:
        """Return whether foundation ``f`` may ever take a card identical to ``c``."""
        r = self.r
        rule = r.variant.piles[f]
        pile = self.cards[f]
        n = len(pile)
        if n >= FOUNDATION_LIMIT:
            return False
        if rule.base_suit is not None and SUIT_OF[c] != rule.base_suit:
            return False
        build = rule.build
        assert build is not None
        if build.direction is Direction.EITHER:
            return True
        step = 1 if build.direction is Direction.UP else -1
        rank = RANK_OF[c]
        if n == 0:
            base = r.base_rank if rule.base_rank == BASE_FROM_DEAL else rule.base_rank
            if base is None:
                return True
            distance = (rank - base) * step
            return build.wrap or distance >= 0
        top = pile[-1]
        if build.suit is SuitRule.SAME and SUIT_OF[top] != SUIT_OF[c]:
            return False
        distance = (rank - RANK_OF[top]) * step
        if build.wrap:
            distance %= 13
        return 1 <= distance <= FOUNDATION_LIMIT - n

    def _safe_returning(self, c: int) -> bool:
        """Return whether playing ``c`` to its foundation can never lose a win, though cards
        may come back from the foundations (rules as ``_Rules.returning_safe`` checks).

        Every card of lower rank is on the foundations, and only those can lie on ``c`` or on
        each other. Take any winning line from the position before the move, and leave out its
        moves of ``c`` and of the lower cards: what is left is legal after the move and wins.
        Its other cards never lie on the cards left out, nor those on them (only lower cards
        can), so each is on top in the same piles as before; a foundation then holds the same
        cards or those it held plus the lower ones and ``c``, so it takes the same cards and
        shows the same top when one of the other cards leaves it.
        """
        if not self.r.returning_safe[c]:
            return False
        onf = self.onf
        return all(onf[x] for x in self.r.lower[c])

    def _safe(self, c: int) -> bool:
        """Return whether playing ``c`` to a foundation now can never lose a win."""
        onf = self.onf
        decks = self.r.decks
        for x in self.r.tsucc[c]:
            if onf[x] < decks:
                return False
        classes = {self.r.fclass[f] for f in self.r.foundations if self._future_accepts(f, c)}
        return len(classes) <= 1

    def autos(
        self, records: list[Record], mode: int, changed: tuple[int, ...] | None = None
    ) -> None:
        """Play safe foundation moves until none is left, appending their records.

        With ``mode`` SAFE, play them only where they are proved safe: no card ever comes back
        from a foundation, and no redeal hook will gather the tableau again.

        ``changed`` names the only piles whose top card may have changed since the position
        had no automatic move left, with the foundations as they were then (a move between
        other piles): only those piles' top cards are looked at, until one plays.
        """
        r = self.r
        safe = self._safe
        if mode == SAFE and (
            r.back is not Return.NONE or (r.redeal_hook is not None and self.redeals != 0)
        ):
            if not r.any_returning_safe:
                return
            safe = self._safe_returning
        cards = self.cards
        hidden = self.hidden
        if changed is not None:
            # Whether to play depends only on the foundations, unchanged, and on the top card:
            # the other piles' tops still have no move.
            takers = r.takers
            takes = r.takes
            is_source = r.is_auto_source
            for s in changed:
                pile = cards[s]
                n = len(pile)
                if not n or hidden[s] >= n or not is_source[s]:
                    continue
                c = pile[-1]
                for f in takers[c]:
                    found = cards[f]
                    m = len(found)
                    if (
                        m < FOUNDATION_LIMIT
                        and takes[f][(found[-1] + 1 if m else 0) << CARD_BITS | c]
                    ):
                        break
                else:
                    continue
                # The first foundation taking c, as the loop below finds it.
                if mode == AGGRESSIVE or safe(c):
                    records.append(self.transfer(s, f, 1))
                    break
            else:
                return
        while self.infound != r.total:
            wanted: dict[int, int] = {}
            for f in r.foundations:
                pile = cards[f]
                n = len(pile)
                if n >= FOUNDATION_LIMIT:
                    continue
                for c in r.succ[f][pile[-1]] if n else r.base_cards[f]:
                    if c not in wanted:
                        wanted[c] = f
            for s in r.auto_sources:
                pile = cards[s]
                if not pile or hidden[s] >= len(pile):
                    continue
                target = wanted.get(pile[-1])
                if target is not None and (mode == AGGRESSIVE or safe(pile[-1])):
                    records.append(self.transfer(s, target, 1))
                    break
            else:
                return


# --- the search -----------------------------------------------------------------------------


class _Search:
    """One depth-first pass with a transposition table over a ``_Position``."""

    # How far a shuffled order strays from the ranked one (``children``, with ``shuffle``).
    noise = RESTART_NOISE

    # What each card above the nearest card a foundation takes next costs the pass's
    # estimate (``_Position.promise``; used by the best-first passes).
    depth_weight = PROMISE_DEPTH

    def __init__(
        self,
        pos: _Position,
        *,
        autos: int,
        nodes_left: int,
        deadline: float,
        clock: Callable[[], float],
    ) -> None:
        self.pos = pos
        pos.depth_weight = self.depth_weight
        self.use_autos = autos
        self.nodes = 0
        # The work done, in positions made (a best-first one counts thrice: it is also packed
        # and rated): the passes take turns by it.
        self.work = 0
        self.made = 0
        self.nodes_left = nodes_left
        self.deadline = deadline
        self.clock = clock
        # The key of the transposition table: a greedy pass's may merge positions that only
        # likely share an outcome (``_Position.coarse_key``); the full search's is exact.
        self.key: Callable[[], Hashable] = (
            pos.coarse_key if autos == AGGRESSIVE and pos.r.coarse_keys else pos.key
        )
        self.seen: set[Hashable] = set()
        # Whether moves to an empty tableau pile other than the first are left out (off only
        # in the tests that check the search against one without it).
        self.one_empty_target = True
        self.shuffle: random.Random | None = None
        # What the caller's ``avoid`` and ``after`` ask of the line (``_Avoid``; None: nothing).
        self.avoid: _Avoid | None = None
        # The keys of the positions to avoid, and whether the last move applied passed through
        # one of them before its last automatic move.
        self.avoided: set[Hashable] = set()
        self.crossed = False

    def children(self, parent: IMove | None) -> list[IMove]:
        pos = self.pos
        r = pos.r
        acc, tacc, any_empty = pos._accepting()
        moves = pos.transfers(acc, tacc, any_empty, r.sources)
        if r.macro:
            moves.extend(self._macros(acc, tacc, any_empty))
        elif pos.can_deal():
            moves.append((0, DEAL, 0, 0))
        if pos.can_redeal():
            moves.append((0, REDEAL, 0, 0))
        cards = pos.cards
        hidden = pos.hidden
        tableau_free = r.redeal_hook is None and not r.tableau_dealt
        returns_undone = self.use_autos == AGGRESSIVE
        # Where the key sorts the tableau, a move to one empty tableau pile makes the same
        # position as the move to any other: only the first empty pile is tried (exact, so
        # sound for a proof of loss).
        first_empty = -1
        if self.one_empty_target and pos.tableau_interchangeable():
            for t in r.tableau:
                if not cards[t]:
                    first_empty = t
                    break
        is_found = r.is_foundation
        is_tab = r.is_tableau
        scored: list[tuple[int, IMove]] = []
        append = scored.append
        # The moves come grouped by source: what depends on the source alone is read once.
        last = -99
        size = from_found = from_tab = from_hidden = skip_source = 0
        for move in moves:
            j, s, d, k = move
            if s < 0:
                append((9, move))
                continue
            if s != last:
                last = s
                size = len(cards[s])
                from_found = is_found[s]
                from_tab = is_tab[s]
                from_hidden = hidden[s]
                # The automatic moves would play a card returned from a foundation straight
                # back (moves between foundations stay).
                skip_source = returns_undone and from_found
            to_found = is_found[d]
            if skip_source and not to_found:
                continue
            if first_empty >= 0 and d != first_empty and is_tab[d] and not cards[d]:
                continue  # the same position as the move to the first empty pile
            if parent is not None and parent[1] == d and parent[2] == s and parent[3] == k:
                continue  # undoes the parent move
            left = size - k
            if tableau_free and left == 0 and from_tab and is_tab[d] and not cards[d]:
                continue  # a whole pile onto an empty one: the same position
            if to_found:
                score = 0
            elif from_found:
                score = 7
            elif left > 0 and from_hidden >= left:
                score = 1
            elif left == 0 and from_tab:
                score = 2
            elif not from_tab:
                score = 3
            elif cards[d]:
                score = 4
            else:
                score = 6
            append((score * 64 + (j if j < 63 else 63), move))
        shuffle = self.shuffle
        if shuffle is None:
            scored.sort(key=_first)
        else:
            noise = self.noise
            scored.sort(key=lambda item: item[0] + noise * shuffle.random())
        # The stack pops from the end: the best move last.
        return [move for _, move in reversed(scored)]

    def root_children(self) -> list[IMove]:
        """Return the moves from the position the search starts at, less the first moves the
        caller ruled out (``_Avoid.first``)."""
        moves = self.children(None)
        if self.avoid is None or not self.avoid.first:
            return moves
        first = self.avoid.first
        ids = self.pos.r.variant.ids
        kept = []
        for move in moves:
            j, s, d, k = move
            if s == DEAL or j:
                ply: AnyMove = Deal()
            elif s == REDEAL:
                ply = Redeal()
            else:
                ply = Move(ids[s], ids[d], k)
            if ply not in first:
                kept.append(move)
        return kept

    def root_autos(self) -> list[tuple[str, object]]:
        """Play the automatic moves of the position the search starts at (none where the
        caller rules out first moves: its first move is then a choice like any other); put the
        positions to avoid in the table, as if searched; return the undo log."""
        pos = self.pos
        avoid = self.avoid
        if avoid is not None and avoid.positions:
            self.avoided = set(avoid.keys(pos, self.key))
            self.seen.update(self.avoided)
        log: list[tuple[str, object]] = []
        if self.use_autos and (avoid is None or not avoid.first):
            autos: list[Record] = []
            pos.autos(autos, self.use_autos)
            log.extend(("t", record) for record in autos)
        return log

    def _macros(
        self, acc: dict[int, list[int]], tacc: dict[int, list[int]], any_empty: list[int]
    ) -> list[IMove]:
        """Return "deal j times, then play the waste's top" for every j of one stock cycle."""
        pos = self.pos
        r = pos.r
        assert r.waste is not None
        w = r.waste
        destinations = pos.destinations
        out: list[IMove] = []
        for j, c in self._waste_tops():
            for d in destinations(acc, tacc, c):
                out.append((j, w, d, 1))
            for d in any_empty:
                out.append((j, w, d, 1))
        return out

    def _waste_tops(self) -> list[tuple[int, int]]:
        """Return (j, the waste's top after j deals) for every j of one stock cycle: the
        deals through the stock, the waste turned over (a deal showing no top), the deals
        through it again, as ``deal`` plays them, up to the next turn."""
        pos = self.pos
        r = pos.r
        assert r.waste is not None and r.stock is not None and r.stock_rule is not None
        stock = pos.cards[r.stock]
        waste = pos.cards[r.waste]
        per_deal = r.stock_rule.cards
        tops: list[tuple[int, int]] = []
        j = 0
        # The k-th deal through a pile of n cards (its top last) shows card n - k * per_deal,
        # or the bottom card for a last deal of fewer cards.
        pile = stock
        for turn in (0, 1):
            i = len(pile) - per_deal
            while i > -per_deal:
                j += 1
                tops.append((j, pile[i if i > 0 else 0]))
                i -= per_deal
            if turn or not (stock or waste) or pos.redeals == 0:
                break
            # The waste turned over (a deal showing no top): the new stock holds, bottom to top,
            # the old stock's cards, then the waste's, its bottom card on top.
            j += 1
            pile = stock + waste[::-1]
        return tops

    def apply(self, move: IMove) -> list[tuple[str, object]]:
        """Play ``move`` and the automatic moves after it; return the undo log."""
        pos = self.pos
        self.work += 1
        self.made += 1
        self.crossed = False
        j, s, d, k = move
        log: list[tuple[str, object]] = []
        if s == DEAL:
            log.append(("d", pos.deal()))
        elif s == REDEAL:
            log.append(("r", pos.redeal()))
        else:
            if j:
                for _ in range(j):
                    log.append(("d", pos.deal(False)))
                pos.rekey_stock()
            played = pos.transfer(s, d, k)
            log.append(("t", played))
        if self.use_autos:
            autos: list[Record] = []
            is_foundation = pos.r.is_foundation
            if s < 0 or is_foundation[d] or is_foundation[s]:
                pos.autos(autos, self.use_autos)
            else:
                # The position before had no automatic move left, and the foundations are as
                # they were: only the piles this move changed may have one now (after the
                # deals of a macro, the waste, its source).
                pos.autos(autos, self.use_autos, (s, d) if played[4] < 0 else (s, d, played[4]))
            if autos and self.avoided:
                autos = self._check_crossing(autos)
            log.extend(("t", record) for record in autos)
        return log

    def _check_crossing(self, autos: list[Record]) -> list[Record]:
        """Set ``crossed`` if a position before the last of ``autos`` is one to avoid (the
        last is the move's own, which the table of positions searched holds); return the
        records of the automatic moves, played again."""
        pos = self.pos
        avoided = self.avoided
        for record in reversed(autos):
            pos.untransfer(record)
            if self.key() in avoided:
                self.crossed = True
        return [pos.transfer(record[0], record[1], 1) for record in autos]

    def undo(self, log: list[tuple[str, object]]) -> None:
        pos = self.pos
        waste_deals = False
        for kind, record in reversed(log):
            if kind == "t":
                assert isinstance(record, tuple)
                pos.untransfer(record)
            elif kind == "d":
                if isinstance(record, int):
                    pos.undeal(record, False)
                    waste_deals = True
                else:
                    pos.undeal(record)
            else:
                pos.unredeal(record)
        if waste_deals:
            pos.rekey_stock()

    def run(self) -> tuple[Outcome, list[list[tuple[str, object]]] | None]:
        """Search from the position within the pass's budget; return the outcome and, if won,
        the logs of the line. Raise ``_Budget`` when the budget runs out first."""
        steps = self.steps()
        check = 0
        try:
            while True:
                next(steps)
                if self.nodes >= self.nodes_left:
                    raise _Budget
                check += 1
                if check >= 64:
                    check = 0
                    if self.clock() >= self.deadline:
                        raise _Budget
        except StopIteration as stop:
            result: _Found = stop.value
            return result

    def steps(self) -> Generator[None, None, _Found]:
        """Search from the position, yielding after each position expanded; return the
        outcome and, if won, the logs of the line (as ``StopIteration.value``)."""
        pos = self.pos
        root_log = self.root_autos()
        if pos.won:
            return "won", [root_log]
        self.seen.add(self.key())
        self.nodes += 1
        yield
        logs: list[list[tuple[str, object]]] = [root_log]
        stack: list[tuple[IMove | None, list[IMove]]] = [(None, self.root_children())]
        seen = self.seen
        while stack:
            _, todo = stack[-1]
            if not todo:
                stack.pop()
                self.undo(logs.pop())
                continue
            move = todo.pop()
            log = self.apply(move)
            key = self.key()
            if key in seen or self.crossed:
                self.undo(log)
                continue
            seen.add(key)
            logs.append(log)
            if pos.won:
                return "won", logs
            self.nodes += 1
            yield
            # A plain transfer that revealed nothing may be undone at once only to come back:
            # skip that child.
            parent = None
            if len(log) == 1 and log[0][0] == "t":
                record = log[0][1]
                assert isinstance(record, tuple)
                if record[4] < 0 and record[3] == pos.hidden[record[0]]:
                    parent = move
            stack.append((parent, self.children(parent)))
        return "lost", None


def _luby(i: int) -> int:
    """Return the ``i``-th term (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, …"""
    while True:
        k = 1
        while (1 << k) - 1 < i:
            k += 1
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


class _Restarts(_Search):
    """Depth-first searches run one after another from the position, each stopped after its
    share of positions expanded: ``unit`` times the run's term of Luby's sequence (1, 1, 2, 1,
    1, 2, 4, …), the restart schedule within a constant factor of the best for any
    distribution of run lengths. The first run tries moves in ``children``'s order; each later
    one in an order of its own, moves of the same rank shuffled (``noise``; the generator is
    seeded by the run's number, so a solve is repeatable).

    A depth-first search that commits early to a hopeless line can spend its whole budget
    under it; one of many short runs in other orders more often walks straight into a win.
    Each run keeps a table of its own, so a run that ends without a win has searched the whole
    reachable game, as any run would: the pass ends there.
    """

    unit = RESTART_UNIT

    def steps(self) -> Generator[None, None, _Found]:
        rules = self.pos.r
        state = self.pos.to_state()
        self.runs = 0
        while True:
            self.runs += 1
            if self.runs == 1:
                position = self.pos
            elif self.avoid is not None and self.avoid.positions:
                # One trie for every run, so the positions to avoid are keyed alike.
                position = self.pos
                position._load(state.piles, _redeals(state))
            else:
                position = _Position(rules, state)
            run = _Search(position, autos=self.use_autos, nodes_left=0, deadline=0, clock=float)
            run.one_empty_target = self.one_empty_target
            run.avoid = self.avoid
            if self.runs > 1:
                run.shuffle = random.Random(self.runs)
            limit = self.unit * _luby(self.runs)
            work, made, nodes = self.work, self.made, self.nodes
            steps = run.steps()
            try:
                while run.nodes < limit:
                    next(steps)
                    self.work = work + run.work
                    self.made = made + run.made
                    self.nodes = nodes + run.nodes
                    yield
            except StopIteration as stop:
                found: _Found = stop.value
                return found


class _BestFirst(_Search):
    """A best-first pass: the most promising position found so far is expanded next.

    It finds wins in far fewer positions than the depth-first pass where a deal's space is
    large, but keeps every position it has yet to expand. Like the depth-first pass, it has
    searched every reachable position when it ends without a win.
    """

    def steps(self) -> Generator[None, None, _Found]:
        pos = self.pos
        root_log = self.root_autos()
        if pos.won:
            return "won", [root_log]
        seen = self.seen
        seen.add(self.key())
        # For each position found: its parent's number and the log of the move to it.
        parents: list[tuple[int, list[tuple[str, object]]]] = [(-1, root_log)]
        frontier: list[tuple[int, int, bytes]] = [(0, 0, pos.snapshot())]
        while frontier:
            _, number, packed = heapq.heappop(frontier)
            pos.restore(packed)
            self.nodes += 1
            yield
            for move in self.root_children() if number == 0 else self.children(None):
                log = self.apply(move)
                key = self.key()
                if key not in seen and not self.crossed:
                    seen.add(key)
                    parents.append((number, log))
                    self.work += 2
                    if pos.won:
                        return "won", self._path(parents, len(parents) - 1)
                    heapq.heappush(frontier, (-pos.promise(), len(parents) - 1, pos.snapshot()))
                    if len(frontier) > MAX_FRONTIER:
                        self.undo(log)
                        raise _Budget
                self.undo(log)
        return "lost", None

    @staticmethod
    def _path(
        parents: list[tuple[int, list[tuple[str, object]]]], number: int
    ) -> list[list[tuple[str, object]]]:
        logs = []
        while number >= 0:
            number, log = parents[number]
            logs.append(log)
        logs.reverse()
        return logs


class _DeepBestFirst(_BestFirst):
    """A best-first pass whose estimate weighs buried cards the foundations take next twice
    as heavily: it wins other deals than the plain one, so both run where the greedy
    automatic moves are used."""

    depth_weight = 2 * PROMISE_DEPTH


def _line(rules: _Rules, logs: list[list[tuple[str, object]]]) -> list[AnyMove]:
    ids = rules.variant.ids
    line: list[AnyMove] = []
    for log in logs:
        for kind, record in log:
            if kind == "d":
                line.append(Deal())
            elif kind == "r":
                line.append(Redeal())
            else:
                assert isinstance(record, tuple)
                s, d, k = record[0], record[1], record[2]
                line.append(Move(ids[s], ids[d], k))
    return line


def _passes(rules: _Rules) -> list[tuple[type[_Search], int, int]]:
    """Return the passes ``solve`` runs for ``rules``: each one's kind, automatic moves and
    quantum of work a turn."""
    if rules.back is Return.NONE and rules.redeal_hook is None:
        return [(_BestFirst, SAFE, 4096), (_Search, SAFE, 4096)]
    return [
        (_Restarts, AGGRESSIVE, 8192),
        (_BestFirst, AGGRESSIVE, 4096),
        (_DeepBestFirst, AGGRESSIVE, 4096),
        (_Search, SAFE, 2048),
    ]


def _redeals(state: State) -> int:
    """Return the redeals left as ``_Position`` counts them (-1: no limit)."""
    return -1 if state.redeals_left is None else state.redeals_left


def _reverse(move: AnyMove | None) -> AnyMove | None:
    """Return the move that takes ``move``'s cards back, if it moved cards."""
    return Move(move.target, move.source, move.count) if isinstance(move, Move) else None


def _avoid(state: State, avoid: Iterable[State], after: AnyMove | None) -> _Avoid | None:
    """Return what ``avoid`` and ``after`` rule out from ``state``, or None for nothing."""
    positions = {(s.piles, _redeals(s)) for s in avoid}
    first: set[AnyMove] = set()
    reverse = _reverse(after)
    if reverse is not None:
        first.add(reverse)
    if positions:
        for move in legal_moves(state):
            reached = apply_move(state, move)
            if (reached.piles, _redeals(reached)) in positions:
                first.add(move)
    if not first and not positions:
        return None
    return _Avoid(first, sorted(positions, key=repr))


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
    starts by taking ``after``'s cards back. ``lost`` then means that no winning line keeps
    to that, not that none is left at all.
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
    rules = _rules(state.variant, state.base_rank)
    ruled_out = _avoid(state, avoid, after)
    # The passes take turns, each making its quantum of positions in a turn, so a deal one of
    # them wins quickly is won quickly. The streamlined passes play automatic moves that are
    # only likely safe: they may prove a win, never a loss; they are needed only where such
    # moves differ from the provably safe ones. A best-first pass and a depth-first one find
    # different wins, so both run; the full search, whose exhaustion proves a loss, runs beside.
    running = []
    for kind, autos, quantum in _passes(rules):
        search = kind(_Position(rules, state), autos=autos, nodes_left=0, deadline=0, clock=clock)
        search.avoid = ruled_out
        running.append((search, search.steps(), autos, quantum))
    searches = [turn[0] for turn in running]

    def made() -> int:
        return sum(search.made for search in searches)

    nodes = 0
    check = 0
    while running:
        for turn in list(running):
            search, steps, autos, quantum = turn
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
                if autos == SAFE:
                    return SolveResult("lost", None, nodes, clock() - start, made())
                running.remove(turn)
            except _Budget:
                running.remove(turn)
    return SolveResult("unknown", None, nodes, clock() - start, made())


__all__ = ["SolveResult", "solve"]
