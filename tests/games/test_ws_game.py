"""The game socket ``ws/games/<id>/``: who may connect, moves, refusals, pushes, rate limits."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings

from games import clock, services
from games.models import Game, Player
from games.payloads import game_payload
from games.ws import pushes
from tests.games.sockets import a_legal_move, close_code, make_player, receive, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


# --- helpers ------------------------------------------------------------------------------


@database_sync_to_async
def payload_of(game_id: str) -> dict[str, Any]:
    return game_payload(Game.objects.select_related("variant", "deal", "player").get(pk=game_id))


async def nothing_more(game_id: str, *sockets: Any) -> None:
    """Return once each socket is shown to have been sent nothing more than what was read.

    Each socket first settles (the answer to a refused frame comes after all the work of the
    frames before it, the group push of its own move included); once every push handed to the
    loop is out, a marker (the game one ply on) is sent through the game's group, which delivers
    in order: it must be the next message of every socket.
    """
    for socket in sockets:
        await settled(socket)
    await pushes.drain()
    current = await payload_of(game_id)
    marker = {**current, "ply": current["ply"] + 1}
    await get_channel_layer().group_send(
        pushes.game_group(game_id), {"type": "game.update", "game": marker}
    )
    for socket in sockets:
        assert await receive(socket) == {"type": "game", "game": marker}


async def read_until(
    sockets: tuple[Any, ...], done: Callable[[list[list[dict[str, Any]]]], bool]
) -> list[list[dict[str, Any]]]:
    """Read the sockets' messages, each into its own list, until ``done`` says enough
    (failing after 5 s)."""
    read: list[list[dict[str, Any]]] = [[] for _ in sockets]
    async with asyncio.timeout(5):
        while not done(read):
            for index, socket in enumerate(sockets):
                if not await socket.receive_nothing(timeout=0.01):
                    read[index].append(await receive(socket))
    return read


ILLEGAL = {"type": "move", "from": "tableau-0", "to": "tableau-0", "count": 1}


# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture
async def alice_socket(ws_connect: Any, game: Game, alice: tuple[Player, str]) -> Any:
    """Alice's socket on her game, its first message (the game) already read."""
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    first = await receive(communicator)
    assert first == {"type": "game", "game": await payload_of(game.pk)}
    return communicator


# --- connecting ---------------------------------------------------------------------------


async def test_the_player_connects_by_token_in_the_query_string(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")

    message = await receive(communicator)

    assert message == {"type": "game", "game": await payload_of(game.pk)}
    assert message["game"]["ply"] == 0
    assert await communicator.receive_nothing()


async def test_the_player_connects_by_authorization_header(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    header = (b"authorization", f"Token {alice[1]}".encode())
    communicator = await ws_connect(f"/ws/games/{game.pk}/", headers=(header,))

    assert await receive(communicator) == {"type": "game", "game": await payload_of(game.pk)}


async def test_the_player_connects_by_session(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    cookie = await database_sync_to_async(session_cookie)(alice[0])
    communicator = await ws_connect(f"/ws/games/{game.pk}/", headers=(cookie,))

    assert await receive(communicator) == {"type": "game", "game": await payload_of(game.pk)}


async def test_a_token_wins_over_the_session(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    bob, _ = await database_sync_to_async(make_player)("bob")
    cookie = await database_sync_to_async(session_cookie)(bob)
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}", headers=(cookie,))

    assert (await receive(communicator))["type"] == "game"


async def test_an_anonymous_client_is_told_to_log_in_and_closed_4403(
    ws_connect: Any, game: Game
) -> None:
    communicator = await ws_connect(f"/ws/games/{game.pk}/")

    message = await receive(communicator)

    assert message["type"] == "error"
    assert message["error"] == "not_authenticated"
    assert message["detail"]
    assert await close_code(communicator) == 4403


async def test_a_bad_token_is_anonymous(ws_connect: Any, game: Game) -> None:
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token=nonsense")

    assert (await receive(communicator))["error"] == "not_authenticated"
    assert await close_code(communicator) == 4403


async def test_another_player_is_forbidden_and_closed_4403(ws_connect: Any, game: Game) -> None:
    _, bob_token = await database_sync_to_async(make_player)("bob")
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={bob_token}")

    message = await receive(communicator)

    assert message["type"] == "error"
    assert message["error"] == "forbidden"
    assert await close_code(communicator) == 4403


async def test_an_unknown_game_is_closed_4404(ws_connect: Any, alice: tuple[Player, str]) -> None:
    communicator = await ws_connect(f"/ws/games/no-such-game/?token={alice[1]}")

    assert (await receive(communicator))["error"] == "not_found"
    assert await close_code(communicator) == 4404


async def test_frames_after_a_refusal_are_ignored(ws_connect: Any, game: Game) -> None:
    communicator = await ws_connect(f"/ws/games/{game.pk}/")
    await receive(communicator)
    await close_code(communicator)

    await communicator.send_json_to({"ply": 0, "move": {"type": "deal"}})

    assert await communicator.receive_nothing()


# --- moves --------------------------------------------------------------------------------


async def test_opening_the_socket_caches_the_position_its_first_move_needs(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    # given a process that holds no position of the game (it was created, or last moved, by
    # another worker)
    from games import positions

    move = await a_legal_move(game.pk)
    positions.cache.clear()

    # when the player's socket opens
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(communicator)

    # then the position is cached, so the first move takes the one-statement path
    assert positions.cache.get(game.pk, 0) is not None
    await communicator.send_json_to({"ply": 0, "move": move})
    assert (await receive(communicator))["game"]["ply"] == 1


async def test_opening_the_socket_of_a_damaged_game_still_shows_it(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    # given a game whose row claims a ply its log does not hold
    from games import positions

    await database_sync_to_async(Game.objects.filter(pk=game.pk).update)(ply=3)
    positions.cache.clear()

    # when the socket opens, then the game is shown (a move will report the damage)
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    first = await receive(communicator)
    assert first["type"] == "game" and first["game"]["ply"] == 3
    assert positions.cache.get(game.pk, 3) is None


async def test_a_move_answers_the_new_game_and_rest_agrees(
    alice_socket: Any, game: Game, alice: tuple[Player, str]
) -> None:
    move = await a_legal_move(game.pk)

    await alice_socket.send_json_to({"ply": 0, "move": move})
    message = await receive(alice_socket)

    assert message["type"] == "game"
    assert message["game"]["ply"] == 1
    assert message["game"] == await payload_of(game.pk)
    stored = await database_sync_to_async(lambda: Game.objects.get(pk=game.pk).moves)()
    assert stored == [move]
    if find_spec("games.urls") is not None:
        from rest_framework.test import APIClient

        def rest_get() -> Any:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {alice[1]}")
            return client.get(f"/api/games/{game.pk}/")

        response = await database_sync_to_async(rest_get)()
        assert response.status_code == 200
        assert response.json() == message["game"]
    # the socket that made the move is not sent the same state again by the group
    await nothing_more(game.pk, alice_socket)


async def test_a_stale_ply_is_refused_with_the_server_ply(alice_socket: Any, game: Game) -> None:
    move = await a_legal_move(game.pk)
    await alice_socket.send_json_to({"ply": 0, "move": move})
    await receive(alice_socket)

    await alice_socket.send_json_to({"ply": 0, "move": move})
    message = await receive(alice_socket)

    assert message["type"] == "error"
    assert message["error"] == "stale_ply"
    assert message["ply"] == 1
    assert message["detail"]
    assert (await payload_of(game.pk))["ply"] == 1


async def test_an_illegal_move_is_refused_and_changes_nothing(
    alice_socket: Any, game: Game
) -> None:
    before = await payload_of(game.pk)

    await alice_socket.send_json_to({"ply": 0, "move": ILLEGAL})
    message = await receive(alice_socket)

    assert message["type"] == "error"
    assert message["error"] == "illegal_move"
    assert message["ply"] == 0
    assert await payload_of(game.pk) == before


async def test_resigning_over_the_socket(alice_socket: Any, game: Game) -> None:
    await alice_socket.send_json_to({"type": "resign"})
    message = await receive(alice_socket)

    assert message["type"] == "game"
    assert message["game"]["status"] == "resigned"
    await nothing_more(game.pk, alice_socket)


async def test_a_finished_game_answers_game_over(alice_socket: Any, game: Game) -> None:
    await alice_socket.send_json_to({"type": "resign"})
    await receive(alice_socket)

    await alice_socket.send_json_to({"ply": 0, "move": {"type": "deal"}})
    message = await receive(alice_socket)
    await alice_socket.send_json_to({"type": "resign"})
    again = await receive(alice_socket)

    assert message["type"] == "error"
    assert message["error"] == "game_over"
    assert message["ply"] == 0
    assert again["error"] == "game_over"


@pytest.mark.parametrize(
    "frame",
    [
        b"\x00\x01",
        "not json",
        "[1, 2]",
        '"text"',
        "null",
        "{}",
        '{"ply": 0}',
        '{"move": {"type": "deal"}}',
        '{"ply": "zero", "move": {"type": "deal"}}',
        '{"ply": -1, "move": {"type": "deal"}}',
        '{"ply": true, "move": {"type": "deal"}}',
        '{"ply": 0, "move": {"type": "fly"}}',
        '{"ply": 0, "move": "deal"}',
        '{"ply": 0, "move": {"type": "move", "from": "tableau-0"}}',
        '{"ply": 0, "move": {"type": "move", "from": "nowhere", "to": "x", "count": 1}}',
        '{"type": "dance"}',
        '{"type": 7}',
    ],
)
async def test_a_malformed_frame_is_invalid_and_the_socket_stays_open(
    alice_socket: Any, game: Game, frame: str | bytes
) -> None:
    if isinstance(frame, bytes):
        await alice_socket.send_to(bytes_data=frame)
    else:
        await alice_socket.send_to(text_data=frame)
    message = await receive(alice_socket)

    assert message["type"] == "error"
    assert message["error"] in {"invalid", "illegal_move"}
    if message["error"] == "illegal_move":  # a well-formed move naming no pile of this variant
        assert "nowhere" in frame
    assert message["detail"]
    move = await a_legal_move(game.pk)
    await alice_socket.send_json_to({"ply": 0, "move": move})
    assert (await receive(alice_socket))["game"]["ply"] == 1


# --- pushes -------------------------------------------------------------------------------


async def test_a_move_made_through_the_service_is_pushed(
    alice_socket: Any, game: Game, alice: tuple[Player, str]
) -> None:
    move = await a_legal_move(game.pk)

    await database_sync_to_async(services.game_move)(
        game_id=game.pk, player=alice[0], ply=0, move=move
    )
    message = await receive(alice_socket)

    assert message == {"type": "game", "game": await payload_of(game.pk)}
    assert message["game"]["ply"] == 1


async def test_a_move_on_one_tab_is_pushed_to_the_other(
    ws_connect: Any, alice_socket: Any, game: Game, alice: tuple[Player, str]
) -> None:
    other = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(other)
    move = await a_legal_move(game.pk)

    await alice_socket.send_json_to({"ply": 0, "move": move})
    answer = await receive(alice_socket)
    pushed = await receive(other)

    assert pushed == answer
    await nothing_more(game.pk, alice_socket, other)


async def test_two_sockets_racing_the_same_ply_apply_it_once(
    ws_connect: Any, alice_socket: Any, game: Game, alice: tuple[Player, str]
) -> None:
    other = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(other)
    move = await a_legal_move(game.pk)

    await asyncio.gather(
        alice_socket.send_json_to({"ply": 0, "move": move}),
        other.send_json_to({"ply": 0, "move": move}),
    )

    # each socket is answered, and the loser is also pushed the winner's state
    def answered(read: list[list[dict[str, Any]]]) -> bool:
        errors = sum(m["type"] == "error" for m in read[0] + read[1])
        return errors == 1 and all(any(m["type"] == "game" for m in r) for r in read)

    first, second = await read_until((alice_socket, other), answered)
    await nothing_more(game.pk, alice_socket, other)

    errors = [m for m in first + second if m["type"] == "error"]
    assert [(e["error"], e["ply"]) for e in errors] == [("stale_ply", 1)]
    winner = first if errors[0] in second else second
    assert [m["type"] for m in winner] == ["game"]  # its answer, not pushed again
    assert winner[0]["game"]["ply"] == 1
    loser = second if winner is first else first
    assert [m["game"]["ply"] for m in loser if m["type"] == "game"] == [1]
    stored = await database_sync_to_async(lambda: Game.objects.get(pk=game.pk))()
    log = await database_sync_to_async(lambda: stored.moves)()
    assert (stored.ply, log) == (1, [move])


async def settled(socket: Any) -> None:
    """Return once the socket has done with the frames sent before: it handles its frames one
    at a time, so the answer to one more (a frame it refuses) comes after all of that work."""
    await socket.send_json_to({"type": "settle"})
    assert (await receive(socket))["error"] == "invalid"


async def test_a_move_no_other_tab_watches_sends_no_group_message(
    ws_connect: Any, alice_socket: Any, game: Game, alice: tuple[Player, str], monkeypatch: Any
) -> None:
    # given Alice's only socket of her game, and a record of the pushes to the game's group
    announced = []
    real = pushes.announce_game

    async def announce(payload: dict[str, Any]) -> None:
        announced.append(payload["ply"])
        await real(payload)

    monkeypatch.setattr(pushes, "announce_game", announce)

    # when she moves alone, then with a second tab open, then alone again
    await alice_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    assert (await receive(alice_socket))["game"]["ply"] == 1
    other = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(other))["game"]["ply"] == 1
    await alice_socket.send_json_to({"ply": 1, "move": await a_legal_move(game.pk)})
    answer = await receive(alice_socket)
    assert await receive(other) == answer
    await other.disconnect(timeout=5)
    await alice_socket.send_json_to({"ply": 2, "move": await a_legal_move(game.pk)})
    assert (await receive(alice_socket))["game"]["ply"] == 3
    await settled(alice_socket)

    # then only the move the second tab could see went to the group
    assert announced == [2]


async def test_a_move_is_pushed_when_the_tabs_cannot_be_counted(
    ws_connect: Any, alice_socket: Any, game: Game, settings: Any, monkeypatch: Any
) -> None:
    # given Alice's only socket...
    announced = []
    real = pushes.announce_game

    async def announce(payload: dict[str, Any]) -> None:
        announced.append(payload["ply"])
        await real(payload)

    monkeypatch.setattr(pushes, "announce_game", announce)
    # ... whose count is lost (a key expired, a Redis restarted); while Redis is away
    # altogether, pushes pause instead (tests/games/test_ws_faults.py)
    forget_tab_count(game.pk)

    # when she moves
    await alice_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})

    # then the move is answered, and pushed in doubt
    assert (await receive(alice_socket))["game"]["ply"] == 1
    await settled(alice_socket)
    assert announced == [1]


def forget_tab_count(game_id: str) -> None:
    from core import redis_client
    from games.ws import tabs

    if redis_client.configured():
        redis_client.run(lambda client: client.delete(tabs._key(game_id)), what="a test")
    else:
        tabs._memory._counts.pop(game_id, None)


# --- rate limits --------------------------------------------------------------------------


@override_settings(WEBSOCKET_RATE_LIMITS={"socket": {"frames": 3, "seconds": 60}})
async def test_too_many_frames_on_a_socket_close_it_4429(alice_socket: Any) -> None:
    for _ in range(3):
        await alice_socket.send_to(text_data="{}")
        assert (await receive(alice_socket))["error"] == "invalid"

    await alice_socket.send_to(text_data="{}")
    message = await receive(alice_socket)

    assert message["type"] == "error"
    assert message["error"] == "rate_limited"
    assert message["detail"]
    assert await close_code(alice_socket) == 4429


@override_settings(
    WEBSOCKET_RATE_LIMITS={
        "socket": {"frames": 100, "seconds": 1},
        "player": {"frames": 4, "seconds": 60},
    }
)
async def test_too_many_frames_from_a_player_close_the_socket_4429(
    ws_connect: Any, alice_socket: Any, game: Game, alice: tuple[Player, str]
) -> None:
    other = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(other)
    for communicator in (alice_socket, other, alice_socket, other):
        await communicator.send_to(text_data=json.dumps({"type": "dance"}))
        assert (await receive(communicator))["error"] == "invalid"

    await alice_socket.send_to(text_data="{}")

    assert (await receive(alice_socket))["error"] == "rate_limited"
    assert await close_code(alice_socket) == 4429


async def test_frames_within_the_default_limits_pass(alice_socket: Any) -> None:
    for _ in range(15):
        await alice_socket.send_to(text_data="{}")
    messages = [await receive(alice_socket) for _ in range(15)]

    assert {m["error"] for m in messages} == {"invalid"}


async def test_a_daily_game_left_playing_after_its_day_is_closed_on_connect(
    ws_connect: Any, game: Game, alice: tuple[Player, str]
) -> None:
    tomorrow = clock.now() + dt.timedelta(days=1)

    with clock.frozen(tomorrow):
        communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
        message = await receive(communicator)

    assert message["game"]["status"] == "resigned"
    assert (await payload_of(game.pk))["status"] == "resigned"
