"""Every refusal has a stable code and says why in a sentence; malformed MOVE objects are told."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import IllegalCode, MalformedMove, is_stuck, legal_moves, parse_move

ACE_PILES = "".join(
    f"foundation-{i}  A{s} 2{s} 3{s} 4{s} 5{s} 6{s} 7{s} 8{s} 9{s} T{s} J{s} Q{s} K{s}\n"
    for i, s in enumerate("CDHS")
)
KING_PILES = "".join(
    f"foundation-{i + 4}  K{s} Q{s} J{s} T{s} 9{s} 8{s} 7{s} 6{s} 5{s} 4{s} 3{s} 2{s} A{s}\n"
    for i, s in enumerate("CDHS")
)
ALMOST_WON = ACE_PILES + KING_PILES.replace("3S 2S AS", "3S 2S") + "tableau-0  AS\n"
WON = ACE_PILES + KING_PILES

CASES: dict[IllegalCode, tuple[str, str, tuple[str, ...]]] = {
    IllegalCode.NO_SUCH_PILE: ("castile", "tableau-0  5H", ("tableau-0 > tableau-9",)),
    IllegalCode.SAME_PILE: ("castile", "tableau-0  5H", ("tableau-0 > tableau-0",)),
    IllegalCode.EMPTY_SOURCE: ("castile", "tableau-0  6H", ("tableau-1 > tableau-0",)),
    IllegalCode.TOO_MANY_CARDS: (
        "quadruple-canfield",
        "foundation-0  8C\ntableau-0  5H",
        ("tableau-0 > tableau-1 x2",),
    ),
    IllegalCode.FACE_DOWN: ("box-kite", "tableau-0  (6S) 5H", ("tableau-0 > tableau-1 x2",)),
    IllegalCode.SINGLE_CARDS: ("castile", "tableau-0  9H 8C", ("tableau-0 > tableau-1 x2",)),
    IllegalCode.NOT_A_SEQUENCE: (
        "quadruple-canfield",
        "foundation-0  8C\ntableau-0  9C 8C\ntableau-1  TD",
        ("tableau-0 > tableau-1 x2",),
    ),
    IllegalCode.SOURCE_LOCKED: ("caprice", "stock  (5H)", ("stock > tableau-0",)),
    IllegalCode.BASE_CARD: ("caprice", "foundation-0  AC", ("foundation-0 > tableau-0",)),
    IllegalCode.TARGET_REFUSES: ("castile", "tableau-0  5H", ("tableau-0 > reserve-0",)),
    IllegalCode.DOES_NOT_BUILD: (
        "quadruple-canfield",
        "foundation-0  8C\ntableau-0  9C\ntableau-1  7H",
        ("tableau-1 > tableau-0",),
    ),
    IllegalCode.EMPTY_REFUSES: ("castile", "tableau-0  QH", ("tableau-0 > tableau-1",)),
    IllegalCode.WRONG_BASE: ("castile", "tableau-0  5H", ("tableau-0 > foundation-0",)),
    IllegalCode.FOUNDATION_FULL: (
        "quadruple-canfield",
        "foundation-0  8C 9C TC JC QC KC AC 2C 3C 4C 5C 6C 7C\nwaste  8C",
        ("waste > foundation-0",),
    ),
    IllegalCode.NO_STOCK: ("castile", "tableau-0  5H", ("deal",)),
    IllegalCode.NOTHING_TO_DEAL: ("caprice", "tableau-0  5H", ("deal",)),
    IllegalCode.NO_REDEALS_LEFT: ("capricieuse", "redeals: 0\ntableau-0  5H", ("redeal",)),
    IllegalCode.NO_REDEAL: ("castile", "tableau-0  5H", ("redeal",)),
    IllegalCode.NOTHING_TO_UNDO: ("castile", "tableau-0  5H", ("undo",)),
    IllegalCode.GAME_WON: ("capricieuse", ALMOST_WON, ("tableau-0 > foundation-7", "redeal")),
    IllegalCode.CELL_FULL: ("freecell", "tableau-0  5H\nreserve-0  9C", ("tableau-0 > reserve-0",)),
    IllegalCode.SEQUENCE_TOO_LONG: (
        "freecell",
        "".join(f"reserve-{i}  A{s}\n" for i, s in enumerate("CDHS"))
        + "tableau-0  9C 8H\n"
        + "".join(f"tableau-{i}  K{s}\n" for i, s in zip(range(1, 8), "CDHSCDH", strict=True))
        + "tableau-7  TD",
        ("tableau-0 > tableau-7 x2",),
    ),
    IllegalCode.RUN_ONLY: ("spider-2-suits", "tableau-0  KS QS", ("tableau-0 > foundation-0 x2",)),
    IllegalCode.DEAL_BLOCKED: ("spider-2-suits", "tableau-0  5H\nstock  (9S)", ("deal",)),
    IllegalCode.COVERED: (
        "pyramid",
        "tableau-0  6S\ntableau-1  7H\ntableau-2  8C",
        ("tableau-0 > tableau-1",),
    ),
    IllegalCode.NOT_A_PAIR: ("pyramid", "tableau-1  7H\ntableau-2  8C", ("tableau-1 > tableau-2",)),
}


def test_every_code_has_a_case() -> None:
    assert set(CASES) == set(IllegalCode)


@pytest.mark.parametrize("code", list(IllegalCode))
def test_each_refusal_has_its_code_and_a_sentence(table, code: IllegalCode) -> None:
    slug, board, moves = CASES[code]

    refused = table(slug).refusal(board, *moves)

    assert refused.code is code
    assert refused.detail == str(refused)
    assert refused.detail.endswith(".")
    assert len(refused.detail.split()) >= 3
    assert code.value not in refused.detail


def test_a_card_that_does_not_build_is_named_with_the_rule(table) -> None:
    slug, board, moves = CASES[IllegalCode.DOES_NOT_BUILD]

    refused = table(slug).refusal(board, *moves)

    assert refused.detail.startswith(
        "7♥ cannot go on 9♣: the tableau builds down by one in alternating colours"
    )


def test_the_wrong_base_names_the_card_it_takes(table) -> None:
    slug, board, moves = CASES[IllegalCode.WRONG_BASE]

    assert "any Ace" in table(slug).refusal(board, *moves).detail


def test_a_won_position_lists_no_move_and_is_not_stuck(table) -> None:
    capricieuse = table("capricieuse")
    won = capricieuse.position(ALMOST_WON)
    assert not won.won

    after = capricieuse.play(ALMOST_WON, "tableau-0 > foundation-7")

    assert after == capricieuse.board(WON)
    assert capricieuse.position(WON).won
    assert legal_moves(capricieuse.position(WON)) == []
    assert not is_stuck(capricieuse.position(WON))
    for words in ("undo", "tableau-0 > tableau-1", "deal"):
        assert capricieuse.refusal(WON, words).code is IllegalCode.GAME_WON


def test_a_position_without_a_legal_move_is_stuck(table) -> None:
    castile = table("castile")
    stuck = castile.position("tableau-0  5H\ntableau-1  9C\nreserve-0  2D\n")

    assert legal_moves(stuck) == []
    assert is_stuck(stuck)
    assert not is_stuck(castile.position("tableau-0  5H\ntableau-1  6C\n"))


@pytest.mark.parametrize(
    "data",
    [
        "deal",
        ["deal"],
        {},
        {"type": "jump"},
        {"type": "deal", "count": 1},
        {"type": "undo", "from": "tableau-0"},
        {"type": "move", "to": "tableau-1"},
        {"type": "move", "from": 3, "to": "tableau-1"},
        {"type": "move", "from": "tableau-0", "to": "tableau-1", "count": 0},
        {"type": "move", "from": "tableau-0", "to": "tableau-1", "count": True},
        {"type": "move", "from": "tableau-0", "to": "tableau-1", "count": "2"},
        {"type": "move", "from": "tableau-0", "to": "tableau-1", "count": 1001},
        {"type": "move", "from": "tableau-0", "to": "tableau-1", "cards": 1},
    ],
)
def test_a_malformed_move_is_refused_with_a_reason(data: Any) -> None:
    with pytest.raises(MalformedMove) as error:
        parse_move(data)

    assert len(str(error.value).split()) >= 3


def test_a_well_formed_move_round_trips_through_json() -> None:
    data = {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 2}

    assert parse_move(data).to_json() == data
    assert parse_move({"type": "move", "from": "a", "to": "b"}).to_json()["count"] == 1
    for kind in ("deal", "redeal", "undo"):
        assert parse_move({"type": kind}).to_json() == {"type": kind}
