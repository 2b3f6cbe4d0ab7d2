"""The engine's command line: ``deal`` and ``walk`` of engine.md, and helpers to look around."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .catalogue import builtin_variant, catalogue
from .dealing import deal
from .export import state_to_json
from .moves import IllegalMove, MalformedMove, parse_move
from .play import apply_move, legal_moves
from .rules import RulesError, Variant, compile_rules
from .seeds import parse_seed, practice_seed
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


def _seed(args: argparse.Namespace) -> bytes:
    if args.seed is not None:
        try:
            return parse_seed(args.seed)
        except ValueError as error:
            raise UsageError(f"bad --seed: {error}") from None
    return practice_seed(args.seed_text)


def walk(variant: Variant, seed: bytes, moves: Any) -> list[dict[str, Any]]:
    """Return the ``walk`` entries of engine.md for a list of MOVE objects."""
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
