"""Say the engine's refusals in the reader's language.

The engine is pure and speaks English only; a refusal carries a ``Reason``: an English sentence
with ``{name}`` places and the values that fill them (``games.engine.reasons``). Here the
sentence goes through gettext and every value is said in the active language: cards, ranks, the
card an empty foundation takes, building rules and kinds of piles. Pile ids and numbers stay as
they are. In English the result is exactly ``str(reason)``.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext, pgettext_lazy

from games.engine.cards import RANK_OF, SUIT_OF, SUIT_SYMBOLS
from games.engine.reasons import BaseWord, CardWord, RankWord, Reason, Word
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


def say_base(base: BaseWord) -> str:
    """Say what an empty foundation takes, e.g. "the Ace of Hearts" or "any King"."""
    if base.rank is None:
        return gettext("a card of the base rank")
    if base.suit is None:
        return pgettext("foundation base", "any {rank}").format(rank=RANK_NAMES[base.rank - 1])
    return pgettext("foundation base", "the {rank} of {suit}").format(
        rank=RANK_NAMES_AFTER_THE[base.rank - 1], suit=SUIT_NAMES[base.suit]
    )


def say_word(value: Word) -> str | int:
    """Say one value of a reason in the active language."""
    if isinstance(value, CardWord):
        return say_card(value.card)
    if isinstance(value, RankWord):
        return str(RANK_NAMES[value.rank - 1])
    if isinstance(value, BaseWord):
        return say_base(value)
    if isinstance(value, Build):
        return say_build(value)
    if isinstance(value, Kind):
        return str(KINDS[value])
    return value


def say_refusal(reason: Reason) -> str:
    """Say a refusal of the engine in the active language."""
    words = {name: say_word(value) for name, value in reason.params.items()}
    return gettext(reason.text).format(**words)
