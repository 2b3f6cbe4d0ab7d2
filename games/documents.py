"""Compiled rules documents, cached: a game's frozen rules compile once per process."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from games.engine import Variant, compile_rules


@lru_cache(maxsize=128)
def _compile(canonical_text: str) -> Variant:
    return compile_rules(json.loads(canonical_text))


def canonical(rules: Any) -> str:
    """Return the canonical JSON text of a rules document (keys sorted, no spaces)."""
    return json.dumps(rules, sort_keys=True, separators=(",", ":"))


def compiled(rules: dict[str, Any]) -> Variant:
    """Return the compiled ``Variant`` of a rules document (raise ``RulesError`` if invalid)."""
    return _compile(canonical(rules))


# The order of a rules document's keys as rules.py documents them; others follow, sorted.
KEY_ORDER = (
    "decks",
    "suits",
    "foundations",
    "foundation_return",
    "tableau",
    "reserves",
    "stock",
    "redeal",
    "pairs",
    "goal",
    "deal",
    "count",
    "discard",
    "suits",
    "base",
    "placed",
    "complete_runs",
    "build",
    "direction",
    "suit",
    "wrap",
    "moves",
    "sequence",
    "empty",
    "refill_from",
    "covered_by",
    "free_cells",
    "deal_to",
    "cards",
    "redeals",
    "requires",
    "waste_build",
    "total",
    "hook",
    "limit",
    "steps",
    "to",
    "rounds",
    "face_down_rounds",
    "counts",
    "face_down",
)
_RANK = {key: i for i, key in enumerate(KEY_ORDER)}


def _ordered(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (_RANK.get(key, len(_RANK)), str(key)))
        return {key: _ordered(value[key]) for key in keys}
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return value


def pretty(rules: Any) -> str:
    """Return a rules document as text to edit: indented by 2, its keys in a stable order."""
    return json.dumps(_ordered(rules), indent=2, ensure_ascii=False)
