"""The sockets' message schemas (``docs/schemas/``): sound, agreeing with the server's codes and
the engine's moves, strict on what a client sends, and linked from the OpenAPI document and
docs/api.md. (Every message the socket tests receive is checked against them by ``ws_connect``.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from rest_framework.test import APIClient

from core.errors import ErrorCode
from games.engine import IllegalCode, MalformedMove, parse_move
from games.ws import base
from tests.socket_schemas import (
    SCHEMAS,
    SENT_TYPES,
    close_codes,
    schema,
    socket_of,
    violations,
)

SCHEMA_FILES = sorted(str(path.relative_to(SCHEMAS)) for path in SCHEMAS.rglob("*.json"))
MESSAGE_FILES = [name for name in SCHEMA_FILES if name.startswith("messages/")]
API_MD = SCHEMAS.parent.parent / "docs/api.md"


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_every_schema_file_is_a_sound_json_schema(name: str) -> None:
    Draft202012Validator.check_schema(schema(name))


def test_every_message_type_a_socket_sends_has_its_schema() -> None:
    sent = {kind for kinds in SENT_TYPES.values() for kind in kinds}

    assert {f"messages/{kind}.json" for kind in sent} | {
        "messages/move.json",
        "messages/resign.json",
    } == set(MESSAGE_FILES)


@pytest.mark.parametrize(
    ("path", "socket"),
    [
        ("/ws/games/abc_DEF-123/", "game-socket"),
        ("/ws/daily/box-kite/2026-12-01/", "daily-socket"),
        ("/ws/leagues/12/box-kite/2026-12-01/", "league-socket"),
        ("/ws/games/\x00/", None),
        ("/ws/games/x/y/", None),
        ("/ws/nope/", None),
    ],
)
def test_a_path_is_checked_against_the_socket_that_serves_it(path: str, socket: str | None) -> None:
    assert socket_of(path) == socket


# --- error and close codes ------------------------------------------------------------------


def test_the_error_codes_are_the_servers_and_the_close_codes_those_it_closes_with() -> None:
    codes = [
        code["const"] for code in schema("messages/error.json")["properties"]["error"]["oneOf"]
    ]
    expected = {
        **{code.value: close for code, close in base._CLOSE_CODES.items()},
        ErrorCode.INVALID.value: base.CLOSE_TOO_BIG,
        ErrorCode.UNAVAILABLE.value: base.CLOSE_UNAVAILABLE,
        ErrorCode.SERVER_ERROR.value: base.CLOSE_UNAVAILABLE,
    }

    assert set(codes) <= {code.value for code in ErrorCode}
    assert close_codes() == expected


def test_the_illegal_move_reasons_are_the_engines() -> None:
    reasons = schema("messages/error.json")["properties"]["reason"]["enum"]

    assert sorted(reasons) == sorted(code.value for code in IllegalCode)


@pytest.mark.parametrize(
    ("message", "holds"),
    [
        (
            {"type": "error", "error": "stale_ply", "detail": "The game is at ply 3.", "ply": 3},
            True,
        ),
        (
            {
                "type": "error",
                "error": "illegal_move",
                "detail": "No.",
                "reason": "same_pile",
                "ply": 0,
            },
            True,
        ),
        ({"type": "error", "error": "invalid", "detail": "Bad.", "field": "move"}, True),
        ({"type": "error", "error": "stale_ply", "detail": "No.", "reason": "same_pile"}, False),
        ({"type": "error", "error": "illegal_move", "detail": "No.", "reason": "nope"}, False),
        ({"type": "error", "error": "teapot", "detail": "No."}, False),
        ({"type": "error", "error": "forbidden", "detail": ""}, False),
        ({"type": "error", "error": "forbidden", "detail": "No.", "extra": 1}, False),
    ],
)
def test_the_error_schema_takes_the_servers_errors_only(
    message: dict[str, Any], holds: bool
) -> None:
    assert (violations("messages/error.json", message) is None) is holds


def test_the_daily_socket_sends_no_error_of_a_move() -> None:
    message = {"type": "error", "error": "illegal_move", "detail": "No.", "reason": "same_pile"}

    assert violations("daily-socket.json", {**message, "ply": 0}, "/$defs/server") is not None
    assert violations("game-socket.json", {**message, "ply": 0}, "/$defs/server") is None


# --- what a client sends --------------------------------------------------------------------


MOVES = [
    {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 1},
    {"type": "move", "from": "reserve-0", "to": "tableau-11"},
    {"type": "move", "from": "waste", "to": "tableau-0", "count": 1000},
    {"type": "deal"},
    {"type": "redeal"},
    {"type": "undo"},
    {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 0},
    {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": 1001},
    {"type": "move", "from": "tableau-3", "to": "foundation-5", "count": True},
    {"type": "move", "from": "tableau-3"},
    {"type": "move", "from": "tableau-3", "to": "foundation-5", "cards": 2},
    {"type": "deal", "count": 1},
    {"type": "jump"},
    {"type": ["move"]},
    {},
]


@pytest.mark.parametrize("move", MOVES, ids=json.dumps)
def test_the_move_schema_takes_exactly_the_moves_the_engine_reads(move: dict[str, Any]) -> None:
    try:
        parse_move(move)
    except MalformedMove:
        readable = False
    else:
        readable = True

    assert (violations("objects.json", move, "/$defs/move") is None) is readable


FRAMES = [
    ({"ply": 0, "move": {"type": "deal"}}, True),
    ({"type": "move", "ply": 17, "move": {"type": "undo"}}, True),
    ({"type": "resign"}, True),
    ({"ply": 0}, False),
    ({"move": {"type": "deal"}}, False),
    ({"ply": -1, "move": {"type": "deal"}}, False),
    ({"ply": 2**31, "move": {"type": "deal"}}, False),
    ({"ply": False, "move": {"type": "deal"}}, False),
    ({"ply": "0", "move": {"type": "deal"}}, False),
    ({"ply": 0, "move": {"type": {"a": 1}}}, False),
    ({"type": "hello"}, False),
    ({"type": ["resign"]}, False),
    ({"type": "resign", "ply": 0}, False),
    ([1], False),
]


@pytest.mark.parametrize(("frame", "holds"), FRAMES, ids=lambda value: json.dumps(value))
def test_the_game_socket_takes_well_formed_moves_and_resignations_only(
    frame: Any, holds: bool
) -> None:
    assert (violations("game-socket.json", frame, "/$defs/client") is None) is holds


def test_the_daily_socket_takes_no_message() -> None:
    assert violations("daily-socket.json", {"type": "hello"}, "/$defs/client") is not None


# --- where they are named -------------------------------------------------------------------


@pytest.mark.django_db
def test_the_openapi_document_names_the_protocol_and_every_message_schema() -> None:
    document = APIClient().get("/api/schema/?format=json").json()
    description = document["info"]["description"]

    for name in ["docs/api.md", "docs/schemas/", "game-socket.json", "daily-socket.json"]:
        assert name in description
    for name in MESSAGE_FILES:
        assert f"`{name}`" in description, name


def test_the_api_document_links_every_schema_file() -> None:
    text = API_MD.read_text(encoding="utf-8")

    for name in SCHEMA_FILES:
        assert f"(schemas/{name})" in text, name
