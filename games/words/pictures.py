"""Pictures of a position: the piles of an engine ``State`` laid out for an HTML template.

``layout_picture`` groups the piles by kind in the order of docs/deals.md (foundations, tableau,
reserves, stock, waste), each kind by index, and says for every card what the template may
print. A face-down card is a back and nothing more, unless the picture is ``revealed`` (an
admin's preview of a seed they typed), where it is drawn face up and marked as face down.
The template is ``games/layout_picture.html``, styled by ``games/layout.css``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import State
from games.engine.cards import RED, SUIT_SYMBOLS
from games.engine.rules import Kind
from games.words.cards import say_card

BACKS_DRAWN = 6
"""At most this many backs are drawn for a pile's face-down cards; the caption says how many."""


@dataclass(frozen=True)
class CardPicture:
    """One card as drawn: its label ("10♥") and colour, or a back (``label`` empty)."""

    label: str = ""
    red: bool = False
    face_down: bool = False

    @property
    def back(self) -> bool:
        """Return whether the card is drawn as a back (its identity not printed)."""
        return not self.label


@dataclass(frozen=True)
class PilePicture:
    """A pile as drawn: its cards bottom to top, how it spreads, and a caption."""

    id: str
    cards: tuple[CardPicture, ...]
    spread: str
    """``"fan"`` (cards overlap downwards), ``"top"`` (only the top card drawn) or ``"row"``."""
    size: int
    caption: str
    empty_mark: str = ""

    @property
    def count_shown(self) -> bool:
        """Return whether the pile holds more cards than are drawn (its count is then shown)."""
        return self.size > len(self.cards)


@dataclass(frozen=True)
class RowPicture:
    """The piles of one kind."""

    kind: str
    title: str
    piles: tuple[PilePicture, ...]


@dataclass(frozen=True)
class LayoutPicture:
    """A whole position: its rows of piles, and whether face-down cards are shown face up."""

    rows: tuple[RowPicture, ...]
    revealed: bool
    base_rank: str = ""


def _face(card: int, *, face_down: bool = False) -> CardPicture:
    return CardPicture(label=say_card(card), red=RED[card % 52], face_down=face_down)


def _row_title(kind: Kind, count: int) -> str:
    titles = {
        Kind.FOUNDATION: ngettext("Foundation", "Foundations", count),
        Kind.TABLEAU: _("Tableau"),
        Kind.RESERVE: ngettext("Reserve", "Reserves", count),
        Kind.STOCK: _("Stock"),
        Kind.WASTE: _("Waste"),
    }
    return titles[kind]


def _caption(size: int, hidden: int) -> str:
    if not size:
        return _("empty")
    if hidden == size:
        return ngettext("%(count)d card, face down", "%(count)d cards, face down", size) % {
            "count": size
        }
    if hidden:
        return ngettext(
            "%(count)d card, %(hidden)d face down", "%(count)d cards, %(hidden)d face down", size
        ) % {"count": size, "hidden": hidden}
    return ngettext("%(count)d card", "%(count)d cards", size) % {"count": size}


def _pile(state: State, index: int, *, revealed: bool) -> PilePicture:
    rule = state.variant.piles[index]
    pile = state.piles[index]
    size, hidden = len(pile.cards), pile.hidden
    if revealed:
        cards = tuple(_face(card, face_down=i < hidden) for i, card in enumerate(pile.cards))
        spread = "row" if rule.kind in (Kind.STOCK, Kind.WASTE) else "fan"
        if rule.kind is Kind.FOUNDATION:
            spread = "top"
    else:
        backs = (CardPicture(),) * min(hidden, BACKS_DRAWN)
        cards = backs + tuple(_face(card) for card in pile.cards[hidden:])
        spread = "top" if rule.kind in (Kind.FOUNDATION, Kind.STOCK, Kind.WASTE) else "fan"
    if spread == "top":
        cards = cards[-1:]
    mark = ""
    if rule.kind is Kind.FOUNDATION and rule.base_suit is not None:
        mark = SUIT_SYMBOLS[rule.base_suit]
    return PilePicture(
        id=rule.id,
        cards=cards,
        spread=spread,
        size=size,
        caption=_caption(size, hidden),
        empty_mark=mark,
    )


def layout_picture(state: State, *, revealed: bool = False) -> LayoutPicture:
    """Return the picture of ``state``; with ``revealed``, face-down cards are drawn face up."""
    variant = state.variant
    rows = []
    for kind in Kind:
        indices = [rule.index for rule in variant.piles if rule.kind is kind]
        if not indices:
            continue
        piles = tuple(_pile(state, i, revealed=revealed) for i in indices)
        title = _row_title(kind, len(piles))
        if kind is Kind.RESERVE and variant.cells:
            title = ngettext("Free cell", "Free cells", len(piles))
        rows.append(RowPicture(kind=kind.value, title=title, piles=piles))
    base = ""
    if variant.base_from_deal and state.base_rank is not None:
        base = say_card(state.base_rank - 1)[:-1]
    return LayoutPicture(rows=tuple(rows), revealed=revealed, base_rank=base)
