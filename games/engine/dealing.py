"""The initial deal, from a rules document's steps or a named hook, and hook redeals."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .building import foundation_refusal
from .cards import RANK_OF, fresh_pack
from .rules import Kind, Variant
from .seeds import shuffle
from .state import Pile, State


def shuffled_pack(variant: Variant, seed: bytes) -> list[int]:
    """Return the pack of docs/deals.md: the fresh pack less placed cards, shuffled by ``seed``."""
    pack = fresh_pack(variant.decks, variant.pack_suits)
    for _, card in variant.placed:
        pack.remove(card)  # removes deck 1's copy: the first in fresh-pack order
    return list(shuffle(pack, seed))


def deal(variant: Variant, seed: bytes) -> State:
    """Return the initial position of ``variant`` dealt from ``seed``."""
    cards: list[list[int]] = [[] for _ in variant.piles]
    hidden = [0] * len(variant.piles)
    for index, card in variant.placed:
        cards[index].append(card)
    pack = shuffled_pack(variant, seed)
    base_rank = None
    if variant.deal_hook is not None:
        DEAL_HOOKS[variant.deal_hook](variant, cards, pack)
    else:
        position = 0
        for step in variant.deal_steps:
            if step.to_stock:
                cards[step.targets[0]] = pack[position:][::-1]
                hidden[step.targets[0]] = len(pack) - position
                position = len(pack)
                continue
            assert step.rounds is not None
            for round_number in range(step.rounds):
                for k, target in enumerate(step.targets):
                    if step.counts is not None and step.counts[k] <= round_number:
                        continue
                    if (
                        base_rank is None
                        and variant.piles[target].kind is Kind.FOUNDATION
                        and variant.base_from_deal
                    ):
                        base_rank = RANK_OF[pack[position]]
                    cards[target].append(pack[position])
                    if round_number < (
                        step.face_down_rounds if step.face_down is None else step.face_down[k]
                    ):
                        hidden[target] += 1
                    position += 1
    piles = tuple(Pile(tuple(c), h) for c, h in zip(cards, hidden, strict=True))
    return State(variant, piles, variant.initial_redeals, base_rank)


def _foundation_for(variant: Variant, cards: Sequence[list[int]], card: int) -> int | None:
    """Return the foundation a card goes to while dealing: an empty one first, else a build."""
    built_on = None
    for i in variant.foundations:
        if foundation_refusal(variant.piles[i], cards[i], card, None) is None:
            if not cards[i]:
                return i
            if built_on is None:
                built_on = i
    return built_on


def found_while_dealing(variant: Variant, cards: list[list[int]], pack: Sequence[int]) -> None:
    """Deal ``pack`` face up round the tableau, founding and building foundations on the way.

    Each card goes to the first empty foundation that takes it, else to the first foundation it
    builds on, else onto tableau pile p, and only then does p move on to the next pile
    (Capricieuse's deal in docs/variants.md).
    """
    tableau = variant.tableau
    p = 0
    for card in pack:
        target = _foundation_for(variant, cards, card)
        if target is not None:
            cards[target].append(card)
        else:
            cards[tableau[p]].append(card)
            p = (p + 1) % len(tableau)


def gather_and_redeal(state: State) -> State:
    """Gather the tableau, last pile first and each bottom to top, and deal it again by the hook.

    The redeal keeps the order of the cards: no shuffle.
    """
    variant = state.variant
    assert variant.deal_hook is not None
    cards = [list(p.cards) for p in state.piles]
    pack: list[int] = []
    for i in reversed(variant.tableau):
        pack.extend(cards[i])
        cards[i] = []
    DEAL_HOOKS[variant.deal_hook](variant, cards, pack)
    dealt_to = (Kind.TABLEAU, Kind.FOUNDATION)
    piles = tuple(
        Pile(tuple(cards[i]), 0) if rule.kind in dealt_to else state.piles[i]
        for i, rule in enumerate(variant.piles)
    )
    redeals = None if state.redeals_left is None else state.redeals_left - 1
    return State(variant, piles, redeals, state.base_rank, None)


def redeal(state: State) -> State:
    """Apply the variant's redeal hook to ``state``."""
    hook = state.variant.redeal_hook
    assert hook is not None
    return REDEAL_HOOKS[hook](state)


DEAL_HOOKS: dict[str, Callable[[Variant, list[list[int]], Sequence[int]], None]] = {
    "found-while-dealing": found_while_dealing,
}
REDEAL_HOOKS: dict[str, Callable[[State], State]] = {
    "gather-and-redeal": gather_and_redeal,
}
