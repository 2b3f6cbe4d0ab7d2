"""The sockets under hostile or broken input: junk paths, junk credentials, junk frames, Origin.

Every refusal is an error frame and a close frame, never an HTTP 500 or a silent drop.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import clock
from games.models import Game, Player
from tests.games.sockets import a_legal_move, close_code, receive, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

FOREIGN = (b"origin", b"https://evil.example")


async def refused(communicator: Any) -> tuple[str, int]:
    message = await receive(communicator)
    assert message["type"] == "error" and message["detail"], message
    return message["error"], await close_code(communicator)


@pytest.fixture
async def alice_socket(ws_connect: Any, game: Game, alice: tuple[Player, str]) -> Any:
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(communicator))["type"] == "game"
    return communicator


# --- paths --------------------------------------------------------------------------------


JUNK_PATHS = [
    "/ws/games//",
    "/ws/nope/",
    "/ws/",
    "/",
    "/ws/games/%00/",
    "/ws/games/ab%00cd/",
    "/ws/games/%C3%A9t%C3%A9/",
    "/ws/games/x/y/",
    "/ws/daily/box-kite/%00/",
    "/ws/daily/%00/2026-12-01/",
]


async def test_an_unmatched_or_junk_path_is_not_found_4404(
    ws_connect: Any, alice: tuple[Player, str]
) -> None:
    for path in JUNK_PATHS:
        communicator = await ws_connect(f"{path}?token={alice[1]}")

        assert await refused(communicator) == ("not_found", 4404), path


# --- credentials --------------------------------------------------------------------------


JUNK_QUERIES = ["token=%00", "token=abc%00def", "token=%ff%fe", "token=", "&&==&token=&=", "%zz"]
JUNK_HEADERS = [
    (b"authorization", b"Token \x00abc"),
    (b"authorization", b"Token \xff\xfe"),
    (b"authorization", b"Token " + b"a" * 5000),
    (b"authorization", b"\x00"),
    (b"cookie", b"sessionid=abcdefgh\x00ijkl"),
    (b"cookie", b"sessionid=\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"),
]


async def test_junk_credentials_never_reach_a_query_and_are_not_authenticated_4403(
    ws_connect: Any, game: Game
) -> None:
    for query in JUNK_QUERIES:
        communicator = await ws_connect(f"/ws/games/{game.pk}/?{query}")
        assert await refused(communicator) == ("not_authenticated", 4403), query
    for header in JUNK_HEADERS:
        communicator = await ws_connect(f"/ws/games/{game.pk}/", headers=(header,))
        assert await refused(communicator) == ("not_authenticated", 4403), header


# --- frames -------------------------------------------------------------------------------


HOSTILE_FRAMES = [
    "[" * 60_000,  # nested far beyond the parser's recursion limit, within 64 KB
    '{"a":' * 12_000,
    '{"ply": 0, "move": {"type": {"a": 1}}}',
    '{"ply": 0, "move": {"type": ["move"]}}',
    '{"ply": 0, "move": {"type": "move", "from": ["x"], "to": "y"}}',
    '{"type": {"a": 1}, "ply": 0}',
    '{"type": ["resign"]}',
    '{"ply": false, "move": {"type": "deal"}}',
    '{"ply": 0.0, "move": {"type": "deal"}}',
    '{"ply": "0", "move": {"type": "deal"}}',
    '{"ply": 1000000000000000000000000000000, "move": {"type": "deal"}}',
    '{"ply": 1e400, "move": {"type": "deal"}}',
]


async def test_a_hostile_frame_is_invalid_and_the_socket_stays_open(
    alice_socket: Any, game: Game, settings: Any
) -> None:
    settings.WEBSOCKET_RATE_LIMITS = {}
    for frame in HOSTILE_FRAMES:
        await alice_socket.send_to(text_data=frame)
        message = await receive(alice_socket)

        assert (message["type"], message["error"]) == ("error", "invalid"), frame[:40]
    await alice_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    assert (await receive(alice_socket))["game"]["ply"] == 1


async def test_a_frame_over_64_kb_is_invalid_and_closed_1009(alice_socket: Any, game: Game) -> None:
    move = await a_legal_move(game.pk)
    big = json.dumps({"ply": 0, "move": move, "pad": "x" * 70_000})

    await alice_socket.send_to(text_data=big)

    assert await refused(alice_socket) == ("invalid", 1009)
    assert (await database_sync_to_async(Game.objects.get)(pk=game.pk)).ply == 0


async def test_a_binary_frame_is_invalid(alice_socket: Any) -> None:
    await alice_socket.send_to(bytes_data=b'{"type": "resign"}')

    assert (await receive(alice_socket))["error"] == "invalid"
    assert await alice_socket.receive_nothing()


# --- Origin -------------------------------------------------------------------------------


async def test_a_token_client_without_origin_is_accepted(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    by_query = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}", origin=False)
    header = (b"authorization", f"Token {alice[1]}".encode())
    by_header = await ws_connect(f"/ws/games/{game.pk}/", headers=(header,), origin=False)

    assert (await receive(by_query))["type"] == "game"
    assert (await receive(by_header))["type"] == "game"


async def test_no_origin_and_no_token_is_refused_4403(ws_connect: Any, game: Game) -> None:
    communicator = await ws_connect(f"/ws/games/{game.pk}/", origin=False)

    assert await refused(communicator) == ("not_authenticated", 4403)


async def test_a_session_without_origin_is_refused_4403(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    cookie = await database_sync_to_async(session_cookie)(alice[0])
    communicator = await ws_connect(f"/ws/games/{game.pk}/", headers=(cookie,), origin=False)

    assert await refused(communicator) == ("not_authenticated", 4403)


async def test_a_foreign_origin_is_forbidden_4403_even_with_a_session(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    cookie = await database_sync_to_async(session_cookie)(alice[0])
    for origin in [
        b"https://evil.example",
        b"null",
        b"\xff\x00",
        b"testserver",
        b"ftp://testserver",
    ]:
        communicator = await ws_connect(
            f"/ws/games/{game.pk}/", headers=(cookie, (b"origin", origin)), origin=False
        )

        assert await refused(communicator) == ("forbidden", 4403), origin


async def test_a_foreign_origin_is_forbidden_with_a_token_too(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    communicator = await ws_connect(
        f"/ws/games/{game.pk}/?token={alice[1]}", headers=(FOREIGN,), origin=False
    )

    assert await refused(communicator) == ("forbidden", 4403)


async def test_the_daily_socket_needs_no_origin_but_refuses_a_foreign_one(
    ws_connect: Any, ws_variants: Any
) -> None:
    path = f"/ws/daily/box-kite/{clock.today().isoformat()}/"

    plain = await ws_connect(path, origin=False)
    foreign = await ws_connect(path, headers=(FOREIGN,), origin=False)

    assert (await receive(plain))["type"] == "leaderboard"
    assert await refused(foreign) == ("forbidden", 4403)


async def test_a_browser_on_an_allowed_host_at_any_port_is_accepted(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    # given the player's browser session, on pages served at a port of an allowed host
    cookie = await database_sync_to_async(session_cookie)(alice[0])
    for origin in [b"http://testserver:8000", b"https://testserver:443", b"http://testserver"]:
        # when
        communicator = await ws_connect(
            f"/ws/games/{game.pk}/", headers=(cookie, (b"origin", origin)), origin=False
        )

        # then the socket opens with the game
        message = await communicator.receive_json_from(timeout=5)
        assert message["type"] == "game", origin
        await communicator.disconnect()
