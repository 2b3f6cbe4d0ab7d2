"""The game socket when the server cannot serve it, and how its work reaches the event loop."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import time
from typing import Any

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import OperationalError, connection
from uvicorn.protocols.utils import ClientDisconnected

from core import ratelimits, redis_client
from games import selectors, services, signals
from games.engine import legal_moves
from games.models import Game, Player
from games.services import batches
from games.ws import auth, base, pushes
from tests.games.sockets import a_legal_move, make_player, receive
from tests.net import free_port

pytestmark = pytest.mark.django_db(transaction=True)


async def refused(communicator: Any) -> tuple[str, int]:
    message = await receive(communicator)
    assert message["type"] == "error" and message["detail"], message
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return message["error"], output["code"]


def database_down(*args: Any, **kwargs: Any) -> Any:
    raise OperationalError("connection refused")


def client_gone(*args: Any, **kwargs: Any) -> Any:
    raise ClientDisconnected()


@pytest.fixture
async def alice_socket(ws_connect: Any, game: Game, alice: tuple[Player, str]) -> Any:
    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(communicator))["type"] == "game"
    return communicator


# --- faults -------------------------------------------------------------------------------


async def test_a_database_down_at_connect_closes_1011(
    ws_connect: Any, game: Game, alice: tuple[Player, str], monkeypatch: Any
) -> None:
    monkeypatch.setattr(selectors, "access_game", database_down)

    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")

    assert await refused(communicator) == ("unavailable", 1011)


async def test_a_database_down_at_the_token_lookup_closes_1011(
    ws_connect: Any, game: Game, alice: tuple[Player, str], monkeypatch: Any
) -> None:
    monkeypatch.setattr(auth, "_lookup_token", database_down)

    communicator = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}", origin=False)

    assert await refused(communicator) == ("unavailable", 1011)


def break_move_path(monkeypatch: Any, path: str, fault: Any) -> None:
    """Have the move path ``path`` (``ordinary``: the loop's batched write; ``locking``: the
    service on a thread) raise what ``fault()`` raises."""
    if path == "ordinary":
        if not batches.applies():
            pytest.skip("the batched move is PostgreSQL's")

        async def execute(self: Any, batch: Any) -> Any:
            fault()

        monkeypatch.setattr(batches.Writer, "_execute", execute)
    else:

        async def declined(**kwargs: Any) -> None:
            return None

        monkeypatch.setattr(services, "move_play", declined)
        monkeypatch.setattr(services, "game_move", lambda **kw: fault())


def database_refuses() -> None:
    raise psycopg.OperationalError("connection refused")


@pytest.mark.parametrize("path", ["ordinary", "locking"])
async def test_a_database_down_during_a_move_closes_1011(
    alice_socket: Any, game: Game, monkeypatch: Any, path: str
) -> None:
    move = await a_legal_move(game.pk)
    break_move_path(monkeypatch, path, database_refuses if path == "ordinary" else database_down)

    await alice_socket.send_json_to({"ply": 0, "move": move})

    assert await refused(alice_socket) == ("unavailable", 1011)


@pytest.mark.parametrize("path", ["ordinary", "locking"])
async def test_a_bug_in_a_move_is_answered_and_the_socket_stays_open(
    alice_socket: Any, game: Game, monkeypatch: Any, path: str
) -> None:
    move = await a_legal_move(game.pk)
    with monkeypatch.context() as broken:
        break_move_path(broken, path, lambda: 1 / 0)
        await alice_socket.send_json_to({"ply": 0, "move": move})
        message = await receive(alice_socket)
    await alice_socket.send_json_to({"ply": 0, "move": move})

    assert message["error"] == "server_error"
    assert (await receive(alice_socket))["game"]["ply"] == 1


@pytest.mark.parametrize("path", ["ordinary", "locking"])
async def test_a_client_gone_before_its_answer_pauses_no_push(
    alice_socket: Any, game: Game, monkeypatch: Any, path: str
) -> None:
    # given: the server sends to a client that closed its socket (uvicorn raises an OSError)
    move = await a_legal_move(game.pk)
    with monkeypatch.context() as broken:
        break_move_path(broken, path, client_gone)
        await alice_socket.send_json_to({"ply": 0, "move": move})
        assert await alice_socket.receive_nothing(timeout=0.5)

    # then: no outage of Redis is taken from it (pushes would pause), and the socket serves on
    assert not redis_client.layer_is_down()
    assert not redis_client.is_down()
    await alice_socket.send_json_to({"ply": 0, "move": move})
    assert (await receive(alice_socket))["game"]["ply"] == 1


class ThrowawayRedis:
    """A Redis of the test's own, as the service's Redis and its channel layer."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(200):
            try:
                redis.Redis.from_url(self.url).ping()
                return
            except redis.ConnectionError:
                time.sleep(0.025)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=5)

    def pause(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)


@pytest.fixture
def throwaway_redis(settings: Any, monkeypatch: Any) -> Any:
    """A Redis of our own as the service's Redis and channel layer; ``kill()`` stops it and
    ``start()`` brings it back empty on the same port. Its breaker is short, for the test."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = ThrowawayRedis()
    settings.REDIS_URL = server.url
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {"address": server.url, "socket_connect_timeout": 0.5, "socket_timeout": 8}
                ]
            },
        }
    }
    monkeypatch.setattr(redis_client, "BREAKER_SECONDS", 0.3)
    monkeypatch.setattr(base, "LAYER_RETRY_SECONDS", 0.1)
    redis_client.reset()
    ratelimits.reset_memory()
    yield server
    server.kill()
    redis_client.reset()


async def receive_until(communicator: Any, wanted: Any, seconds: float = 8.0) -> dict[str, Any]:
    """Return the first message that ``wanted(message)`` accepts, within ``seconds``."""
    async with asyncio.timeout(seconds):
        while True:
            message = await receive(communicator)
            if wanted(message):
                return message


@pytest.mark.parametrize("fault", ["kill", "pause"])
async def test_game_sockets_answer_moves_while_redis_is_down_and_their_pushes_resume(
    ws_connect: Any,
    game: Game,
    alice: tuple[Player, str],
    throwaway_redis: Any,
    caplog: Any,
    fault: str,
) -> None:
    # given two tabs of alice's game and a watcher of its deal
    tab = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    other = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    watcher = await ws_connect(f"/ws/daily/box-kite/{game.deal.date.isoformat()}/")
    assert (await receive(tab))["type"] == "game"
    assert (await receive(other))["type"] == "game"
    assert (await receive(watcher))["type"] == "leaderboard"

    # when Redis dies (or stalls)
    throwaway_redis.kill() if fault == "kill" else throwaway_redis.pause()

    # then moves are answered on the socket at once (the player's limit counted in process)
    for ply in range(2):
        await tab.send_json_to({"ply": ply, "move": await a_legal_move(game.pk)})
        answer = await receive_until(tab, lambda m: m["type"] == "game", seconds=2)
        assert answer["game"]["ply"] == ply + 1

    # and when Redis is back (empty, after a kill), the other tab and the watcher get pushes
    throwaway_redis.start() if fault == "kill" else throwaway_redis.resume()
    await asyncio.sleep(0.5)  # the breaker's pause, then the sockets join their groups again

    async def pushed() -> None:
        await tab.send_json_to({"ply": 2, "move": await a_legal_move(game.pk)})
        assert (await receive_until(tab, lambda m: m["type"] == "game"))["game"]["ply"] == 3
        seen = await receive_until(other, lambda m: m.get("game", {}).get("ply") == 3)
        assert seen["type"] == "game"
        await receive_until(watcher, lambda m: m["type"] == "progress")

    await pushed()  # (a socket that had been closed would have read its close frame)
    # the outage was one line and its end another, with no traceback
    lines = [r for r in caplog.records if r.name == "core.redis_client"]
    assert [r.getMessage().split(" (")[0] for r in lines] == [
        "Redis unreachable",
        "Redis answers again",
    ]
    assert not [r for r in caplog.records if r.exc_info]


async def test_a_watcher_connecting_while_redis_is_down_is_served(
    ws_connect: Any, game: Game, throwaway_redis: Any
) -> None:
    throwaway_redis.kill()

    watcher = await ws_connect(f"/ws/daily/box-kite/{game.deal.date.isoformat()}/")

    assert (await receive(watcher))["type"] == "leaderboard"
    assert (await receive(watcher)) == {"type": "presence", "playing": 0}


# --- how the work is done -----------------------------------------------------------------


async def test_the_answer_is_sent_before_the_push_to_other_tabs(
    ws_connect: Any, alice_socket: Any, game: Game, alice: tuple[Player, str], monkeypatch: Any
) -> None:
    other_tab = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(other_tab))["type"] == "game"
    seen = []
    real = pushes.announce_game

    async def announce(payload: dict[str, Any]) -> None:
        seen.append((payload["ply"], alice_socket.output_queue.qsize()))
        await real(payload)

    monkeypatch.setattr(pushes, "announce_game", announce)

    await alice_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    async with asyncio.timeout(5):
        while not seen:
            await asyncio.sleep(0.01)
    answer = await receive(alice_socket)

    assert answer["game"]["ply"] == 1
    assert seen == [(1, 1)]  # announced once, with the answer already out


async def test_a_change_announced_in_a_worker_thread_does_not_wait_for_the_push(
    ws_connect: Any, alice_socket: Any, game: Game, monkeypatch: Any
) -> None:
    release = asyncio.Event()
    real = pushes.announce_game

    async def slow_announce(payload: dict[str, Any]) -> None:
        await release.wait()
        await real(payload)

    monkeypatch.setattr(pushes, "announce_game", slow_announce)
    stored = await database_sync_to_async(
        lambda: Game.objects.select_related("variant", "deal", "player").get(pk=game.pk)
    )()
    stored.ply = 7  # a state the socket has not been sent

    # it returns while the push still waits on the loop (async_to_sync would deadlock here)
    await asyncio.wait_for(
        database_sync_to_async(signals.send)(signals.game_changed, game=stored), timeout=5
    )
    release.set()

    assert (await receive(alice_socket))["game"]["ply"] == 7


async def test_the_player_limit_is_one_hit_per_frame(
    alice_socket: Any, game: Game, monkeypatch: Any
) -> None:
    keys = []
    real = ratelimits.ahit

    async def counting_hit(key: str, **kwargs: Any) -> Any:
        keys.append(key)
        return await real(key, **kwargs)

    monkeypatch.setattr(ratelimits, "ahit", counting_hit)

    await alice_socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    await receive(alice_socket)
    await alice_socket.send_to(text_data="{}")
    await receive(alice_socket)

    assert len(keys) == 2 and len(set(keys)) == 1


async def test_many_moves_on_many_sockets_hold_a_bounded_number_of_connections(
    ws_connect: Any, ws_variants: Any, settings: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL sessions")
    from games.ws.base import DATABASE_THREADS

    settings.WEBSOCKET_RATE_LIMITS = {}

    def sessions() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            )
            return cursor.fetchone()[0]

    def begin(index: int) -> tuple[str, str]:
        player, token = make_player(f"player{index}")
        game, _ = services.game_start(
            player=player, variant="box-kite", mode="practice", seed=f"bounded-{index}"
        )
        return game.pk, token

    before = await database_sync_to_async(sessions)()
    games = [await database_sync_to_async(begin)(index) for index in range(6)]
    sockets = [await ws_connect(f"/ws/games/{pk}/?token={token}") for pk, token in games]
    for socket in sockets:
        await receive(socket)

    @database_sync_to_async
    def any_legal_move(game_id: str) -> dict[str, Any] | None:
        legal = legal_moves(services.engine_state(Game.objects.get(pk=game_id)))
        return legal[0].to_json() if legal else None

    async def play(socket: Any, game_id: str) -> int:
        ply = 0
        for _ in range(8):
            move = await any_legal_move(game_id)
            if move is None:  # a random deal can leave no move
                break
            await socket.send_json_to({"ply": ply, "move": move})
            answer = await receive(socket)
            ply = answer["game"]["ply"] if answer["type"] == "game" else ply
        return ply

    plies = await asyncio.gather(*(play(s, pk) for s, (pk, _) in zip(sockets, games, strict=True)))
    after = await database_sync_to_async(sessions)()

    assert min(plies) >= 1
    # The socket threads' connections come from the pool when there is one (the pool's size
    # then bounds them), else one per thread.
    pool = connection.settings_dict.get("OPTIONS", {}).get("pool")
    bound = pool["max_size"] if isinstance(pool, dict) else DATABASE_THREADS
    assert after <= before + bound + 2


async def test_token_lookups_are_cached_and_a_deactivated_player_loses_access_after_the_ttl(
    ws_connect: Any, game: Game, alice: tuple[Player, str], monkeypatch: Any
) -> None:
    lookups = []
    real = auth._lookup_token

    def counting_lookup(key: str) -> Any:
        lookups.append(key)
        return real(key)

    monkeypatch.setattr(auth, "_lookup_token", counting_lookup)
    path = f"/ws/games/{game.pk}/?token={alice[1]}"
    for _ in range(3):
        assert (await receive(await ws_connect(path)))["type"] == "game"
    assert len(lookups) == 1  # one query for three sockets

    def deactivate() -> None:
        Player.objects.filter(pk=alice[0].pk).update(is_active=False)

    await database_sync_to_async(deactivate)()
    assert (await receive(await ws_connect(path)))["type"] == "game"  # within the TTL
    monkeypatch.setattr(auth, "TOKEN_CACHE_SECONDS", 0.0)
    auth.forget_tokens()  # as if the TTL had run out

    assert await refused(await ws_connect(path)) == ("not_authenticated", 4403)
