"""The hint search as it runs in a child process of the hint pool (``games.services.hints``).

This module imports nothing but the engine, so a child started with ``spawn`` inherits no Django
state, no open connections and no locks. The request's position crosses the process boundary as
plain data: the rules document as canonical JSON text and the position in the ``deal`` format of
docs/engine.md (``state_to_json`` with its base rank); the answer comes back as plain data too.
"""

from __future__ import annotations

import json
import time
from functools import lru_cache
from typing import Any

from games.engine import State, Variant, compile_rules, solve, state_from_json, state_to_json


def position_payload(state: State, rules_text: str) -> dict[str, Any]:
    """Return the picklable form of ``state`` that :func:`search` takes."""
    position = state_to_json(state)
    position["base_rank"] = state.base_rank
    return {"rules": rules_text, "position": position}


@lru_cache(maxsize=32)
def _variant(rules_text: str) -> Variant:
    return compile_rules(json.loads(rules_text))


def search(payload: dict[str, Any], budget_seconds: float) -> dict[str, Any]:
    """Solve the position of ``payload`` and return ``{"outcome", "move"}`` as plain data.

    ``move`` is the first move of the winning line in the JSON of docs/api.md, or None.
    """
    state = state_from_json(_variant(payload["rules"]), payload["position"])
    # A wall clock: the player waits, whatever else the machine is doing.
    result = solve(state, budget_seconds=budget_seconds, clock=time.monotonic)
    move = result.line[0].to_json() if result.outcome == "won" and result.line else None
    return {"outcome": result.outcome, "move": move}


def ready() -> bool:
    """Return True: a task that only proves a child has started and imported the engine."""
    return True
