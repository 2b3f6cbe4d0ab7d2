"""The service's one vocabulary of card words: ranks, suits, cards, building rules, piles.

Refusals (``games.words.refusals``), rules pages (``games.words.rules``) and pictures of layouts
(``games.words.pictures``) all say cards in these words, in the active language.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext_lazy

from games.engine import Variant
from games.engine.cards import RANK_OF, SUIT_OF, SUIT_SYMBOLS
from games.engine.rules import Build, Direction, Kind, SuitRule

# Ranks 1 (Ace) to 13 (King) by name; and with the article "the" takes before them, which
# English leaves out of the word ("the {rank} of {suit}") and French puts in ("l’As", "la Dame").
RANK_NAMES = (
    pgettext_lazy("rank", "Ace"),
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    pgettext_lazy("rank", "Jack"),
    pgettext_lazy("rank", "Queen"),
    pgettext_lazy("rank", "King"),
)
RANK_NAMES_AFTER_THE = (
    pgettext_lazy("rank after 'the'", "Ace"),
    pgettext_lazy("rank after 'the'", "2"),
    pgettext_lazy("rank after 'the'", "3"),
    pgettext_lazy("rank after 'the'", "4"),
    pgettext_lazy("rank after 'the'", "5"),
    pgettext_lazy("rank after 'the'", "6"),
    pgettext_lazy("rank after 'the'", "7"),
    pgettext_lazy("rank after 'the'", "8"),
    pgettext_lazy("rank after 'the'", "9"),
    pgettext_lazy("rank after 'the'", "10"),
    pgettext_lazy("rank after 'the'", "Jack"),
    pgettext_lazy("rank after 'the'", "Queen"),
    pgettext_lazy("rank after 'the'", "King"),
)
# The rank as printed on a card's corner.
RANK_LABELS = (
    pgettext_lazy("card corner", "A"),
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    pgettext_lazy("card corner", "J"),
    pgettext_lazy("card corner", "Q"),
    pgettext_lazy("card corner", "K"),
)
SUIT_NAMES = (
    pgettext_lazy("suit", "Clubs"),
    pgettext_lazy("suit", "Diamonds"),
    pgettext_lazy("suit", "Hearts"),
    pgettext_lazy("suit", "Spades"),
)
DIRECTIONS = {
    Direction.UP: pgettext_lazy("building", "up"),
    Direction.DOWN: pgettext_lazy("building", "down"),
    Direction.EITHER: pgettext_lazy("building", "up or down"),
}
SUIT_RULES = {
    SuitRule.SAME: pgettext_lazy("building", "in the same suit"),
    SuitRule.ALTERNATE: pgettext_lazy("building", "in alternating colours"),
    SuitRule.ANY: pgettext_lazy("building", "regardless of suit"),
}
KINDS = {
    Kind.FOUNDATION: pgettext_lazy("pile", "the foundation"),
    Kind.TABLEAU: pgettext_lazy("pile", "the tableau"),
    Kind.RESERVE: pgettext_lazy("pile", "the reserve"),
    Kind.STOCK: pgettext_lazy("pile", "the stock"),
    Kind.WASTE: pgettext_lazy("pile", "the waste"),
}


def say_card(card: int) -> str:
    """Say a card as its corner shows it, e.g. ``10♥`` (``D♠`` for the Queen in French)."""
    return str(RANK_LABELS[RANK_OF[card] - 1]) + SUIT_SYMBOLS[SUIT_OF[card]]


def say_build(build: Build) -> str:
    """Say a building rule, e.g. "down by one in alternating colours"."""
    wrap = gettext(", King and Ace being adjacent") if build.wrap else ""
    return gettext("{direction} by one {suit}{wrap}").format(
        direction=DIRECTIONS[build.direction], suit=SUIT_RULES[build.suit], wrap=wrap
    )


def say_rank(rank: int) -> str:
    """Say a rank (1 = Ace … 13 = King), e.g. "Queen"."""
    return str(RANK_NAMES[rank - 1])


def say_pile(variant: Variant, index: int) -> str:
    """Return a pile's name as people say it, e.g. "tableau pile 3" or "the reserve"."""
    rule = variant.piles[index]
    number = rule.index - min(p.index for p in variant.piles if p.kind is rule.kind) + 1
    if rule.kind is Kind.FOUNDATION:
        return gettext("foundation %(number)d") % {"number": number}
    if rule.kind is Kind.TABLEAU:
        return gettext("tableau pile %(number)d") % {"number": number}
    if rule.kind is Kind.RESERVE:
        if rule.cell:
            return gettext("free cell %(number)d") % {"number": number}
        if len(variant.reserves) == 1:
            return gettext("the reserve")
        return gettext("reserve %(number)d") % {"number": number}
    if rule.kind is Kind.STOCK:
        return gettext("the stock")
    return gettext("the waste")
