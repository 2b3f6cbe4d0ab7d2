"""Positions as text, for debugging and for tests.

One line per pile, its cards bottom to top; a face-down card is written in parentheses in the
full rendering and as ``##`` in the player's rendering; an empty pile is ``-``::

    redeals: 0
    foundation-0  AC 2C
    tableau-0     (4H) (QS) 9D
    stock         (2C) (8C)
"""

from __future__ import annotations

from .cards import RANKS, card_code, parse_card, parse_rank
from .export import state_from_json
from .rules import Variant
from .state import State


def render(state: State, *, player: bool = False) -> str:
    """Return ``state`` as text; with ``player=True`` hide what the player cannot see."""
    variant = state.variant
    width = max(len(pile_id) for pile_id in variant.ids) + 2
    redeals = "unlimited" if state.redeals_left is None else str(state.redeals_left)
    lines = [f"redeals: {redeals}"]
    if variant.base_from_deal and state.base_rank is not None:
        lines.append(f"base: {RANKS[state.base_rank - 1]}")
    for i, (pile_id, pile) in enumerate(zip(variant.ids, state.piles, strict=True)):
        hidden = len(pile.cards) if player and i == variant.stock_index else pile.hidden
        words = []
        for k, card in enumerate(pile.cards):
            if k < hidden:
                words.append("##" if player else f"({card_code(card)})")
            else:
                words.append(card_code(card))
        lines.append(f"{pile_id:<{width}}{' '.join(words) or '-'}".rstrip())
    return "\n".join(lines) + "\n"


def parse(variant: Variant, text: str) -> State:
    """Return the position written by ``render`` (full form); piles left out are empty.

    Raise ``ValueError`` for anything else.
    """
    redeals: int | None = variant.initial_redeals
    base_rank = None
    piles = {pile_id: {"id": pile_id, "cards": [], "hidden": 0} for pile_id in variant.ids}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        head, _, rest = line.partition(" ")
        if head == "redeals:":
            redeals = None if rest.strip() == "unlimited" else int(rest)
            continue
        if head == "base:":
            base_rank = parse_rank(rest.strip())
            continue
        if head not in piles:
            raise ValueError(f"line {number}: no pile named {head!r}")
        cards: list[str] = []
        hidden = 0
        for word in rest.split():
            if word == "-":
                continue
            if word.startswith("(") and word.endswith(")"):
                if len(cards) != hidden:
                    raise ValueError(f"line {number}: face-down cards go below face-up ones")
                hidden += 1
                word = word[1:-1]
            parse_card(word)
            cards.append(word)
        piles[head] = {"id": head, "cards": cards, "hidden": hidden}
    return state_from_json(
        variant,
        {"piles": list(piles.values()), "redeals_left": redeals, "base_rank": base_rank},
    )
