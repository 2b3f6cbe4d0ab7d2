"""In-process CPU per move: the move service alone, then the game socket end to end.

Run: ``make movepath`` (or ``.venv/bin/python benchmarks/movepath.py``). It empties and migrates
the benchmark database (``BENCH_DATABASE_URL``, ``BENCH_REDIS_URL`` as for ``make load``), starts
``--games`` practice games of one guest and plays ``--plies`` legal moves in each, chosen
beforehand by the engine (no undo, no winning move), round-robin over the games:

- ``service``: ``games.services.game_move`` and the GAME payload, as the socket's worker thread
  runs them (pushes collected, not sent);
- ``socket``: the same moves as frames on ``ws/games/<id>/`` sockets of the ASGI application
  (Channels' in-process communicator: no network, but the real Redis channel layer, rate limits
  and worker threads), the games' sockets playing concurrently.

It prints the CPU seconds of this process (every thread) per move and the wall time per move of
each phase. ``--profile`` writes cProfile statistics of each phase to ``var/bench/``. CPU per move
is the figure to read on a loaded machine: it does not count time spent waiting. Nothing here is
part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import random
import secrets
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

from _common import DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, OUT, prepare_database, service_env

import games.engine as engine

VARIANT = "quadruple-canfield"  # about 40 legal moves a position, rarely stuck


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games played at once (20)")
    parser.add_argument("--plies", type=int, default=60, help="moves per game and phase (60)")
    parser.add_argument("--skip", nargs="*", default=[], help="phases: service socket")
    parser.add_argument("--profile", action="store_true", help="cProfile each phase")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL"))
    args = parser.parse_args()
    args.database_url = args.database_url or DEFAULT_DATABASE_URL
    args.redis_url = args.redis_url or DEFAULT_REDIS_URL
    return args


def line_of(seed_text: str, plies: int, rng: random.Random) -> list[dict[str, Any]]:
    """Return up to ``plies`` legal moves from the deal of ``seed_text`` (no undo, no win)."""
    state = engine.deal(engine.builtin_variant(VARIANT), engine.practice_seed(seed_text))
    moves: list[dict[str, Any]] = []
    while len(moves) < plies:
        options = [m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo)]
        options = [m for m in options if not engine.apply_move(state, m).won]
        if not options:
            break
        move = rng.choice(options)
        state = engine.apply_move(state, move)
        moves.append(move.to_json())
    return moves


def new_games(count: int, plies: int, rng: random.Random) -> tuple[Any, str, list[Any]]:
    """Start ``count`` practice games of one new guest; return it, its token and the games
    with their lines of moves."""
    from games import services

    player = services.player_create_guest(nickname=f"bench{secrets.token_hex(3)}")
    token = services.player_token(player=player)
    started = []
    for index in range(count):
        text = f"movepath-{index}-{secrets.token_hex(4)}"
        game, _ = services.game_start(player=player, variant=VARIANT, mode="practice", seed=text)
        started.append((game.pk, line_of(text, plies, rng)))
    return player, token, started


def service_phase(player: Any, started: list[Any]) -> tuple[int, float, float]:
    """Play every line through the service; return moves, CPU seconds and wall seconds."""
    from games import services
    from games.payloads import game_payload
    from games.ws import pushes

    moves, cpu, wall = 0, 0.0, 0.0
    longest = max(len(line) for _, line in started)
    for ply in range(longest):
        for game_id, line in started:
            if ply >= len(line):
                continue
            c0, w0 = time.process_time(), time.perf_counter()
            with pushes.collecting():
                game = services.game_move(game_id=game_id, player=player, ply=ply, move=line[ply])
                game_payload(game)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            moves += 1
    return moves, cpu, wall


async def socket_phase(token: str, started: list[Any]) -> tuple[int, float, float]:
    """Play every line over the game sockets; return moves, CPU seconds and wall seconds."""
    from channels.layers import get_channel_layer
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    headers = [(b"authorization", f"Token {token}".encode())]
    sockets = []
    for game_id, _ in started:
        communicator = WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers)
        connected, _ = await communicator.connect(timeout=10)
        if not connected:
            raise SystemExit(f"the socket of game {game_id} was refused")
        first = await communicator.receive_json_from(timeout=10)
        sockets.append((communicator, first["game"]["ply"]))

    async def play(communicator: Any, start: int, line: list[Any]) -> int:
        for ply in range(start, len(line)):
            await communicator.send_json_to({"ply": ply, "move": line[ply]})
            answer = await communicator.receive_json_from(timeout=30)
            if answer.get("type") != "game":
                raise SystemExit(f"move {ply} was refused: {json.dumps(answer)}")
        return len(line) - start

    c0, w0 = time.process_time(), time.perf_counter()
    counts = await asyncio.gather(
        *(
            play(communicator, start, line)
            for (communicator, start), (_, line) in zip(sockets, started, strict=True)
        )
    )
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    for communicator, _ in sockets:
        await communicator.disconnect(timeout=10)
    layer = get_channel_layer()
    if hasattr(layer, "close_pools"):
        await layer.close_pools()
    return sum(counts), cpu, wall


def run_profiled(name: str, profile: bool, call: Any) -> Any:
    if not profile:
        return call()
    profiler = cProfile.Profile()
    outcome = profiler.runcall(call)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"movepath-{name}.pstats"
    profiler.dump_stats(path)
    stats = pstats.Stats(str(path))
    stats.sort_stats("cumulative").print_stats(30)
    return outcome


def main() -> None:
    args = parse_args()
    env = service_env(args.database_url, args.redis_url, secrets.token_hex(16))
    env["DEBUG"] = "false"
    print(f"preparing {args.database_url} and {args.redis_url} ...", flush=True)
    prepare_database(env)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    rng = random.Random(8)
    rows = []
    if "service" not in args.skip:
        player, _, started = new_games(args.games, args.plies, rng)
        moves, cpu, wall = run_profiled(
            "service", args.profile, lambda: service_phase(player, started)
        )
        rows.append(("service (game_move + payload)", moves, cpu, wall))
    if "socket" not in args.skip:
        _, token, started = new_games(args.games, args.plies, rng)
        moves, cpu, wall = run_profiled(
            "socket", args.profile, lambda: asyncio.run(socket_phase(token, started))
        )
        rows.append((f"socket ({args.games} games at once)", moves, cpu, wall))
    print(f"load average before the last phase: {os.getloadavg()[0]:.2f}")
    print("| phase | moves | CPU per move | wall per move |")
    print("| --- | --- | --- | --- |")
    for name, moves, cpu, wall in rows:
        print(f"| {name} | {moves} | {cpu / moves * 1000:.2f} ms | {wall / moves * 1000:.2f} ms |")


if __name__ == "__main__":
    main()
