"""Moves, their JSON form, and the errors that refuse them."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar

from .reasons import Reason, gettext_noop, reason


class IllegalCode(enum.StrEnum):
    """Stable machine codes of ``IllegalMove``."""

    NO_SUCH_PILE = "no_such_pile"
    SAME_PILE = "same_pile"
    EMPTY_SOURCE = "empty_source"
    TOO_MANY_CARDS = "too_many_cards"
    FACE_DOWN = "face_down"
    SINGLE_CARDS = "single_cards"
    NOT_A_SEQUENCE = "not_a_sequence"
    SOURCE_LOCKED = "source_locked"
    BASE_CARD = "base_card"
    TARGET_REFUSES = "target_refuses"
    DOES_NOT_BUILD = "does_not_build"
    EMPTY_REFUSES = "empty_refuses"
    WRONG_BASE = "wrong_base"
    FOUNDATION_FULL = "foundation_full"
    NO_STOCK = "no_stock"
    NOTHING_TO_DEAL = "nothing_to_deal"
    NO_REDEALS_LEFT = "no_redeals_left"
    NO_REDEAL = "no_redeal"
    CELL_FULL = "cell_full"
    SEQUENCE_TOO_LONG = "sequence_too_long"
    RUN_ONLY = "run_only"
    DEAL_BLOCKED = "deal_blocked"
    COVERED = "covered"
    NOT_A_PAIR = "not_a_pair"
    NOTHING_TO_UNDO = "nothing_to_undo"
    GAME_WON = "game_won"


class IllegalMove(Exception):
    """A move the rules refuse: ``code`` for machines, ``detail`` for people (in English;
    ``reason`` lets another language say it)."""

    def __init__(self, code: IllegalCode, detail: Reason | str) -> None:
        self.reason = detail if isinstance(detail, Reason) else Reason(detail)
        self.code = code
        self.detail = str(self.reason)
        super().__init__(self.detail)


class MalformedMove(ValueError):
    """A MOVE object that is not well formed (as opposed to well formed but illegal)."""

    def __init__(self, detail: Reason | str) -> None:
        self.reason = detail if isinstance(detail, Reason) else Reason(detail)
        super().__init__(str(self.reason))


@dataclass(frozen=True, slots=True)
class Move:
    """Move the top ``count`` cards of pile ``source`` onto pile ``target``."""

    source: str
    target: str
    count: int = 1
    type: ClassVar[str] = "move"

    def to_json(self) -> dict[str, Any]:
        return {"type": "move", "from": self.source, "to": self.target, "count": self.count}


@dataclass(frozen=True, slots=True)
class Deal:
    """Use the stock: deal from it, or turn the waste back over when it is empty."""

    type: ClassVar[str] = "deal"

    def to_json(self) -> dict[str, Any]:
        return {"type": "deal"}


@dataclass(frozen=True, slots=True)
class Redeal:
    """Gather and redeal the tableau, in variants that allow it."""

    type: ClassVar[str] = "redeal"

    def to_json(self) -> dict[str, Any]:
        return {"type": "redeal"}


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last move, where undo can reach it."""

    type: ClassVar[str] = "undo"

    def to_json(self) -> dict[str, Any]:
        return {"type": "undo"}


AnyMove = Move | Deal | Redeal | Undo
_SIMPLE: dict[str, AnyMove] = {"deal": Deal(), "redeal": Redeal(), "undo": Undo()}
MAX_COUNT = 1000
_BAD_TYPE = gettext_noop("a move's type must be 'move', 'deal', 'redeal' or 'undo'")


def parse_move(data: Any) -> AnyMove:
    """Return the move a MOVE object of docs/api.md writes; raise ``MalformedMove`` otherwise."""
    if not isinstance(data, dict):
        raise MalformedMove(reason(gettext_noop("a move must be a JSON object")))
    kind = data.get("type")
    if not isinstance(kind, str):
        raise MalformedMove(reason(_BAD_TYPE))
    if kind in _SIMPLE:
        extra = set(data) - {"type"}
        if extra:
            raise MalformedMove(
                reason(
                    gettext_noop("a {kind} move takes no other field (got {fields})"),
                    kind=kind,
                    fields=str(sorted(extra)),
                )
            )
        return _SIMPLE[kind]
    if kind != "move":
        raise MalformedMove(reason(_BAD_TYPE))
    extra = set(data) - {"type", "from", "to", "count"}
    if extra:
        raise MalformedMove(
            reason(gettext_noop("unknown field(s) in a move: {fields}"), fields=str(sorted(extra)))
        )
    source, target = data.get("from"), data.get("to")
    if not isinstance(source, str) or not isinstance(target, str):
        raise MalformedMove(
            reason(gettext_noop("a move needs 'from' and 'to', each a pile id such as 'tableau-3'"))
        )
    count = data.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise MalformedMove(
            reason(gettext_noop("'count' must be an integer from 1 to {limit}"), limit=MAX_COUNT)
        )
    return Move(source, target, count)
