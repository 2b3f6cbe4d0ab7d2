"""The rules of one variant laid out as lookup tables for the search, and the encodings the
search shares: internal moves, undo records, card bits and automatic-move modes."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter

from ..building import builds
from ..cards import CARDS_PER_DECK, RANK_OF, SUIT_OF
from ..rules import (
    ANY_RANK,
    BASE_FROM_DEAL,
    NO_CARD,
    Build,
    Direction,
    Kind,
    PileRule,
    Return,
    SuitRule,
    Variant,
)

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
# What each card above the nearest card a foundation takes next costs the best-first pass's
# estimate (a card on a foundation earns 12, a card on one it does not build on costs 3).
PROMISE_DEPTH = 6
# Where the rules have free cells, what a card in a cell costs that estimate and what an
# empty tableau pile earns on top of the 4 every empty pile earns (it holds a whole sequence).
PROMISE_CELL = 6
PROMISE_CELL_SPACE = 8


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


def _getter(indexes: list[int] | tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    """Return a function of a list giving the tuple of its items at ``indexes``."""
    if len(indexes) >= 2:
        return itemgetter(*indexes)
    if indexes:
        only = indexes[0]
        return lambda values: (values[only],)
    return lambda values: ()


class Rules:
    """The rules of one variant laid out as lookup tables for the search (read-only)."""

    def __init__(self, variant: Variant, base_rank: int | None) -> None:
        self.variant = variant
        piles = variant.piles
        self.n = len(piles)
        self.kind = tuple(p.kind for p in piles)
        self.foundations = variant.foundations
        self.tableau = variant.tableau
        self.reserves = variant.reserves
        # The piles whose cards ``Position.promise`` measures the depth of: tableau, reserves.
        self.buried_piles = (*self.tableau, *self.reserves)
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
        self.succ = tuple(
            _successors(p.build) if p.build is not None and not p.complete_runs else none
            for p in piles
        )
        first = piles[variant.tableau[0]]
        assert first.build is not None
        self.tableau_build = first.build
        self.tsucc = _successors(first.build)
        self.tbuilds = _builds_table(first.build)
        self.sequences = tuple(p.sequences for p in piles)
        # The build a moving sequence follows (Spider: in suit, stricter than the tableau's),
        # whether any face-up cards move together (Yukon), and FreeCell's supermove limit.
        self.sbuilds = _builds_table(first.sequence_build or first.build)
        self.any_group = first.any_group
        self.supermove = first.supermove
        self.cells = variant.cells
        self.is_cell = tuple(p.cell for p in piles)
        # Foundations that take only a complete run of 13 cards (Spider): no single card goes
        # there, so they are left out of the single-card tables and get run moves of their own.
        self.runs = tuple(p.index for p in piles if p.complete_runs)
        run_build = piles[self.runs[0]].build if self.runs else None
        self.run_builds = _builds_table(run_build) if run_build is not None else b""
        self.run_base = piles[self.runs[0]].base_rank if self.runs else None
        self.base_suit = tuple(p.base_suit for p in piles)
        self.needs_no_empty = variant.stock is not None and variant.stock.needs_no_empty_tableau
        # How many copies of each card the pack holds (more than the decks where the pack is of
        # fewer suits).
        self.copies = self.decks * 4 // len(variant.pack_suits)
        self.refill = tuple(p.refill_from for p in piles)
        self._tableau_tables(variant, piles)
        self._foundation_tables(variant, piles)
        self._move_tables(variant, piles)
        self._key_tables(variant, piles)

    def _tableau_tables(self, variant: Variant, piles: tuple[PileRule, ...]) -> None:
        """Lay out what an empty tableau pile takes and how tableau piles are looked up by
        the card they take."""
        first = piles[variant.tableau[0]]
        base_rank = self.base_rank
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

    def _foundation_tables(self, variant: Variant, piles: tuple[PileRule, ...]) -> None:
        """Lay out what each foundation takes when empty and the classes of foundations of one
        rule."""
        base_rank = self.base_rank
        # What an empty foundation takes.
        self.base_cards: list[tuple[int, ...]] = []
        for i in range(self.n):
            rule = piles[i]
            if rule.kind is not Kind.FOUNDATION or rule.complete_runs:
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

    def _move_tables(self, variant: Variant, piles: tuple[PileRule, ...]) -> None:
        """Lay out where moves come from, the stock's macro moves, when automatic moves are
        safe and which foundations take each card."""
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
        # Whether the stock deals several cards at a time to a waste (``Position.autos``).
        self.waste_grouped = stock is not None and stock.deal_to is Kind.WASTE and stock.cards > 1
        self.tableau_dealt = stock is not None and stock.deal_to is Kind.TABLEAU
        self.reserve_dealt = stock is not None and stock.deal_to is Kind.RESERVE
        self.reserve_refill = len(self.reserves) > 1 and bool(refills & set(self.reserves))
        self.sound_autos = self.back is Return.NONE
        # Where cards may come back from the foundations, a foundation move is still provably
        # safe in a one-deck game whose foundations all build up in suit from the Ace, with no
        # refill or redeal hook and a stock, if any, dealing to a waste, once the cards of
        # ``lower[c]`` are up: every card that could come to lie on c, and the cards under those
        # in their suits (``_under``; see ``Position._safe_returning``).
        self.lower: tuple[tuple[int, ...], ...] = ((),) * CARDS_PER_DECK
        self.returning_safe = self._returning_safe_cards(variant, piles, refills)
        self.any_returning_safe = any(self.returning_safe)
        # For each card, the foundations that may ever take it, in order; for each foundation,
        # whether it takes card c on top card t (t = -1: empty; see CARD_BITS).
        takers: list[list[int]] = [[] for _ in range(CARDS_PER_DECK)]
        self.takes = [b""] * self.n
        card_foundations = []
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
            if taken:
                card_foundations.append(f)
        self.takers = tuple(map(tuple, takers))
        # The foundations that ever take a single card, in order (not Spider's run foundations,
        # which take only complete runs). Where there are none, no automatic move ever plays.
        self.card_foundations = tuple(card_foundations)
        self.autoplays = bool(card_foundations)
        self.is_auto_source = tuple(i in self.auto_sources for i in range(self.n))

    def _key_tables(self, variant: Variant, piles: tuple[PileRule, ...]) -> None:
        """Lay out how a position's key is packed, and the coarse key of the greedy passes."""
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
        # (``Position.coarse_key``), their token a number past every card's. One deck only:
        # the measurements behind that choice are in docs/winrates.md ("Castile: the same
        # runs with cards of one rank swapped").
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
            or (variant.stock is not None and variant.stock.deal_to is not Kind.WASTE)
            or self.redeal_hook is not None
            or refills
            or len(self.foundations) != 4
            or foundation_rules != {(Build(Direction.UP, SuitRule.SAME, False), 1)}
        ):
            return never
        out = []
        lower = []
        for c in range(CARDS_PER_DECK):
            # No card outside the lower ones and c may lie on one of them or on c.
            below = {x for x in range(CARDS_PER_DECK) if RANK_OF[x] < RANK_OF[c]} | {c}
            out.append(all(u in below for t in below for u in self.tsucc[t]))
            lower.append(self._under(c) if out[-1] else ())
        self.lower = tuple(lower)
        return tuple(out)

    def _under(self, c: int) -> tuple[int, ...]:
        """Return the cards ``_safe_returning`` needs up before ``c``: the smallest set of cards
        that holds every card that may lie on ``c`` or on one of its cards, and every card below
        one of its cards in the suit (so the cards of a suit in it are its Ace up to some rank).

        In Klondike, for a card of rank r: the cards of the other colour up to r - 1, those of
        its suit up to r - 1, and those of the other suit of its colour up to r - 2."""
        found = {c}
        todo = [c]
        while todo:
            t = todo.pop()
            for u in (*self.tsucc[t], *range(t - RANK_OF[t] + 1, t)):
                if u not in found:
                    found.add(u)
                    todo.append(u)
        found.discard(c)
        return tuple(sorted(found))


@lru_cache(maxsize=32)
def tables_for(variant: Variant, base_rank: int | None) -> Rules:
    """Return the tables of ``variant``, made once for each (they are only read)."""
    return Rules(variant, base_rank)
