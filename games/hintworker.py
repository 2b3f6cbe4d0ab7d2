"""The hint search as it runs in a child process of the hint pool (``games.services.hints``).

This module imports nothing but the engine, so a child started with ``spawn`` inherits no Django
state, no open connections and no locks. The request's game crosses the process boundary as
plain data: the rules document as canonical JSON text, the deal's seed (hex) and the game's move
log (MOVE objects of docs/api.md); the answer comes back as plain data too.

The child replays the log itself: the search needs every position the game has been in, so that
its line never comes back to one, and the move that led to the game's position, so that its line
never starts by taking it back (``solve``'s ``avoid`` and ``after``).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
import time
from functools import lru_cache
from multiprocessing.connection import wait
from typing import Any

from games.engine import (
    AnyMove,
    IllegalMove,
    MalformedMove,
    Move,
    ReplayError,
    SolveResult,
    State,
    Variant,
    apply_move,
    compile_rules,
    deal,
    parse_move,
    parse_seed,
    solve,
)


def watch_parent() -> None:
    """Exit this child as soon as the process that started it is gone (the pool's initializer).

    A worker stopped by SIGKILL runs no shutdown: its pool's children, blocked on the pool's
    pipe (whose writing end they hold too), would wait for work forever. The parent's sentinel
    becomes ready when it exits, however it exits.
    """
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def game_payload(rules_text: str, seed: str, log: list[Any]) -> dict[str, Any]:
    """Return the picklable form of a game that :func:`search` takes."""
    return {"rules": rules_text, "seed": seed, "log": log}


@lru_cache(maxsize=32)
def _variant(rules_text: str) -> Variant:
    return compile_rules(json.loads(rules_text))


def history(payload: dict[str, Any]) -> tuple[list[State], AnyMove | None]:
    """Return every position of the game of ``payload``, its current one last, and the move
    that led to that one (None at the start or after an undo); raise ``ReplayError`` for a
    log that does not replay."""
    state = deal(_variant(payload["rules"]), parse_seed(payload["seed"]))
    positions = [state]
    last: AnyMove | None = None
    for index, raw in enumerate(payload["log"]):
        try:
            last = parse_move(raw)
            state = apply_move(state, last)
        except MalformedMove as error:
            raise ReplayError(index, "invalid", str(error)) from None
        except IllegalMove as error:
            raise ReplayError(index, error.code.value, error.detail) from None
        positions.append(state)
    return positions, last if isinstance(last, Move) else None


def answer(result: SolveResult) -> dict[str, Any]:
    """Return ``{"outcome", "line"}``: the winning line as MOVE objects, or None."""
    line = result.line if result.outcome == "won" else None
    return {"outcome": result.outcome, "line": [m.to_json() for m in line or []] or None}


def search(payload: dict[str, Any], budget_seconds: float) -> dict[str, Any]:
    """Search the game of ``payload`` for a winning line that never takes its last move back
    nor comes back to a position it has been in; return :func:`answer`'s plain data."""
    positions, last = history(payload)
    # A wall clock: the player waits, whatever else the machine is doing.
    result = solve(
        positions[-1],
        budget_seconds=budget_seconds,
        clock=time.monotonic,
        avoid=positions,
        after=last,
    )
    return answer(result)


def ready() -> bool:
    """Return True: a task that only proves a child has started and imported the engine."""
    return True
