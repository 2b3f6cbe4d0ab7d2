"""How cards build on piles: the predicates shared by play and by dealing hooks."""

from __future__ import annotations

from collections.abc import Callable

from .cards import RANK_OF, RED, SUIT_OF
from .moves import IllegalCode
from .reasons import BaseWord, CardWord, Reason, gettext_noop, reason
from .rules import (
    BASE_FROM_DEAL,
    FOUNDATION_LIMIT,
    Build,
    Direction,
    Kind,
    PileRule,
    SuitRule,
)
from .state import Pile

Refusal = tuple[IllegalCode, Callable[[], Reason]]
"""A refusal: its code, and a function that gives its reason (made only when needed)."""


def builds(rule: Build, lower: int, upper: int) -> bool:
    """Return whether card ``upper`` may lie on card ``lower`` under ``rule``."""
    suit = rule.suit
    if suit is SuitRule.SAME:
        if SUIT_OF[lower] != SUIT_OF[upper]:
            return False
    elif suit is SuitRule.ALTERNATE and RED[lower] == RED[upper]:
        return False
    step = RANK_OF[upper] - RANK_OF[lower]
    if rule.wrap:
        step %= 13
        up, down = step == 1, step == 12
    else:
        up, down = step == 1, step == -1
    direction = rule.direction
    if direction is Direction.UP:
        return up
    if direction is Direction.DOWN:
        return down
    return up or down


def sequence_length(rule: Build, pile: Pile) -> int:
    """Return how many face-up cards at the top of ``pile`` form a built sequence."""
    cards = pile.cards
    length = 1 if cards and pile.hidden < len(cards) else 0
    i = len(cards) - 1
    while i > pile.hidden and builds(rule, cards[i - 1], cards[i]):
        length += 1
        i -= 1
    return length


def foundation_refusal(
    rule: PileRule, cards: tuple[int, ...] | list[int], card: int, base_rank: int | None
) -> Refusal | None:
    """Return why the foundation ``rule`` holding ``cards`` refuses ``card``, or None."""
    if len(cards) >= FOUNDATION_LIMIT:
        return IllegalCode.FOUNDATION_FULL, lambda: reason(
            gettext_noop("{pile} already holds 13 cards."), pile=rule.id
        )
    if not cards:
        base = base_rank if rule.base_rank == BASE_FROM_DEAL else rule.base_rank
        if RANK_OF[card] != base or (
            rule.base_suit is not None and SUIT_OF[card] != rule.base_suit
        ):
            return (
                IllegalCode.WRONG_BASE,
                lambda: reason(
                    gettext_noop(
                        "{card} cannot start {pile}: an empty foundation there takes {base}."
                    ),
                    card=CardWord(card),
                    pile=rule.id,
                    base=BaseWord(base, rule.base_suit),
                ),
            )
        return None
    assert rule.build is not None
    if not builds(rule.build, cards[-1], card):
        return (
            IllegalCode.DOES_NOT_BUILD,
            lambda: reason(
                gettext_noop("{card} cannot go on {under}: {pile} builds {build}."),
                card=CardWord(card),
                under=CardWord(cards[-1]),
                pile=rule.id,
                build=rule.build,
            ),
        )
    return None


def run_refusal(
    rule: PileRule, cards: tuple[int, ...], pile: Pile, count: int, source: Kind
) -> Refusal | None:
    """Return why the complete-runs foundation ``rule`` refuses the top ``count`` of ``pile``.

    It takes only a whole run of 13 cards at once, off the top of a tableau pile: its base card
    at the bottom, each card above building on the one below by the foundation's build.
    """
    if cards:
        return IllegalCode.FOUNDATION_FULL, lambda: reason(
            gettext_noop("{pile} already holds 13 cards."), pile=rule.id
        )
    base = rule.base_rank
    assert rule.build is not None and base is not None
    run = pile.cards[-count:]
    if (
        source is Kind.TABLEAU
        and count == FOUNDATION_LIMIT
        and RANK_OF[run[0]] == base
        and (rule.base_suit is None or SUIT_OF[run[0]] == rule.base_suit)
        and all(builds(rule.build, run[i - 1], run[i]) for i in range(1, count))
    ):
        return None
    return (
        IllegalCode.RUN_ONLY,
        lambda: reason(
            gettext_noop(
                "{pile} takes only a complete run of 13 cards from a tableau pile, at once: "
                "{base} at the bottom, building {build}."
            ),
            pile=rule.id,
            base=BaseWord(base, rule.base_suit),
            build=rule.build,
        ),
    )
