"""The command line: ``deal``, ``walk`` and ``solve`` of docs/engine.md, ``perft``, helpers."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from .catalogue import builtin_variant, catalogue
from .dealing import deal
from .export import state_from_json, state_to_json
from .moves import IllegalMove, MalformedMove, parse_move
from .perft import divide, perft
from .play import apply_move, legal_moves
from .rules import RulesError, Variant, compile_rules
from .seeds import parse_seed, practice_seed
from .solver import solve
from .state import State
from .text import render


class UsageError(Exception):
    """Bad arguments or input: exit status 2."""


def _variant(name: str) -> Variant:
    if name.endswith(".json"):
        try:
            document = json.loads(Path(name).read_text(encoding="utf-8"))
            if isinstance(document, dict):
                document = document.get("rules", document)
            return compile_rules(document)
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot use rules file {name}: {error}") from None
    try:
        return builtin_variant(name)
    except KeyError:
        known = ", ".join(entry["slug"] for entry in catalogue())
        raise UsageError(f"unknown variant {name!r} (known: {known})") from None


def _count(text: str, least: int) -> int:
    """Read a whole number of at least ``least`` (an argparse type: a bad one exits 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
    return value


def _positive_count(text: str) -> int:
    return _count(text, 1)


def _depth(text: str) -> int:
    return _count(text, 0)


def _seconds(text: str) -> float:
    """Read a number of seconds: more than 0 and finite (an argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be more than 0 and finite, not {text}")
    return value


def _seed(args: argparse.Namespace) -> bytes:
    if args.seed is not None:
        try:
            return parse_seed(args.seed)
        except ValueError as error:
            raise UsageError(f"bad --seed: {error}") from None
    return practice_seed(args.seed_text)


def walk(variant: Variant, seed: bytes, moves: Any) -> list[dict[str, Any]]:
    """Return the ``walk`` entries of docs/engine.md for a list of MOVE objects."""
    if not isinstance(moves, list):
        raise UsageError("walk reads a JSON array of moves")
    state = deal(variant, seed)
    entries = []
    for index in range(len(moves) + 1):
        entries.append(
            {
                "state": state_to_json(state),
                "legal": [move.to_json() for move in legal_moves(state)],
                "won": state.won,
            }
        )
        if index == len(moves):
            break
        try:
            move = parse_move(moves[index])
            if move.type == "undo":
                raise MalformedMove("walk takes no undo")
            state = apply_move(state, move)
        except (MalformedMove, IllegalMove) as error:
            entries.append({"error": "illegal_move", "index": index, "detail": str(error)})
            break
    return entries


def _solve(variant: Variant, args: argparse.Namespace) -> dict[str, Any]:
    """Return the ``solve`` object of docs/engine.md for the deal or, with --from-state, stdin's."""
    state: State
    if args.from_state:
        try:
            state = state_from_json(variant, json.load(sys.stdin))
        except ValueError as error:
            raise UsageError(f"stdin is not a position: {error}") from None
    else:
        if args.seed is None and args.seed_text is None:
            raise UsageError("give --seed-text, --seed or --from-state")
        state = deal(variant, _seed(args))
    result = solve(state, budget_nodes=args.budget_nodes, budget_seconds=args.budget_seconds)
    return {
        "result": result.outcome,
        "moves": [move.to_json() for move in result.line or []],
        "nodes": result.nodes,
        "seconds": round(result.seconds, 3),
    }


def _perft(variant: Variant, args: argparse.Namespace) -> str:
    state = deal(variant, _seed(args))
    if not args.divide:
        return str(perft(state, args.depth))
    counts = divide(state, args.depth)
    lines = [f"{json.dumps(move.to_json())} {count}" for move, count in counts]
    total = sum(count for _, count in counts) if args.depth > 0 else 1
    return "\n".join([*lines, f"total {total}"])


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("deal", "print the initial position as JSON"),
        ("walk", "apply a JSON array of moves read from stdin; print every position"),
        ("show", "print the initial position as text"),
    ):
        command = commands.add_parser(name, help=text)
        command.add_argument("variant", help="a variant slug, or a rules document .json file")
        seeds = command.add_mutually_exclusive_group(required=True)
        seeds.add_argument("--seed-text", help="practice seed text")
        seeds.add_argument("--seed", help="seed as 64 hex digits")
    solver = commands.add_parser("solve", help="search the deal with full information")
    solver.add_argument("variant", help="a variant slug, or a rules document .json file")
    seeds = solver.add_mutually_exclusive_group()
    seeds.add_argument("--seed-text", help="practice seed text")
    seeds.add_argument("--seed", help="seed as 64 hex digits")
    seeds.add_argument(
        "--from-state", action="store_true", help="solve the deal-format position on stdin"
    )
    solver.add_argument(
        "--budget-nodes", type=_positive_count, help="stop after expanding N positions (N ≥ 1)"
    )
    solver.add_argument(
        "--budget-seconds", type=_seconds, help="stop after S seconds of CPU time (S > 0)"
    )
    counter = commands.add_parser("perft", help="count the legal-move tree's leaves at a depth")
    counter.add_argument("variant", help="a variant slug, or a rules document .json file")
    seeds = counter.add_mutually_exclusive_group(required=True)
    seeds.add_argument("--seed-text", help="practice seed text")
    seeds.add_argument("--seed", help="seed as 64 hex digits")
    counter.add_argument("--depth", type=_depth, required=True, help="plies to count (0 or more)")
    counter.add_argument("--divide", action="store_true", help="print the count per first move")
    commands.add_parser("variants", help="list the shipped variants")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        if args.command == "variants":
            for entry in catalogue():
                print(f"{entry['slug']:<20} {entry['name']}")
            return 0
        variant = _variant(args.variant)
        if args.command == "solve":
            print(json.dumps(_solve(variant, args)))
            return 0
        if args.command == "perft":
            print(_perft(variant, args))
            return 0
        seed = _seed(args)
        if args.command == "deal":
            print(json.dumps(state_to_json(deal(variant, seed))))
        elif args.command == "show":
            print(render(deal(variant, seed)), end="")
        else:
            try:
                moves = json.load(sys.stdin)
            except ValueError as error:
                raise UsageError(f"stdin is not JSON: {error}") from None
            print(json.dumps(walk(variant, seed, moves)))
    except (UsageError, RulesError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
