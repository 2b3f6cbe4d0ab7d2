"""Admission control: a full worker refuses new games and sockets, and serves its players."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from channels.testing import HttpCommunicator

from config.asgi import application
from core import admission
from games.models import Game, Player
from tests.games.sockets import a_legal_move, receive

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def full(settings: Any) -> Any:
    """Return ``full(flag)``: make this worker full (or not) through a watched check."""
    settings.ADMISSION = True
    state = {"full": False}
    admission.watch("a test's load", lambda: state["full"])

    def set_full(flag: bool) -> None:
        state["full"] = flag

    yield set_full
    admission._checks.pop("a test's load", None)


async def http(method: str, path: str, *, body: dict | None = None, **headers: str) -> Any:
    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    raw += [(b"content-type", b"application/json"), (b"host", b"testserver")]
    communicator = HttpCommunicator(
        application, method, path, body=json.dumps(body or {}).encode(), headers=raw
    )
    return await communicator.get_response(timeout=10)


async def through_the_guard(method: str, path: str) -> list[tuple[str, str]]:
    """Send a request through ``AdmissionGuard`` to an app that records what reaches it."""
    reached = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        reached.append((scope["method"], scope["path"]))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = admission.AdmissionGuard(app)
    communicator = HttpCommunicator(guard, method, path)
    assert (await communicator.get_response(timeout=5))["status"] == 200
    return reached


async def test_a_full_worker_refuses_a_new_socket_with_a_delay_then_closes_1011(
    ws_connect: Any, game: Game, alice: tuple[Player, str], full: Any
) -> None:
    full(True)

    socket = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    message = await receive(socket)
    closed = await socket.receive_output(timeout=5)

    assert message["error"] == "unavailable" and message["retry_after"] == 3
    assert "try again in 3 s" in message["detail"]
    assert (closed["type"], closed["code"]) == ("websocket.close", 1011)


async def test_a_full_worker_refuses_a_new_game_with_503_and_retry_after(
    ws_connect: Any, alice: tuple[Player, str], full: Any, settings: Any
) -> None:
    settings.ADMISSION_RETRY_SECONDS = 7
    full(True)

    response = await http(
        "POST",
        "/api/games/",
        body={"variant": "caprice", "mode": "practice"},
        authorization=f"Token {alice[1]}",
    )

    assert response["status"] == 503
    assert dict(response["headers"])[b"retry-after"] == b"7"
    assert json.loads(response["body"]) == {
        "error": "unavailable",
        "detail": "The service is full for the moment; try again in 7 s.",
        "retry_after": 7,
    }


async def test_a_refusal_speaks_the_language_of_the_client(
    ws_connect: Any, alice: tuple[Player, str], full: Any
) -> None:
    full(True)

    french = {"accept-language": "fr"}
    response = await http("POST", "/api/games/", authorization=f"Token {alice[1]}", **french)

    assert "réessayez dans 3 s" in json.loads(response["body"])["detail"]


async def test_a_full_worker_still_serves_its_players_and_other_requests(
    ws_connect: Any, game: Game, alice: tuple[Player, str], full: Any
) -> None:
    socket = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(socket))["game"]["ply"] == 0
    full(True)

    await socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    answer = await receive(socket)
    passed = await through_the_guard("GET", "/api/variants/")

    assert answer["game"]["ply"] == 1
    assert passed == [("GET", "/api/variants/")]


async def test_the_worker_admits_again_once_it_is_no_longer_full(
    ws_connect: Any, game: Game, alice: tuple[Player, str], full: Any
) -> None:
    full(True)
    refused = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    assert (await receive(refused))["error"] == "unavailable"
    await refused.receive_output(timeout=5)

    full(False)
    socket = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")

    assert (await receive(socket))["type"] == "game"


async def test_admission_off_admits_everyone(
    ws_connect: Any, game: Game, alice: tuple[Player, str], full: Any, settings: Any
) -> None:
    settings.ADMISSION = False
    full(True)

    socket = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")

    assert (await receive(socket))["type"] == "game"


async def test_moves_waiting_for_the_database_over_the_limit_make_the_worker_full(
    ws_connect: Any, game: Game, alice: tuple[Player, str], settings: Any
) -> None:
    settings.ADMISSION = True
    settings.ADMISSION_MOVE_BACKLOG = -1  # no move waits: 0 is over it

    refused = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")

    assert (await receive(refused))["error"] == "unavailable"
    await refused.receive_output(timeout=5)
    assert admission.pressure() == "moves waiting for the database over its limit"


async def test_a_loop_that_lagged_makes_the_worker_full_for_a_second(settings: Any) -> None:
    settings.ADMISSION = True
    settings.ADMISSION_LOOP_LAG_MS = 300
    admission.probe()
    await asyncio.sleep(0.15)  # the probe has run
    assert admission.pressure() is None

    time.sleep(0.7)  # the loop is blocked, as by work that hogs it
    await asyncio.sleep(0.01)
    reason = admission.pressure()
    full_then = admission.refusing()
    await asyncio.sleep(admission.WINDOW_SECONDS + 0.2)

    assert reason is not None and reason.startswith("the event loop lags")
    assert full_then is True
    assert admission.pressure() is None
    await admission.stop()


async def test_an_http_request_waiting_for_a_thread_too_long_makes_the_worker_full(
    settings: Any, monkeypatch: Any
) -> None:
    from config.handler import PooledThreadsHandler

    # given a worker whose requests run one at a time, one of them holding its thread
    settings.ADMISSION = True
    settings.ADMISSION_REQUEST_WAIT_MS = 100
    release = asyncio.Event()
    served: list[int] = []

    async def slow(self: Any, scope: Any, receive: Any, send: Any) -> None:
        await release.wait()
        served.append(scope["n"])

    monkeypatch.setattr(PooledThreadsHandler, "handle", slow)
    handler = PooledThreadsHandler(threads=1)

    # when two more requests queue behind it: not full at once, full once they waited too long
    running = [
        asyncio.ensure_future(handler({"type": "http", "method": "POST", "n": n}, None, None))
        for n in range(3)
    ]
    await asyncio.sleep(0.02)
    early = admission.pressure()
    await asyncio.sleep(0.15)
    late = admission.pressure()
    release.set()
    await asyncio.gather(*running)

    # then the worker was full only once a request had waited too long, and is not once served
    assert early is None
    assert late == "HTTP writes' wait for a thread over its limit"
    assert served == [0, 1, 2]
    assert handler.waiting() == 0
    assert admission.pressure() is None
    await admission.stop()
