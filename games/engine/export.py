"""Positions as JSON: the engine's full format (docs/engine.md), the player's view (docs/api.md)."""

from __future__ import annotations

from typing import Any

from .cards import RANK_OF, card_code, parse_card
from .rules import Variant
from .state import Pile, State


def state_to_json(state: State) -> dict[str, Any]:
    """Return the full position in the ``deal`` format of docs/engine.md: every card, unredacted."""
    return {
        "piles": [
            {"id": pile_id, "cards": [card_code(c) for c in pile.cards], "hidden": pile.hidden}
            for pile_id, pile in zip(state.variant.ids, state.piles, strict=True)
        ],
        "redeals_left": state.redeals_left,
    }


def player_view(state: State) -> dict[str, Any]:
    """Return what the player may see: every face-down card, and the whole stock, as None."""
    variant = state.variant
    stock = variant.stock_index
    piles = []
    for i, (pile_id, pile) in enumerate(zip(variant.ids, state.piles, strict=True)):
        hidden = len(pile.cards) if i == stock else pile.hidden
        cards: list[str | None] = [None] * hidden
        cards.extend(card_code(c) for c in pile.cards[hidden:])
        piles.append({"id": pile_id, "cards": cards})
    return {"piles": piles, "redeals_left": state.redeals_left}


def state_from_json(variant: Variant, data: dict[str, Any]) -> State:
    """Return the position written in the ``deal`` format; raise ``ValueError`` if it is not one.

    The base rank, for variants that read it from the deal, is ``data["base_rank"]`` when given,
    else the rank of the bottom card of any foundation.
    """
    if not isinstance(data, dict) or not isinstance(data.get("piles"), list):
        raise ValueError("a position is an object with a 'piles' list")
    raw = data["piles"]
    if [p.get("id") if isinstance(p, dict) else None for p in raw] != list(variant.ids):
        raise ValueError(f"the piles must be, in order: {', '.join(variant.ids)}")
    piles = []
    for p in raw:
        cards = tuple(parse_card(code) for code in p.get("cards", []))
        hidden = p.get("hidden", 0)
        if not isinstance(hidden, int) or not 0 <= hidden <= len(cards):
            raise ValueError(f"{p['id']}: 'hidden' must be between 0 and the number of cards")
        piles.append(Pile(cards, hidden))
    redeals = data.get("redeals_left", variant.initial_redeals)
    if redeals is not None and (not isinstance(redeals, int) or redeals < 0):
        raise ValueError("'redeals_left' must be a non-negative integer or null")
    base_rank = data.get("base_rank")
    if base_rank is None and variant.base_from_deal:
        # Every foundation starts with a base-rank card and builds on it, so any bottom card
        # tells the rank, even after the first one dealt was played elsewhere.
        bottoms = [piles[i].cards[0] for i in variant.foundations if piles[i].cards]
        base_rank = RANK_OF[bottoms[0]] if bottoms else None
    return State(variant, tuple(piles), redeals, base_rank if variant.base_from_deal else None)
