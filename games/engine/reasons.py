"""Why a move is refused, in words that another language can say too.

The engine speaks English only, but never bakes a refusal into one English string: a ``Reason``
is a sentence with ``{name}`` places and the values that fill them. Pile ids and numbers fill
them as they are; words fill them as values of their own, which a translation says in its
language: a card (``CardWord``), a rank (``RankWord``), the card an empty foundation takes
(``BaseWord``), a building rule (``rules.Build``) and a kind of pile (``rules.Kind``).
``str(reason)`` is the English sentence; the server says the same reason in its reader's
language from the sentence and the values (``games.words.refusals``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .cards import SUIT_NAMES, card_label, rank_label
from .rules import Build, Kind


def gettext_noop(text: str) -> str:
    """Return ``text`` unchanged: mark an English sentence for the message catalogues.

    The name is the one gettext's extractor looks for, so that the server's
    ``makemessages`` finds the engine's sentences; the engine itself translates nothing.
    """
    return text


@dataclass(frozen=True, slots=True)
class CardWord:
    """A card, said as people read it (``10♥`` in English)."""

    card: int


@dataclass(frozen=True, slots=True)
class RankWord:
    """A rank from 1 (Ace) to 13 (King), said by its name."""

    rank: int


@dataclass(frozen=True, slots=True)
class BaseWord:
    """What an empty foundation takes: a rank (None: the deal's base rank) and maybe a suit."""

    rank: int | None
    suit: int | None


Word = str | int | CardWord | RankWord | BaseWord | Build | Kind


def english(value: Word) -> str | int:
    """Say one value of a reason in English."""
    if isinstance(value, CardWord):
        return card_label(value.card)
    if isinstance(value, RankWord):
        return rank_label(value.rank)
    if isinstance(value, BaseWord):
        if value.rank is None:
            return "a card of the base rank"
        if value.suit is None:
            return f"any {rank_label(value.rank)}"
        return f"the {rank_label(value.rank)} of {SUIT_NAMES[value.suit]}"
    if isinstance(value, Build):
        return value.describe()
    if isinstance(value, Kind):
        return f"the {value.value}"
    return value


@dataclass(frozen=True, slots=True)
class Reason:
    """A sentence with ``{name}`` places (``text``, English) and the values that fill them."""

    text: str
    params: Mapping[str, Word] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text.format(**{name: english(value) for name, value in self.params.items()})


def reason(text: str, **params: Word) -> Reason:
    """Return the reason ``text`` filled with ``params``."""
    return Reason(text, params)


__all__ = [
    "BaseWord",
    "CardWord",
    "RankWord",
    "Reason",
    "Word",
    "english",
    "gettext_noop",
    "reason",
]
