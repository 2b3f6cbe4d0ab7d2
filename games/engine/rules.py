"""Rules documents: the single source of a variant's behaviour.

A rules document is plain JSON. ``compile_rules`` validates it, naming the bad field in every
error, and returns a ``Variant``: the same rules laid out per pile for fast move checks.

Document fields (see ``variants/*.json`` for complete examples):

``decks``
    Number of 52-card decks, 1–8.
``suits``
    The suits the pack is made of (default ``["C", "D", "H", "S"]``): one, two or four suit
    letters; each deck is four runs Ace to King, the i-th of suit ``suits[i % len(suits)]``
    (Spider with one suit plays eight runs of Spades).
``foundations``
    A list of groups, each ``{"count", "suits", "base", "placed", "build"}``: ``suits`` is one suit
    letter per pile or ``null`` for any suit; ``base`` is the rank an empty pile takes (``"A"`` …
    ``"K"``) or ``"deal"`` for the rank of the first card the deal puts on a foundation;
    ``placed`` puts the base cards on the piles before the shuffle (they then never move);
    ``complete_runs`` (default false) makes a pile take only a whole run of 13 cards at once,
    from its base by its build, off the top of a tableau pile (Spider).
    A foundation holds at most 13 cards. A group ``{"count": 1, "discard": true}`` is instead
    the discard pile of ``pairs``: it holds any number of cards, face up, and gives none back.
    The list is empty where nothing builds on foundations (Golf, TriPeaks).
``foundation_return``
    ``"none"``, ``"tableau"`` or ``"anywhere"``: where a foundation's top card may be played.
``tableau``
    ``{"count", "build", "moves", "sequence", "empty", "refill_from", "covered_by"}``:
    ``build`` may be ``null`` (nothing is played onto a tableau pile); ``moves`` is
    ``"single"``, ``"sequence"`` (a built sequence moves as a unit), ``"supermove"`` (as
    ``"sequence"``, at most (1 + empty free cells) × 2^(empty tableau piles other than the
    target) cards at once: FreeCell) or ``"any"`` (any face-up cards move together: Yukon);
    ``sequence`` is the build a moving sequence must follow, when stricter than ``build``
    (Spider: same suit); ``empty`` is what an empty pile takes (``"any"``, ``"none"``, a rank
    letter or ``"base"``); ``refill_from`` names a pile whose top card fills an emptied pile at
    once, while it has cards; ``covered_by`` lays the piles out in overlapping rows (TriPeaks'
    peaks, Pyramid): one list per pile of the (0-based, later) tableau piles that cover it; a
    pile's card plays only once every pile covering it is empty, and a face-down one turns up
    then.
``reserves``
    ``{"count", "free_cells"}`` or ``null``. Only a reserve's top card plays; nothing is played
    onto it, unless ``free_cells`` (default false): then each holds at most one card, and an
    empty one takes any card.
``stock``
    ``null``, ``{"deal_to": "waste", "cards": n, "redeals": n | null}`` (``null``: unlimited), or
    ``{"deal_to": "tableau" | "reserve", "requires": null | "no-empty-tableau"}`` (one card to
    each pile of that kind, no redeal; ``"no-empty-tableau"``: only while no tableau pile is
    empty, as in Spider).
``redeal``
    ``null`` or ``{"hook": name, "limit": n}``: a ``redeal`` move carried out by a named hook.
``pairs``
    ``null`` or ``{"total": n}``: two playable cards (uncovered tableau cards, the top card of
    the waste) whose ranks add up to ``n`` are removed together onto the discard pile, and a
    card of rank ``n`` alone (Pyramid: 13, a King alone). A pair is the move of one card onto
    the other's pile; a card alone moves onto the discard pile.
``goal``
    ``"foundations"`` (default: every card on the foundations) or ``"clear-tableau"`` (won
    when every tableau pile is empty, whatever the stock and waste hold).
``deal``
    ``{"steps": [...]}`` or ``{"hook": name}``. A step is ``{"to": kind, "rounds": n,
    "face_down_rounds": k}`` (n rounds over every pile of a kind), ``{"to": kind, "counts":
    [n0, n1, …], "face_down": [k0, k1, …]}`` (rounds over the piles of a kind, pile i taking
    ni cards, its first ki face down: Klondike's triangle), ``{"to": pile id, "cards": n,
    "face_down": k}`` (the waste too: ``{"to": "waste", "cards": 1}``) or ``{"to": "stock"}``
    (every card left, the first dealt on top).

``build`` is ``{"direction": "up" | "down" | "either", "suit": "same" | "alternate" | "any",
"wrap": bool}``; ``wrap`` makes King and Ace adjacent.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import (
    CARDS_PER_DECK,
    KING,
    RANKS,
    SUIT_NAMES,
    SUITS,
    parse_rank,
    parse_suit,
    rank_label,
)

MAX_DECKS = 8
FOUNDATION_LIMIT = 13


class RulesError(ValueError):
    """A rules document is invalid; ``field`` names the offending part, e.g. ``tableau.count``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Kind(enum.Enum):
    FOUNDATION = "foundation"
    TABLEAU = "tableau"
    RESERVE = "reserve"
    STOCK = "stock"
    WASTE = "waste"


class Direction(enum.Enum):
    UP = "up"
    DOWN = "down"
    EITHER = "either"


class SuitRule(enum.Enum):
    SAME = "same"
    ALTERNATE = "alternate"
    ANY = "any"


class Return(enum.Enum):
    NONE = "none"
    TABLEAU = "tableau"
    ANYWHERE = "anywhere"


BASE_FROM_DEAL = 0
"""``Pile.base_rank`` value meaning: the base rank is read from the deal."""

ANY_RANK = -1
NO_CARD = -2
"""``Pile.empty_rank`` values: an empty pile takes any card, or nothing."""


@dataclass(frozen=True)
class Build:
    """How cards build on a pile: one rank up, down or either, by suit rule, maybe wrapping."""

    direction: Direction
    suit: SuitRule
    wrap: bool

    def describe(self) -> str:
        """Say the rule in words, e.g. ``"down by one in alternating colours"``."""
        direction = {"up": "up", "down": "down", "either": "up or down"}[self.direction.value]
        suit = {
            "same": "in the same suit",
            "alternate": "in alternating colours",
            "any": "regardless of suit",
        }[self.suit.value]
        wrap = ", King and Ace being adjacent" if self.wrap else ""
        return f"{direction} by one {suit}{wrap}"


@dataclass(frozen=True)
class PileRule:
    """Everything the rules say about one pile."""

    id: str
    kind: Kind
    index: int
    build: Build | None = None
    base_rank: int | None = None
    base_suit: int | None = None
    placed: bool = False
    empty_rank: int = NO_CARD
    sequences: bool = False
    refill_from: int | None = None
    supermove: bool = False
    any_group: bool = False
    sequence_build: Build | None = None
    cell: bool = False
    complete_runs: bool = False
    covered_by: tuple[int, ...] = ()
    covers: tuple[int, ...] = ()
    discard: bool = False


@dataclass(frozen=True)
class StockRule:
    deal_to: Kind
    cards: int
    redeals: int | None
    needs_no_empty_tableau: bool = False
    waste_build: Build | None = None


@dataclass(frozen=True)
class DealStep:
    """Deal ``rounds`` rounds over ``targets`` (every card left to the stock, when None).

    With ``counts``, pile ``targets[i]`` takes ``counts[i]`` cards in all (a round skips the
    piles that have theirs) and its first ``face_down[i]`` are face down; otherwise every round
    gives each target one card, the first ``face_down_rounds`` rounds face down.
    """

    targets: tuple[int, ...]
    rounds: int | None
    face_down_rounds: int
    to_stock: bool = False
    counts: tuple[int, ...] | None = None
    face_down: tuple[int, ...] | None = None


@dataclass(frozen=True, eq=False)
class Variant:
    """A compiled rules document. Build one with ``compile_rules``."""

    document: Mapping[str, Any] = field(repr=False)
    decks: int
    piles: tuple[PileRule, ...]
    foundation_return: Return
    stock: StockRule | None
    redeal_hook: str | None
    redeal_limit: int
    deal_hook: str | None
    deal_steps: tuple[DealStep, ...]
    placed: tuple[tuple[int, int], ...]
    pack_suits: tuple[int, ...] = (0, 1, 2, 3)
    pairs: int | None = None
    clears_tableau: bool = False

    def __post_init__(self) -> None:
        piles = self.piles
        by_kind = {kind: tuple(p.index for p in piles if p.kind is kind) for kind in Kind}
        object.__setattr__(self, "ids", tuple(p.id for p in piles))
        object.__setattr__(self, "index", {p.id: p.index for p in piles})
        object.__setattr__(self, "foundations", by_kind[Kind.FOUNDATION])
        object.__setattr__(self, "tableau", by_kind[Kind.TABLEAU])
        object.__setattr__(self, "reserves", by_kind[Kind.RESERVE])
        cells = tuple(p.index for p in piles if p.cell)
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "stock_index", (by_kind[Kind.STOCK] or (None,))[0])
        object.__setattr__(self, "waste_index", (by_kind[Kind.WASTE] or (None,))[0])
        object.__setattr__(self, "total_cards", self.decks * CARDS_PER_DECK)
        off = tuple(p.index for p in piles if p.kind is not Kind.FOUNDATION)
        object.__setattr__(self, "off_foundations", off)
        object.__setattr__(self, "layered", any(p.covered_by for p in piles))
        tableau = set(by_kind[Kind.TABLEAU])
        dealt = 0
        for step in self.deal_steps:
            counts = step.counts or ((step.rounds or 0),) * len(step.targets)
            dealt += sum(n for t, n in zip(step.targets, counts, strict=True) if t in tableau)
        goal_cards = dealt if self.clears_tableau else self.decks * CARDS_PER_DECK
        object.__setattr__(self, "goal_cards", goal_cards)
        discards = tuple(p.index for p in piles if p.discard)
        object.__setattr__(self, "discard_index", (discards or (None,))[0])

    # Filled in by __post_init__; declared for type checkers.
    ids: tuple[str, ...] = field(init=False, repr=False)
    index: dict[str, int] = field(init=False, repr=False)
    foundations: tuple[int, ...] = field(init=False, repr=False)
    tableau: tuple[int, ...] = field(init=False, repr=False)
    reserves: tuple[int, ...] = field(init=False, repr=False)
    cells: tuple[int, ...] = field(init=False, repr=False)
    stock_index: int | None = field(init=False, repr=False)
    waste_index: int | None = field(init=False, repr=False)
    total_cards: int = field(init=False, repr=False)
    off_foundations: tuple[int, ...] = field(init=False, repr=False)
    layered: bool = field(init=False, repr=False)
    goal_cards: int = field(init=False, repr=False)
    """The cards a win brings home: the whole pack, or the tableau's cards where the goal is to
    clear it (those the deal puts there)."""
    discard_index: int | None = field(init=False, repr=False)

    @property
    def initial_redeals(self) -> int | None:
        """Return the redeals a new game starts with (None: unlimited)."""
        if self.redeal_hook is not None:
            return self.redeal_limit
        if self.stock is not None and self.stock.deal_to is Kind.WASTE:
            return self.stock.redeals
        return 0

    @property
    def base_from_deal(self) -> bool:
        """Return whether a foundation's base rank is read from the deal."""
        return any(self.piles[i].base_rank == BASE_FROM_DEAL for i in self.foundations)


# --- validation helpers ---------------------------------------------------------------------


def _get(doc: Mapping[str, Any], key: str, where: str, default: Any = ...) -> Any:
    if key not in doc:
        if default is ...:
            raise RulesError(f"{where}{key}", "is required")
        return default
    return doc[key]


def _obj(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise RulesError(where, "must be an object")
    return value


def _check_keys(doc: Mapping[str, Any], allowed: set[str], where: str) -> None:
    for key in doc:
        if key not in allowed:
            raise RulesError(f"{where}{key}", f"is not a known field (known: {sorted(allowed)})")


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(where, "must be an integer")
    if not low <= value <= high:
        raise RulesError(where, f"must be between {low} and {high}, got {value}")
    return value


def _choice(value: Any, where: str, enum_type: type[enum.Enum]) -> Any:
    try:
        return enum_type(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in enum_type)
        raise RulesError(where, f"must be one of {choices}, got {value!r}") from None


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(where, "must be true or false")
    return value


def _build(value: Any, where: str) -> Build:
    doc = _obj(value, where)
    _check_keys(doc, {"direction", "suit", "wrap"}, f"{where}.")
    return Build(
        direction=_choice(_get(doc, "direction", f"{where}."), f"{where}.direction", Direction),
        suit=_choice(_get(doc, "suit", f"{where}."), f"{where}.suit", SuitRule),
        wrap=_bool(doc.get("wrap", False), f"{where}.wrap"),
    )


def _rank(value: Any, where: str) -> int:
    try:
        return parse_rank(value)
    except ValueError as error:
        raise RulesError(where, str(error)) from None


# --- compilation ----------------------------------------------------------------------------

DEAL_HOOKS = ("found-while-dealing",)
MOVES = ("single", "sequence", "supermove", "any")
REDEAL_HOOKS = ("gather-and-redeal",)
_TOP_KEYS = {
    "decks",
    "suits",
    "foundations",
    "foundation_return",
    "tableau",
    "reserves",
    "stock",
    "redeal",
    "pairs",
    "goal",
    "deal",
}
GOALS = ("foundations", "clear-tableau")


def compile_rules(document: Mapping[str, Any]) -> Variant:
    """Validate a rules document and return the compiled ``Variant``; raise ``RulesError``."""
    doc = _obj(document, "rules")
    _check_keys(doc, _TOP_KEYS, "")
    decks = _int(_get(doc, "decks", ""), "decks", 1, MAX_DECKS)
    pack_suits = _pack_suits(doc.get("suits"))
    goal = doc.get("goal", "foundations")
    if goal not in GOALS:
        choices = ", ".join(repr(g) for g in GOALS)
        raise RulesError("goal", f"must be one of {choices}, got {goal!r}")
    piles: list[PileRule] = []
    placed: list[tuple[int, int]] = []
    _foundations(doc, decks, piles, placed, pack_suits, goal == "clear-tableau")
    foundation_return = _choice(_get(doc, "foundation_return", ""), "foundation_return", Return)
    tableau_doc = _obj(_get(doc, "tableau", ""), "tableau")
    _check_keys(
        tableau_doc,
        {"count", "build", "moves", "sequence", "empty", "refill_from", "covered_by"},
        "tableau.",
    )
    tableau_count = _int(_get(tableau_doc, "count", "tableau."), "tableau.count", 1, 40)
    reserves_doc = doc.get("reserves")
    reserve_count = 0
    free_cells = False
    if reserves_doc is not None:
        reserves_doc = _obj(reserves_doc, "reserves")
        _check_keys(reserves_doc, {"count", "free_cells"}, "reserves.")
        reserve_count = _int(_get(reserves_doc, "count", "reserves."), "reserves.count", 1, 20)
        free_cells = _bool(reserves_doc.get("free_cells", False), "reserves.free_cells")
    stock = _stock(doc.get("stock"), reserve_count)
    ids_after_tableau = [f"reserve-{i}" for i in range(reserve_count)]
    if stock is not None:
        ids_after_tableau.append("stock")
        if stock.deal_to is Kind.WASTE:
            ids_after_tableau.append("waste")
    first_tableau = len(piles)
    all_ids = [p.id for p in piles] + [f"tableau-{i}" for i in range(tableau_count)]
    all_ids += ids_after_tableau
    tableau_rules = _tableau(tableau_doc, all_ids, piles)
    covered_by = _covered_by(tableau_doc.get("covered_by"), tableau_count)
    for i in range(tableau_count):
        piles.append(
            PileRule(
                id=f"tableau-{i}",
                index=first_tableau + i,
                covered_by=tuple(first_tableau + k for k in covered_by[i]),
                covers=tuple(first_tableau + k for k in range(tableau_count) if i in covered_by[k]),
                **tableau_rules,
            )
        )
    for i in range(reserve_count):
        piles.append(
            PileRule(id=f"reserve-{i}", kind=Kind.RESERVE, index=len(piles), cell=free_cells)
        )
    if stock is not None:
        piles.append(PileRule(id="stock", kind=Kind.STOCK, index=len(piles)))
        if stock.deal_to is Kind.WASTE:
            piles.append(PileRule(id="waste", kind=Kind.WASTE, index=len(piles)))
    redeal_hook, redeal_limit = _redeal(doc.get("redeal"), stock)
    deal_hook, steps = _deal(_get(doc, "deal", ""), piles, stock, decks, len(placed))
    if redeal_hook is not None and deal_hook is None:
        raise RulesError(
            "redeal.hook", f"{redeal_hook!r} deals again by the deal's hook: set deal.hook"
        )
    variant = Variant(
        document=document,
        decks=decks,
        piles=tuple(piles),
        foundation_return=foundation_return,
        stock=stock,
        redeal_hook=redeal_hook,
        redeal_limit=redeal_limit,
        deal_hook=deal_hook,
        deal_steps=steps,
        placed=tuple(placed),
        pack_suits=pack_suits,
        pairs=_pairs(doc.get("pairs")),
        clears_tableau=goal == "clear-tableau",
    )
    _check_layout(variant)
    if free_cells and any(set(step.targets) & set(variant.reserves) for step in steps):
        for step in steps:
            counts = step.counts or (step.rounds or 0,) * len(step.targets)
            for target, count in zip(step.targets, counts, strict=True):
                if target in variant.reserves and count > 1:
                    raise RulesError("deal", "a free cell holds one card: deal it one at most")
    if stock is not None and stock.deal_to is Kind.RESERVE and free_cells:
        raise RulesError("stock.deal_to", "a free cell holds one card: no stock deals to it")
    if any(p.complete_runs for p in piles) and foundation_return is not Return.NONE:
        raise RulesError(
            "foundation_return", "foundations that take complete runs give nothing back: 'none'"
        )
    if variant.base_from_deal and not any(
        set(step.targets) & set(variant.foundations) for step in steps
    ):
        raise RulesError("deal", "a foundation base of 'deal' needs a deal step to a foundation")
    return variant


def _pairs(value: Any) -> int | None:
    if value is None:
        return None
    doc = _obj(value, "pairs")
    _check_keys(doc, {"total"}, "pairs.")
    return _int(_get(doc, "total", "pairs."), "pairs.total", 2, 26)


def _covered_by(value: Any, count: int) -> list[tuple[int, ...]]:
    if value is None:
        return [()] * count
    if not isinstance(value, list) or len(value) != count:
        raise RulesError("tableau.covered_by", f"must list one list per tableau pile ({count})")
    out = []
    for i, raw in enumerate(value):
        where = f"tableau.covered_by[{i}]"
        if not isinstance(raw, list):
            raise RulesError(where, "must be a list of tableau pile numbers")
        numbers = tuple(_int(k, f"{where}[{j}]", i + 1, count - 1) for j, k in enumerate(raw))
        if len(set(numbers)) != len(numbers):
            raise RulesError(where, "must not repeat a pile")
        out.append(numbers)
    return out


def _check_layout(variant: Variant) -> None:
    """Check the keys of the clearing games against each other: pairs, discard, waste, goal."""
    piles = variant.piles
    discards = [p for p in piles if p.discard]
    if variant.pairs is not None and not discards:
        raise RulesError("pairs", "removed pairs need a discard foundation: {'discard': true}")
    if discards and variant.pairs is None:
        raise RulesError("foundations", "a discard foundation takes only pairs: set 'pairs'")
    if discards and len(variant.foundations) != 1:
        raise RulesError("foundations", "a discard foundation is the only foundation")
    if discards and variant.foundation_return is not Return.NONE:
        raise RulesError("foundation_return", "a discard pile gives nothing back: 'none'")
    if not variant.foundations and not variant.clears_tableau:
        raise RulesError("foundations", "without foundations the goal must be 'clear-tableau'")
    stock = variant.stock
    if stock is not None and stock.waste_build is not None and not variant.clears_tableau:
        raise RulesError("goal", "a waste that takes tableau cards plays to 'clear-tableau'")
    rule = piles[variant.tableau[0]]
    if rule.build is None and rule.sequences:
        raise RulesError("tableau.moves", "nothing builds on the tableau: moves are 'single'")
    if rule.build is None and rule.empty_rank != NO_CARD:
        raise RulesError("tableau.empty", "nothing is played onto the tableau: 'none'")
    if variant.layered and (rule.build is not None or rule.refill_from is not None):
        raise RulesError(
            "tableau.covered_by", "covered piles take no card: a build of null, no refill"
        )


def _pack_suits(value: Any) -> tuple[int, ...]:
    if value is None:
        return (0, 1, 2, 3)
    if not isinstance(value, list) or len(value) not in (1, 2, 4):
        raise RulesError("suits", "must list one, two or four suit letters")
    suits = []
    for k, letter in enumerate(value):
        try:
            suits.append(parse_suit(letter))
        except ValueError as error:
            raise RulesError(f"suits[{k}]", str(error)) from None
    if len(set(suits)) != len(suits):
        raise RulesError("suits", "must not repeat a suit")
    return tuple(suits)


def _foundations(
    doc: Mapping[str, Any],
    decks: int,
    piles: list[PileRule],
    placed: list[tuple[int, int]],
    pack_suits: tuple[int, ...],
    clears_tableau: bool,
) -> None:
    groups = _get(doc, "foundations", "")
    if not isinstance(groups, list) or (not groups and not clears_tableau):
        raise RulesError("foundations", "must be a non-empty list of groups")
    placed_count: dict[int, int] = {}
    for g, raw in enumerate(groups):
        where = f"foundations[{g}]"
        group = _obj(raw, where)
        if group.get("discard") is not None:
            _check_keys(group, {"count", "discard"}, f"{where}.")
            if not _bool(group["discard"], f"{where}.discard") or group.get("count") != 1:
                raise RulesError(f"{where}.discard", "a discard group is one pile: count 1")
            piles.append(
                PileRule(
                    id=f"foundation-{len(piles)}",
                    kind=Kind.FOUNDATION,
                    index=len(piles),
                    discard=True,
                )
            )
            continue
        _check_keys(
            group, {"count", "suits", "base", "placed", "build", "complete_runs"}, f"{where}."
        )
        count = _int(_get(group, "count", f"{where}."), f"{where}.count", 1, 8 * decks)
        suits = group.get("suits")
        suit_list: list[int | None]
        if suits is None:
            suit_list = [None] * count
        else:
            if not isinstance(suits, list) or len(suits) != count:
                raise RulesError(f"{where}.suits", f"must list one suit letter per pile ({count})")
            suit_list = []
            for k, letter in enumerate(suits):
                try:
                    suit_list.append(parse_suit(letter))
                except ValueError as error:
                    raise RulesError(f"{where}.suits[{k}]", str(error)) from None
                if suit_list[-1] not in pack_suits:
                    raise RulesError(f"{where}.suits[{k}]", f"{letter!r} is not in the pack")
        base = _get(group, "base", f"{where}.")
        base_rank = BASE_FROM_DEAL if base == "deal" else _rank(base, f"{where}.base")
        is_placed = _bool(group.get("placed", False), f"{where}.placed")
        if is_placed and (suits is None or base_rank == BASE_FROM_DEAL):
            raise RulesError(f"{where}.placed", "placed base cards need fixed suits and base rank")
        if is_placed and len(pack_suits) != 4:
            raise RulesError(f"{where}.placed", "placed base cards need the four-suit pack")
        runs = _bool(group.get("complete_runs", False), f"{where}.complete_runs")
        if runs and (is_placed or base_rank == BASE_FROM_DEAL):
            raise RulesError(
                f"{where}.complete_runs", "complete runs need a fixed base rank and no placed card"
            )
        build = _build(_get(group, "build", f"{where}."), f"{where}.build")
        if runs and build.wrap:
            raise RulesError(f"{where}.complete_runs", "a complete run does not wrap")
        for suit in suit_list:
            index = len(piles)
            piles.append(
                PileRule(
                    id=f"foundation-{index}",
                    kind=Kind.FOUNDATION,
                    index=index,
                    build=build,
                    base_rank=base_rank,
                    base_suit=suit,
                    placed=is_placed,
                    complete_runs=runs,
                )
            )
            if is_placed:
                assert suit is not None
                card = suit * 13 + base_rank - 1
                placed_count[card] = placed_count.get(card, 0) + 1
                if placed_count[card] > decks:
                    raise RulesError(
                        f"{where}.suits",
                        f"places more copies of {RANKS[base_rank - 1]}"
                        f"{SUITS[suit]} than {decks} deck(s) hold",
                    )
                placed.append((index, card))
    total = len(piles) * 13
    if clears_tableau:
        if total > decks * CARDS_PER_DECK:
            raise RulesError("foundations", f"{len(piles)} foundations hold more than the pack")
    elif total != decks * CARDS_PER_DECK:
        raise RulesError(
            "foundations",
            f"{len(piles)} foundations of 13 cards hold {total} cards, "
            f"but {decks} deck(s) have {decks * CARDS_PER_DECK}",
        )


def _tableau(doc: Mapping[str, Any], all_ids: list[str], piles: list[PileRule]) -> dict[str, Any]:
    raw_build = _get(doc, "build", "tableau.")
    build = None if raw_build is None else _build(raw_build, "tableau.build")
    moves = doc.get("moves", "single")
    if moves not in MOVES:
        choices = ", ".join(repr(m) for m in MOVES)
        raise RulesError("tableau.moves", f"must be one of {choices}, got {moves!r}")
    sequence_build = None
    if doc.get("sequence") is not None:
        if moves not in ("sequence", "supermove"):
            raise RulesError("tableau.sequence", "only sequences that move follow a sequence rule")
        sequence_build = _build(doc["sequence"], "tableau.sequence")
    empty = _get(doc, "empty", "tableau.")
    if empty == "any":
        empty_rank = ANY_RANK
    elif empty == "none":
        empty_rank = NO_CARD
    elif empty == "base":
        bases = {piles[i].base_rank for i in range(len(piles))}
        if len(bases) != 1:
            raise RulesError("tableau.empty", "'base' needs one base rank for every foundation")
        empty_rank = bases.pop() or BASE_FROM_DEAL  # 0 already means 'from the deal'
    else:
        empty_rank = _rank(empty, "tableau.empty")
    refill = doc.get("refill_from")
    refill_index = None
    if refill is not None:
        if refill not in all_ids or not str(refill).startswith(("reserve-", "stock", "waste")):
            raise RulesError(
                "tableau.refill_from",
                f"must name a reserve, the stock or the waste, got {refill!r}",
            )
        refill_index = all_ids.index(refill)
    return {
        "kind": Kind.TABLEAU,
        "build": build,
        "empty_rank": empty_rank,
        "sequences": moves != "single",
        "refill_from": refill_index,
        "supermove": moves == "supermove",
        "any_group": moves == "any",
        "sequence_build": sequence_build,
    }


def _stock(value: Any, reserve_count: int) -> StockRule | None:
    if value is None:
        return None
    doc = _obj(value, "stock")
    _check_keys(doc, {"deal_to", "cards", "redeals", "requires", "waste_build"}, "stock.")
    deal_to = _get(doc, "deal_to", "stock.")
    waste_build = None
    if doc.get("waste_build") is not None:
        if deal_to != "waste":
            raise RulesError("stock.waste_build", "only a stock that deals to a waste has one")
        waste_build = _build(doc["waste_build"], "stock.waste_build")
    if deal_to == "waste":
        if doc.get("requires") is not None:
            raise RulesError("stock.requires", "only a stock that deals to piles has a condition")
        cards = _int(doc.get("cards", 1), "stock.cards", 1, 52)
        redeals = doc.get("redeals", 0)
        if redeals is not None:
            redeals = _int(redeals, "stock.redeals", 0, 1000)
        return StockRule(Kind.WASTE, cards, redeals, waste_build=waste_build)
    if deal_to in ("tableau", "reserve"):
        if deal_to == "reserve" and reserve_count == 0:
            raise RulesError("stock.deal_to", "deals to reserves but the variant has none")
        requires = doc.get("requires")
        if requires not in (None, "no-empty-tableau"):
            raise RulesError(
                "stock.requires", f"must be null or 'no-empty-tableau', got {requires!r}"
            )
        if doc.get("redeals", 0) != 0:
            raise RulesError("stock.redeals", "only a stock that deals to a waste can redeal")
        if "cards" in doc:
            raise RulesError("stock.cards", "a stock dealing to piles gives one card to each")
        return StockRule(Kind(deal_to), 1, 0, requires is not None)
    raise RulesError("stock.deal_to", f"must be 'waste', 'tableau' or 'reserve', got {deal_to!r}")


def _redeal(value: Any, stock: StockRule | None) -> tuple[str | None, int]:
    if value is None:
        return None, 0
    doc = _obj(value, "redeal")
    _check_keys(doc, {"hook", "limit"}, "redeal.")
    hook = _get(doc, "hook", "redeal.")
    if hook not in REDEAL_HOOKS:
        raise RulesError("redeal.hook", f"must be one of {list(REDEAL_HOOKS)}, got {hook!r}")
    if stock is not None and stock.deal_to is Kind.WASTE and stock.redeals != 0:
        raise RulesError("redeal", "a variant redeals either its waste or by a hook, not both")
    return hook, _int(_get(doc, "limit", "redeal."), "redeal.limit", 0, 1000)


def _deal(
    value: Any, piles: list[PileRule], stock: StockRule | None, decks: int, placed: int
) -> tuple[str | None, tuple[DealStep, ...]]:
    doc = _obj(value, "deal")
    _check_keys(doc, {"hook", "steps"}, "deal.")
    if "hook" in doc:
        if "steps" in doc:
            raise RulesError("deal", "give either 'hook' or 'steps', not both")
        if doc["hook"] not in DEAL_HOOKS:
            raise RulesError("deal.hook", f"must be one of {list(DEAL_HOOKS)}, got {doc['hook']!r}")
        if stock is not None:
            raise RulesError("deal.hook", f"{doc['hook']!r} deals every card: no stock allowed")
        return doc["hook"], ()
    raw_steps = _get(doc, "steps", "deal.")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise RulesError("deal.steps", "must be a non-empty list")
    by_id = {p.id: p.index for p in piles}
    kinds = {kind.value: tuple(p.index for p in piles if p.kind is kind) for kind in Kind}
    pack = decks * CARDS_PER_DECK - placed
    dealt = 0
    steps: list[DealStep] = []
    for s, raw in enumerate(raw_steps):
        where = f"deal.steps[{s}]"
        step = _obj(raw, where)
        to = _get(step, "to", f"{where}.")
        if to == "stock":
            _check_keys(step, {"to"}, f"{where}.")
            if stock is None:
                raise RulesError(f"{where}.to", "the variant has no stock")
            if s != len(raw_steps) - 1:
                raise RulesError(f"{where}.to", "the stock takes every card left: it comes last")
            steps.append(DealStep((by_id["stock"],), None, 0, to_stock=True))
            dealt = pack
            continue
        if to in ("foundation", "tableau", "reserve") and "counts" in step:
            _check_keys(step, {"to", "counts", "face_down"}, f"{where}.")
            targets = kinds[to]
            if not targets:
                raise RulesError(f"{where}.to", f"the variant has no {to} piles")
            counts = _int_list(step["counts"], f"{where}.counts", len(targets), 0, pack)
            downs = _int_list(
                step.get("face_down", [0] * len(targets)),
                f"{where}.face_down",
                len(targets),
                0,
                pack,
            )
            for k, (count, down) in enumerate(zip(counts, downs, strict=True)):
                if down > count:
                    raise RulesError(f"{where}.face_down[{k}]", f"must be at most {count}")
            if not any(counts):
                raise RulesError(f"{where}.counts", "must deal at least one card")
            steps.append(DealStep(targets, max(counts), 0, counts=counts, face_down=downs))
            dealt += sum(counts)
        elif to in ("foundation", "tableau", "reserve"):
            _check_keys(step, {"to", "rounds", "face_down_rounds"}, f"{where}.")
            targets = kinds[to]
            if not targets:
                raise RulesError(f"{where}.to", f"the variant has no {to} piles")
            rounds = _int(_get(step, "rounds", f"{where}."), f"{where}.rounds", 1, 200)
            down = _int(step.get("face_down_rounds", 0), f"{where}.face_down_rounds", 0, rounds)
            steps.append(DealStep(targets, rounds, down))
            dealt += rounds * len(targets)
        elif to in by_id and by_id[to] in (
            kinds["foundation"] + kinds["tableau"] + kinds["reserve"] + kinds["waste"]
        ):
            _check_keys(step, {"to", "cards", "face_down"}, f"{where}.")
            cards = _int(_get(step, "cards", f"{where}."), f"{where}.cards", 1, pack)
            down = _int(step.get("face_down", 0), f"{where}.face_down", 0, cards)
            # A single pile dealt n cards is n rounds over one pile.
            steps.append(DealStep((by_id[to],), cards, down))
            dealt += cards
        else:
            raise RulesError(
                f"{where}.to", f"must be a pile kind, a pile id or 'stock', got {to!r}"
            )
    if dealt != pack:
        raise RulesError("deal.steps", f"deal {dealt} cards, but the pack to shuffle holds {pack}")
    return None, tuple(steps)


def _int_list(value: Any, where: str, length: int, low: int, high: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != length:
        raise RulesError(where, f"must list one number per pile ({length})")
    return tuple(_int(item, f"{where}[{k}]", low, high) for k, item in enumerate(value))


def describe_base(pile: PileRule, base_rank: int | None) -> str:
    """Say what an empty foundation takes, e.g. ``"the Ace of Hearts"`` or ``"any King"``."""
    rank = base_rank if pile.base_rank == BASE_FROM_DEAL else pile.base_rank
    if rank is None:
        return "a card of the base rank"
    if pile.base_suit is None:
        return f"any {rank_label(rank)}"
    return f"the {rank_label(rank)} of {SUIT_NAMES[pile.base_suit]}"


__all__ = [
    "ANY_RANK",
    "BASE_FROM_DEAL",
    "FOUNDATION_LIMIT",
    "KING",
    "NO_CARD",
    "Build",
    "DealStep",
    "Direction",
    "Kind",
    "PileRule",
    "Return",
    "RulesError",
    "StockRule",
    "SuitRule",
    "Variant",
    "compile_rules",
    "describe_base",
]
