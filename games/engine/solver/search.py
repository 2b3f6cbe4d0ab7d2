"""The passes over a ``Position``: depth-first with a transposition table, restarts after
Luby's sequence, best-first by the position's promise, and best-first in stages between the
deals of a stock that deals to every tableau pile."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Generator, Hashable
from operator import itemgetter
from typing import Literal

from ..cards import CARDS_PER_DECK, SUIT_OF
from ..moves import AnyMove, Deal, Move, Redeal
from ..rules import FOUNDATION_LIMIT, Return
from ..state import Pile, State
from .blocked import blocking_for
from .position import Position, redeals_left
from .tables import AGGRESSIVE, DEAL, PROMISE_DEPTH, REDEAL, SAFE, IMove, Record, Rules

_first = itemgetter(0)
Outcome = Literal["won", "lost", "unknown"]
# What a pass ends with: its outcome and, if won, the undo logs of the line's moves.
Found = tuple[Outcome, "list[list[tuple[str, object]]] | None"]
# The restarts' runs stop after this many positions expanded times a term of Luby's sequence;
# a later run's order ranks a move by its rank in ``children`` (its score times 64, plus the
# deals of a stock macro) plus up to this much of a random number: below 1, only moves of the
# same rank change places.
RESTART_UNIT = 1000
RESTART_NOISE = 1.0
# The best-first pass keeps the positions it has yet to expand; past this many it gives way
# to the depth-first pass (about 200 bytes each).
MAX_FRONTIER = 1_000_000
# The reweighted pass (``Reweighted``): what a face-down tableau card costs the estimate of
# each of its runs in turn, and the positions its runs expand, times Luby's sequence.
REVEAL_WEIGHTS = (0, 8, 20, 40, 4, 12, 30)
REWEIGHT_UNIT = 1000
# Spider's staged pass (``Staged``): how many positions of each stage deal the next one, and
# how many positions each stage expands, in the first round (every round after, twice as many
# deal and half as many again are expanded); how many times that the last stage expands, once
# the stock is out; and the most that a random draw adds to a position's rating after the
# first round.
STAGE_KEEP = 8
STAGE_UNIT = 3000
STAGE_LAST = 3
STAGE_NOISE = 12
# Spider's estimate (``spider_promise``): what a card on the foundations, an empty pile and a
# card on the next of its suit earn, and what a face-down card and a card on one it does not
# build on cost.
SPIDER_RUN = 20
SPIDER_EMPTY = 60
# What an empty pile earns in the staged pass while the stock still deals: it must be filled
# again before the next deal.
SPIDER_EMPTY_DEALING = 40
SPIDER_SAME = 6
SPIDER_HIDDEN = 25
SPIDER_BREAK = 4
# What ``Blocking``'s test of a position costs, in positions made (it takes about as long as
# making two), so the passes still share the time as their quanta say.
BLOCKING_WORK = 2


class Avoid:
    """What ``solve``'s ``avoid`` and ``after`` ask of the line: ``first``, the first moves
    ruled out (each as the engine's move for its first ply); ``positions``, the positions the
    line never enters (their piles and redeals left), keyed by each search in its own terms."""

    def __init__(self, first: set[AnyMove], positions: list[tuple[tuple[Pile, ...], int]]) -> None:
        self.first = first
        self.positions = positions
        self._keys: dict[tuple[int, object], list[Hashable]] = {}

    def keys(self, pos: Position, key: Callable[[], Hashable]) -> list[Hashable]:
        """Return the keys ``key`` gives the positions on ``pos`` (whose trie numbers the
        piles), computed once per position object and key; ``pos`` is left as it was."""
        known = self._keys.get((id(pos), key.__name__))
        if known is None:
            root = pos.to_state()
            known = []
            for piles, redeals in self.positions:
                pos.load(piles, redeals)
                known.append(key())
            pos.load(root.piles, redeals_left(root))
            self._keys[(id(pos), key.__name__)] = known
        return known


class Budget(Exception):
    """The node or time budget ran out."""


class Search:
    """One depth-first pass with a transposition table over a ``Position``."""

    # How far a shuffled order strays from the ranked one (``children``, with ``shuffle``).
    noise = RESTART_NOISE

    # What each card above the nearest card a foundation takes next costs the pass's
    # estimate (``Position.promise``; used by the best-first passes).
    depth_weight = PROMISE_DEPTH
    # How many times the estimate counts the cards in free cells and the empty piles there.
    cell_weight = 1
    # Whether the pass leaves out positions ``Blocking`` finds lost (where its rules hold, and
    # with the provably safe automatic moves only).
    checks_blocking = True

    def __init__(
        self,
        pos: Position,
        *,
        autos: int,
        nodes_left: int,
        deadline: float,
        clock: Callable[[], float],
    ) -> None:
        self.pos = pos
        pos.depth_weight = self.depth_weight
        pos.cell_weight = self.cell_weight
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
        # likely share an outcome (``Position.coarse_key``); the full search's is exact.
        self.key: Callable[[], Hashable] = (
            pos.coarse_key if autos == AGGRESSIVE and pos.r.coarse_keys else pos.key
        )
        self.seen: set[Hashable] = set()
        # Whether moves to an empty tableau pile other than the first are left out (off only
        # in the tests that check the search against one without it).
        self.one_empty_target = True
        self.shuffle: random.Random | None = None
        # What the caller's ``avoid`` and ``after`` ask of the line (``Avoid``; None: nothing).
        self.avoid: Avoid | None = None
        # The keys of the positions to avoid, and whether the last move applied passed through
        # one of them before its last automatic move.
        self.avoided: set[Hashable] = set()
        self.crossed = False
        # Whether foundation returns no card could follow are left out (``_useless_returns``).
        self.prune_returns = autos == SAFE and returns_pruned(pos.r)
        # Where the stock stands in its cards, per residue (``dominated``; None: not used).
        self.cycles: dict[bytes, list[int]] | None = (
            {} if autos == SAFE and stock_cycles(pos.r) and pos.redeals < 0 else None
        )
        # The test that leaves out positions no line can win (``Blocking``; None: not used).
        self.blocking = blocking_for(pos.r) if autos == SAFE and self.checks_blocking else None
        # Whether sideways moves that leave the card they uncover no use are left out
        # (``_uses``; off only in the tests that check the search against one without it).
        self.sideways = autos == SAFE and sideways_pruned(pos.r)
        # Whether ``children`` takes Spider's greedy path (``_run_children``; off only in the
        # tests that check it against the general one).
        self.runs_path = autos == AGGRESSIVE and runs_path(pos.r)

    def children(self, parent: IMove | None) -> list[IMove]:
        pos = self.pos
        r = pos.r
        if self.runs_path:
            return self._run_children(parent)
        acc, tacc, any_empty = pos._accepting()
        moves = pos.transfers(acc, tacc, any_empty, r.sources)
        # The waste's tops within one stock cycle, after each count of deals.
        tops = self._waste_tops() if r.macro else []
        if r.macro:
            moves.extend(self._macros(acc, tacc, any_empty, tops))
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
        # Free cells are interchangeable in the key: a card goes to the first empty one only.
        first_cell = -1
        for x in r.cells:
            if not cards[x]:
                first_cell = x
                break
        is_cell = r.is_cell
        is_found = r.is_foundation
        is_tab = r.is_tableau
        # Spider, in the passes that may only find wins: a run moves whole, or onto a card of
        # its suit (never split onto another suit).
        whole_runs = bool(r.runs) and self.use_autos == AGGRESSIVE
        tbuilds = r.tbuilds
        spider_empty = -1
        if whole_runs:
            for t in r.tableau:
                if not cards[t]:
                    spider_empty = t
                    break
        # Returns from a foundation that no card could follow onto (``_useless_returns``).
        useless = self._useless_returns(tops) if self.prune_returns else ()
        scored: list[tuple[int, IMove]] = []
        append = scored.append
        # Sideways moves whose uncovered card would have no use (``_uses``; exact, so sound
        # for a proof of loss; not where the caller rules positions out, as the proof moves
        # them in a line).
        uses = self._uses(acc, tops) if self.sideways and self.avoid is None else None
        sbuilds = r.sbuilds
        any_group = r.any_group
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
            if from_found and s in useless and not to_found:
                continue
            if first_empty >= 0 and d != first_empty and is_tab[d] and not cards[d]:
                continue  # the same position as the move to the first empty pile
            if is_cell[d] and (d != first_cell or is_cell[s]):
                continue  # the same position as the move to the first empty cell, or none
            if parent is not None and parent[1] == d and parent[2] == s and parent[3] == k:
                continue  # undoes the parent move
            if (
                whole_runs
                and from_tab
                and is_tab[d]
                and k != pos.sequence_length(s)
                and not (cards[d] and SUIT_OF[cards[d][-1]] == SUIT_OF[cards[s][-k]])
            ):
                continue  # a run split onto another suit or a space
            left = size - k
            if tableau_free and left == 0 and from_tab and is_tab[d] and not cards[d]:
                continue  # a whole pile onto an empty one: the same position
            if whole_runs and from_tab and is_tab[d]:
                # Spider's greedy passes: a run goes to the first empty pile only, a whole pile
                # never to an empty one, and a run lying on a card it builds on moves only to
                # reveal a card or onto a card of its suit (not sideways).
                if not cards[d]:
                    if d != spider_empty or left == 0:
                        continue
                elif SUIT_OF[cards[d][-1]] == SUIT_OF[cards[s][-k]]:
                    append((3 * 64, move))
                    continue
                elif (
                    left > from_hidden and tbuilds[cards[s][-k - 1] * CARDS_PER_DECK + cards[s][-k]]
                ):
                    continue
            if (
                uses is not None
                and from_tab
                and is_tab[d]
                and left > from_hidden
                and (any_group or sbuilds[cards[s][-k - 1] * CARDS_PER_DECK + cards[s][-k]])
                and not uses(cards[s][-k - 1], cards[s][-k])
            ):
                continue  # a sideways move: the card it uncovers could not be used next
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
        return self._ordered(scored)

    def _ordered(self, scored: list[tuple[int, IMove]]) -> list[IMove]:
        """Return the moves of ``scored`` by their scores (lowest best), shuffled a little
        where the pass shuffles, the best last: the stack pops from the end."""
        shuffle = self.shuffle
        if shuffle is None:
            scored.sort(key=_first)
        else:
            noise = self.noise
            scored.sort(key=lambda item: item[0] + noise * shuffle.random())
        return [move for _, move in reversed(scored)]

    def _run_children(self, parent: IMove | None) -> list[IMove]:
        """Return ``children``'s moves, in its order, for Spider in a greedy pass: the moves
        its general path keeps there, made directly rather than filtered out of every legal
        transfer.

        From each pile, with ``n`` cards in suit on top, a move of fewer than ``n`` goes only
        onto a card of their suit; a move of all ``n`` onto any card they build on (not one
        beside the card they lie on, unless it turns a card over), or onto the first empty
        pile when cards stay behind; a complete run to an empty run foundation.
        """
        pos = self.pos
        r = pos.r
        cards = pos.cards
        hidden = pos.hidden
        # The piles taking each card (no run foundation takes a single card) and the empty
        # piles, the first of which is the only one a run goes to.
        acc, tacc, any_empty = pos._accepting()
        spider_empty = any_empty[0] if any_empty else -1
        destinations = pos.destinations
        fits = r.tbuilds
        runs = r.runs
        # The move that would undo the parent move (Spider's moves take no stock deals).
        back = (0, parent[2], parent[1], parent[3]) if parent is not None else None
        scored: list[tuple[int, IMove]] = []
        append = scored.append
        for s in r.sources:
            pile = cards[s]
            size = len(pile)
            h = hidden[s]
            if h >= size:
                continue
            n = pos.sequence_length(s)  # the cards in suit on top
            left = size - n
            for k in range(1, n + 1):
                c = pile[-k]
                suit = SUIT_OF[c]
                for d in destinations(acc, tacc, c):
                    move = (0, s, d, k)
                    if d == s or move == back:
                        continue
                    if SUIT_OF[cards[d][-1]] == suit:
                        append((3 * 64, move))
                    elif k < n or (left > h and fits[pile[-k - 1] * CARDS_PER_DECK + c]):
                        continue  # split onto another suit, or sideways
                    elif left == 0:
                        append((2 * 64, move))
                    elif h >= left:
                        append((1 * 64, move))
                    else:
                        append((4 * 64, move))
            if spider_empty >= 0 and left > 0:
                move = (0, s, spider_empty, n)
                if move != back:
                    append((64 if h >= left else 6 * 64, move))
            if n >= FOUNDATION_LIMIT and pos.is_run(s):
                suit = SUIT_OF[pile[-FOUNDATION_LIMIT]]
                for d in runs:
                    wanted = r.base_suit[d]
                    move = (0, s, d, FOUNDATION_LIMIT)
                    if not cards[d] and (wanted is None or wanted == suit) and move != back:
                        append((0, move))
        if pos.can_deal():
            append((9, (0, DEAL, 0, 0)))
        return self._ordered(scored)

    def _uses(
        self, acc: dict[int, list[int]], tops: list[tuple[int, int]]
    ) -> Callable[[int, int], bool]:
        """Return ``uses(y, b)``: whether a sideways move, which takes the face-up card ``b``
        and the cards on it off the face-up card ``y`` (``b`` building on ``y``, or where any
        face-up group moves), leaves ``y`` a use for the next move: ``y`` can go up (``acc``:
        the piles taking each card now), or a card other than ``b`` that may go on ``y`` is
        face up on the tableau, on top of a foundation that gives cards back, or the waste's
        top now or after some deals (``tops``, from ``_waste_tops``). The search leaves out
        the sideways moves without one (with ``sideways_pruned``' rules, where the caller
        rules no position out).

        No win is lost. Take a shortest winning line with a sideways move ``M`` without a
        use, from ``y``'s pile ``p`` to pile ``q``, and the first move ``U`` after it that
        moves ``y`` or puts a card on it (there is one: ``y`` goes up at last). Play the moves
        between ``M`` and ``U`` first, each move of the moved cards (or of cards put on them)
        from ``p`` rather than ``q`` (a move of cards under them takes those without them),
        then ``M`` onto the same card as before, then ``U``. Each is legal as before and
        brings the same automatic moves: ``y`` stays covered rather than uncovered and
        unused; the card ``b`` went on (or the empty pile) stays uncovered, and no move puts a
        card there, nor can it go up while ``b`` is not up (``Position._safe`` and
        ``_safe_returning`` wait for ``b``). If a move between takes ``b`` elsewhere, ``M`` is
        not needed at all: the line was not shortest. From ``U`` on, the line is the same. If
        ``U`` plays ``y`` up or puts a card other than ``b`` on it (``b`` would undo ``M``: not
        shortest), ``M`` now has a use. Otherwise ``U`` moves ``y`` with cards under it onto
        a pile; moving them with the moved cards still on ``y`` (a sequence, as ``b`` builds on
        ``y``), then the moved cards onto ``q``, reaches the same position, with the sideways
        move one move later, where the same argument goes on. Moving a sideways move later
        changes no other one's use (the same cards are face up, on the foundations' tops and
        in the stock and waste). So, taking each time the line's last sideways move without
        a use, the number of those falls or the last of them comes later, until a shortest
        winning line has none: leaving them out loses no win.
        """
        r = self.pos.r
        is_found = r.is_foundation
        tsucc = r.tsucc
        # The cards that could go on a card by the next move (after some deals), read once.
        ready: set[int] | None = None

        def uses(y: int, b: int) -> bool:
            nonlocal ready
            if any(is_found[f] for f in acc.get(y, ())):
                return True
            if ready is None:
                ready = self._ready(tops)
            return any(c in ready and c != b for c in tsucc[y])

        return uses

    def _ready(self, tops: list[tuple[int, int]]) -> set[int]:
        """Return the cards a move could take onto the tableau now: its face-up cards, the
        foundations' tops where they give cards back, and the waste's top now or after
        some deals (``tops``: with ``sideways_pruned``' rules, a stock deals to a waste by
        macro moves)."""
        r = self.pos.r
        cards = self.pos.cards
        found = self._in_play(tops)
        if r.back is not Return.NONE:
            found.update(cards[f][-1] for f in r.foundations if cards[f])
        return found

    def _in_play(self, tops: list[tuple[int, int]]) -> set[int]:
        """Return the cards face up on the tableau, the waste's top and its tops after each
        count of deals (``tops``, from ``_waste_tops``)."""
        pos = self.pos
        r = pos.r
        cards = pos.cards
        hidden = pos.hidden
        found: set[int] = set()
        for t in r.tableau:
            found.update(cards[t][hidden[t] :])
        if r.waste is not None and cards[r.waste]:
            found.add(cards[r.waste][-1])
        found.update(c for _, c in tops)
        return found

    def dominated(self, cycles: dict[bytes, list[int]]) -> bool:
        """Return whether a position searched already reaches this one by deals alone (with
        ``stock_cycles``' rules, the redeals unlimited); if not, note it in ``cycles``.

        Say the stock deals ``n`` cards at a time and ``p`` of its cards lie on the waste. Deals
        alone take the position to ``p + n``, ``p + 2n``, … cards dealt, to the stock out,
        then (the waste turned over) to ``0``, ``n``, ``2n``, …: to every position with the same
        piles and the same cards in the same dealing order (``Position.cycle_key``) whose
        count dealt is ``p`` plus a multiple of ``n``, or a multiple of ``n``, or all. Its
        moves reach all that such a position's moves reach: the same waste tops within a turn
        of the stock, each through its own deals (the line's deals differ, its positions
        after each card played are the same), and the same moves between the other piles,
        after which it reaches them again (the automatic moves never take the waste's card
        here). So a position reached that way from one searched need not be searched. For
        each cycle key this keeps whether one was searched, and for each residue of ``p``
        modulo ``n`` other than 0 the least count dealt searched (-1: none).
        """
        pos = self.pos
        r = pos.r
        assert r.stock is not None and r.waste is not None and r.stock_rule is not None
        dealt = len(pos.cards[r.waste])
        residue = dealt % r.stock_rule.cards if pos.cards[r.stock] else 0
        key = pos.cycle_key()
        least = cycles.get(key)
        if least is None:
            least = cycles[key] = [-1] * r.stock_rule.cards
            least[residue] = dealt
            return False
        if residue == 0 or 0 <= least[residue] <= dealt:
            return True
        least[residue] = dealt
        return False

    def blocked_now(self) -> bool:
        """Return whether ``Blocking``'s test finds the position lost (False where the pass
        does not use it)."""
        blocking = self.blocking
        if blocking is None:
            return False
        self.work += BLOCKING_WORK
        return blocking.blocked(self.pos.cards, self.pos.hidden)

    def _useless_returns(self, tops: list[tuple[int, int]]) -> tuple[int, ...]:
        """Return the foundations whose top card the full search need not take back (rules
        as ``returns_pruned`` checks; ``tops``, the waste's tops after each count of deals,
        from ``_waste_tops``): no card that could ever follow it, or any card under
        it, onto the tableau could move there next.

        Take a shortest winning line that takes a card ``c`` back. Something it exposes is
        used before ``c`` goes up again: a card is put on ``c``, or the card under ``c`` is
        taken back too, and so on down to a card ``y`` that a card ``x`` is put on (else the
        line would be shorter without those moves: nothing but ``c`` goes on its foundation,
        and a card nothing lies on only covers others). The cards taken back then move, in
        the line, just before ``x``'s move, which is legal as before; and ``x`` could move then:
        face up on the tableau, on a foundation (not an Ace: the line never takes one back),
        or the waste's top after some deals. Taking ``c`` back where no such ``x`` is so placed
        is not needed for a win.
        """
        r = self.pos.r
        cards = self.pos.cards
        reachable = self._in_play(tops)
        for f in r.foundations:
            # Not the Aces: taking one back is never needed (nothing goes on it, nothing
            # under it).
            reachable.update(cards[f][1:])
        tsucc = r.tsucc
        out = []
        for f in r.foundations:
            pile = cards[f]
            if pile and not any(x in reachable for y in pile for x in tsucc[y]):
                out.append(f)
        return tuple(out)

    def root_children(self) -> list[IMove]:
        """Return the moves from the position the search starts at, less the first moves the
        caller ruled out (``Avoid.first``)."""
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
        self,
        acc: dict[int, list[int]],
        tacc: dict[int, list[int]],
        any_empty: list[int],
        tops: list[tuple[int, int]],
    ) -> list[IMove]:
        """Return "deal j times, then play the waste's top" for every j of one stock cycle
        (``tops``, from ``_waste_tops``)."""
        pos = self.pos
        r = pos.r
        assert r.waste is not None
        w = r.waste
        destinations = pos.destinations
        out: list[IMove] = []
        for j, c in tops:
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
                log.append(("w", (j, pos.deal_through(j))))
                pos.rekey_stock()
            played = pos.transfer(s, d, k)
            log.append(("t", played))
        if self.use_autos and pos.r.autoplays:
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
            elif kind == "w":
                assert isinstance(record, tuple)
                pos.undeal_through(record[1])
                waste_deals = True
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
        the logs of the line. Raise ``Budget`` when the budget runs out first."""
        steps = self.steps()
        check = 0
        try:
            while True:
                next(steps)
                if self.nodes >= self.nodes_left:
                    raise Budget
                check += 1
                if check >= 64:
                    check = 0
                    if self.clock() >= self.deadline:
                        raise Budget
        except StopIteration as stop:
            result: Found = stop.value
            return result

    def steps(self) -> Generator[None, None, Found]:
        """Search from the position, yielding after each position expanded; return the
        outcome and, if won, the logs of the line (as ``StopIteration.value``)."""
        pos = self.pos
        root_log = self.root_autos()
        if pos.won:
            return "won", [root_log]
        if self.blocked_now():
            return "lost", None
        self.seen.add(self.key())
        self.nodes += 1
        yield
        logs: list[list[tuple[str, object]]] = [root_log]
        stack: list[tuple[IMove | None, list[IMove]]] = [(None, self.root_children())]
        seen = self.seen
        # What the caller rules out is exact: a position may not stand for another there.
        cycles = self.cycles if self.avoid is None else None
        if cycles is not None:
            self.dominated(cycles)
        blocking = self.blocking
        while stack:
            _, todo = stack[-1]
            if not todo:
                stack.pop()
                self.undo(logs.pop())
                continue
            move = todo.pop()
            log = self.apply(move)
            key = self.key()
            if key in seen or self.crossed or (cycles is not None and self.dominated(cycles)):
                self.undo(log)
                continue
            seen.add(key)
            if blocking is not None and self.blocked_now():
                self.undo(log)
                continue
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


def returns_pruned(r: Rules) -> bool:
    """Return whether ``Search._useless_returns`` holds for these rules: one deck, four
    foundations up in suit from the Ace taking cards back to the tableau, no reserves or free
    cells, no redeal hook, a stock (if any) dealing to a waste."""
    return r.any_returning_safe and not r.reserves and not r.cells and r.back is Return.TABLEAU


def stock_cycles(r: Rules) -> bool:
    """Return whether ``Search.dominated`` holds for these rules: one deck, a stock dealing
    several cards at a time to a waste (so no automatic move takes the waste's card: see
    ``Position.autos``), no redeal hook."""
    return (
        r.decks == 1
        and r.waste_grouped
        and r.redeal_hook is None
        and r.stock is not None
        and r.waste is not None
    )


def runs_path(r: Rules) -> bool:
    """Return whether ``Search._run_children`` makes a greedy pass's moves: Spider's rules
    (complete runs to run foundations, the only foundations; sequences from every source, all
    tableau piles, in suit; empty piles taking any card), with no free cells, no stock to a
    waste and no redeal."""
    return (
        bool(r.runs)
        and set(r.foundations) == set(r.runs)
        and not r.card_foundations
        and all(r.is_tableau[s] and r.sequences[s] for s in r.sources)
        and not r.any_group
        and not r.supermove
        and not r.cells
        and not r.macro
        and r.empty_any
        and r.shared_keys
        and r.redeal_hook is None
        and all(x is None for x in r.refill)
    )


def sideways_pruned(r: Rules) -> bool:
    """Return whether ``Search._uses`` holds for these rules: where ``Blocking``'s test holds
    (``blocked.applies``: one deck, four foundations up in suit from the Ace, no free cells,
    reserves, supermove limit or redeal hook, a stock dealing to a waste, empty piles taking
    Kings only), with sequences or any face-up group moving on the tableau."""
    return blocking_for(r) is not None and (r.any_group or all(r.sequences[t] for t in r.tableau))


def luby(i: int) -> int:
    """Return the ``i``-th term (from 1) of Luby's sequence: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, …"""
    while True:
        k = 1
        while (1 << k) - 1 < i:
            k += 1
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


class Restarts(Search):
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
    # The pass each run is.
    run_kind: type[Search] = Search

    def run_position(self, state: State, number: int) -> Position:
        """Return the position run ``number`` (from 1) starts from: ``state``,
        on the pass's own position object for the first run."""
        if number == 1:
            return self.pos
        if self.avoid is not None and self.avoid.positions:
            # One trie for every run, so the positions to avoid are keyed alike.
            self.pos.load(state.piles, redeals_left(state))
            return self.pos
        return Position(self.pos.r, state)

    def next_run(self, state: State, number: int) -> Search:
        """Return run ``number`` (from 1) of the pass, to start from ``state``: from the
        second on, with moves of the same rank in an order of its own."""
        run = self.run_kind(
            self.run_position(state, number),
            autos=self.use_autos,
            nodes_left=0,
            deadline=0,
            clock=float,
        )
        run.one_empty_target = self.one_empty_target
        run.avoid = self.avoid
        if number > 1:
            run.shuffle = random.Random(number)
        return run

    def steps(self) -> Generator[None, None, Found]:
        state = self.pos.to_state()
        self.runs = 0
        while True:
            self.runs += 1
            run = self.next_run(state, self.runs)
            limit = self.unit * luby(self.runs)
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
                found: Found = stop.value
                return found
            except Budget:
                continue  # a best-first run whose frontier outgrew its room: the next run


class BestFirst(Search):
    """A best-first pass: the most promising position found so far is expanded next.

    It finds wins in far fewer positions than the depth-first pass where a deal's space is
    large, but keeps every position it has yet to expand. Like the depth-first pass, it has
    searched every reachable position when it ends without a win.
    """

    # ``Blocking``'s test is left to the depth-first passes: it cost the best-first runs more
    # time than it saved them (docs/winrates.md, "Blocked positions").
    checks_blocking = False
    # In Spider, what an empty pile earns while the stock still deals (``spider_promise``).
    empty_dealing = SPIDER_EMPTY

    def steps(self) -> Generator[None, None, Found]:
        pos = self.pos
        root_log = self.root_autos()
        if pos.won:
            return "won", [root_log]
        seen = self.seen
        seen.add(self.key())
        # Of positions rated alike, the oldest first; in Spider, the newest (deepest) first.
        order = -1 if pos.r.runs else 1
        # For each position found: its parent's number and the log of the move to it.
        parents: list[tuple[int, list[tuple[str, object]]]] = [(-1, root_log)]
        frontier: list[tuple[int, int, bytes]] = [(0, order, pos.snapshot())]
        while frontier:
            _, number, packed = heapq.heappop(frontier)
            number = abs(number) - 1
            pos.restore(packed)
            self.nodes += 1
            yield
            moves = self.root_children() if number == 0 else self.children(None)
            won = self._grow(number, moves, seen, parents, frontier, order)
            if won is not None:
                return "won", won
        return "lost", None

    def _grow(
        self,
        number: int,
        moves: list[IMove],
        seen: set[Hashable],
        parents: list[tuple[int, list[tuple[str, object]]]],
        frontier: list[tuple[int, int, bytes]],
        order: int,
    ) -> list[list[tuple[str, object]]] | None:
        """Play each of ``moves`` from position ``number``; note each position not seen
        before in ``seen`` and ``parents`` and push it on ``frontier`` by its rating (of
        positions rated alike, the oldest first, or with ``order`` -1 the newest); return the
        logs of the line to a won one if one is, else None."""
        pos = self.pos
        rate = self.rate
        for move in moves:
            log = self.apply(move)
            key = self.key()
            if key not in seen and not self.crossed:
                seen.add(key)
                parents.append((number, log))
                self.work += 2
                if pos.won:
                    return self._path(parents, len(parents) - 1)
                heapq.heappush(frontier, (-rate(), order * len(parents), pos.snapshot()))
                if len(frontier) > MAX_FRONTIER:
                    self.undo(log)
                    raise Budget
            self.undo(log)
        return None

    def rate(self) -> int:
        """Return how near the position looks to a win (higher is nearer)."""
        pos = self.pos
        if not pos.r.runs:
            return pos.promise()
        return spider_promise(pos, self.empty_dealing)

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


class Staged(BestFirst):
    """Best-first searches between the deals of a stock that deals onto every tableau pile
    (Spider), in rounds: each stage searches the moves before the next deal, from the
    positions the last one dealt from, for ``unit`` positions expanded (the last stage, once
    the stock is out, ``last`` times as many); then the ``keep`` most promising positions
    where the stock may deal, dealt, start the next stage. A round ends when the stock is out;
    the next one starts again from the position, with half as many positions again a stage
    and twice as many kept, each position's rating raised by a random draw below ``spread``
    (``ties``, seeded by the round's number, so a solve is repeatable).

    A best-first search over the whole game deals as soon as dealing rates well, and then
    works a tableau buried under cards it never sorted; or it never deals, and spends its
    budget reordering the same cards. Here each deal comes after its stage has had its share.
    Which positions deal decides most of what the later stages can reach, and a larger round
    that keeps the same few, rated the same way, mostly searches again what the last one did:
    wider rounds, each drawing its own near-best positions, win deals the deeper ones miss,
    and more of them come in the same time when each grows by half rather than doubling.
    While the stock still deals, an empty pile earns less (``empty_dealing``) than once it
    is out: it must be filled again before the next deal.
    The pass only finds wins: it leaves most positions out. It ends without one once a round
    has searched every position its stages reach and kept every one that could deal (the next
    round would do the same).
    """

    keep = STAGE_KEEP
    unit = STAGE_UNIT
    last = STAGE_LAST
    spread = STAGE_NOISE
    ties: random.Random | None = None
    # Whether rounds after the first keep more positions and draw their ratings, growing by
    # half (off only in the tests that compare the pass with the one before, which doubles).
    widens = True
    # The tests compare the pass with the one before, where an empty pile earned as much while
    # the stock still dealt as after.
    empty_dealing = SPIDER_EMPTY_DEALING

    def rate(self) -> int:
        score = super().rate()
        if self.ties is not None:
            score += self.ties.randrange(self.spread)
        return score

    def steps(self) -> Generator[None, None, Found]:
        pos = self.pos
        root_log = self.root_autos()
        if pos.won:
            return "won", [root_log]
        root = pos.snapshot()
        rate = self.rate
        budget = self.unit
        keep = self.keep
        rounds = 1
        while True:
            # The positions a stage starts from: each with the log of the line to it.
            starts = [(root_log, root)]
            first = True
            # Whether a stage left positions unexpanded or unkept (a larger round may differ).
            cut = False
            while starts:
                # For each position found in the stage: its parent's number and the log of the
                # move to it (the starts first, each with its line's log).
                parents: list[tuple[int, list[tuple[str, object]]]] = []
                seen = set(self.avoided)
                # Rated alike, the oldest first.
                frontier: list[tuple[int, int, bytes]] = []
                for line, packed in starts:
                    pos.restore(packed)
                    key = self.key()
                    if key not in seen:
                        seen.add(key)
                        parents.append((-1, line))
                        frontier.append((-rate(), len(parents), packed))
                heapq.heapify(frontier)
                # The last stage sorts the whole tableau, with no deal to come: it gets more.
                stock = pos.r.stock
                share = budget if stock is not None and pos.cards[stock] else budget * self.last
                dealing: list[tuple[int, int, bytes]] = []
                expanded = 0
                while frontier and expanded < share:
                    item = heapq.heappop(frontier)
                    number = item[1] - 1
                    pos.restore(item[2])
                    self.nodes += 1
                    expanded += 1
                    yield
                    if pos.can_deal():
                        dealing.append(item)
                    moves = self.root_children() if first and number == 0 else self.children(None)
                    moves = [move for move in moves if move[1] != DEAL]
                    won = self._grow(number, moves, seen, parents, frontier, 1)
                    if won is not None:
                        return "won", won
                cut = cut or bool(frontier) or len(dealing) > keep
                dealing.sort()
                starts = []
                for _, order, packed in dealing[:keep]:
                    number = order - 1
                    pos.restore(packed)
                    log = self.apply((0, DEAL, 0, 0))
                    if not self.crossed:
                        line = [entry for logged in self._path(parents, number) for entry in logged]
                        if pos.won:
                            return "won", [line, log]
                        starts.append(([*line, *log], pos.snapshot()))
                    self.undo(log)
                first = False
            if not cut:
                return "lost", None
            rounds += 1
            if self.widens:
                budget += (budget + 1) // 2  # at least one more, whatever ``unit``
                keep *= 2
                self.ties = random.Random(rounds)
            else:
                budget *= 2


class DeepBestFirst(BestFirst):
    """A best-first pass whose estimate weighs buried cards the foundations take next twice
    as heavily: it wins other deals than the plain one, so both run where the greedy
    automatic moves are used."""

    depth_weight = 2 * PROMISE_DEPTH


class RoomyBestFirst(BestFirst):
    """A best-first pass whose estimate weighs the cards in free cells and the empty tableau
    piles twice as heavily: in FreeCell it wins other deals than the plain one (on bench-0 …
    bench-99, alone at 5 s a deal, each won 96 and missed 4 that the other won)."""

    cell_weight = 2


class RevealingBestFirst(BestFirst):
    """A best-first pass whose estimate also charges ``hidden_weight`` for each face-down
    tableau card, its ties broken by ``ties`` (a seeded generator) where one is given."""

    hidden_weight = 0
    ties: random.Random | None = None

    def rate(self) -> int:
        pos = self.pos
        hidden = pos.hidden
        score = pos.promise() - self.hidden_weight * sum(hidden[t] for t in pos.r.tableau)
        if self.ties is not None:
            score = 4 * score + self.ties.randrange(4)
        return score


class Reweighted(Restarts):
    """Best-first runs one after another from the position, each under an estimate of its
    own, each stopped after ``unit`` times its term of Luby's sequence in positions expanded.

    The runs charge each face-down tableau card the weights of ``REVEAL_WEIGHTS`` in turn
    (run n, from 1, the weight at ``(n - 1) % len(REVEAL_WEIGHTS)``), and come round again
    once every weight has had a run. Each run breaks ties between positions rated alike at
    random, by a generator seeded by the run's number, so a solve is repeatable and a weight's
    later runs take other paths than its first (broken oldest first, a plateau of positions
    rated alike is expanded breadth first). In Klondike one estimate may lead the search
    astray for its whole budget on a deal that another, valuing a card turned over more or
    less, wins in a few hundred positions: short runs under several estimates find those wins.
    Like the restarts, a run that ends without a win has searched everything the pass's rules
    reach, and the pass ends there.
    """

    unit = REWEIGHT_UNIT
    run_kind = RevealingBestFirst

    def next_run(self, state: State, number: int) -> Search:
        run = super().next_run(state, number)
        assert isinstance(run, RevealingBestFirst)
        run.shuffle = None  # the estimate orders the moves
        run.hidden_weight = REVEAL_WEIGHTS[(number - 1) % len(REVEAL_WEIGHTS)]
        run.ties = random.Random(number)
        return run


def spider_promise(pos: Position, empty_dealing: int = SPIDER_EMPTY) -> int:
    """Return how near a Spider position looks to a win: complete runs, cards face up, runs in
    suit, empty piles (each earning ``empty_dealing`` while the stock still deals, else
    ``SPIDER_EMPTY``)."""
    r = pos.r
    cards = pos.cards
    stock = r.stock
    empty = empty_dealing if stock is not None and cards[stock] else SPIDER_EMPTY
    hidden = pos.hidden
    same = r.sbuilds
    fits = r.tbuilds
    score = SPIDER_RUN * pos.infound
    # A pile's part depends on its cards and face-down count alone: each is reckoned once.
    known = pos.pile_scores if r.keys_hidden else None
    ids = pos.ids
    for t in r.tableau:
        pile = cards[t]
        if not pile:
            score += empty
            continue
        if known is not None:
            part = known.get(ids[t])
            if part is None:
                part = known[ids[t]] = _pile_score(pile, hidden[t], same, fits)
            score += part
        else:
            score += _pile_score(pile, hidden[t], same, fits)
    return score


def _pile_score(pile: list[int], h: int, same: bytes, fits: bytes) -> int:
    """Return a non-empty Spider pile's part of ``spider_promise``."""
    score = -SPIDER_HIDDEN * h
    previous = pile[h]
    for i in range(h + 1, len(pile)):
        c = pile[i]
        pair = previous * CARDS_PER_DECK + c
        if same[pair]:
            score += SPIDER_SAME
        elif not fits[pair]:
            score -= SPIDER_BREAK
        previous = c
    return score
