"""The rules engine: pure Python, no Django, no I/O, no clock, no global randomness.

A variant is a rules document (JSON) compiled by ``compile_rules``; a position is an immutable
``State``; ``apply_move`` returns a new state or raises ``IllegalMove``.
"""

from .cards import card_code, card_label, parse_card
from .catalogue import builtin_rules, builtin_variant, catalogue, daily_slugs, launch_slugs
from .dealing import deal, shuffled_pack
from .export import player_view, state_from_json, state_to_json
from .moves import (
    AnyMove,
    Deal,
    IllegalCode,
    IllegalMove,
    MalformedMove,
    Move,
    Redeal,
    Undo,
    parse_move,
)
from .play import apply_move, is_stuck, legal_moves
from .replay import Replay, ReplayError, replay, verify
from .rules import RulesError, Variant, compile_rules
from .seeds import commitment, daily_seed, parse_seed, practice_seed, shuffle
from .solver import SolveResult, solve
from .state import Pile, State
from .text import parse, render

__all__ = [
    "AnyMove",
    "Deal",
    "IllegalCode",
    "IllegalMove",
    "MalformedMove",
    "Move",
    "Pile",
    "Redeal",
    "Replay",
    "ReplayError",
    "RulesError",
    "SolveResult",
    "State",
    "Undo",
    "Variant",
    "apply_move",
    "builtin_rules",
    "builtin_variant",
    "card_code",
    "card_label",
    "catalogue",
    "commitment",
    "compile_rules",
    "daily_seed",
    "daily_slugs",
    "deal",
    "is_stuck",
    "launch_slugs",
    "legal_moves",
    "parse",
    "parse_card",
    "parse_move",
    "parse_seed",
    "player_view",
    "practice_seed",
    "render",
    "replay",
    "shuffle",
    "shuffled_pack",
    "solve",
    "state_from_json",
    "state_to_json",
    "verify",
]
