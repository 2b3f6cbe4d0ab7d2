"""Say the engine's refusals in the reader's language.

The engine is pure and speaks English only; a refusal carries a ``Reason``: an English sentence
with ``{name}`` places and the values that fill them (``games.engine.reasons``). Here the
sentence goes through gettext and every value is said in the active language, in the words of
``games.words.cards``: cards, ranks, the card an empty foundation takes, building rules and
kinds of piles. Pile ids and numbers stay as
they are. In English the result is exactly ``str(reason)``.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext

from games.engine.reasons import BaseWord, CardWord, RankWord, Reason, Word
from games.engine.rules import Build, Kind
from games.words.cards import (
    KINDS,
    RANK_NAMES,
    RANK_NAMES_AFTER_THE,
    SUIT_NAMES,
    say_build,
    say_card,
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
