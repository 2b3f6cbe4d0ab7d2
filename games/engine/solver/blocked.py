"""A test that a position can never be won, on a relaxation of its rules (``Blocking``).

Every card has to reach its foundation, and some things have to happen first, in any order:

- ``F(c)``, card ``c`` goes up: the card under it in its suit went up before, and ``c`` was at
  hand then (the top of a tableau pile, ``T(c)``, or the waste's top card, ``acc(c)``);
- ``S(c)``, a tableau card leaves the card under it (or the pile's bottom): it went up, or it
  was face up, at the top or lying at the bottom of a part of the pile that moves as one
  (a run, or any face-up group where those move), and a card it may go on was at hand at some
  time (``A``), or it may go to an empty pile and a pile could be emptied;
- ``T(c)``, a tableau card is at the top: the card on it left it (``S``);
- ``A(c)``, a card is at hand to build on: it is on the tableau and at the top; or it is on a
  foundation whose cards may come back, the cards on it there came back, and a card it may go
  on was at hand (or an empty pile could take it); or it is in the stock or the waste, was on
  top of the waste, and a card it may go on was at hand (or an empty pile could take it);
- ``acc(c)``, a stock card is the waste's top card: in the order the stock deals its cards
  (the waste's from its bottom, then the stock's), at position ``j``, with ``p`` of them dealt,
  the stock deals ``k`` at a time from ``s = p`` (this turn) or ``s = 0`` (after it is turned
  over) with some ``m`` of the cards from ``s`` to ``j`` gone, and ``j - s - m`` is one less
  than a multiple of ``k``; or the card dealt after it was played; or it is the last card;
- ``rem(c)``, a stock card is played: it was on top of the waste and went up, or onto a card
  at hand, or onto an empty pile that takes it.

Each condition above is one that any line of play meets before the event, so in a won game
every event happens. Here every event happens as soon as its condition holds, from the events
the position already shows, until nothing more changes (a least fixed point: the conditions
only grow with the events, the order they are taken in does not matter). A card that never goes
up in it goes up in no line of play: the position is lost. The relaxation forgets how many cards
a card at hand can take, when each event happens and how many redeals are left, so the test
may miss lost positions; it never calls a winnable one lost.

Two cards that take turns on a card (``_held``) win back some of what it forgets. Let ``x`` and
``y`` be twins, the only two cards that may go on the same two cards ``q`` and ``p`` and on no
empty pile (Klondike's black Nines, on the red Tens). A card lies on one card at a time, and a
tableau card leaves the card under it only by going up, onto a card it may go on that is at
hand, or onto an empty pile. So in a line where ``x`` lies on ``q`` before ``y`` ever does,
``x`` left ``q`` first: by going up, or onto ``p`` while ``p`` was at hand. Such a line meets
one more condition before each of ``y``'s moves onto ``q``: ``x`` went up, or ``p`` was at hand.
Every line is of that case or of the one with ``x`` and ``y`` swapped: where one of them never
lies on ``q``, the condition on that card's moves holds, having none. ``_held`` runs the
relaxation once for each case, with its condition added to the events that put that card onto
``q``; where both block, no line wins. It runs only the cases that can block: those where the
way the relaxation without them found for the other card to go up, and for ``p`` to be at hand,
needed that card's move onto ``q``. Otherwise that way holds in the case too, then lets the card
go onto ``q``, and from there every event of the relaxation without them happens; for the same
reason a case's run stops as not blocked as soon as its condition holds.

It holds for one-deck games whose four foundations build up in suit from the Ace, with no free
cells or reserves, a stock (if any) dealing to a waste, no redeal hook and no supermove limit
(``applies``): Klondike, Yukon. It is not used where an empty pile takes any card (Beleaguered
Castle): there a card can nearly always wait on an empty pile, and none of 200 random endgames
was blocked, so the test would cost time for nothing.

``solve`` tests the position it is given, and the depth-first passes each position they make
(the best-first ones do not: it cost them more time than it saved). Klondike's ``bench-10``
is blocked from its deal; ``bench-6`` took 4.1 million positions to prove lost without the
test, 16,000 with the relaxation, 1,792 with the twins too, and ``bench-13`` (555,967
positions with the relaxation alone) is blocked by them from its deal (docs/winrates.md).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..cards import CARDS_PER_DECK, RANK_OF
from ..rules import Build, Direction, Kind, Return, SuitRule
from .tables import Rules

# Where a card lies.
_STOCK, _FOUNDATION, _TABLEAU = 0, 1, 2
_ACES = tuple(RANK_OF[c] == 1 for c in range(CARDS_PER_DECK))


def applies(r: Rules) -> bool:
    """Return whether ``Blocking`` holds for the rules (the module's docstring)."""
    variant = r.variant
    stock = variant.stock
    piles = variant.piles
    up_in_suit = Build(Direction.UP, SuitRule.SAME, False)
    return (
        r.decks == 1
        and not r.cells
        and not r.reserves
        and not r.supermove
        and r.redeal_hook is None
        and not any(p.refill_from is not None for p in piles)
        and (stock is None or (stock.deal_to is Kind.WASTE and stock.waste_build is None))
        and len(r.foundations) == 4
        and all(
            piles[f].build == up_in_suit and piles[f].base_rank == 1 and not piles[f].complete_runs
            for f in r.foundations
        )
        and not any(piles[t].covered_by or piles[t].covers for t in r.tableau)
        and not r.empty_any
    )


def _ends_a_group(j: int, start: int, gone: int, k: int) -> bool:
    """Return whether the stock's ``j``-th card can be the last of a group of ``k`` dealt from
    its ``start``-th, with up to ``gone`` of the cards between played before."""
    return gone >= k - 1 or any((j - start - m) % k == k - 1 for m in range(gone + 1))


@lru_cache(maxsize=4096)
def _first_tops(k: int, count: int, dealt: int) -> tuple[bool, ...]:
    """Return which cards of a stock of ``count`` (the waste's from its bottom, then the
    stock's), ``dealt`` of them dealt, can be the waste's top card before any is played, the
    stock dealing ``k`` at a time (``acc`` at the start of ``Blocking.blocked``)."""
    return tuple(
        j == dealt - 1
        or j == count - 1
        or _ends_a_group(j, 0, 0, k)
        or (j >= dealt and _ends_a_group(j, dealt, 0, k))
        for j in range(count)
    )


def _group_ends(k: int, most: int) -> tuple[tuple[bool, ...], ...]:
    """Return ``_ends_a_group`` as a table for groups of ``k`` and up to ``most`` cards gone:
    ``table[gone][(j - start) % k]``."""
    return tuple(tuple(_ends_a_group(r, 0, g, k) for r in range(k)) for g in range(most + 1))


class _Start(NamedTuple):
    """The events a position shows, where its cards lie, and its stock (``Blocking._start``)."""

    where: list[int]
    up: list[bool]
    hand: list[bool]
    under: list[int]
    moving: list[bool]
    top: list[bool]
    empty: bool
    order: list[int]
    dealt: int
    at: list[int]
    acc: tuple[bool, ...]
    ftop: list[bool]


class _Trace(NamedTuple):
    """How the events of a run came about (``Blocking._close``)."""

    onto: list[int]
    need_up: list[int]
    need_hand: list[int]
    hand: list[bool]


class Blocking:
    """The test of the module's docstring for one game's rules (read-only tables)."""

    def __init__(self, r: Rules) -> None:
        self.r = r
        builds = r.tbuilds
        # The cards each card may go on in the tableau, and those that may go on it.
        self.parents = tuple(
            tuple(q for q in range(CARDS_PER_DECK) if builds[q * CARDS_PER_DECK + c])
            for c in range(CARDS_PER_DECK)
        )
        self.children = tuple(
            tuple(c for c in range(CARDS_PER_DECK) if builds[q * CARDS_PER_DECK + c])
            for q in range(CARDS_PER_DECK)
        )
        self.to_empty = tuple(r.empty_any or c in r.empty_cards for c in range(CARDS_PER_DECK))
        self.returns = r.back is not Return.NONE
        self.deals = r.stock_rule.cards if r.stock_rule is not None else 1
        # The cards an empty pile takes.
        self.kings = tuple(c for c in range(CARDS_PER_DECK) if self.to_empty[c])
        # ``_ends_a_group`` as a table, for as many cards gone as the game has.
        self.ends = _group_ends(self.deals, r.total)
        # Each card's twin: the one other card with the same two cards to go on, neither
        # going to an empty pile (-1: none).
        self.twins = tuple(self._twin(c) for c in range(CARDS_PER_DECK))

    def _twin(self, c: int) -> int:
        parents = self.parents[c]
        if len(parents) != 2 or self.to_empty[c]:
            return -1
        same = [
            d
            for d in range(CARDS_PER_DECK)
            if d != c and self.parents[d] == parents and not self.to_empty[d]
        ]
        return same[0] if len(same) == 1 else -1

    def blocked(self, cards: list[list[int]], hidden: list[int]) -> bool:
        """Return whether some card can never go up from the position (piles' cards, bottom
        first, and their face-down counts): in the relaxation, or in both cases of a card
        that two cards need (the module's docstring)."""
        start = self._start(cards, hidden)
        if start is None:
            return False
        trace = self._close(start, -1, -1, -1, -1)
        return trace is None or self._held(start, trace)

    def _start(self, cards: list[list[int]], hidden: list[int]) -> _Start | None:
        """Return the events the position shows, or None where every card is up."""
        r = self.r
        n = CARDS_PER_DECK
        # A card in none of the piles (a test's board of part of a pack) needs nothing.
        where = [_FOUNDATION] * n
        up = [True] * n
        # Whether a card is at hand to build on at some time (``A``).
        hand = [False] * n
        for f in r.foundations:
            for c in cards[f]:
                up[c] = True
                where[c] = _FOUNDATION
        # Tableau cards: the card under each (-1: none), whether it moves with the cards above
        # it, whether it is at the top at some time (``T``).
        under = [-1] * n
        moving = [False] * n
        top = [False] * n
        empty = False
        any_group = r.any_group
        sbuilds = r.sbuilds
        for t in r.tableau:
            pile = cards[t]
            if not pile:
                empty = True
                continue
            h = hidden[t]
            prev = -1
            for c in pile:
                where[c] = _TABLEAU
                up[c] = False
                under[c] = prev
                prev = c
            top[prev] = hand[prev] = True
            # The face-up cards that move with all the cards above them.
            i = len(pile) - 1
            if i >= h:
                moving[prev] = True
                if any_group:
                    while i > h:
                        i -= 1
                        moving[pile[i]] = True
                elif r.sequences[t]:
                    while i > h and sbuilds[pile[i - 1] * n + pile[i]]:
                        i -= 1
                        moving[pile[i]] = True
        # The stock's cards in the order it deals them (the waste's from its bottom, then the
        # stock's), ``dealt`` of them dealt; which are the waste's top card at some time
        # (``acc``).
        order: list[int] = []
        dealt = 0
        if r.stock is not None:
            if r.waste is not None:
                order.extend(cards[r.waste])
                dealt = len(order)
            order.extend(reversed(cards[r.stock]))
        at = [0] * n
        for j, c in enumerate(order):
            at[c] = j
            where[c] = _STOCK
            up[c] = False
        if all(up):
            return None
        # The top card of each foundation.
        ftop = [False] * n
        for f in r.foundations:
            if cards[f]:
                ftop[cards[f][-1]] = True
        acc = _first_tops(self.deals, len(order), dealt)
        return _Start(where, up, hand, under, moving, top, empty, order, dealt, at, acc, ftop)

    def _close(self, start: _Start, wx: int, wq: int, wa: int, wb: int) -> _Trace | None:
        """Let every event happen as soon as its condition holds, until nothing changes;
        return None if a card never goes up, else how the events came about (``_Trace``).

        Where ``wx`` is a card, it goes onto ``wq`` only once ``wa`` went up or ``wb`` was at
        hand (a case of ``_held``)."""
        n = CARDS_PER_DECK
        where, up, hand, under, moving, top, empty, order, dealt, at, acc0, ftop = start
        # This run's own copies of the events that grow.
        up = up[:]
        hand = hand[:]
        top = top[:]
        acc = list(acc0)
        left = [False] * n
        count = len(order)
        # How many are never the waste's top yet.
        unseen = acc.count(False)
        # Which are played (``rem``).
        rem = [False] * count
        returns = self.returns
        k = self.deals
        ends = self.ends
        parents = self.parents
        children = self.children
        to_empty = self.to_empty
        aces = _ACES
        # Which cards' moves onto a card (``onto``: the card, -1 for none) each event needed,
        # as bits, through the events it needed (for a tableau card, ``need_hand`` is also
        # what its being at the top needed): the one way this run found, not every way.
        onto = [-1] * n
        need_up = [0] * n
        need_hand = [0] * n
        need_acc = [0] * count
        need_empty = 0
        need_played = 0
        missing = up.count(False)
        # The cards to look at again: each takes whatever step its events allow.
        todo = list(range(n - 1, -1, -1))
        while todo:
            c = todo.pop()
            place = where[c]
            if place == _FOUNDATION:
                # A card comes back to the tableau once the cards on it in its suit have, onto
                # a card at hand or an empty pile.
                if hand[c] or not returns or not (ftop[c] or hand[c + 1]):
                    continue
                need = 0 if ftop[c] else need_hand[c + 1]
                if to_empty[c] and empty:
                    need |= need_empty
                else:
                    for q in parents[c]:
                        if hand[q] and (c != wx or q != wq or up[wa] or hand[wb]):
                            break
                    else:
                        continue
                    onto[c] = q
                    need |= need_hand[q] | 1 << c
                if c == wb:
                    return _Trace(onto, need_up, need_hand, hand)
                hand[c] = True
                need_hand[c] = need
                todo.extend(children[c])
                if not aces[c]:
                    todo.append(c - 1)
                continue
            if (
                not up[c]
                and (aces[c] or up[c - 1])
                and (top[c] if place == _TABLEAU else acc[at[c]])
            ):
                up[c] = True
                need_up[c] = (0 if aces[c] else need_up[c - 1]) | (
                    need_hand[c] if place == _TABLEAU else need_acc[at[c]]
                )
                missing -= 1
                if not missing:
                    return _Trace(onto, need_up, need_hand, hand)
                if RANK_OF[c] < 13:
                    todo.append(c + 1)
                if c == wa:
                    return _Trace(onto, need_up, need_hand, hand)
            if place == _TABLEAU:
                if left[c]:
                    continue
                below = under[c]
                if up[c]:
                    need = need_up[c]
                else:
                    if not (top[c] or moving[c]):
                        continue
                    need = 0 if moving[c] else need_hand[c]
                    if to_empty[c] and empty and below >= 0:
                        need |= need_empty
                    else:
                        for q in parents[c]:
                            if (
                                hand[q]
                                and q != below
                                and (c != wx or q != wq or up[wa] or hand[wb])
                            ):
                                break
                        else:
                            continue
                        onto[c] = q
                        need |= need_hand[q] | 1 << c
                left[c] = True
                if below >= 0:
                    if not top[below]:
                        if below == wb:
                            return _Trace(onto, need_up, need_hand, hand)
                        top[below] = hand[below] = True
                        need_hand[below] = need
                        todo.append(below)
                        todo.extend(children[below])
                elif not empty:
                    empty = True
                    need_empty = need
                    todo.extend(self.kings)
                continue
            j = at[c]
            if not acc[j] or (rem[j] and hand[c]):
                continue
            # Played onto the tableau (then at hand), or up only.
            need = need_acc[j]
            if to_empty[c] and empty:
                need |= need_empty
                placed = True
            else:
                placed = False
                for q in parents[c]:
                    if hand[q] and (c != wx or q != wq or up[wa] or hand[wb]):
                        onto[c] = q
                        need |= need_hand[q] | 1 << c
                        placed = True
                        break
            if placed:
                if c == wb:
                    return _Trace(onto, need_up, need_hand, hand)
                hand[c] = True
                need_hand[c] = need
                todo.extend(children[c])
            elif up[c]:
                need |= need_up[c]
            elif aces[c] or up[c - 1]:
                need |= 0 if aces[c] else need_up[c - 1]
            else:
                continue
            if rem[j]:
                continue
            rem[j] = True
            need_played |= need
            if not unseen:
                continue
            # Cards dealt after it may come up in other groups, and the card under it on top.
            gone0 = gone = 0
            for i in range(count):
                if not acc[i] and (
                    (i + 1 < count and rem[i + 1])
                    or ends[gone0][i % k]
                    or (i >= dealt and ends[gone][(i - dealt) % k])
                ):
                    acc[i] = True
                    unseen -= 1
                    need_acc[i] = need_played
                    todo.append(order[i])
                if rem[i]:
                    gone0 += 1
                    if i >= dealt:
                        gone += 1
        return None if missing else _Trace(onto, need_up, need_hand, hand)

    def _held(self, start: _Start, trace: _Trace) -> bool:
        """Return whether, for two cards ``x`` and ``y`` with the same two cards ``q`` and
        ``p`` to go on (no empty pile), the relaxation blocks both where ``y`` goes onto ``q``
        only once ``x`` went up or ``p`` was at hand, and where ``x`` does so only once ``y``
        went up or ``p`` was at hand (the module's docstring)."""
        onto, need_up, need_hand, hand = trace
        parents = self.parents
        twins = self.twins
        for y in range(CARDS_PER_DECK):
            q = onto[y]
            x = twins[y]
            # Each pair once. A case blocks only if the way this run found for its other card
            # to go up, and for ``p`` to be at hand, both needed its card's move onto ``q``:
            # else that way holds in the case too, and then all of this run's.
            if q < 0 or x < 0 or x > y or onto[x] != q:
                continue
            p = parents[y][0] if parents[y][1] == q else parents[y][1]
            bits = 1 << x | 1 << y
            if hand[p] and need_hand[p] & bits != bits:
                continue
            if not (need_up[x] >> y & 1 and need_up[y] >> x & 1):
                continue
            if self._close(start, y, q, x, p) is None and self._close(start, x, q, y, p) is None:
                return True
        return False


@lru_cache(maxsize=32)
def blocking_for(r: Rules) -> Blocking | None:
    """Return the test for ``r``'s game, or None where it does not hold (``applies``)."""
    return Blocking(r) if applies(r) else None
