"""Perft: the legal-move tree of each launch variant, counted to a small depth, as pinned."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import builtin_variant, deal, launch_slugs, practice_seed
from games.engine.perft import divide, perft
from games.engine.solver.clearing import PAIR, Clearing
from games.engine.solver.position import Position
from games.engine.solver.tables import DEAL, REDEAL, Rules

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "perft"


def fixture(slug: str) -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / f"{slug}.json").read_text(encoding="utf-8"))
    assert data["variant"] == slug
    rows: list[dict[str, Any]] = data["counts"]
    return rows


CLASSICS = [
    "klondike-draw-1",
    "klondike-draw-3",
    "freecell",
    "spider-1-suit",
    "spider-2-suits",
    "spider-4-suits",
    "yukon",
]
CLEARING = ["golf", "golf-wrap", "tripeaks", "pyramid"]


def test_every_launch_variant_and_classic_has_perft_fixtures() -> None:
    assert sorted(p.stem for p in FIXTURES.glob("*.json")) == sorted(
        launch_slugs() + CLASSICS + CLEARING
    )


@pytest.mark.parametrize("slug", launch_slugs() + CLASSICS + CLEARING)
def test_perft_counts_match_the_fixtures(slug: str) -> None:
    variant = builtin_variant(slug)
    for row in fixture(slug):
        state = deal(variant, practice_seed(row["seed_text"]))

        assert perft(state, row["depth"]) == row["count"], row


def solver_perft(position: Position, depth: int) -> int:
    """Count the same tree with the solver's own move generation, moving and taking back."""
    if depth == 0:
        return 1
    moves = position.legal()
    if depth == 1:
        return len(moves)
    total = 0
    for _, source, target, count in moves:
        if source == DEAL:
            record: object = position.deal()
            total += solver_perft(position, depth - 1)
            position.undeal(record)
        elif source == REDEAL:
            record = position.redeal()
            total += solver_perft(position, depth - 1)
            position.unredeal(record)
        else:
            transfer = position.transfer(source, target, count)
            total += solver_perft(position, depth - 1)
            position.untransfer(transfer)
    return total


@pytest.mark.parametrize("slug", launch_slugs() + CLASSICS)
def test_the_solvers_move_generation_counts_the_same_trees(slug: str) -> None:
    variant = builtin_variant(slug)
    for row in fixture(slug):
        state = deal(variant, practice_seed(row["seed_text"]))
        position = Position(Rules(variant, state.base_rank), state)

        assert solver_perft(position, row["depth"]) == row["count"], row


def test_divide_splits_the_count_by_first_move() -> None:
    state = deal(builtin_variant("caprice"), practice_seed("perft-0"))

    counts = divide(state, 2)

    assert sum(count for _, count in counts) == perft(state, 2)
    assert len(counts) == perft(state, 1)


def test_the_perft_command_prints_the_count_and_divides() -> None:
    row = fixture("castile")[1]
    args = ["perft", "castile", "--seed-text", row["seed_text"], "--depth", str(row["depth"])]
    root = HERE.parent.parent

    plain = subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    divided = subprocess.run(
        [sys.executable, "-m", "games.engine", *args, "--divide"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )

    assert plain.stdout.strip() == str(row["count"])
    lines = divided.stdout.strip().splitlines()
    assert lines[-1] == f"total {row['count']}"
    assert sum(int(line.rsplit(" ", 1)[1]) for line in lines[:-1]) == row["count"]


@pytest.mark.parametrize(
    ("depth", "message"), [("-1", "must be at least 0, not -1"), ("two", "not a whole number")]
)
def test_the_perft_command_refuses_a_depth_that_is_not_one(depth: str, message: str) -> None:
    args = ["perft", "castile", "--seed-text", "x", "--depth", depth]
    result = subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=HERE.parent.parent,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 2
    assert f"argument --depth: {message}" in result.stderr
    assert result.stdout == ""


def clearing_perft(game: Clearing, depth: int) -> int:
    """Count the same tree with the clearing games' search, whose pairs go one way only (the
    engine lists both ways of a pair: the same position)."""
    if depth == 0 or game.won():
        return 1 if depth == 0 else 0
    total = 0
    for move in game.moves(every=True):
        weight = 2 if move[0] == PAIR else 1
        saved = game.play(move)
        total += weight * clearing_perft(game, depth - 1)
        game.unplay(move, saved)
    return total


@pytest.mark.parametrize("slug", CLEARING)
def test_the_clearing_search_counts_the_same_trees(slug: str) -> None:
    variant = builtin_variant(slug)
    for row in fixture(slug):
        state = deal(variant, practice_seed(row["seed_text"]))

        assert clearing_perft(Clearing(state), row["depth"]) == row["count"], row
