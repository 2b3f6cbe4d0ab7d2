"""Klondike, FreeCell and Spider, one new key of the rules document at a time."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.engine import (
    Deal,
    IllegalCode,
    RulesError,
    apply_move,
    builtin_rules,
    builtin_variant,
    compile_rules,
    deal,
    legal_moves,
    practice_seed,
)
from games.engine.cards import card_code
from games.engine.moves import Move
from games.engine.play import supermove_limit

SEED = practice_seed("daily-patience")
KINGS = "".join(f"tableau-{i}  K{s}\n" for i, s in zip(range(1, 8), "CDHSCDH", strict=True))


def run(suit: str) -> str:
    return " ".join(f"{rank}{suit}" for rank in "KQJT98765432A")


# --- deal.steps[].counts: Klondike's triangle --------------------------------------------------


@pytest.mark.parametrize(("slug", "cards"), [("klondike-draw-1", 1), ("klondike-draw-3", 3)])
def test_klondike_deals_a_triangle_and_turns_its_stock_by_its_count(slug: str, cards: int) -> None:
    state = deal(builtin_variant(slug), SEED)

    for i in range(7):
        pile = state.pile(f"tableau-{i}")
        assert (len(pile.cards), pile.hidden) == (i + 1, i)
    assert len(state.pile("stock").cards) == 24
    assert state.redeals_left is None
    after = apply_move(state, Deal())
    assert len(after.pile("waste").cards) == cards
    assert after.pile("waste").cards[-1] == state.pile("stock").cards[-cards]


def test_the_triangle_is_dealt_round_by_round_over_the_piles_that_want_cards() -> None:
    # given: round r gives a card to every pile that takes more than r cards, left to right
    state = deal(builtin_variant("klondike-draw-3"), SEED)
    from games.engine import shuffled_pack

    pack = shuffled_pack(state.variant, SEED)

    assert [state.pile(f"tableau-{i}").cards[0] for i in range(7)] == pack[:7]
    assert [state.pile(f"tableau-{i}").cards[1] for i in range(1, 7)] == pack[7:13]
    assert state.pile("tableau-6").cards[-1] == pack[27]


def test_klondike_copied_with_two_redeals_turns_its_waste_back_twice_only(table) -> None:
    # given: an admin's copy of Klondike, edited to two redeals, and no code
    rules = builtin_rules("klondike-draw-1")
    rules["stock"]["redeals"] = 2
    state = deal(compile_rules(rules), SEED)
    assert state.redeals_left == 2

    # when the stock is dealt through three times
    for _ in range(2):
        while state.pile("stock").cards:
            state = apply_move(state, Deal())
        state = apply_move(state, Deal())
    while state.pile("stock").cards:
        state = apply_move(state, Deal())

    # then a third turn-over is refused
    assert state.redeals_left == 0
    assert Deal() not in legal_moves(state)
    refused = table("klondike-draw-1").refusal("redeals: 0\nwaste  5H", "deal")
    assert refused.code is IllegalCode.NO_REDEALS_LEFT


def test_klondike_fills_a_space_with_a_king_only_and_moves_built_sequences(table) -> None:
    klondike = table("klondike-draw-3")
    board = "tableau-0  (4H) KS QH JC\ntableau-2  8D\nwaste  QC\n"

    assert klondike.play(board, "tableau-0 > tableau-1 x3") == klondike.board(
        "tableau-0  4H\ntableau-1  KS QH JC\ntableau-2  8D\nwaste  QC\n"
    )
    assert klondike.refusal(board, "tableau-2 > tableau-1").code is IllegalCode.EMPTY_REFUSES


# --- reserves.free_cells and tableau.moves "supermove": FreeCell -------------------------------


def test_a_free_cell_takes_any_card_and_holds_one(table) -> None:
    freecell = table("freecell")
    board = "tableau-0  9C 5H\nreserve-1  2S\n"

    assert freecell.play(board, "tableau-0 > reserve-0") == freecell.board(
        "tableau-0  9C\nreserve-0  5H\nreserve-1  2S\n"
    )
    assert freecell.refusal(board, "tableau-0 > reserve-1").code is IllegalCode.CELL_FULL
    assert freecell.refusal(board, "tableau-0 > reserve-0 x2").code is IllegalCode.SINGLE_CARDS
    assert freecell.play(board, "reserve-1 > tableau-3") == freecell.board(
        "tableau-0  9C 5H\ntableau-3  2S\n"
    )


# The top n cards of "QH JS TH 9S 8H 7S 6H" go onto these cards.
TAKES = {1: "7C", 2: "8D", 3: "9C", 4: "TD", 5: "JC", 6: "QD", 7: "KC"}


@pytest.mark.parametrize(
    ("cells_full", "spaces", "to_space", "limit"),
    [(4, 0, False, 1), (2, 0, False, 3), (0, 0, False, 5), (2, 1, False, 6), (2, 1, True, 6)],
)
def test_a_supermove_takes_one_card_more_per_free_cell_doubled_per_other_space(
    table, cells_full: int, spaces: int, to_space: bool, limit: int
) -> None:
    # given tableau-0 holds a long sequence; tableau-7 is the target (empty when to_space)
    freecell = table("freecell")
    cells = "".join(f"reserve-{i}  A{s}\n" for i, s in zip(range(cells_full), "CDHS", strict=False))
    kings = [f"tableau-{i}  K{'CDHSCD'[i - 1]}\n" for i in range(1, 7)][spaces:]
    board = cells + "tableau-0  QH JS TH 9S 8H 7S 6H\n" + "".join(kings)

    def onto(count: int) -> str:
        return board + ("" if to_space else f"tableau-7  {TAKES[count]}\n")

    target = freecell.variant.index["tableau-7"]
    assert supermove_limit(freecell.position(onto(limit)), target) == limit
    allowed = freecell.position(onto(limit))
    assert Move("tableau-0", "tableau-7", limit) in legal_moves(allowed)
    assert Move("tableau-0", "tableau-7", limit + 1) not in legal_moves(
        freecell.position(onto(limit + 1))
    )
    refused = freecell.refusal(onto(limit + 1), f"tableau-0 > tableau-7 x{limit + 1}")
    assert refused.code is IllegalCode.SEQUENCE_TOO_LONG
    assert f"Only {limit} card(s)" in refused.detail


def test_freecell_deals_every_card_face_up_seven_then_six() -> None:
    state = deal(builtin_variant("freecell"), SEED)

    assert [len(state.pile(f"tableau-{i}").cards) for i in range(8)] == [7] * 4 + [6] * 4
    assert all(pile.hidden == 0 for pile in state.piles)
    assert state.variant.cells == tuple(state.variant.index[f"reserve-{i}"] for i in range(4))


# --- suits, foundations[].complete_runs, tableau.sequence, stock.requires: Spider -------------


@pytest.mark.parametrize(("slug", "suits"), [("spider-1-suit", "S"), ("spider-2-suits", "SH")])
def test_a_pack_of_fewer_suits_repeats_them_to_fill_the_decks(slug: str, suits: str) -> None:
    state = deal(builtin_variant(slug), SEED)

    counts = Counter(card_code(card) for card in state.all_cards())
    assert len(counts) == 13 * len(suits)
    assert set(counts.values()) == {8 // len(suits)}


def test_spider_takes_a_complete_run_to_a_foundation_and_nothing_less(table) -> None:
    spider = table("spider-2-suits")
    board = f"tableau-0  (5H) 9S {run('H')}\ntableau-1  {run('S').replace('JS', 'JH')}\n"

    assert spider.play(board, "tableau-0 > foundation-3 x13") == spider.board(
        f"tableau-0  (5H) 9S\nfoundation-3  {run('H')}\ntableau-1  {run('S').replace('JS', 'JH')}\n"
    )
    for words in (
        "tableau-0 > foundation-0",
        "tableau-0 > foundation-0 x12",
        "tableau-1 > foundation-0 x13",
    ):
        assert spider.refusal(board, words).code is IllegalCode.RUN_ONLY
    moves = legal_moves(spider.position(board))
    assert {m.count for m in moves if isinstance(m, Move) and "foundation" in m.target} == {13}


def test_spider_builds_regardless_of_suit_but_moves_only_runs_of_one_suit(table) -> None:
    spider = table("spider-4-suits")
    board = "tableau-0  9C 8H 7H\ntableau-1  9D\ntableau-2  TS\n"

    assert spider.play(board, "tableau-0 > tableau-1 x2") == spider.board(
        "tableau-0  9C\ntableau-1  9D 8H 7H\ntableau-2  TS\n"
    )
    assert spider.refusal(board, "tableau-0 > tableau-2 x3").code is IllegalCode.NOT_A_SEQUENCE


def test_spiders_stock_deals_to_every_pile_but_never_while_one_is_empty(table) -> None:
    spider = table("spider-2-suits")
    piles = "".join(f"tableau-{i}  (KS) 9H\n" for i in range(10))
    stock = "stock  " + " ".join(f"({r}S)" for r in "A23456789T") + "\n"

    after = spider.play(piles + stock, "deal")
    assert after == spider.board(
        "".join(
            f"tableau-{i}  (KS) 9H {r}S\n" for i, r in zip(range(10), "T98765432A", strict=True)
        )
    )
    blocked = piles.replace("tableau-4  (KS) 9H\n", "") + stock
    assert spider.refusal(blocked, "deal").code is IllegalCode.DEAL_BLOCKED
    assert Deal() not in legal_moves(spider.position(blocked))


# --- the document refuses what it cannot mean ----------------------------------------------------


def edited(slug: str, change: dict[str, Any], where: str | None = None) -> dict[str, Any]:
    rules = builtin_rules(slug)
    (rules[where] if where else rules).update(change)
    return rules


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        (edited("spider-1-suit", {"suits": ["S", "S"]}), "suits"),
        (edited("spider-1-suit", {"suits": ["S", "X"]}), "suits[1]"),
        (edited("spider-1-suit", {"foundation_return": "tableau"}), "foundation_return"),
        (edited("spider-1-suit", {"requires": "always"}, "stock"), "stock.requires"),
        (edited("freecell", {"moves": "some"}, "tableau"), "tableau.moves"),
        (edited("freecell", {"free_cells": "yes"}, "reserves"), "reserves.free_cells"),
        (
            edited("castile", {"sequence": {"direction": "down", "suit": "same"}}, "tableau"),
            "tableau.sequence",
        ),
        (edited("klondike-draw-1", {"requires": "no-empty-tableau"}, "stock"), "stock.requires"),
    ],
)
def test_a_bad_classic_key_is_named(rules: dict[str, Any], field: str) -> None:
    with pytest.raises(RulesError) as error:
        compile_rules(rules)

    assert error.value.field == field


def test_a_triangle_that_deals_the_wrong_number_of_cards_is_named() -> None:
    rules = builtin_rules("klondike-draw-3")
    rules["deal"]["steps"][0]["counts"] = [1, 2, 3]
    with pytest.raises(RulesError) as short:
        compile_rules(rules)
    rules["deal"]["steps"][0]["counts"] = [1, 2, 3, 4, 5, 6, 7]
    rules["deal"]["steps"][0]["face_down"] = [0, 1, 2, 3, 4, 5, 8]
    with pytest.raises(RulesError) as too_many_down:
        compile_rules(rules)

    assert short.value.field == "deal.steps[0].counts"
    assert too_many_down.value.field == "deal.steps[0].face_down[6]"


def test_a_free_cell_is_never_dealt_two_cards() -> None:
    rules = builtin_rules("freecell")
    rules["deal"]["steps"] = [
        {"to": "reserve-0", "cards": 2},
        {"to": "tableau", "counts": [7, 7, 7, 7, 6, 6, 6, 4]},
    ]

    with pytest.raises(RulesError, match="free cell holds one card"):
        compile_rules(rules)


# --- the solver decides them, and its lines replay -----------------------------------------------


@pytest.mark.parametrize("slug", ["klondike-draw-3", "freecell", "spider-1-suit"])
def test_the_solver_wins_a_classic_with_a_line_that_replays(slug: str) -> None:
    from games.engine import replay, solve

    seed = practice_seed("bench-0")

    result = solve(deal(builtin_variant(slug), seed), budget_seconds=20)

    assert result.outcome == "won"
    assert replay(builtin_variant(slug), seed, result.line or []).state.won


def test_the_solver_proves_a_klondike_deal_lost_that_every_line_loses() -> None:
    from games.engine import solve

    # given a deal whose whole game (537 positions) reaches one card home at most
    state = deal(builtin_variant("klondike-draw-3"), practice_seed("bench-1"))

    assert solve(state, budget_seconds=20).outcome == "lost"


# --- tableau.moves "any": Yukon ------------------------------------------------------------------


def test_yukon_moves_any_face_up_cards_together_onto_a_pile_that_takes_the_lowest(table) -> None:
    yukon = table("yukon")
    board = "tableau-0  (5S) 8D 3C KH\ntableau-1  9S\ntableau-2  8H\n"

    assert yukon.play(board, "tableau-0 > tableau-1 x3") == yukon.board(
        "tableau-0  5S\ntableau-1  9S 8D 3C KH\ntableau-2  8H\n"
    )
    assert yukon.refusal(board, "tableau-0 > tableau-2 x3").code is IllegalCode.DOES_NOT_BUILD
    assert yukon.refusal(board, "tableau-0 > tableau-1 x4").code is IllegalCode.FACE_DOWN
    state = deal(builtin_variant("yukon"), SEED)
    assert [len(state.pile(f"tableau-{i}").cards) for i in range(7)] == [1, 6, 7, 8, 9, 10, 11]
    assert [state.pile(f"tableau-{i}").hidden for i in range(7)] == [0, 1, 2, 3, 4, 5, 6]
