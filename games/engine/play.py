"""Legal moves and their application: the rules of play.

Every check goes through ``refusal``, which returns None for a legal move or the reason it is
illegal; legal-move generation and ``apply_move`` share it, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator

from .building import Refusal, builds, foundation_refusal, run_refusal, sequence_length
from .cards import RANK_OF
from .dealing import redeal
from .moves import AnyMove, Deal, IllegalCode, IllegalMove, Move, Redeal, Undo
from .reasons import CardWord, RankWord, gettext_noop, reason
from .rules import (
    ANY_RANK,
    BASE_FROM_DEAL,
    FOUNDATION_LIMIT,
    NO_CARD,
    Build,
    Kind,
    PileRule,
    Return,
    Variant,
)
from .state import Pile, State


def _tableau_refusal(state: State, rule: PileRule, pile: Pile, card: int) -> Refusal | None:
    """Return why the tableau pile ``pile`` refuses ``card``, or None."""
    if rule.build is None:
        return IllegalCode.TARGET_REFUSES, lambda: reason(
            gettext_noop("Nothing may be played onto the tableau in this game.")
        )
    if pile.cards:
        if builds(rule.build, pile.cards[-1], card):
            return None
        return (
            IllegalCode.DOES_NOT_BUILD,
            lambda: reason(
                gettext_noop("{card} cannot go on {under}: the tableau builds {build}."),
                card=CardWord(card),
                under=CardWord(pile.cards[-1]),
                build=rule.build,
            ),
        )
    if rule.refill_from is not None and state.piles[rule.refill_from].cards:
        source = state.variant.ids[rule.refill_from]
        return (
            IllegalCode.EMPTY_REFUSES,
            lambda: reason(
                gettext_noop("An empty tableau pile is filled from {pile} while it has cards."),
                pile=source,
            ),
        )
    wanted = rule.empty_rank
    if wanted == ANY_RANK:
        return None
    if wanted == NO_CARD:
        return IllegalCode.EMPTY_REFUSES, lambda: reason(
            gettext_noop("An empty tableau pile is never filled here.")
        )
    if wanted == BASE_FROM_DEAL:
        wanted = state.base_rank or 0
    if RANK_OF[card] == wanted:
        return None
    return (
        IllegalCode.EMPTY_REFUSES,
        lambda: reason(
            gettext_noop("{card} cannot fill an empty tableau pile: only a {rank} may."),
            card=CardWord(card),
            rank=RankWord(wanted),
        ),
    )


def movable(rule: PileRule, pile: Pile) -> int:
    """Return how many cards at the top of ``pile`` may move together by its rule's moves."""
    if not rule.sequences or rule.build is None:
        return 1 if pile.cards and pile.hidden < len(pile.cards) else 0
    if rule.any_group:
        return pile.face_up
    return sequence_length(rule.sequence_build or rule.build, pile)


def supermove_limit(state: State, dst: int) -> int:
    """Return how many cards may move together onto pile ``dst`` by FreeCell's rule.

    One card, plus one for each empty free cell, doubled for each empty tableau pile other than
    ``dst``: (1 + empty cells) × 2 ** (empty tableau piles, the target left out).
    """
    piles = state.piles
    variant = state.variant
    cells = sum(1 for i in variant.cells if not piles[i].cards)
    spaces = sum(1 for i in variant.tableau if i != dst and not piles[i].cards)
    return (1 + cells) << spaces


def refusal(state: State, move: Move) -> Refusal | None:
    """Return why ``move`` is illegal in ``state``, or None when it is legal."""
    index = state.variant.index
    src = index.get(move.source)
    dst = index.get(move.target)
    if src is None or dst is None:
        bad = move.source if src is None else move.target
        return IllegalCode.NO_SUCH_PILE, lambda: reason(
            gettext_noop("This game has no pile named {pile!r}."), pile=bad
        )
    return _transfer_refusal(state, src, dst, move.count)


def _transfer_refusal(state: State, src: int, dst: int, count: int) -> Refusal | None:
    """Return why moving the top ``count`` cards of pile ``src`` onto ``dst`` is illegal."""
    variant = state.variant
    if src == dst:
        return IllegalCode.SAME_PILE, lambda: reason(
            gettext_noop("A card cannot be moved onto its own pile.")
        )
    src_rule, dst_rule = variant.piles[src], variant.piles[dst]
    source, target = src_rule.id, dst_rule.id
    pile = state.piles[src]
    kind = src_rule.kind
    if kind is Kind.STOCK:
        return IllegalCode.SOURCE_LOCKED, lambda: reason(
            gettext_noop("Cards leave the stock only by a deal.")
        )
    if not pile.cards:
        return IllegalCode.EMPTY_SOURCE, lambda: reason(
            gettext_noop("{pile} is empty."), pile=source
        )
    if count > len(pile.cards):
        return IllegalCode.TOO_MANY_CARDS, lambda: reason(
            gettext_noop("{pile} holds only {count} card(s)."), pile=source, count=len(pile.cards)
        )
    if src_rule.covered_by and any(state.piles[k].cards for k in src_rule.covered_by):
        return IllegalCode.COVERED, lambda: reason(
            gettext_noop(
                "{pile} lies under other cards: it plays once every card over it is cleared."
            ),
            pile=source,
        )
    if count > len(pile.cards) - pile.hidden:
        return (
            IllegalCode.FACE_DOWN,
            lambda: reason(
                gettext_noop("Only face-up cards move: {pile} shows {count} face-up card(s)."),
                pile=source,
                count=pile.face_up,
            ),
        )
    if kind is Kind.FOUNDATION:
        back = variant.foundation_return
        if back is Return.NONE:
            return (
                IllegalCode.SOURCE_LOCKED,
                lambda: reason(gettext_noop("Cards on the foundations stay there in this game.")),
            )
        if src_rule.placed and len(pile.cards) == 1:
            return IllegalCode.BASE_CARD, lambda: reason(
                gettext_noop("The base card of {pile} never moves."), pile=source
            )
        if back is Return.TABLEAU and dst_rule.kind is not Kind.TABLEAU:
            return (
                IllegalCode.SOURCE_LOCKED,
                lambda: reason(
                    gettext_noop("A card on a foundation may only be played back to the tableau.")
                ),
            )
    if variant.pairs is not None and (dst_rule.discard or dst_rule.kind in PAIRING):
        return _pair_refusal(state, src, dst, count)
    if dst_rule.complete_runs:
        return run_refusal(dst_rule, state.piles[dst].cards, pile, count, src_rule.kind)
    if count > 1:
        if not src_rule.sequences:
            return IllegalCode.SINGLE_CARDS, lambda: reason(
                gettext_noop("Only one card at a time moves from {pile}."), pile=source
            )
        if dst_rule.kind is not Kind.TABLEAU:
            return IllegalCode.SINGLE_CARDS, lambda: reason(
                gettext_noop("Only one card at a time goes to {pile}."), pile=target
            )
        build = src_rule.sequence_build or src_rule.build
        assert build is not None
        if movable(src_rule, pile) < count:
            return (
                IllegalCode.NOT_A_SEQUENCE,
                lambda: reason(
                    gettext_noop(
                        "The top {count} cards of {pile} are not a sequence: "
                        "the tableau builds {build}."
                    ),
                    count=count,
                    pile=source,
                    build=build,
                ),
            )
        if src_rule.supermove:
            limit = supermove_limit(state, dst)
            if count > limit:
                return (
                    IllegalCode.SEQUENCE_TOO_LONG,
                    lambda: reason(
                        gettext_noop(
                            "Only {limit} card(s) can move together now: one, plus one for each "
                            "empty free cell, doubled for each empty tableau pile other than the "
                            "target."
                        ),
                        limit=limit,
                    ),
                )
    card = pile.cards[-count]
    if dst_rule.kind is Kind.TABLEAU:
        return _tableau_refusal(state, dst_rule, state.piles[dst], card)
    if dst_rule.kind is Kind.FOUNDATION:
        return foundation_refusal(dst_rule, state.piles[dst].cards, card, state.base_rank)
    if dst_rule.kind is Kind.WASTE and variant.stock is not None and variant.stock.waste_build:
        return _waste_refusal(state, src_rule, state.piles[dst], card, variant.stock.waste_build)
    if dst_rule.cell:
        if not state.piles[dst].cards:
            return None
        return IllegalCode.CELL_FULL, lambda: reason(
            gettext_noop("{pile} is a free cell and already holds a card."), pile=target
        )
    return (
        IllegalCode.TARGET_REFUSES,
        lambda: reason(gettext_noop("Nothing may be played onto {kind}."), kind=dst_rule.kind),
    )


PAIRING = (Kind.TABLEAU, Kind.WASTE)
"""The kinds of pile whose top card may be one of a pair (where the variant has ``pairs``)."""


def _pair_refusal(state: State, src: int, dst: int, count: int) -> Refusal | None:
    """Return why the top card of ``src`` cannot be removed with that of ``dst`` (or alone,
    onto the discard pile ``dst``), or None."""
    variant = state.variant
    total = variant.pairs
    assert total is not None
    src_rule, dst_rule = variant.piles[src], variant.piles[dst]
    source = src_rule.id
    if count > 1:
        return IllegalCode.SINGLE_CARDS, lambda: reason(
            gettext_noop("Only one card at a time moves from {pile}."), pile=source
        )
    if src_rule.kind not in PAIRING:
        return IllegalCode.SOURCE_LOCKED, lambda: reason(
            gettext_noop("Only an uncovered tableau card or the top card of the waste is played.")
        )
    card = state.piles[src].cards[-1]
    if dst_rule.discard:
        if RANK_OF[card] == total:
            return None
        return IllegalCode.NOT_A_PAIR, lambda: reason(
            gettext_noop(
                "{card} is not removed alone: only a card of rank {total} is; the others go "
                "in pairs whose ranks add up to {total}."
            ),
            card=CardWord(card),
            total=total,
        )
    other = state.piles[dst]
    target = dst_rule.id
    if not other.cards:
        return IllegalCode.EMPTY_REFUSES, lambda: reason(
            gettext_noop("{pile} is empty: a card pairs only with a card."), pile=target
        )
    if dst_rule.covered_by and any(state.piles[k].cards for k in dst_rule.covered_by):
        return IllegalCode.COVERED, lambda: reason(
            gettext_noop(
                "{pile} lies under other cards: it plays once every card over it is cleared."
            ),
            pile=target,
        )
    if other.hidden >= len(other.cards):
        return IllegalCode.FACE_DOWN, lambda: reason(
            gettext_noop("Only face-up cards move: {pile} shows {count} face-up card(s)."),
            pile=target,
            count=0,
        )
    partner = other.cards[-1]
    if RANK_OF[card] + RANK_OF[partner] == total:
        return None
    return IllegalCode.NOT_A_PAIR, lambda: reason(
        gettext_noop("{card} and {other} are not a pair: their ranks must add up to {total}."),
        card=CardWord(card),
        other=CardWord(partner),
        total=total,
    )


def _waste_refusal(
    state: State, src_rule: PileRule, waste: Pile, card: int, build: Build
) -> Refusal | None:
    """Return why the waste, which takes tableau cards by ``build``, refuses ``card``."""
    if src_rule.kind is not Kind.TABLEAU:
        return IllegalCode.TARGET_REFUSES, lambda: reason(
            gettext_noop("Only a tableau card may be played onto the waste.")
        )
    if not waste.cards:
        return IllegalCode.EMPTY_REFUSES, lambda: reason(
            gettext_noop("The waste is empty: deal a card onto it first.")
        )
    if builds(build, waste.cards[-1], card):
        return None
    return (
        IllegalCode.DOES_NOT_BUILD,
        lambda: reason(
            gettext_noop("{card} cannot go on {under}: the waste takes a card {build}."),
            card=CardWord(card),
            under=CardWord(waste.cards[-1]),
            build=build,
        ),
    )


def _uncover(state: State, piles: list[Pile], index: int) -> bool:
    """Turn up the face-down cards that emptying ``piles[index]`` uncovered; return whether
    one turned."""
    turned = False
    rules = state.variant.piles
    for k in rules[index].covers:
        pile = piles[k]
        if pile.hidden and not any(piles[j].cards for j in rules[k].covered_by):
            piles[k] = Pile(pile.cards, 0)
            turned = True
    return turned


def _apply_pair(state: State, src: int, dst: int) -> State:
    """Remove the top cards of ``src`` and ``dst`` together onto the discard pile."""
    variant = state.variant
    discard = variant.discard_index
    assert discard is not None
    piles = list(state.piles)
    removed = (piles[src].cards[-1], piles[dst].cards[-1])
    for i in (src, dst):
        pile = piles[i]
        piles[i] = Pile(pile.cards[:-1], min(pile.hidden, len(pile.cards) - 1))
    piles[discard] = Pile(piles[discard].cards + removed, 0)
    revealed = False
    for i in (src, dst):
        revealed = _settle(piles, i) or revealed
        if not piles[i].cards and variant.layered:
            revealed = _uncover(state, piles, i) or revealed
    return State(
        variant, tuple(piles), state.redeals_left, state.base_rank, None if revealed else state
    )


def _settle(piles: list[Pile], index: int) -> bool:
    """Turn up the top card of ``piles[index]`` if it is face down; return whether it turned."""
    pile = piles[index]
    if pile.cards and pile.hidden >= len(pile.cards):
        piles[index] = Pile(pile.cards, len(pile.cards) - 1)
        return True
    return False


def _apply_transfer(state: State, move: Move) -> State:
    variant = state.variant
    src = variant.index[move.source]
    dst = variant.index[move.target]
    if variant.pairs is not None and variant.piles[dst].kind in PAIRING:
        return _apply_pair(state, src, dst)
    piles = list(state.piles)
    source, target = piles[src], piles[dst]
    count = move.count
    moved = source.cards[-count:]
    piles[src] = Pile(source.cards[:-count], min(source.hidden, len(source.cards) - count))
    piles[dst] = Pile(target.cards + moved, target.hidden)
    revealed = _settle(piles, src)
    if variant.layered and not piles[src].cards:
        revealed = _uncover(state, piles, src) or revealed
    refill = variant.piles[src].refill_from
    if refill is not None and not piles[src].cards and piles[refill].cards:
        feeder = piles[refill]
        piles[src] = Pile(feeder.cards[-1:], 0)
        piles[refill] = Pile(feeder.cards[:-1], min(feeder.hidden, len(feeder.cards) - 1))
        revealed = _settle(piles, refill) or revealed
    return State(
        variant,
        tuple(piles),
        state.redeals_left,
        state.base_rank,
        None if revealed else state,
    )


def deal_refusal(state: State) -> Refusal | None:
    """Return why a ``deal`` is illegal in ``state``, or None."""
    variant = state.variant
    stock = variant.stock
    if stock is None or variant.stock_index is None:
        return IllegalCode.NO_STOCK, lambda: reason(gettext_noop("This game has no stock."))
    if state.piles[variant.stock_index].cards:
        if stock.needs_no_empty_tableau and any(not state.piles[i].cards for i in variant.tableau):
            return IllegalCode.DEAL_BLOCKED, lambda: reason(
                gettext_noop("The stock deals only when no tableau pile is empty.")
            )
        return None
    if stock.deal_to is not Kind.WASTE:
        return IllegalCode.NOTHING_TO_DEAL, lambda: reason(
            gettext_noop("The stock is empty, and it is never redealt.")
        )
    assert variant.waste_index is not None
    if not state.piles[variant.waste_index].cards:
        return IllegalCode.NOTHING_TO_DEAL, lambda: reason(
            gettext_noop("The stock and the waste are both empty.")
        )
    if state.redeals_left == 0:
        return IllegalCode.NO_REDEALS_LEFT, lambda: reason(
            gettext_noop("The stock is empty and no redeal is left.")
        )
    return None


def _apply_deal(state: State) -> State:
    variant = state.variant
    stock_rule = variant.stock
    assert stock_rule is not None and variant.stock_index is not None
    piles = list(state.piles)
    s = variant.stock_index
    stock = piles[s].cards
    redeals = state.redeals_left
    if stock_rule.deal_to is Kind.WASTE:
        w = variant.waste_index
        assert w is not None
        waste = piles[w].cards
        if stock:
            n = min(stock_rule.cards, len(stock))
            turned = stock[-n:][::-1]
            piles[s] = Pile(stock[:-n], len(stock) - n)
            piles[w] = Pile(waste + turned, 0)
        else:
            piles[s] = Pile(waste[::-1], len(waste))
            piles[w] = Pile((), 0)
            if redeals is not None:
                redeals -= 1
    else:
        targets = variant.tableau if stock_rule.deal_to is Kind.TABLEAU else variant.reserves
        remaining = list(stock)
        for i in targets:
            if not remaining:
                break
            pile = piles[i]
            piles[i] = Pile((*pile.cards, remaining.pop()), pile.hidden)
        piles[s] = Pile(tuple(remaining), len(remaining))
    return State(variant, tuple(piles), redeals, state.base_rank, None)


def redeal_refusal(state: State) -> Refusal | None:
    """Return why a ``redeal`` is illegal in ``state``, or None."""
    if state.variant.redeal_hook is None:
        return (
            IllegalCode.NO_REDEAL,
            lambda: reason(gettext_noop("This game has no redeal: use a deal to turn the stock.")),
        )
    if state.redeals_left == 0:
        return IllegalCode.NO_REDEALS_LEFT, lambda: reason(gettext_noop("No redeal is left."))
    return None


def apply_move(state: State, move: AnyMove) -> State:
    """Return the position after ``move``; raise ``IllegalMove`` if the rules refuse it."""
    if state.won:
        raise IllegalMove(
            IllegalCode.GAME_WON,
            reason(
                gettext_noop("The game is won: every tableau card is cleared away.")
                if state.variant.clears_tableau
                else gettext_noop("The game is won: every card is on a foundation.")
            ),
        )
    if isinstance(move, Undo):
        if state.previous is None:
            raise IllegalMove(
                IllegalCode.NOTHING_TO_UNDO,
                reason(
                    gettext_noop(
                        "Nothing to undo: a deal, a redeal or a revealed card cannot be taken back."
                    )
                ),
            )
        return state.previous
    if isinstance(move, Move):
        refused = refusal(state, move)
        if refused is not None:
            raise IllegalMove(refused[0], refused[1]())
        return _apply_transfer(state, move)
    if isinstance(move, Deal):
        refused = deal_refusal(state)
        if refused is not None:
            raise IllegalMove(refused[0], refused[1]())
        return _apply_deal(state)
    if isinstance(move, Redeal):
        refused = redeal_refusal(state)
        if refused is not None:
            raise IllegalMove(refused[0], refused[1]())
        return redeal(state)
    raise TypeError(f"not a move: {move!r}")


def _sources(variant: Variant) -> tuple[int, ...]:
    kinds = [Kind.TABLEAU, Kind.RESERVE, Kind.WASTE]
    if variant.foundation_return is not Return.NONE:
        kinds.append(Kind.FOUNDATION)
    return tuple(p.index for p in variant.piles if p.kind in kinds)


def _transfers(state: State) -> Iterator[Move]:
    """Yield every legal move of cards from one pile to another, in the order of legal_moves."""
    variant = state.variant
    ids = variant.ids
    rules = variant.piles
    piles = state.piles
    targets = variant.foundations + variant.tableau + variant.cells
    if variant.waste_index is not None and (
        variant.pairs is not None or (variant.stock is not None and variant.stock.waste_build)
    ):
        targets += (variant.waste_index,)
    for src in _sources(variant):
        pile = piles[src]
        if pile.hidden >= len(pile.cards):
            continue
        rule = rules[src]
        longest = movable(rule, pile)
        for dst in targets:
            if dst == src:
                continue
            target_rule = rules[dst]
            counts: range | tuple[int, ...]
            if target_rule.complete_runs:
                counts = (FOUNDATION_LIMIT,) if pile.face_up >= FOUNDATION_LIMIT else ()
            elif target_rule.kind is Kind.TABLEAU:
                counts = range(1, longest + 1)
            else:
                counts = (1,)
            for count in counts:
                if _transfer_refusal(state, src, dst, count) is None:
                    yield Move(ids[src], ids[dst], count)


def legal_moves(state: State) -> list[AnyMove]:
    """Return every legal move of ``state`` once, undo excepted (none when the game is won)."""
    if state.won:
        return []
    result: list[AnyMove] = list(_transfers(state))
    if deal_refusal(state) is None:
        result.append(Deal())
    if redeal_refusal(state) is None:
        result.append(Redeal())
    return result


def is_stuck(state: State) -> bool:
    """Return whether the game is not won and no move but undo is legal.

    It stops at the first legal move it finds: the stock and the redeal first, the cheapest.
    """
    if state.won or deal_refusal(state) is None or redeal_refusal(state) is None:
        return False
    return next(_transfers(state), None) is None


__all__ = [
    "apply_move",
    "builds",
    "deal_refusal",
    "foundation_refusal",
    "is_stuck",
    "legal_moves",
    "movable",
    "redeal_refusal",
    "refusal",
    "sequence_length",
    "supermove_limit",
]
