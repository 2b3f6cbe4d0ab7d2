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
