"""A result's figures and the order every board ranks results in (docs/api.md, "Ranking").

The one definition of both: the model's default ordering, the boards in PostgreSQL and in Redis,
the re-verifier's order check and the seals all take them from here. Standard library only, so
that the re-verifier runs without Django.

Best first: an unassisted result before an assisted one, then more cards on the foundations,
fewer moves, a shorter duration, an earlier finish, and the game id (byte order) last.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Outcome:
    """The figures a move log proves by its replay: how the game ended, the cards it brought
    to the foundations and its moves (the other figures are the server's records). A figure
    that a claim gives with the wrong type reads as None."""

    status: str | None
    foundation_cards: int | None
    moves: int | None


OUTCOME: tuple[str, ...] = tuple(Outcome.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class Figures:
    """What a verified result shows and ranks by."""

    status: str
    foundation_cards: int
    moves: int
    duration_ms: int
    finished_at: dt.datetime
    assisted: bool

    @classmethod
    def of(cls, row: Any) -> Figures:
        """Return the figures a row (a ``Result``, or anything with its columns) shows."""
        return cls(**{name: getattr(row, name) for name in FIGURES})


FIGURES: tuple[str, ...] = tuple(Figures.__dataclass_fields__)


class Ranked(Protocol):
    """What ranking needs of a result: its figures and its game id (a ``Result`` has them)."""

    @property
    def game_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def foundation_cards(self) -> int: ...
    @property
    def moves(self) -> int: ...
    @property
    def duration_ms(self) -> int: ...
    @property
    def finished_at(self) -> dt.datetime: ...
    @property
    def assisted(self) -> bool: ...


# The ranking order, best first: (field, whether a greater value ranks first).
RANKING: tuple[tuple[str, bool], ...] = (
    ("assisted", False),
    ("foundation_cards", True),
    ("moves", False),
    ("duration_ms", False),
    ("finished_at", False),
    ("game_id", False),
)


def ordering(game_id: str | None = "game_id") -> tuple[str, ...]:
    """Return the order as query field names (``-`` for descending), best first. The last
    tie-break is named ``game_id``, or the caller's name for it (an alias in a chosen
    collation), or left out with None."""
    return tuple(
        ("-" if descending else "") + (game_id if name == "game_id" else name)
        for name, descending in RANKING
        if name != "game_id" or game_id is not None
    )


def rank_key(values: dict[str, Any]) -> tuple[Any, ...]:
    """Return a key that sorts results best first, from their figures by name (numbers, and
    strings or datetimes for the finish and the game id)."""
    key: list[Any] = []
    for name, descending in RANKING:
        value = values[name]
        key.append(-value if descending else value)
    return tuple(key)
