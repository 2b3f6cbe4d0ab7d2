"""Move latency of a worker's sockets while hints are searched, with and without the hint pool.

Run: ``.venv/bin/python benchmarks/hints.py`` (PostgreSQL and Redis as for ``make load``:
``BENCH_DATABASE_URL``, ``BENCH_REDIS_URL``; ``--seconds`` per phase, ``--port``). For
``HINT_PROCESSES`` = 0 (the search in the request's thread) and then 1 (the pool), it starts one
uvicorn worker, lets ``--players`` sockets play random legal moves of practice games at 4 moves
a second each, and measures their move round trips first alone, then while one client asks
hints back to back on a Box Kite deal the solver does not decide within ``HINT_SECONDS`` (each
hint a full budget of CPU). It prints p50 / p99 per phase. Nothing here is part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from _common import (
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    HOST,
    OUT,
    SERVE,
    percentile,
    prepare_database,
    service_env,
)

import games.engine as engine

MOVER_VARIANT = "quadruple-canfield"
HINT_VARIANT, HINT_SEED = "box-kite", "bench-0"


def rest(port: int, method: str, path: str, token: str = "", body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def guest(port: int, nickname: str) -> str:
    status, body = rest(port, "POST", "/api/auth/guest/", body={"nickname": nickname})
    assert status == 201, body
    return body["token"]


async def mover(port: int, token: str, seed_text: str, stop: float, out: list[float]) -> None:
    """Play random legal moves at 4 a second until ``stop``; append each round trip in ms."""
    import websockets

    body = {"variant": MOVER_VARIANT, "mode": "practice", "seed": seed_text}
    status, game = await asyncio.to_thread(rest, port, "POST", "/api/games/", token, body)
    assert status == 201, game
    state = engine.deal(engine.builtin_variant(MOVER_VARIANT), engine.practice_seed(seed_text))
    url = f"ws://{HOST}:{port}/ws/games/{game['id']}/?token={token}"
    async with websockets.connect(url) as ws:
        await ws.recv()
        ply = 0
        while time.monotonic() < stop:
            options = [m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo)]
            if not options:
                return
            move = options[ply % len(options)]
            sent = time.monotonic()
            await ws.send(json.dumps({"ply": ply, "move": move.to_json()}))
            while True:
                data = json.loads(await ws.recv())
                if data.get("type") == "error":
                    raise RuntimeError(data)
                if data.get("type") == "game" and data["game"]["ply"] == ply + 1:
                    break
            out.append((time.monotonic() - sent) * 1000)
            state, ply = engine.apply_move(state, move), ply + 1
            await asyncio.sleep(max(0.0, 0.25 - (time.monotonic() - sent)))


async def echoer(port: int, stop: float, out: list[float]) -> None:
    """Send a move-sized frame at 4 a second to the echo app until ``stop``; append round trips."""
    import websockets

    frame = json.dumps({"ply": 0, "move": {"type": "move", "from": "tableau-0", "to": "x"}})
    async with websockets.connect(f"ws://{HOST}:{port}/") as ws:
        while time.monotonic() < stop:
            sent = time.monotonic()
            await ws.send(frame)
            await ws.recv()
            out.append((time.monotonic() - sent) * 1000)
            await asyncio.sleep(max(0.0, 0.25 - (time.monotonic() - sent)))


def echo_floor(port: int, players: int, seconds: float, env: dict[str, str]) -> str:
    """Return the round trips of ``players`` sockets on a bare echo app of the same uvicorn."""
    server = start(["benchmarks.echo:app"], port, env, "echo")
    latencies: list[float] = []
    stop = time.monotonic() + seconds

    async def run() -> None:
        await asyncio.gather(*(echoer(port, stop, latencies) for _ in range(players)))

    try:
        asyncio.run(run())
    finally:
        halt(server)
    return f"p50 {percentile(latencies, 50):.1f} ms, p99 {percentile(latencies, 99):.1f} ms"


def start(app: list[str], port: int, env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
    """Start one uvicorn worker serving ``app`` and return once it answers HTTP."""
    log = (OUT / f"hints-{name}.log").open("wb")
    server = subprocess.Popen(
        [*SERVE, *app, "--host", HOST, "--port", str(port)],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=2)
            return server
        except urllib.error.HTTPError:
            return server  # it answers
        except OSError:
            time.sleep(0.3)
    halt(server)
    raise RuntimeError(f"{name} did not start; see its log in {OUT}")


def halt(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:  # a graceful shutdown that waits on a socket
        server.kill()
        server.wait(timeout=10)


def hinter(port: int, token: str, game_id: str, stop: float, answers: list[int]) -> None:
    while time.monotonic() < stop:
        status, _ = rest(port, "GET", f"/api/games/{game_id}/hint/", token)
        answers.append(status)


def phase(port: int, tokens: list[str], seconds: float, hint: tuple[str, str] | None) -> str:
    latencies: list[float] = []
    answers: list[int] = []
    stop = time.monotonic() + seconds
    thread = None
    if hint is not None:
        thread = threading.Thread(target=hinter, args=(port, *hint, stop, answers))
        thread.start()

    async def run() -> None:
        await asyncio.gather(
            *(
                mover(port, t, f"hintbench-{i}-{secrets.token_hex(4)}", stop, latencies)
                for i, t in enumerate(tokens)
            )
        )

    asyncio.run(run())
    if thread is not None:
        thread.join()
    line = (
        f"{len(latencies)} moves, p50 {percentile(latencies, 50):.1f} ms, "
        f"p99 {percentile(latencies, 99):.1f} ms"
    )
    if hint is not None:
        line += f"; hints answered {dict((s, answers.count(s)) for s in sorted(set(answers)))}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--port", type=int, default=8010)
    args = parser.parse_args()
    database = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)
    env = service_env(database, redis_url, secrets.token_hex(32))
    env.update(THROTTLE_HINTS_PLAYER="100000/min", THROTTLE_GAMES_PLAYER="100000/min")
    prepare_database(env)
    OUT.mkdir(parents=True, exist_ok=True)
    floor = echo_floor(args.port, args.players, args.seconds, env)
    print(f"echo floor ({args.players} sockets):  {floor}", flush=True)
    for processes in ("0", "1"):
        server = start(
            ["config.asgi:application"],
            args.port,
            {**env, "HINT_PROCESSES": processes, "HINT_SECONDS": "1"},
            processes,
        )
        try:
            tokens = [guest(args.port, f"mover{processes}x{i}") for i in range(args.players)]
            hint_token = guest(args.port, f"hinter{processes}")
            body = {"variant": HINT_VARIANT, "mode": "practice", "seed": HINT_SEED}
            status, game = rest(args.port, "POST", "/api/games/", hint_token, body)
            assert status == 201, game
            alone = phase(args.port, tokens, args.seconds, None)
            hinted = phase(args.port, tokens, args.seconds, (hint_token, game["id"]))
            print(f"HINT_PROCESSES={processes}  alone:       {alone}")
            print(f"HINT_PROCESSES={processes}  with hints:  {hinted}", flush=True)
        finally:
            halt(server)


if __name__ == "__main__":
    main()
