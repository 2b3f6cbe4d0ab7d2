"""Benchmark the solver against its targets on the deals ``bench-0`` … ``bench-<N-1>``.

Run: ``make solver-bench`` (or ``.venv/bin/python benchmarks/solver.py --deals 100 --seconds
10``). For every launch variant it solves each deal with a budget of CPU seconds (the solver's
default clock, so a figure means the same on a busy machine), replays every won line with the
engine, and prints the share decided (won or lost), the share won, the positions expanded per
CPU second (the target's measure) and any line that failed to replay, each beside its target,
and the positions made per CPU second (every position a move made and the transposition table
looked up, expanded or found already searched).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import apply_move, builtin_variant, deal, launch_slugs, practice_seed, solve

DECIDED_TARGETS = {
    "caprice": 0.95,
    "castile": 0.90,
    "quadruple-canfield": 0.95,
    "box-kite": 0.50,
    "capricieuse": 0.95,
}
SPEED_TARGET = 30_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--variants", nargs="*", default=launch_slugs())
    parser.add_argument("--prefix", default="bench", help="seed texts <prefix>-0 … <prefix>-<N-1>")
    parser.add_argument("--first", type=int, default=0, help="number of the first deal")
    args = parser.parse_args()
    header = (
        f"{'variant':<20} {'decided':>8} {'target':>7} {'won':>6} {'lost':>6} "
        f"{'pos/s':>8} {'target':>7} {'bad lines':>9} {'made/s':>8}"
    )
    rows = []
    for slug in args.variants:
        variant = builtin_variant(slug)
        won = lost = bad = nodes = made = 0
        seconds = 0.0
        for i in range(args.first, args.first + args.deals):
            state = deal(variant, practice_seed(f"{args.prefix}-{i}"))
            result = solve(state, budget_seconds=args.seconds)
            nodes += result.nodes
            made += result.made
            seconds += result.seconds
            if result.outcome == "won":
                won += 1
                end = state
                for move in result.line or []:
                    end = apply_move(end, move)
                bad += not end.won
            elif result.outcome == "lost":
                lost += 1
            print(
                f"  {slug} {args.prefix}-{i}: {result.outcome} {result.nodes} nodes "
                f"{result.seconds:.2f} CPU-s",
                file=sys.stderr,
                flush=True,
            )
        n = args.deals
        rows.append(
            f"{slug:<20} {(won + lost) / n:>8.0%} {DECIDED_TARGETS.get(slug, 0):>7.0%} "
            f"{won / n:>6.0%} {lost / n:>6.0%} {nodes / max(seconds, 1e-9):>8,.0f} "
            f"{SPEED_TARGET:>7,} {bad:>9} {made / max(seconds, 1e-9):>8,.0f}"
        )
    print(f"{args.deals} deals per variant, {args.seconds:g} CPU-s each (pos/s: per CPU second)")
    print(header)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
