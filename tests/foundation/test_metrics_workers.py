"""``/metrics`` under ``python -m config.serve`` with two workers: whichever worker answers a
scrape, it counts what every worker did (``config.metrics_folder``); a worker that dies takes
its open sockets out of the count and leaves its counters in."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from websockets.asyncio.client import connect

import games.engine as engine
from tests.foundation.conftest import service_env
from tests.foundation.test_metrics import Samples, parse, value

pytestmark = pytest.mark.skipif(
    not django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="two workers share one database: set DATABASE_URL to a PostgreSQL database",
)

WORKERS = 2
GAMES = 12
VARIANT = "box-kite"


def call(base: str, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
    """One REST request on a new connection (a POST when given a body); return its JSON."""
    headers = {"Content-Type": "application/json", "Connection": "close"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(
        urllib.request.Request(base + path, data, headers), timeout=30
    ) as r:
        return json.load(r)


def scrape(base: str) -> Samples:
    request = urllib.request.Request(f"{base}/metrics", headers={"Connection": "close"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return parse(answer.read().decode())


def children_of(supervisor: int) -> list[int]:
    path = Path(f"/proc/{supervisor}/task/{supervisor}/children")
    return [int(pid) for pid in path.read_text().split()] if path.exists() else []


def pids_counting(folder: Path) -> set[int]:
    """The processes that have counted something: the pids of ``counter_<pid>.db``."""
    return {int(path.stem.split("_")[-1]) for path in folder.glob("counter_*.db")}


def wait_for(condition, seconds: float = 30) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition did not hold in time"
        time.sleep(0.1)


async def play_one_move(base: str, game_id: str, seed_text: str, token: str) -> Any:
    """Open the game's socket, play a legal move on it; return the open socket."""
    socket = await connect(base.replace("http", "ws") + f"/ws/games/{game_id}/?token={token}")
    first = json.loads(await asyncio.wait_for(socket.recv(), 10))
    assert first["type"] == "game"
    state = engine.deal(engine.builtin_variant(VARIANT), engine.practice_seed(seed_text))
    move = engine.legal_moves(state)[0].to_json()
    await socket.send(json.dumps({"ply": 0, "move": move}))
    answer = json.loads(await asyncio.wait_for(socket.recv(), 10))
    assert answer["type"] == "game" and answer["game"]["ply"] == 1, answer
    return socket


@pytest.mark.django_db(transaction=True)
def test_every_scrape_counts_every_workers_work(ws_variants, uvicorn, tmp_path) -> None:
    # given two workers sharing a metrics folder left with an earlier run's file
    folder = tmp_path / "metrics"
    folder.mkdir()
    stale = folder / "counter_4242.db"
    stale.write_bytes(b"an earlier run's counts")
    server = uvicorn(
        service_env(
            PROMETHEUS_MULTIPROC_DIR=str(folder),
            WEB_CONCURRENCY=str(WORKERS),
            THROTTLE_AUTH_IP="10000/min",
            THROTTLE_AUTH_IP_HOUR="100000/hour",
            THROTTLE_GAMES_IP="10000/min",
            THROTTLE_GAMES_PLAYER="10000/min",
        ),
        workers=WORKERS,
    )
    assert not stale.exists()  # the supervisor emptied the folder at start
    before = scrape(server.base)

    # when players start games, each request on a new connection (the kernel spreads them)
    players = []
    for index in range(GAMES):
        token = call(server.base, "/api/auth/guest/", {"nickname": f"Counted{index}"})["token"]
        seed_text = f"metrics-{index}"
        body = {"variant": VARIANT, "mode": "practice", "seed": seed_text}
        game = call(server.base, "/api/games/", body, token)
        players.append((game["id"], seed_text, token))
    # and one of them plays a move over the game socket, and keeps it open
    loop = asyncio.new_event_loop()
    try:
        socket = loop.run_until_complete(play_one_move(server.base, *players[0]))

        # then both workers counted, and every scrape, whichever worker answers, has it all
        children = set(children_of(server.process.pid))  # the workers, a resource tracker
        workers = pids_counting(folder) & children
        others = children - workers
        assert len(workers) == WORKERS, server.output()[-2000:]
        # (the socket records a move's duration just after sending its answer)
        wait_for(
            lambda: (
                value(
                    scrape(server.base),
                    "patience_socket_move_duration_seconds_count",
                    path="batched",
                )
                == 1
            )
        )
        labels = {"variant": VARIANT, "mode": "practice"}
        for _ in range(6):
            samples = scrape(server.base)
            started = value(samples, "patience_games_started_total", **labels)
            assert started == value(before, "patience_games_started_total", **labels) + GAMES
            assert value(samples, "patience_moves_total", path="batched") == 1
            assert (
                value(samples, "patience_socket_move_duration_seconds_count", path="batched") == 1
            )
            assert value(samples, "patience_sockets_open", kind="game") == 1
            guests = value(
                samples,
                "patience_http_request_duration_seconds_count",
                route="api-guest",
                status="2xx",
            )
            assert guests == GAMES

        # when every worker is killed (the socket with them) and replaced
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: len(set(children_of(server.process.pid)) - others - workers) == WORKERS)
        wait_for(lambda: _answers(server.base))
        after = scrape(server.base)
        # the killed worker's end closed the socket
        loop.run_until_complete(asyncio.wait_for(socket.wait_closed(), 10))
    finally:
        loop.close()

    # then the dead workers' sockets are gone from the gauge, their counts still there
    assert value(after, "patience_sockets_open", kind="game") == 0
    started = value(after, "patience_games_started_total", **labels)
    assert started == value(before, "patience_games_started_total", **labels) + GAMES


def _answers(base: str) -> bool:
    try:
        scrape(base)
    except OSError:
        return False
    return True
