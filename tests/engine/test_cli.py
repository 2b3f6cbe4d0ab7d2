"""The engine's command line of docs/engine.md: ``deal``, ``walk``, ``show`` and ``variants``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.engine import builtin_rules, builtin_variant, catalogue, deal, practice_seed, render
from tests.engine.conftest import engine


def walk(variant: str, moves: Any, seed_text: str = "daily-patience") -> list[dict[str, Any]]:
    result = engine("walk", variant, "--seed-text", seed_text, stdin=json.dumps(moves))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_walk_prints_one_entry_per_position_the_first_being_the_deal() -> None:
    first = walk("castile", [])[0]
    moves = [first["legal"][0]]

    entries = walk("castile", moves)

    assert len(entries) == 2
    assert entries[0] == first
    for entry in entries:
        assert set(entry) == {"state", "legal", "won"}
        assert entry["won"] is False
        assert set(entry["state"]) == {"piles", "redeals_left"}


def test_walk_lists_every_legal_move_once_with_deal_last() -> None:
    entries = walk("quadruple-canfield", [{"type": "deal"}, {"type": "deal"}])

    for entry in entries:
        legal = [json.dumps(m, sort_keys=True) for m in entry["legal"]]
        assert len(legal) == len(set(legal))
        assert entry["legal"][-1] == {"type": "deal"}
        assert all(m["type"] == "move" for m in entry["legal"][:-1])
    assert entries[1]["state"]["piles"][-1]["id"] == "waste"
    assert len(entries[2]["state"]["piles"][-1]["cards"]) == 6


def test_an_illegal_move_ends_the_walk_with_its_index_and_detail() -> None:
    first = walk("castile", [])[0]
    moves = [first["legal"][0], {"type": "move", "from": "tableau-0", "to": "reserve-0"}]

    entries = walk("castile", moves)

    assert len(entries) == 3
    assert entries[-1] == {
        "error": "illegal_move",
        "index": 1,
        "detail": "Nothing may be played onto the reserve.",
    }


def test_a_malformed_move_ends_the_walk_too() -> None:
    entries = walk("castile", [{"type": "fly"}])

    assert entries[-1]["error"] == "illegal_move"
    assert entries[-1]["index"] == 0
    assert len(entries) == 2


def test_show_prints_the_deal_as_a_text_board() -> None:
    result = engine("show", "box-kite", "--seed-text", "daily-patience")

    assert result.returncode == 0
    assert result.stdout == render(
        deal(builtin_variant("box-kite"), practice_seed("daily-patience"))
    )


def test_variants_lists_every_shipped_variant() -> None:
    result = engine("variants")

    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        entry["slug"] for entry in catalogue()
    ]


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("deal", "klondike", "--seed-text", "x"), "", "unknown variant"),
        (("deal", "castile", "--seed", "abc"), "", "bad --seed"),
        (("walk", "castile", "--seed-text", "x"), "[{", "stdin is not JSON"),
        (("walk", "castile", "--seed-text", "x"), '{"type": "deal"}', "JSON array"),
        (("deal", "no/such/rules.json", "--seed-text", "x"), "", "cannot use rules file"),
    ],
)
def test_bad_input_exits_2_with_a_message(args: tuple[str, ...], stdin: str, message: str) -> None:
    result = engine(*args, stdin=stdin)

    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("content", ["[1]", '"castile"', "{", '{"rules": {"decks": 1}}'])
def test_an_unusable_rules_file_exits_2_with_a_message(tmp_path: Path, content: str) -> None:
    path = tmp_path / "rules.json"
    path.write_text(content, encoding="utf-8")

    result = engine("deal", str(path), "--seed-text", "x")

    assert result.returncode == 2
    assert result.stderr.startswith("error: cannot use rules file")


@pytest.mark.parametrize("wrapped", [False, True])
def test_a_rules_document_file_works_as_the_variant(tmp_path: Path, wrapped: bool) -> None:
    document = builtin_rules("castile")
    path = tmp_path / "castile.json"
    path.write_text(json.dumps({"rules": document} if wrapped else document), encoding="utf-8")

    result = engine("deal", str(path), "--seed-text", "daily-patience")
    expected = engine("deal", "castile", "--seed-text", "daily-patience")

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(expected.stdout)
