"""Benchmark the rules engine: legal-move generation + apply, and replay-verification.

Run: ``make bench`` (or ``.venv/bin/python benchmarks/engine.py``). For every shipped variant it
prints the moves per second of random playouts (each ply: generate every legal move, pick one,
apply it) and the time to verify a 500-ply game (deal from the seed, replay the move log, compare
the final position), which the server does for every finished game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import (
    apply_move,
    builtin_variant,
    catalogue,
    deal,
    legal_moves,
    practice_seed,
    verify,
)
from games.engine.state import State


def playout(slug: str, seed_text: str, plies: int, rng: random.Random) -> tuple[list, State]:
    """Play up to ``plies`` random legal moves; return the moves and the final position."""
    state = deal(builtin_variant(slug), practice_seed(seed_text))
    moves = []
    for _ in range(plies):
        options = legal_moves(state)
        if not options:
            break
        move = rng.choice(options)
        state = apply_move(state, move)
        moves.append(move)
    return moves, state


def moves_per_second(slug: str, games: int, plies: int) -> float:
    rng = random.Random(1)
    total = 0
    started = time.perf_counter()
    for g in range(games):
        moves, _ = playout(slug, f"bench-{g}", plies, rng)
        total += len(moves)
    return total / (time.perf_counter() - started)


def long_game(slug: str, plies: int) -> tuple[list, State, str]:
    """Find a random game of ``plies`` plies (or the longest of a few tries)."""
    rng = random.Random(7)
    best: tuple[list, State, str] = ([], deal(builtin_variant(slug), practice_seed("x")), "x")
    for attempt in range(20):
        seed_text = f"long-{attempt}"
        moves, state = playout(slug, seed_text, plies, rng)
        if len(moves) > len(best[0]):
            best = (moves, state, seed_text)
        if len(moves) == plies:
            break
    return best


def verify_ms(slug: str, plies: int, repeats: int) -> tuple[int, float]:
    moves, final, seed_text = long_game(slug, plies)
    document = builtin_variant(slug).document
    seed = practice_seed(seed_text)
    log = [move.to_json() for move in moves]
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        ok = verify(document, seed, log, final)
        timings.append((time.perf_counter() - started) * 1000)
        assert ok, f"{slug}: a game failed to verify"
    return len(moves), statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random playouts per variant (20)")
    parser.add_argument("--plies", type=int, default=300, help="plies per playout (300)")
    parser.add_argument("--repeats", type=int, default=20, help="verifications timed (20)")
    args = parser.parse_args()
    print(f"{'variant':<20} {'moves/s':>9} {'verify plies':>13} {'verify ms':>10}")
    for entry in catalogue():
        slug = entry["slug"]
        rate = moves_per_second(slug, args.games, args.plies)
        plies, ms = verify_ms(slug, 500, args.repeats)
        print(f"{slug:<20} {rate:>9.0f} {plies:>13} {ms:>10.2f}")


if __name__ == "__main__":
    main()
