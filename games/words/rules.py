"""The rules of a variant in words, read from its compiled rules document, for the rules page.

Every sentence goes through ``gettext``: the words follow the engine's compiled rules (the same
build, base, return and stock rules that its ``describe`` methods say in English), one
translatable sentence per case, so a translation can order its words freely.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import Variant
from games.engine.cards import CARDS_PER_DECK, SUIT_SYMBOLS
from games.engine.rules import (
    ANY_RANK,
    BASE_FROM_DEAL,
    NO_CARD,
    DealStep,
    Kind,
    PileRule,
    Return,
)
from games.words.cards import SUIT_NAMES, say_build, say_pile, say_rank


@dataclass(frozen=True)
class Section:
    """One part of the rules: a pile kind, the deal or the goal, as a title and sentences."""

    kind: str
    title: str
    sentences: tuple[str, ...]


def _groups(variant: Variant) -> list[list[PileRule]]:
    """Return the foundations in runs of piles that share one rule (the document's groups)."""
    groups: list[list[PileRule]] = []
    for index in variant.foundations:
        rule = variant.piles[index]
        last = groups[-1][-1] if groups else None
        if last is not None and (
            last.build,
            last.base_rank,
            last.placed,
            last.complete_runs,
        ) == (rule.build, rule.base_rank, rule.placed, rule.complete_runs):
            groups[-1].append(rule)
        else:
            groups.append([rule])
    return groups


def _foundation_group(piles: list[PileRule]) -> str:
    first = piles[0]
    count = len(piles)
    values = {"count": count, "rank": say_rank(first.base_rank or 1)}
    suits = [p.base_suit for p in piles]
    if first.base_rank == BASE_FROM_DEAL:
        start = ngettext(
            "%(count)d foundation starts empty but for the first card the deal puts there, "
            "whose rank is the base rank of the game; an empty foundation takes any card of "
            "the base rank.",
            "%(count)d foundations start empty but for the first card the deal puts on one of "
            "them, whose rank is the base rank of the game; an empty foundation takes any card "
            "of the base rank.",
            count,
        )
    elif None in suits:
        start = ngettext(
            "%(count)d foundation starts empty and takes any %(rank)s first.",
            "%(count)d foundations start empty; any empty one takes any %(rank)s.",
            count,
        )
    elif first.placed:
        values["suits"] = " ".join(SUIT_SYMBOLS[s] for s in suits if s is not None)
        start = ngettext(
            "%(count)d foundation (%(suits)s) starts with its %(rank)s, placed before the "
            "shuffle; that card never moves.",
            "%(count)d foundations (%(suits)s) start with the %(rank)s of their suit, placed "
            "before the shuffle; those cards never move.",
            count,
        )
    else:
        values["suits"] = " ".join(SUIT_SYMBOLS[s] for s in suits if s is not None)
        start = ngettext(
            "%(count)d foundation (%(suits)s) starts empty and takes the %(rank)s of its suit "
            "first.",
            "%(count)d foundations (%(suits)s) start empty; each takes the %(rank)s of its suit "
            "first.",
            count,
        )
    assert first.build is not None
    if first.complete_runs:
        build = _(
            "A foundation takes only a complete run of 13 cards at once, off the top of a tableau "
            "pile: the %(rank)s at the bottom, each card above building %(build)s."
        ) % {"rank": say_rank(first.base_rank or 1), "build": say_build(first.build)}
        return f"{start % values} {build}"
    build = _("They build %(build)s, up to 13 cards.") % {"build": say_build(first.build)}
    return f"{start % values} {build}"


def _foundations(variant: Variant) -> Section | None:
    if not variant.foundations:
        return None
    if variant.discard_index is not None:
        return Section(
            "foundation",
            _("Discard pile"),
            (
                _(
                    "The cards removed go face up onto the discard pile, and stay there; "
                    "nothing else is played onto it."
                ),
            ),
        )
    sentences = [_foundation_group(group) for group in _groups(variant)]
    placed = any(variant.piles[i].placed for i in variant.foundations)
    if variant.foundation_return is Return.NONE:
        sentences.append(_("A card on a foundation stays there."))
    elif variant.foundation_return is Return.TABLEAU:
        sentences.append(
            _("The top card of a foundation may be played back onto a tableau pile that takes it.")
        )
    else:
        sentences.append(
            _(
                "The top card of a foundation may be played onto any other pile that takes it, "
                "tableau or foundation."
            )
        )
    if placed and variant.foundation_return is not Return.NONE:
        sentences.append(_("A base card placed before the shuffle is never played back."))
    count = len(variant.foundations)
    return Section("foundation", ngettext("Foundation", "Foundations", count), tuple(sentences))


def _tableau(variant: Variant) -> Section:
    rule = variant.piles[variant.tableau[0]]
    count = len(variant.tableau)
    sentences = [
        ngettext("%(count)d tableau pile.", "%(count)d tableau piles.", count) % {"count": count}
    ]
    if variant.layered:
        sentences.append(
            _(
                "The tableau is laid out in overlapping rows, each card a pile of its own: a "
                "card is covered by the one or two cards of the next row that overlap it, and "
                "plays only once they are gone; a face-down card turns face up then."
            )
        )
    if rule.build is None:
        sentences.append(_("Nothing is played onto the tableau: its cards only leave it."))
        if not variant.layered:
            sentences.append(_("Only the top card of a pile plays."))
        return Section("tableau", _("Tableau"), tuple(sentences))
    sentences.append(_("A tableau pile builds %(build)s.") % {"build": say_build(rule.build)})
    if rule.any_group:
        sentences.append(
            _(
                "Any face-up cards may be moved together, whatever their order, onto a pile "
                "that takes the lowest of them."
            )
        )
    elif rule.sequences and rule.sequence_build is not None:
        sentences.append(
            _(
                "Only a sequence built %(build)s may be moved as a unit, onto a pile that takes "
                "its bottom card."
            )
            % {"build": say_build(rule.sequence_build)}
        )
    elif rule.sequences:
        sentences.append(
            _(
                "Any built sequence at the top of a pile may be moved as a unit onto a pile "
                "that takes its bottom card."
            )
        )
    else:
        sentences.append(_("Only the top card moves, one card at a time."))
    if rule.supermove:
        sentences.append(
            _(
                "A sequence moves only as far as free spaces allow: at most one card, plus one "
                "for each empty free cell, the whole doubled for each empty tableau pile other "
                "than the one it goes to."
            )
        )
    if rule.refill_from is not None:
        sentences.append(
            _(
                "A pile that becomes empty is filled at once with the top card of %(pile)s, "
                "while it has cards."
            )
            % {"pile": say_pile(variant, rule.refill_from)}
        )
    if rule.empty_rank == ANY_RANK:
        sentences.append(
            _("An empty pile takes any card or sequence.")
            if rule.sequences
            else _("An empty pile takes any card.")
        )
    elif rule.empty_rank == NO_CARD:
        sentences.append(_("An empty pile stays empty."))
    elif rule.empty_rank == BASE_FROM_DEAL:
        sentences.append(_("An empty pile takes only a card of the base rank."))
    else:
        sentences.append(
            _("An empty pile takes only a %(rank)s.") % {"rank": say_rank(rule.empty_rank)}
        )
    return Section("tableau", _("Tableau"), tuple(sentences))


def _reserves(variant: Variant) -> Section | None:
    count = len(variant.reserves)
    if not count:
        return None
    if variant.cells:
        cells = (
            ngettext("%(count)d free cell.", "%(count)d free cells.", count) % {"count": count},
            _(
                "A free cell holds one card at most: an empty one takes any card, and its card "
                "plays to a foundation, the tableau or another free cell."
            ),
        )
        return Section("reserve", ngettext("Free cell", "Free cells", count), cells)
    sentences = (
        ngettext("%(count)d reserve pile.", "%(count)d reserve piles.", count) % {"count": count},
        _(
            "Only the top card of a reserve plays, to a foundation or the tableau; nothing is "
            "played onto a reserve."
        ),
    )
    return Section("reserve", ngettext("Reserve", "Reserves", count), sentences)


def _stock(variant: Variant) -> Section:
    stock = variant.stock
    if stock is None:
        return Section("stock", _("Stock"), (_("There is no stock."),))
    if stock.deal_to is Kind.WASTE:
        sentences = [
            ngettext(
                "A deal turns %(count)d card from the stock onto the waste.",
                "A deal turns up to %(count)d cards from the stock onto the waste, one at a "
                "time; the last one turned is the new top.",
                stock.cards,
            )
            % {"count": stock.cards},
        ]
        if stock.waste_build is not None:
            sentences.append(
                _(
                    "The waste takes the top card of any tableau pile that builds on its top card "
                    "%(build)s."
                )
                % {"build": say_build(stock.waste_build)}
            )
        elif variant.pairs is not None:
            sentences.append(_("The top card of the waste may be one of a pair."))
        else:
            sentences.append(_("The top card of the waste plays to a foundation or the tableau."))
        if stock.redeals is None:
            sentences.append(
                _(
                    "When the stock is empty, a deal turns the whole waste back over into the "
                    "stock, without shuffling, as often as you like."
                )
            )
        elif stock.redeals == 0:
            sentences.append(_("There is no redeal: the stock is dealt through once."))
        else:
            sentences.append(
                ngettext(
                    "When the stock is empty, the waste may be turned back into the stock "
                    "%(count)d time, without shuffling.",
                    "When the stock is empty, the waste may be turned back into the stock "
                    "%(count)d times, without shuffling.",
                    stock.redeals,
                )
                % {"count": stock.redeals}
            )
        return Section("stock", _("Stock and waste"), tuple(sentences))
    if stock.deal_to is Kind.TABLEAU and stock.needs_no_empty_tableau:
        deal = _(
            "A deal from the stock puts one card face up on each tableau pile, in order; a deal "
            "may be made only while no tableau pile is empty."
        )
    elif stock.deal_to is Kind.TABLEAU:
        deal = _(
            "A deal from the stock puts one card face up on each tableau pile, in order, empty "
            "piles included; a deal may be made at any time."
        )
    else:
        deal = _(
            "A deal from the stock puts one card face up on each reserve, in order; a deal may "
            "be made at any time."
        )
    return Section("stock", _("Stock"), (deal, _("The stock is dealt through once: no redeal.")))


def _pairs(variant: Variant) -> Section | None:
    total = variant.pairs
    if total is None:
        return None
    sentences = (
        _(
            "Two playable cards whose ranks add up to %(total)d are removed together onto the "
            "discard pile, counting an Ace 1, a Jack 11, a Queen 12 and a King 13; a card of "
            "rank %(total)d is removed alone."
        )
        % {"total": total},
        _(
            "A card plays when no card covers it in the tableau, or when it is the top card of "
            "the waste. To remove a pair, move one of its cards onto the other; to remove a "
            "card alone, move it onto the discard pile."
        ),
    )
    return Section("pairs", _("Pairs"), sentences)


def _redeal(variant: Variant) -> Section | None:
    if variant.redeal_hook is None:
        return None
    limit = variant.redeal_limit
    sentence = ngettext(
        "%(count)d redeal, available at any time: the tableau is gathered up, from the last "
        "pile to the first, and dealt again the same way, without shuffling.",
        "%(count)d redeals, each available at any time: the tableau is gathered up, from the "
        "last pile to the first, and dealt again the same way, without shuffling.",
        limit,
    ) % {"count": limit}
    return Section("redeal", _("Redeals"), (sentence,))


def _counts(variant: Variant, step: DealStep) -> str:
    assert step.counts is not None and step.face_down is not None
    piles = {
        Kind.FOUNDATION: _("the foundations"),
        Kind.TABLEAU: _("the tableau piles"),
        Kind.RESERVE: _("the reserves"),
    }[variant.piles[step.targets[0]].kind]
    down = sum(step.face_down)
    if set(step.counts) == {1} and step.face_down == (1,) * down + (0,) * (len(step.counts) - down):
        return (
            ngettext(
                "%(count)d card to each of %(piles)s, in order, face down.",
                "%(count)d cards, one to each of %(piles)s in order; the first %(down)d face "
                "down, the others face up.",
                len(step.counts),
            )
            % {"count": len(step.counts), "piles": piles, "down": down}
            if down
            else ngettext(
                "%(count)d card to each of %(piles)s, in order, face up.",
                "%(count)d cards, one to each of %(piles)s in order, face up.",
                len(step.counts),
            )
            % {"count": len(step.counts), "piles": piles}
        )
    values = {
        "piles": piles,
        "counts": ", ".join(str(n) for n in step.counts),
        "down": ", ".join(str(n) for n in step.face_down),
    }
    if any(step.face_down):
        return (
            _(
                "Rounds over %(piles)s, from left to right, each round passing the piles that "
                "have their share, until they hold %(counts)s cards; the first %(down)s cards of "
                "each (in that order) are face down."
            )
            % values
        )
    return (
        _(
            "Rounds over %(piles)s, from left to right, each round passing the piles that have "
            "their share, until they hold %(counts)s cards, face up."
        )
        % values
    )


def _step(variant: Variant, step: DealStep) -> str:
    if step.to_stock:
        return _("The rest of the pack forms the stock, face down.")
    if step.counts is not None:
        return _counts(variant, step)
    assert step.rounds is not None
    down = step.face_down_rounds
    if len(step.targets) == 1:
        values = {"count": step.rounds, "pile": say_pile(variant, step.targets[0])}
        if down == step.rounds:
            text = ngettext(
                "%(count)d card face down to %(pile)s.",
                "%(count)d cards face down to %(pile)s.",
                step.rounds,
            )
        elif down:  # some cards face down, so at least two cards
            values["up"] = step.rounds - down
            text = ngettext(
                "%(count)d cards to %(pile)s, only the top card face up.",
                "%(count)d cards to %(pile)s, only the top %(up)d cards face up.",
                step.rounds - down,
            )
        else:
            text = ngettext(
                "%(count)d card face up to %(pile)s.",
                "%(count)d cards face up to %(pile)s.",
                step.rounds,
            )
        return text % values
    kind = variant.piles[step.targets[0]].kind
    piles = {
        Kind.FOUNDATION: _("the foundations"),
        Kind.TABLEAU: _("the tableau piles"),
        Kind.RESERVE: _("the reserves"),
    }[kind]
    values = {"count": step.rounds, "piles": piles, "down": down}
    if down == step.rounds:
        text = ngettext(
            "%(count)d round over %(piles)s, face down.",
            "%(count)d rounds over %(piles)s, face down.",
            step.rounds,
        )
    elif down:  # some rounds face down, so at least two rounds
        text = ngettext(
            "%(count)d rounds over %(piles)s, the first face down.",
            "%(count)d rounds over %(piles)s, the first %(down)d face down.",
            down,
        )
    else:
        text = ngettext(
            "%(count)d round over %(piles)s, face up.",
            "%(count)d rounds over %(piles)s, face up.",
            step.rounds,
        )
    return text % values


def _deal(variant: Variant) -> Section:
    pack = variant.total_cards - len(variant.placed)
    sentences = []
    if variant.placed:
        sentences.append(_("Before the shuffle, the base cards go on their foundations."))
    sentences.append(
        _("The %(count)d cards of the pack are shuffled, then dealt:") % {"count": pack}
    )
    if variant.deal_hook is not None:
        sentences.append(
            _(
                "one by one onto the tableau piles in turn, face up; a card that can start or "
                "build on a foundation goes there instead, and the next card goes to the same "
                "tableau pile."
            )
        )
    else:
        sentences.extend(_step(variant, step) for step in variant.deal_steps)
    sentences.append(
        _("A face-down card turns face up by itself when no card covers it any more.")
        if variant.layered
        else _("A face-down card turns face up by itself when it becomes the top card.")
    )
    return Section("deal", _("The deal"), tuple(sentences))


def rules_sections(variant: Variant) -> list[Section]:
    """Return the rules of a compiled variant in words: piles, stock, redeals, deal and goal."""
    decks = variant.decks
    pack = ngettext(
        "Played with %(count)d deck of 52 cards.",
        "Played with %(count)d decks of 52 cards (%(total)d cards).",
        decks,
    ) % {"count": decks, "total": decks * CARDS_PER_DECK}
    if len(variant.pack_suits) < 4:
        names = ", ".join(str(SUIT_NAMES[s]) for s in variant.pack_suits)
        copies = variant.total_cards // (13 * len(variant.pack_suits))
        pack = (
            pack
            + " "
            + _("The pack holds only %(suits)s: each of their cards %(copies)d times.")
            % {"suits": names, "copies": copies}
        )
    sections = [Section("pack", _("The pack"), (pack,))]
    optional = (
        _foundations(variant),
        _tableau(variant),
        _reserves(variant),
        _stock(variant),
        _pairs(variant),
        _redeal(variant),
    )
    sections.extend(section for section in optional if section is not None)
    sections.append(_deal(variant))
    if variant.clears_tableau:
        goal = _(
            "The game is won when every tableau card is cleared away, whatever the stock and "
            "the waste still hold."
        )
    else:
        goal = _("The game is won when all %(count)d cards are on the foundations.") % {
            "count": variant.total_cards
        }
    sections.append(Section("goal", _("Winning"), (goal,)))
    return sections


__all__ = ["Section", "rules_sections"]
