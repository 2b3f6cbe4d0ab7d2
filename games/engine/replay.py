"""Replay: rebuild a game from its rules, seed and move list, and check a claimed result."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .dealing import deal
from .moves import AnyMove, IllegalMove, MalformedMove, parse_move
from .play import apply_move
from .rules import Variant, compile_rules
from .state import State


class ReplayError(Exception):
    """A move of a replayed log is malformed or illegal; ``index`` is its position in the log."""

    def __init__(self, index: int, code: str, detail: str) -> None:
        super().__init__(f"move {index}: {detail}")
        self.index = index
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Replay:
    """The outcome of a replay: the final position and how many plies were applied."""

    state: State
    plies: int


def replay(
    rules: Variant | Mapping[str, Any], seed: bytes, moves: Iterable[AnyMove | Mapping[str, Any]]
) -> Replay:
    """Deal ``seed`` and apply ``moves`` (objects or MOVE dicts) in order; raise ``ReplayError``."""
    variant = rules if isinstance(rules, Variant) else compile_rules(rules)
    state = deal(variant, seed)
    plies = 0
    for index, raw in enumerate(moves):
        try:
            move = parse_move(raw) if isinstance(raw, Mapping) else raw
            state = apply_move(state, move)
        except MalformedMove as error:
            raise ReplayError(index, "invalid", str(error)) from None
        except IllegalMove as error:
            raise ReplayError(index, error.code.value, error.detail) from None
        plies += 1
    return Replay(state, plies)


def verify(
    rules: Variant | Mapping[str, Any],
    seed: bytes,
    moves: Iterable[AnyMove | Mapping[str, Any]],
    claimed: State,
) -> bool:
    """Return whether replaying ``moves`` from ``seed`` reaches exactly the ``claimed`` position."""
    try:
        result = replay(rules, seed, moves)
    except ReplayError:
        return False
    return result.state == claimed
