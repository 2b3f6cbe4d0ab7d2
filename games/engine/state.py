"""Positions: piles of cards, face-down counts and the undo chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Variant


@dataclass(frozen=True, slots=True)
class Pile:
    """A pile's cards bottom to top; the bottom ``hidden`` of them are face down."""

    cards: tuple[int, ...] = ()
    hidden: int = 0

    @property
    def top(self) -> int:
        """Return the top card (the pile must not be empty)."""
        return self.cards[-1]

    @property
    def face_up(self) -> int:
        """Return how many cards at the top are face up."""
        return len(self.cards) - self.hidden


@dataclass(frozen=True, slots=True)
class State:
    """A position of a game: immutable; every move returns a new one.

    ``previous`` is the position that ``undo`` returns to, or None where undo cannot reach (at
    the start, and after a deal, a redeal or a move that revealed a card). ``base_rank`` is the
    foundation base rank read from the deal, where the variant has one.
    """

    variant: Variant = field(compare=False, repr=False)
    piles: tuple[Pile, ...]
    redeals_left: int | None
    base_rank: int | None = None
    previous: State | None = field(default=None, compare=False, repr=False)

    def pile(self, pile_id: str) -> Pile:
        """Return the pile named ``pile_id``."""
        return self.piles[self.variant.index[pile_id]]

    def foundation_cards(self) -> int:
        """Return how many cards are home: on the foundations, or, where the goal is to clear
        the tableau, cleared off it (of ``variant.goal_cards``, the cards a win brings home)."""
        piles = self.piles
        variant = self.variant
        if variant.clears_tableau:
            return variant.goal_cards - sum(len(piles[i].cards) for i in variant.tableau)
        return sum(len(piles[i].cards) for i in variant.foundations)

    @property
    def won(self) -> bool:
        """Return whether the game is won: every card of the pack on a foundation, or every
        tableau pile empty where the goal is to clear the tableau."""
        piles = self.piles
        if self.variant.clears_tableau:
            return not any(piles[i].cards for i in self.variant.tableau)
        if any(piles[i].cards for i in self.variant.off_foundations):
            return False
        return self.foundation_cards() == self.variant.total_cards

    def all_cards(self) -> list[int]:
        """Return every card in the position, pile by pile."""
        return [card for pile in self.piles for card in pile.cards]
