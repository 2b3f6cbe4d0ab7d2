"""Fixtures of the engine tests: positions written as text boards, and moves written as words."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from games.engine import (
    AnyMove,
    Deal,
    IllegalMove,
    Move,
    Redeal,
    State,
    Undo,
    apply_move,
    builtin_variant,
    parse,
    render,
)

ROOT = Path(__file__).resolve().parent.parent.parent


def engine(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the engine's command line (``python -m games.engine ...``) and return what it did."""
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def move(words: str) -> AnyMove:
    """Return the move written ``"tableau-0 > foundation-1"``, ``"... x3"``, ``"deal"``…"""
    simple = {"deal": Deal(), "redeal": Redeal(), "undo": Undo()}
    if words in simple:
        return simple[words]
    source, _, rest = words.partition(" > ")
    target, _, count = rest.partition(" x")
    return Move(source.strip(), target.strip(), int(count or 1))


class Table:
    """One variant's positions: parse a board, play moves on it, and render the result."""

    def __init__(self, slug: str) -> None:
        self.variant = builtin_variant(slug)

    def position(self, text: str) -> State:
        """Return the position of a board; piles left out are empty."""
        return parse(self.variant, dedent(text))

    def board(self, text: str) -> str:
        """Return a board written in full, as ``render`` writes it."""
        return render(self.position(text))

    def play(self, text: str, *moves: str) -> str:
        """Return the board after playing ``moves`` from the board ``text``."""
        state = self.position(text)
        for words in moves:
            state = apply_move(state, move(words))
        return render(state)

    def refusal(self, text: str, *moves: str) -> IllegalMove:
        """Return the refusal of the last of ``moves`` (the others must be legal)."""
        state = self.position(text)
        for words in moves[:-1]:
            state = apply_move(state, move(words))
        with pytest.raises(IllegalMove) as refused:
            apply_move(state, move(moves[-1]))
        return refused.value

    def legal(self, text: str) -> set[str]:
        """Return the legal moves of a board, written as words."""
        from games.engine import legal_moves

        state = self.position(text)
        return {_words(m) for m in legal_moves(state)}


def _words(m: AnyMove) -> str:
    if isinstance(m, Move):
        return f"{m.source} > {m.target}" + (f" x{m.count}" if m.count > 1 else "")
    return m.type


@pytest.fixture
def table() -> type[Table]:
    """Return the ``Table`` class: ``table("caprice")`` is Caprice's table."""
    return Table
