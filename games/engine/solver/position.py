"""The search's own position: lists of card codes per pile, changed in place and changed back,
with its move generation, keys, automatic moves and estimate."""

from __future__ import annotations

from array import array

from ..cards import CARDS_PER_DECK, RANK_OF, SUIT_OF
from ..dealing import redeal as engine_redeal
from ..rules import (
    BASE_FROM_DEAL,
    FOUNDATION_LIMIT,
    Direction,
    Kind,
    Return,
    SuitRule,
)
from ..state import Pile, State
from .tables import (
    AGGRESSIVE,
    CARD_BITS,
    DEAL,
    PROMISE_CELL,
    PROMISE_CELL_SPACE,
    PROMISE_DEPTH,
    REDEAL,
    SAFE,
    IMove,
    Record,
    Rules,
)


class Position:
    """A mutable position with in-place moves and their exact reversal."""

    def __init__(self, rules: Rules, state: State) -> None:
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
        # How many times ``PROMISE_CELL`` and ``PROMISE_CELL_SPACE`` count (free cells only).
        self.cell_weight = 1
        # ``coarse_key``'s tables: the foundations it last read and the cards they take next,
        # each pile content's number for those, and the numbers of the contents it has seen.
        self.coarse_found: list[int] = []
        self.coarse_wanted: set[int] = set()
        self.coarse_names: dict[int, int] = {}
        self.coarse_contents: dict[tuple[int, ...], int] = {}
        # What Spider's measure (``search.spider_promise``) gave each pile's content, by the
        # pile's number in the key (where that holds its face-down count).
        self.pile_scores: dict[int, int] = {}
        # ``promise``'s count of cards on one they do not build on, by each pile content's
        # trie node.
        self.breaks: dict[int, int] = {}

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
        settled, stock_empty = self._phase()
        return self._packed(settled, stock_empty)

    def _packed(self, settled: bool, stock_empty: bool) -> bytes:
        """Return the redeals left and the piles' numbers, packed in the layout for the
        redeals over (or not) and the stock empty (or not)."""
        r = self.r
        ids = self.ids
        fixed, groups = r.layouts[settled][stock_empty]
        out = [self.redeals + 1]
        out += fixed(ids)
        for group in groups:
            out += sorted(group(ids))
        return array(r.key_packing, out).tobytes()

    def cycle_key(self) -> bytes:
        """Return the key with the stock and the waste named by their cards in the order the
        stock deals them (the stock's, then the waste's from its top) rather than by where
        the stock stands in that order: equal for positions that differ only there, which
        ``Search.dominated`` compares. One deck only (a card's code fits a byte)."""
        r = self.r
        assert r.stock is not None and r.waste is not None and r.decks == 1
        ids = self.ids
        stock, waste = r.stock, r.waste
        saved = ids[stock], ids[waste]
        ids[stock] = ids[waste] = 0
        packed = self._packed(self._phase()[0], False)
        ids[stock], ids[waste] = saved
        return packed + bytes(self.cards[stock]) + bytes(reversed(self.cards[waste]))

    def coarse_key(self) -> bytes:
        """Return the greedy passes' key (where ``Rules.coarse_keys``): as ``key``, but each
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
        (``Rules.top_keys``; where keys are shared, the first holds only the foundations)
        and the empty tableau piles taking any card. ``destinations`` reads a card's piles
        off the first two."""
        r = self.r
        cards = self.cards
        acc: dict[int, list[int]] = {}
        for f in r.card_foundations:
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
        if self.r.any_group:
            return len(pile) - hidden
        table = self.r.sbuilds
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
            if r.cells:
                for d in r.cells:
                    if d != s and not cards[d]:
                        out.append((0, s, d, 1))
            if r.sequences[s]:
                longest = self.sequence_length(s)
                if r.supermove and longest > 1:
                    free = 1 + sum(1 for x in r.cells if not cards[x])
                    spaces = sum(1 for x in r.tableau if not cards[x])
                for k in range(2, longest + 1):
                    for d in self.destinations(acc, tacc, pile[-k]):
                        if d != s and is_tab[d]:
                            if r.supermove and k > free << (spaces - (not cards[d])):
                                continue
                            out.append((0, s, d, k))
                    for d in any_empty:
                        if d != s:
                            if r.supermove and k > free << (spaces - 1):
                                continue
                            out.append((0, s, d, k))
                if r.runs and self.is_run(s):
                    suit = SUIT_OF[pile[-FOUNDATION_LIMIT]]
                    for d in r.runs:
                        wanted = r.base_suit[d]
                        if not cards[d] and (wanted is None or wanted == suit):
                            out.append((0, s, d, FOUNDATION_LIMIT))
        return out

    def is_run(self, s: int) -> bool:
        """Return whether the top 13 cards of ``s`` are a complete run, face up, that a run
        foundation takes."""
        pile = self.cards[s]
        n = len(pile)
        if n - self.hidden[s] < FOUNDATION_LIMIT:
            return False
        r = self.r
        bottom = pile[n - FOUNDATION_LIMIT]
        if RANK_OF[bottom] != r.run_base:
            return False
        table = r.run_builds
        for i in range(n - FOUNDATION_LIMIT + 1, n):
            if not table[pile[i - 1] * CARDS_PER_DECK + pile[i]]:
                return False
        return True

    def can_deal(self) -> bool:
        r = self.r
        if r.stock is None or r.stock_rule is None:
            return False
        if self.cards[r.stock]:
            if r.needs_no_empty:
                return all(map(self.cards.__getitem__, r.tableau))
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

    def deal_through(self, j: int) -> tuple[int, ...]:
        """Deal ``j`` times from a stock to its waste, as ``j`` calls of ``deal(False)`` would
        (turning the waste over where the stock is empty), moving the cards of deals in a row
        at once; return what ``undeal_through`` needs: the cards each such run moved, or 0 for a
        turn of the waste. The stock's and waste's keys are left stale (``rekey_stock``)."""
        r = self.r
        assert r.stock is not None and r.waste is not None and r.stock_rule is not None
        per_deal = r.stock_rule.cards
        stock = self.cards[r.stock]
        waste = self.cards[r.waste]
        record: list[int] = []
        while j > 0:
            if not stock:
                self.deal(False)  # the waste turned over
                record.append(0)
                j -= 1
                continue
            n = min(j * per_deal, len(stock))
            j -= -(-n // per_deal)
            moved = stock[-n:]
            del stock[-n:]
            del self.chains[r.stock][-n:]
            moved.reverse()
            waste.extend(moved)
            wchain = self.chains[r.waste]
            node = wchain[-1]
            node_of = self._node
            for c in moved:
                node = node_of(node, c)
                wchain.append(node)
            self.hidden[r.stock] = len(stock)
            record.append(n)
        return tuple(record)

    def undeal_through(self, record: tuple[int, ...]) -> None:
        """Take back ``deal_through``'s deals; the stock's and waste's keys are left stale."""
        r = self.r
        assert r.stock is not None and r.waste is not None
        stock = self.cards[r.stock]
        waste = self.cards[r.waste]
        trie = self.trie
        for n in reversed(record):
            if not n:
                self.undeal(0, False)
                continue
            moved = waste[-n:]
            del waste[-n:]
            del self.chains[r.waste][-n:]
            moved.reverse()
            stock.extend(moved)
            schain = self.chains[r.stock]
            node = schain[-1]
            for c in moved:
                # The stock held these cards before: their nodes are in the trie.
                node = trie[node << CARD_BITS | c]
                schain.append(node)
            self.hidden[r.stock] = len(stock)

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

    def load(self, piles: tuple[Pile, ...], redeals: int) -> None:
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
        self.load(after.piles, -1 if after.redeals_left is None else after.redeals_left)
        return (before.piles, redeals)

    def unredeal(self, record: object) -> None:
        assert isinstance(record, tuple)
        piles, redeals = record
        self.load(piles, redeals)

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
        found_changed = False
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
                    found_changed = True
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
        if found_changed:
            self.infound = sum(len(cards[i]) for i in r.foundations)

    def promise(self) -> int:
        """Return how near the position looks to a win (higher is nearer): cards on the
        foundations, less the cards that lie on one they do not build on and the depth of the
        cards the foundations take next, plus empty piles (and, with free cells, less the
        cards in them)."""
        r = self.r
        cards = self.cards
        chains = self.chains
        breaks = self.breaks
        score = 12 * self.infound
        spaces = 0
        for t in r.tableau:
            pile = cards[t]
            if not pile:
                spaces += 1
                continue
            # Each pile content's cards on one they do not build on are counted once.
            node = chains[t][-1]
            count = breaks.get(node)
            if count is None:
                count = breaks[node] = self._breaks(pile)
            score -= 3 * count
        score += 4 * spaces
        if r.cells:
            # FreeCell: a card in a cell blocks it, and a space moves more than a cell does.
            held = sum(1 for x in r.cells if cards[x])
            score += self.cell_weight * (PROMISE_CELL_SPACE * spaces - PROMISE_CELL * held)
        if r.runs:
            # Spider: the foundations move 13 cards at a time; what leads there is every card
            # turned face up and every card on the next of its suit.
            hidden = self.hidden
            for t in r.tableau:
                score -= 8 * hidden[t]
        for t in r.reserves:
            score -= 2 * len(cards[t])
        # The depth of the nearest card each foundation takes next: how many cards lie on it,
        # in the tableau or a reserve (the shallowest copy where there are several).
        buried = r.buried_piles
        for f in r.foundations:
            pile = cards[f]
            if len(pile) >= FOUNDATION_LIMIT:
                continue
            nearest = 99
            for c in r.succ[f][pile[-1]] if pile else r.base_cards[f]:
                for t in buried:
                    lying = cards[t]
                    if c in lying:
                        d = lying[::-1].index(c)
                        if d < nearest:
                            nearest = d
            if nearest < 99:
                score -= self.depth_weight * nearest
        return score

    def _breaks(self, pile: list[int]) -> int:
        """Return how many cards of ``pile`` lie on one they do not build on."""
        table = self.r.sbuilds
        count = 0
        previous = pile[0]
        for i in range(1, len(pile)):
            c = pile[i]
            if not table[previous * CARDS_PER_DECK + c]:
                count += 1
            previous = c
        return count

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
        may come back from the foundations (rules as ``Rules.returning_safe`` checks).

        Every card of ``Rules.lower[c]`` is on the foundations: a set of lower cards that
        holds every card that may lie on ``c`` or on one of its cards, and in each suit the
        cards from the Ace up to some rank (``Rules._under``). Take any winning line from
        the position before the move, and leave out its moves of ``c`` and of those cards:
        what is left is legal after the move and wins. The set's cards start on the
        foundations and ``c`` on top of its pile, and a move puts on one of them only a card
        of the set (carrying only cards of the set above it): so in the line, nothing but
        cards of the set ever lies above ``c`` or one of them, and leaving them out leaves
        every other card in the same pile on the same cards. Each of those moves from a card
        to a card as before (onto a card of the set it would be in the set itself); a pile
        emptied or a card turned up sooner only gains moves. A foundation holds the same
        cards or those plus the set's cards of its suit, from its Ace up: a card of the line
        above those goes up on the same top, and one taken back shows the same top (one at
        or below the set's highest of its suit would be in the set). Where sequences move,
        one with ``c`` (or a card of the set) on top moves without it, from the same card to
        the same pile; a stock dealing to a waste deals the same cards, less ``c``, which
        from a waste is played only where the stock deals one card at a time or the waste is
        not turned over again (``autos``).
        """
        if not self.r.returning_safe[c]:
            return False
        onf = self.onf
        return all(onf[x] for x in self.r.lower[c])

    def _safe(self, c: int) -> bool:
        """Return whether playing ``c`` to a foundation now can never lose a win."""
        onf = self.onf
        copies = self.r.copies
        for x in self.r.tsucc[c]:
            if onf[x] < copies:
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
        # A stock dealing several cards at a time to a waste it will turn over again: taking a
        # card out of the waste changes which cards a later pass through it shows on top, so
        # a move from the waste is never provably safe there.
        waste = r.waste if mode == SAFE and r.waste_grouped and self.redeals != 0 else -1
        if changed is not None:
            # Whether to play depends only on the foundations, unchanged, and on the top card:
            # the other piles' tops still have no move.
            takers = r.takers
            takes = r.takes
            is_source = r.is_auto_source
            for s in changed:
                pile = cards[s]
                n = len(pile)
                if not n or hidden[s] >= n or not is_source[s] or s == waste:
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
                if not pile or hidden[s] >= len(pile) or s == waste:
                    continue
                target = wanted.get(pile[-1])
                if target is not None and (mode == AGGRESSIVE or safe(pile[-1])):
                    records.append(self.transfer(s, target, 1))
                    break
            else:
                return


def redeals_left(state: State) -> int:
    """Return the redeals left as ``Position`` counts them (-1: no limit)."""
    return -1 if state.redeals_left is None else state.redeals_left
