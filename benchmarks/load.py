"""Load benchmark of the service: each figure beside a floor measured in the same run.

Run: ``make load`` (or ``.venv/bin/python benchmarks/load.py``; ``--quick`` for a smoke run of
a few minutes). It migrates the benchmark database, measures the floors (pgbench's single-row
INSERT rate, a bare echo socket served by the same uvicorn, a trivial JSON view), starts the
service as production runs it (``python -m config.serve config.asgi:application --workers 2``:
uvicorn with a listening socket per worker, on PostgreSQL and Redis, ``DEBUG=false``, fresh
secrets), then measures over the public API only (docs/api.md):

1. closed loop: N = 50 and N = 200 players each sending its next move as soon as the answer to
   the last came (practice games, legal moves computed client-side by the engine from the
   deal's seed), ``--runs`` consecutive runs each, with py-spy on both workers during the first
   run at N = 50 (``--gil``: only the thread holding the interpreter lock is sampled);
2. paced: N = 250 … 4,000 players each making one move a second (``--paced``, ``--pace``), set up
   before the window (game starts per second reported), each line of moves computed before the
   go, beside an echo socket at the same N and pace; served / offered, p99 / echo p99, errors
   and ``unavailable`` refusals, server CPU per move, the clients' own CPU;
3. the rollover: ``--rollover`` fresh players arriving evenly within ``--rollover-window``
   seconds, each from the home page to its first move answered on today's daily deal,
   honouring ``retry_after`` (``_rollover.py``);
4. daily players moving, first alone, then watched by 1,000 sockets on their deal (py-spy);
5. 10,000 idle daily sockets: connect rate, and REST p99 while they are held;

and prints ``figure | value | floor | ratio | target | ok``. Paced players (and echo sockets)
start at a random point of their interval, so they are not in step (in step, every worker got
its players' frames in one burst, and the echo floor measured that burst). Nothing here is part
of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import random
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

import _clients
import _rollover
import frames
from _common import (
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    HOST,
    OUT,
    ConnectionPeak,
    Figure,
    Server,
    http_json,
    log,
    percentile,
    pgbench_inserts,
    prepare_database,
    print_table,
    raise_open_files,
    request_latencies,
    service_env,
)

import games.engine as engine

PRACTICE_VARIANT = "quadruple-canfield"  # about 40 legal moves a position, rarely stuck
DAILY_PREFERENCE = ("quadruple-canfield", "castile", "caprice", "box-kite", "capricieuse")
TRIVIAL_PATH = "/api/variants/"  # one small query, no auth: the cheapest JSON view there is
REST_PATH = "/api/daily/"
PHASES = ("moves", "paced", "rollover", "daily", "idle", "soak")
# A soak's memory levels off when its last half grows the workers' RSS by less than this many KB
# per thousand moves (about 0.2 KB per move, 200 KB per 1,000, before the caches were bounded).
SOAK_FLAT_KB = 20.0
# Targets of the crowd (docs/benchmarks.md): a paced N is served when its clients get at least
# this share of the moves they offer, with move p99 at most this multiple of the echo p99 and no
# error; CPU per move at most CPU_TARGET_MS.
SERVED_SHARE = 0.95
P99_OVER_ECHO = 10
CPU_TARGET_MS = 0.6
SETUP_RNG = random.Random()
FLAT_AT = 2000  # "flat cost": CPU per move at this N against the smallest paced N


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts, seconds per phase")
    parser.add_argument(
        "--players", type=int, nargs="+", help="N of the closed-loop move phases (50 200)"
    )
    parser.add_argument("--runs", type=int, help="consecutive closed-loop runs at each N (3)")
    parser.add_argument(
        "--paced", type=int, nargs="*", help="N of the paced phases (250 500 1000 2000 4000)"
    )
    parser.add_argument("--pace", type=float, default=1.0, help="moves/s a paced player (1)")
    parser.add_argument(
        "--sockets-per-client",
        type=int,
        default=1000,
        help="most game sockets one client process holds; more processes past it (1000)",
    )
    parser.add_argument(
        "--setup-concurrency", type=int, default=8, help="set-up requests at a time (8)"
    )
    parser.add_argument("--rollover", type=int, help="fresh players at the rollover (2000)")
    parser.add_argument("--rollover-window", type=float, help="seconds they arrive in, evenly (10)")
    parser.add_argument(
        "--rollover-variant", default="caprice", help="the daily deal they start (caprice)"
    )
    parser.add_argument(
        "--patience",
        type=float,
        default=60.0,
        help="seconds after arriving a rollover player keeps retrying (60)",
    )
    parser.add_argument("--duration", type=float, help="seconds of each measured phase (30)")
    parser.add_argument(
        "--soak", type=float, default=0, help="minutes of the soak: paced players, RSS sampled (0)"
    )
    parser.add_argument("--soak-players", type=int, default=200, help="players of the soak (200)")
    parser.add_argument("--idle", type=int, help="idle daily sockets to hold (10000)")
    parser.add_argument("--watchers", type=int, help="watchers of one deal (1000)")
    parser.add_argument("--watch-players", type=int, help="daily players while watched (50)")
    parser.add_argument(
        "--player-rate", type=float, default=4.5, help="max moves/s a watched daily player"
    )
    parser.add_argument("--clients", type=int, default=2, help="client processes per phase")
    port = int(os.environ.get("BENCH_PORT", "8330"))
    parser.add_argument("--port", type=int, default=port, help="the service's (BENCH_PORT, 8330)")
    parser.add_argument("--echo-port", type=int, default=port + 1, help="the echo app's (port + 1)")
    parser.add_argument(
        "--origin", action="store_true", help="send a browser's Origin header on the sockets"
    )
    parser.add_argument(
        "--conn-max-age",
        default="0",
        help="CONN_MAX_AGE of the service (0, which the connection pool requires; with "
        "DATABASE_POOL=false a positive value lets every thread keep a connection)",
    )
    parser.add_argument("--no-profile", action="store_true", help="skip py-spy")
    parser.add_argument(
        "--frames",
        action="store_true",
        help="time every move frame's stages in the workers (benchmarks/framehook, frames.py)",
    )
    parser.add_argument("--skip", nargs="*", default=[], choices=PHASES, help="phases to leave out")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL"))
    args = parser.parse_args()
    quick = args.quick
    args.players = args.players or ([10, 40] if quick else [50, 200])
    args.runs = args.runs or 3
    if args.paced is None:
        args.paced = [25, 50] if quick else [250, 500, 1000, 2000, 4000]
    args.duration = args.duration or (5.0 if quick else 30.0)
    args.rollover = args.rollover if args.rollover is not None else (100 if quick else 2000)
    args.rollover_window = args.rollover_window or (5.0 if quick else 10.0)
    args.idle = args.idle if args.idle is not None else (500 if quick else 10_000)
    args.watchers = args.watchers if args.watchers is not None else (100 if quick else 1000)
    args.watch_players = args.watch_players or (10 if quick else 50)
    args.pgbench_seconds = 3 if quick else 10
    args.database_url = args.database_url or DEFAULT_DATABASE_URL
    args.redis_url = args.redis_url or DEFAULT_REDIS_URL
    return args


def split(items: list[Any], parts: int) -> list[list[Any]]:
    parts = max(1, min(parts, len(items)))
    return [items[i::parts] for i in range(parts)]


def collect(queue: Any, kind: str, count: int, timeout: float) -> list[Any]:
    """Take ``count`` messages of ``kind`` off the queue within ``timeout`` seconds."""
    found: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(found) < count:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"{len(found)} of {count} client processes reported {kind}")
        got_kind, payload = queue.get(timeout=left)
        if got_kind == kind:
            found.append(payload)
    return found


def join(processes: list[Any]) -> None:
    for process in processes:
        process.join(timeout=30)
        if process.is_alive():
            process.kill()


def merge(reports: list[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {
        **_clients.new_report(),
        "lags": [],
        "client_cpu": 0.0,
        "client_shares": [],
    }
    for report in reports:
        merged["moves"] += report.get("moves", 0)
        merged["sent"] += report.get("sent", 0)
        merged["errors"].update(report.get("errors", {}))
        merged["unavailable"].update(report.get("unavailable", {}))
        for key in ("latencies", "retry_after", "stamps", "lags"):
            merged[key] += report.get(key, [])
        merged["client_cpu"] += report.get("client_cpu", 0.0)
        if report.get("client_elapsed"):
            merged["client_shares"].append(report["client_cpu"] / report["client_elapsed"])
    return merged


def client_load(merged: dict[str, Any]) -> dict[str, float]:
    """The busiest client process's CPU share (cores) and the clients' event-loop lag p99."""
    return {
        "client_max": max(merged["client_shares"], default=math.nan),
        "lag_p99": percentile(merged["lags"], 99),
    }


CLIENT_BOUND_SHARE = 0.8  # a client process past this share of a core may hold the figures back


def client_bound(load: dict[str, float]) -> bool:
    """Tell whether a client process was busy enough to hold the figures back. (Its event
    loop's lag alone does not tell: it also grows when the service takes both cores.)"""
    return load["client_max"] >= CLIENT_BOUND_SHARE


# --- set-up through the API ---------------------------------------------------------------------


async def make_players(
    base: str,
    count: int,
    mode: str,
    slug: str,
    run: str,
    daily: dict[str, Any] | None = None,
    stats: dict[str, Any] | None = None,
    concurrency: int = 8,
) -> list[_clients.PlayerSpec]:
    """Create ``count`` guests, then one game each (``mode`` practice or daily) over REST,
    ``concurrency`` requests at a time. ``stats`` gets each pass's rate (guests/s, game
    starts/s), the game starts' p50 and p99, and the refusals by status."""
    import aiohttp

    gate = asyncio.Semaphore(concurrency)
    daily_seed = daily_deal_seed(daily) if daily else b""
    refusals: Counter[str] = Counter()
    examples: list[str] = []
    starts: list[float] = []

    async def call(
        session: aiohttp.ClientSession,
        url: str,
        body: Callable[[int], Any],
        token: str | None,
        ok: tuple[int, ...],
    ) -> tuple[Any, Any]:
        """Send one set-up request (``body(attempt)``), trying again after a refusal or a lost
        answer as a refused client would (after retry_after x (1 + random)); return the body
        sent and the answer, None when it never came."""
        for attempt in range(5):
            async with gate:
                started = time.monotonic()
                try:
                    status, answer = await http_json(session, "POST", url, body(attempt), token)
                except (aiohttp.ClientError, TimeoutError) as error:
                    status, answer = type(error).__name__, None
                if status in ok:
                    if "/games/" in url:
                        starts.append((time.monotonic() - started) * 1000)
                    return body(attempt), answer
            refusals[str(status)] += 1
            if len(examples) < 3:
                examples.append(f"{status} {str(answer)[:100]}")
            refusal = answer if isinstance(answer, dict) else None
            await asyncio.sleep(_clients.retry_delay(refusal, SETUP_RNG))
        return None, None

    async def guest(session: aiohttp.ClientSession, index: int) -> tuple[str, str] | None:
        # A sign-up whose answer was lost may have happened: each attempt a new nickname.
        def body(attempt: int) -> dict[str, str]:
            return {"nickname": f"b{run}{mode[0]}{index}" + (f"r{attempt}" if attempt else "")}

        sent, answer = await call(session, base + "/api/auth/guest/", body, None, (201,))
        return (sent["nickname"], answer["token"]) if answer else None

    async def game(session: aiohttp.ClientSession, index: int, nickname: str, token: str) -> None:
        seed_text = f"bench-{run}-{index}"
        request: dict[str, Any] = {"variant": slug, "mode": mode}
        if mode == "practice":
            request["seed"] = seed_text
        _sent, answer = await call(
            session, base + "/api/games/", lambda _attempt: request, token, (200, 201)
        )
        if answer is None:
            return
        seed = engine.practice_seed(seed_text) if mode == "practice" else daily_seed
        specs.append(
            _clients.PlayerSpec(nickname, token, answer["id"], slug, mode, seed, seed_text)
        )

    specs: list[_clients.PlayerSpec] = []
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        started = time.monotonic()
        guests = await asyncio.gather(*(guest(session, i) for i in range(count)))
        guests_done = time.monotonic()
        await asyncio.gather(
            *(game(session, i, *made) for i, made in enumerate(guests) if made is not None)
        )
        games_done = time.monotonic()
    if refusals:
        log(f"  set-up refusals {dict(refusals)}, e.g. {examples[0]}")
    if stats is not None:
        made = sum(guest is not None for guest in guests)
        stats.update(
            guests=made,
            guests_rate=made / max(1e-9, guests_done - started),
            games=len(specs),
            games_rate=len(specs) / max(1e-9, games_done - guests_done),
            start_p50=percentile(starts, 50),
            start_p99=percentile(starts, 99),
            refusals=dict(refusals),
        )
    if not specs:
        raise RuntimeError(f"no player could be set up: {examples}")
    specs.sort(key=lambda spec: spec.nickname)
    return specs


def daily_deal_seed(daily: dict[str, Any]) -> bytes:
    """Re-derive today's seed of a daily deal from the secret this benchmark gave the server
    (docs/deals.md), checked against the deal's published commitment."""
    secret = os.environ["BENCH_DEAL_SECRET"]
    attempts = [daily.get("attempt") or 0, *range(50)]
    for attempt in attempts:
        seed = engine.daily_seed(secret, daily["variant"], daily["date"], attempt)
        if engine.commitment(seed) == daily["commitment"]:
            return seed
    raise RuntimeError(f"no attempt of {daily['variant']} matches its commitment")


async def today_deals(base: str) -> list[dict[str, Any]]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        status, body = await http_json(session, "GET", base + REST_PATH)
    if status != 200:
        raise RuntimeError(f"GET {REST_PATH}: {status}")
    return body


# --- phases -------------------------------------------------------------------------------------


def run_players(
    server: Server,
    specs: list[_clients.PlayerSpec],
    phase: _clients.Phase,
    clients: int,
    profile_to: Path | None = None,
    alongside: tuple[list[Any], Any, Any, Any] | None = None,
) -> dict[str, Any]:
    """Play ``specs`` for the phase's duration; return moves/s, latencies, errors, CPU/move."""
    # Beside other client processes, share their go and release but not their queue.
    events = (_clients.new_events()[0], *alongside[2:]) if alongside else None
    processes, queue, go, release = _clients.spawn(
        _clients.players_process, [(share, phase) for share in split(specs, clients)], events
    )
    peak = ConnectionPeak(server.env["DATABASE_URL"])
    peak.__enter__()
    try:
        ready = collect(queue, "ready", len(processes), 180 + len(specs) / 20)
        log(f"  {sum(ready)} of {len(specs)} players connected")
        profiler = start_profile(server, phase.duration, profile_to) if profile_to else None
        cpu_before = server.cpu()
        go.set()
        started = time.monotonic()
        time.sleep(phase.duration)
        cpu = server.cpu() - cpu_before
        elapsed = time.monotonic() - started
        if alongside:
            release.set()
        reports = collect(queue, "result", len(processes), 60 + _clients.ANSWER_TIMEOUT)
    finally:
        go.set()
        release.set()
        join(processes)
        peak.__exit__()
    merged = merge(reports)
    merged["db_connections"] = peak.peak
    # Carry the games' progress over to the next phase of the same players.
    played = {spec.nickname: spec for report in reports for spec in report.get("specs", [])}
    specs[:] = [played.get(spec.nickname, spec) for spec in specs]
    if profile_to and profiler is not None:
        finish_profile(profiler, profile_to)
    moves = merged["moves"]
    merged.update(
        rate=moves / elapsed,
        sent_rate=merged["sent"] / elapsed,
        p50=percentile(merged["latencies"], 50),
        p99=percentile(merged["latencies"], 99),
        cpu_ms=cpu * 1000 / moves if moves else math.nan,
        cpu_share=cpu / elapsed,
        client_share=merged["client_cpu"] / elapsed,
        error_count=sum(merged["errors"].values()),
        unavailable_count=sum(merged["unavailable"].values()),
        connected=sum(ready),
        clients=len(processes),
        **client_load(merged),
    )
    return merged


def echo_floor(
    args: argparse.Namespace, env: dict[str, str], sockets: int, rate: float
) -> dict[str, Any]:
    """Serve the echo app, measure ``sockets`` echo sockets at ``rate`` frames/s each (0: as
    fast as answers come) and the bare HTTP answer, and stop it."""
    echo = Server("benchmarks.echo:app", args.echo_port, env, name="echo")
    echo.start(ready_path="/")
    try:
        floor = echo_run(args, sockets, rate, args.clients)
        floor["http"] = asyncio.run(request_latencies(echo.base, "/", 2000, 8, args.duration))
    finally:
        echo.stop()
    return floor


def echo_run(args: argparse.Namespace, sockets: int, rate: float, clients: int) -> dict[str, Any]:
    """Ping-pong on ``sockets`` sockets of the echo app already served on ``--echo-port``."""
    phase = _clients.Phase(
        port=args.echo_port, duration=args.duration, player_rate=rate, seed=sockets
    )
    shares = [(n, phase) for n in split_count(sockets, clients)]
    processes, queue, go, _release = _clients.spawn(_clients.echo_process, shares)
    try:
        connected = sum(collect(queue, "ready", len(processes), 60 + sockets / 50))
        go.set()
        reports = collect(queue, "result", len(processes), args.duration + 60)
    finally:
        go.set()
        join(processes)
    merged = merge(reports)
    return {
        "p50": percentile(merged["latencies"], 50),
        "p99": percentile(merged["latencies"], 99),
        "rate": merged["moves"] / args.duration,
        "connected": connected,
        "errors": dict(merged["errors"]),
        **client_load(merged),
    }


def split_count(total: int, parts: int) -> list[int]:
    parts = max(1, min(parts, total))
    return [total // parts + (i < total % parts) for i in range(parts)]


PROFILE_SECONDS = 15
PROFILE_RATE = 200  # samples a second

# Layers of the move path, matched against py-spy's frames ("function (path:line)"). A sample
# counts inclusively in every layer with a frame on its stack (shares overlap), and exclusively in
# the layer of its innermost matching frame ("leaf").
PROFILE_LAYERS = (
    ("JSON (json, DRF renderers)", ("(json/", "rest_framework/renderers")),
    ("psycopg + pool", ("(psycopg/", "(psycopg_pool/")),
    ("Redis client (redis-py)", ("(redis/",)),
    ("channel layer (channels_redis)", ("(channels_redis/",)),
    (
        "ORM compile (as_sql, compile, setup)",
        (
            "Compiler.as_sql",
            "Compiler.compile",
            "Compiler.pre_sql_setup",
            "Compiler.setup_query",
            "Compiler.get_select",
            "Compiler.field_as_sql",
        ),
    ),
    ("ORM (django/db: queryset, model, backend)", ("(django/db/",)),
    ("rules engine", ("(games/engine/",)),
    (
        "service (games/services, leaderboards)",
        ("(games/services", "(games/verification", "(leaderboards/"),
    ),
    (
        "socket layer (games/ws, channels, uvicorn ws)",
        ("(games/ws/", "(channels/", "protocols/websockets", "(websockets/"),
    ),
    ("asgiref sync/async hops", ("(asgiref/",)),
    ("HTTP (Django handlers, DRF views)", ("(django/core/handlers", "(rest_framework/views")),
)


def frame_layer(frame: str) -> str | None:
    for name, keys in PROFILE_LAYERS:
        if any(key in frame for key in keys):
            return name
    return None


def start_profile(
    server: Server, duration: float, path: Path
) -> list[subprocess.Popen[bytes]] | None:
    """Record every worker with py-spy (raw format) for up to 15 s of the phase."""
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        log("  py-spy is missing: pip install -e '.[bench]'")
        return None
    seconds = str(max(1, int(min(PROFILE_SECONDS, duration))))
    profilers = []
    for index, pid in enumerate(server.worker_pids()):
        out = path.with_name(f"{path.stem}-{index}.txt")
        out.unlink(missing_ok=True)
        command = [
            py_spy,
            "record",
            "--gil",
            "--format",
            "raw",
            "-r",
            str(PROFILE_RATE),
            "-p",
            str(pid),
        ]
        command += ["-d", seconds, "-o", str(out), "--nonblocking"]
        profilers.append(
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
    return profilers


def finish_profile(profilers: list[subprocess.Popen[bytes]], path: Path) -> None:
    """Wait for the recorders and merge their files into ``path``."""
    for profiler in profilers:
        try:
            profiler.wait(timeout=60)
        except subprocess.TimeoutExpired:
            profiler.kill()
    parts = sorted(path.parent.glob(f"{path.stem}-*.txt"))
    path.write_text("".join(part.read_text() for part in parts if part.exists()))


def summarise_profile(path: Path, top: int = 12) -> str:
    """Return the heaviest frames of a py-spy raw (collapsed) profile: the layers' inclusive
    shares, then self and inclusive time by frame."""
    if not path.exists():
        return "(no profile)"
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    layers: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = stack.split(";")
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
        found = [frame_layer(frame) for frame in frames]
        for name in set(found) - {None}:
            layers[name] += count
        leaf = next((name for name in reversed(found) if name), "other (event loop, threads)")
        leaves[leaf] += count
    if not total:
        return "(empty profile)"
    workers = len(list(path.parent.glob(f"{path.stem}-*.txt"))) or 1
    lines = [f"py-spy: {total} samples of {workers} worker(s), {PROFILE_RATE}/s", ""]
    lines += ["share by layer: inclusive (overlapping) / leaf (innermost layer, sums to 100%):"]
    names = [name for name, _keys in PROFILE_LAYERS] + ["other (event loop, threads)"]
    lines += [
        f"  {100 * layers[name] / total:5.1f}% / {100 * leaves[name] / total:5.1f}%  {name}"
        for name in names
    ]
    lines += ["", "self time:"]
    lines += [f"  {100 * n / total:5.1f}%  {frame}" for frame, n in own.most_common(top)]
    lines += ["", "inclusive (project and Django frames):"]
    interesting = [
        (frame, n)
        for frame, n in inclusive.most_common()
        if any(key in frame for key in ("games/", "leaderboards/", "config/", "django/", "redis"))
    ]
    lines += [f"  {100 * n / total:5.1f}%  {frame}" for frame, n in interesting[: top * 2]]
    return "\n".join(lines)


def moves_phase(
    args: argparse.Namespace, server: Server, run: str, n: int, profile: Path | None
) -> list[dict[str, Any]]:
    """N players as fast as answers come, ``--runs`` consecutive runs on the same games."""
    log(f"moves: creating {n} players with practice games of {PRACTICE_VARIANT}")
    specs = asyncio.run(make_players(server.base, n, "practice", PRACTICE_VARIANT, f"{run}n{n}"))
    runs = []
    for index in range(args.runs):
        phase = _clients.Phase(
            port=args.port,
            duration=args.duration,
            origin=args.origin,
            player_rate=0,  # closed loop: the next move as soon as the answer comes
            seed=n * 100 + index,
        )
        result = run_players(
            server, specs, phase, args.clients, profile_to=profile if index == 0 else None
        )
        log(
            f"  N={n} run {index + 1}: {result['rate']:.1f} moves/s, p50 {result['p50']:.1f} "
            f"ms, p99 {result['p99']:.1f} ms, errors {dict(result['errors'])}, unavailable "
            f"{dict(result['unavailable'])}, {result['cpu_ms']:.2f} ms CPU/move"
        )
        runs.append(result)
    return runs


def paced_phase(
    args: argparse.Namespace, server: Server, env: dict[str, str], run: str
) -> dict[int, dict[str, Any]]:
    """Players at a person's pace, N rising; beside each N, the echo socket at the same N and
    pace, served by the same uvicorn (started once for the phase)."""
    echo = Server("benchmarks.echo:app", args.echo_port, env, name="echo")
    echo.start(ready_path="/")
    results: dict[int, dict[str, Any]] = {}
    try:
        for n in args.paced:
            results[n] = paced_run(args, server, run, n)
    finally:
        echo.stop()
    return results


def paced_run(args: argparse.Namespace, server: Server, run: str, n: int) -> dict[str, Any]:
    clients = max(args.clients, math.ceil(n / args.sockets_per_client))
    log(f"paced N={n}: {n} guests, then a practice game each ({args.setup_concurrency} at a time)")
    setup: dict[str, Any] = {}
    specs = asyncio.run(
        make_players(
            server.base,
            n,
            "practice",
            PRACTICE_VARIANT,
            f"{run}p{n}",
            stats=setup,
            concurrency=args.setup_concurrency,
        )
    )
    log(
        f"  {setup['guests']} guests at {setup['guests_rate']:.0f}/s, {setup['games']} game "
        f"starts at {setup['games_rate']:.0f}/s (p99 {setup['start_p99']:.0f} ms)"
    )
    floor = echo_run(args, n, args.pace, clients)
    log(f"  echo at N={n}, {args.pace:g}/s each: p50 {floor['p50']:.2f} ms, p99 {floor['p99']:.2f}")
    phase = _clients.Phase(
        port=args.port,
        duration=args.duration,
        origin=args.origin,
        player_rate=args.pace,
        seed=n,
        line=math.ceil(args.duration * args.pace) + 5,  # computed before the go
        connect_concurrency=32,
    )
    result = run_players(server, specs, phase, clients)
    result.update(offered=n * args.pace, setup=setup, echo=floor, n=n)
    result["served_share"] = result["rate"] / result["offered"]
    result["served"] = (
        result["served_share"] >= SERVED_SHARE
        and result["p99"] <= P99_OVER_ECHO * floor["p99"]
        and result["error_count"] + result["unavailable_count"] == 0
    )
    log(
        f"  N={n}: offered {result['offered']:.0f}/s, served {result['rate']:.1f}/s "
        f"({result['served_share']:.2f}x), p50 {result['p50']:.1f} ms, p99 {result['p99']:.1f} "
        f"ms ({result['p99'] / floor['p99']:.1f}x echo), errors {dict(result['errors'])}, "
        f"unavailable {dict(result['unavailable'])}, {result['cpu_ms']:.2f} ms CPU/move; "
        f"{clients} client processes, busiest {result['client_max']:.2f} core, loop lag p99 "
        f"{result['lag_p99']:.0f} ms"
    )
    if client_bound(result) or client_bound(floor):
        log(
            f"  the clients may be the bottleneck at N={n}: a client process used "
            f"{max(result['client_max'], floor['client_max']):.2f} of a core "
            f"(--sockets-per-client {args.sockets_per_client})"
        )
    return result


def rollover_phase(args: argparse.Namespace, server: Server, run: str) -> dict[str, Any]:
    """Fresh players arriving evenly within the window, each to its first move answered."""
    deals = asyncio.run(today_deals(server.base))  # made ahead, as the scheduler does
    by_slug = {d["variant"]: d for d in deals}
    slug = args.rollover_variant if args.rollover_variant in by_slug else deals[0]["variant"]
    state = engine.deal(engine.builtin_variant(slug), daily_deal_seed(by_slug[slug]))
    first = next(m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo))
    n, window = args.rollover, args.rollover_window
    plan = _rollover.Rollover(args.port, run, slug, first.to_json(), args.patience, args.origin)
    arrivals = [(index, window * index / n) for index in range(n)]
    clients = max(args.clients, math.ceil(n / args.sockets_per_client))
    log(f"rollover: {n} fresh players on today's {slug} within {window:g} s")
    shares = [(share, plan) for share in split(arrivals, clients)]
    processes, queue, go, release = _clients.spawn(_rollover.rollover_process, shares)
    try:
        collect(queue, "ready", len(processes), 60)
        cpu_before = server.cpu()
        started = time.monotonic()
        go.set()
        reports = collect(queue, "result", len(processes), window + args.patience + 180)
        elapsed = time.monotonic() - started
        cpu = server.cpu() - cpu_before
    finally:
        go.set()
        release.set()
        join(processes)
    steps: dict[str, dict[str, Any]] = {}
    for step in _rollover.STEPS:
        records = [r["steps"][step] for r in reports]
        errors: Counter[str] = Counter()
        for record in records:
            errors.update(record["errors"])
        latencies = [x for record in records for x in record["latencies"]]
        steps[step] = {
            "ok": sum(record["ok"] for record in records),
            "errors": dict(errors),
            "error_count": sum(errors.values()),
            "retries": sum(record["retries"] for record in records),
            "p50": percentile(latencies, 50),
            "p99": percentile(latencies, 99),
        }
    gave_up: Counter[str] = Counter()
    for r in reports:
        gave_up.update(r["gave_up"])
    waits = [x for r in reports for x in r["to_first_move"]]
    merged = merge(reports)
    result = {
        "slug": slug,
        "players": sum(r["players"] for r in reports),
        "through": sum(r["through"] for r in reports),
        "through_after_retry": sum(r["through_after_retry"] for r in reports),
        "gave_up": dict(gave_up),
        "steps": steps,
        "error_count": sum(s["error_count"] for s in steps.values()),
        "retries": sum(s["retries"] for s in steps.values()),
        "retry_after": percentile(merged["retry_after"], 50),
        "retry_after_count": len(merged["retry_after"]),
        "p50": percentile(waits, 50),
        "p99": percentile(waits, 99),
        "elapsed": elapsed,
        "cpu_share": cpu / elapsed,
        "clients": len(processes),
        **client_load(merged),
    }
    log(
        f"  {result['through']} of {n} reached their first move (after a retry: "
        f"{result['through_after_retry']}); arrival to first move p50 {result['p50']:.0f} ms, "
        f"p99 {result['p99']:.0f} ms; errors {result['error_count']}, retries "
        f"{result['retries']}; gave up {dict(gave_up)}"
    )
    if client_bound(result):
        log(f"  the clients may be the bottleneck: one used {result['client_max']:.2f} of a core")
    for step, record in steps.items():
        log(
            f"    {step}: {record['ok']} ok, errors {record['errors']}, retries "
            f"{record['retries']}, p50 {record['p50']:.0f} ms, p99 {record['p99']:.0f} ms"
        )
    return result


def daily_phase(args: argparse.Namespace, server: Server, run: str) -> dict[str, Any]:
    deals = asyncio.run(today_deals(server.base))
    by_slug = {d["variant"]: d for d in deals}
    slug = next((s for s in DAILY_PREFERENCE if s in by_slug), deals[0]["variant"])
    daily = by_slug[slug]
    path = f"/ws/daily/{slug}/{daily['date']}/"
    n = args.watch_players
    log(f"daily: {n} players on {slug} {daily['date']}, then with {args.watchers} watchers")
    specs = asyncio.run(make_players(server.base, n, "daily", slug, run, daily))
    phase = _clients.Phase(
        port=args.port,
        duration=args.duration,
        origin=args.origin,
        player_rate=args.player_rate,
        stamps=True,
        seed=1,
    )
    alone = run_players(server, specs, phase, args.clients)
    log(f"  alone: {alone['rate']:.1f} moves/s, errors {dict(alone['errors'])}")

    watch = _clients.Phase(port=args.port, duration=args.duration, origin=args.origin)
    watch.extra = {"concurrency": 50, "sample": 25, "connect_budget": 120, "hold": 300}
    events = _clients.new_events()
    shares = [(count, path, watch) for count in split_count(args.watchers, args.clients)]
    watchers, queue, go, release = _clients.spawn(_clients.daily_process, shares, events)
    try:
        connected = sum(collect(queue, "ready", len(watchers), 300))
        log(f"  {connected} watchers connected")
        phase.seed = 2
        watch_profile = None if args.no_profile else OUT / "pyspy-watch.txt"
        if watch_profile is not None:
            watch_profile.unlink(missing_ok=True)
        watched = run_players(
            server,
            specs,
            phase,
            args.clients,
            profile_to=watch_profile,
            alongside=(watchers, *events),
        )
        watch_reports = collect(queue, "result", len(watchers), 120)
    finally:
        go.set()
        release.set()
        join(watchers)
    messages = sum(sum(r["messages"].values()) for r in watch_reports)
    window = max(r.get("window", args.duration) for r in watch_reports) or args.duration
    answered = {(p, ply): t for p, ply, t in watched["stamps"]}
    delays = [
        (t - answered[(p, ply)]) * 1000
        for r in watch_reports
        for p, ply, t in r["seen"]
        if (p, ply) in answered
    ]
    by_type: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for r in watch_reports:
        by_type.update(r["messages"])
        errors.update(r["errors"])
    result = {
        "slug": slug,
        "alone": alone,
        "watched": watched,
        "watchers": connected,
        "per_watcher_s": messages / max(1, connected) / window,
        "delay_p50": percentile(delays, 50),
        "delay_p99": percentile(delays, 99),
        "delays": len(delays),
        "progress_seen": sum(1 for r in watch_reports for _ in r["seen"]),
        "by_type": dict(by_type),
        "watch_errors": dict(errors),
    }
    log(
        f"  watched: {watched['rate']:.1f} moves/s; {result['per_watcher_s']:.2f} msg/s per "
        f"watcher {dict(by_type)}; delivery p99 {result['delay_p99']:.0f} ms over "
        f"{len(delays)} deliveries; watcher errors {dict(errors)}"
    )
    return result


def idle_phase(args: argparse.Namespace, server: Server) -> dict[str, Any]:
    deals = asyncio.run(today_deals(server.base))
    slug, date = deals[0]["variant"], deals[0]["date"]
    path = f"/ws/daily/{slug}/{date}/"
    samples = 200 if args.quick else 600
    time.sleep(5)  # let the work queued by the previous phase drain before the baseline
    before = asyncio.run(request_latencies(server.base, REST_PATH, samples, 4, 60))
    log(f"idle: GET {REST_PATH} before: p99 {before['p99']:.1f} ms; opening {args.idle} sockets")
    phase = _clients.Phase(port=args.port, duration=5, origin=args.origin)
    clients = max(args.clients, math.ceil(args.idle / 4000))
    phase.extra = {"concurrency": 64, "connect_budget": 180, "hold": 300}
    shares = [(count, path, phase) for count in split_count(args.idle, clients)]
    processes, queue, go, release = _clients.spawn(_clients.daily_process, shares)
    try:
        connected = sum(collect(queue, "ready", len(processes), 180 + 60))
        log(f"  {connected} idle sockets connected; measuring GET {REST_PATH} while held")
        during = asyncio.run(request_latencies(server.base, REST_PATH, samples, 4, 60))
        go.set()
        time.sleep(phase.duration)
        release.set()
        reports = collect(queue, "result", len(processes), 120)
    finally:
        go.set()
        release.set()
        join(processes)
    first = min(r["first_start"] for r in reports)
    last = max((r["last_done"] for r in reports if r["last_done"]), default=first)
    errors: Counter[str] = Counter()
    for r in reports:
        errors.update(r["errors"])
    result = {
        "connected": connected,
        "rate": connected / (last - first) if last > first else math.nan,
        "connect_p99": percentile([t for r in reports for t in r["connect_times"]], 99),
        "before": before,
        "during": during,
        "errors": dict(errors),
        "messages": sum(sum(r["messages"].values()) for r in reports),
    }
    log(
        f"  connect {result['rate']:.0f}/s, REST p99 {before['p99']:.1f} -> "
        f"{during['p99']:.1f} ms, errors {dict(errors)}"
    )
    return result


# --- the table ----------------------------------------------------------------------------------


def rss_mb(pids: list[int]) -> list[float]:
    """Return the resident memory of each process, in MB (0 for one that is gone)."""
    sizes = []
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            sizes.append(0.0)
            continue
        kb = next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
        sizes.append(kb / 1024)
    return sizes


def soak_phase(args: argparse.Namespace, server: Server, run: str) -> dict[str, Any]:
    """``--soak-players`` players at a person's pace for ``--soak`` minutes, a fresh practice
    game each every minute (so the service meets new games as a day does); the workers' resident
    memory after each minute. Memory levels off when the last half of the run grows it by less
    than SOAK_FLAT_KB per thousand moves."""
    n = args.soak_players
    clients = max(args.clients, math.ceil(n / args.sockets_per_client))
    samples: list[dict[str, Any]] = []
    pids = server.worker_pids()
    start = rss_mb(pids)
    log(f"soak: {n} players at {args.pace:g}/s for {args.soak:g} min; RSS {start} MB")
    moves = errors = 0
    minute = 0
    while minute < args.soak:
        minute += 1
        specs = asyncio.run(
            make_players(
                server.base,
                n,
                "practice",
                PRACTICE_VARIANT,
                f"{run}s{minute}",
                concurrency=args.setup_concurrency,
            )
        )
        phase = _clients.Phase(
            port=args.port,
            duration=60.0,
            origin=args.origin,
            player_rate=args.pace,
            seed=minute,
            line=math.ceil(60 * args.pace) + 5,
            connect_concurrency=32,
        )
        result = run_players(server, specs, phase, clients)
        moves += result["moves"]
        errors += result["error_count"] + result["unavailable_count"]
        sizes = rss_mb(pids)
        samples.append({"minute": minute, "moves": moves, "rss_mb": sizes, "p99": result["p99"]})
        log(
            f"  minute {minute}: {moves} moves, errors {errors}, p99 {result['p99']:.0f} ms, "
            f"RSS {[round(s, 1) for s in sizes]} MB"
        )
    half = samples[len(samples) // 2 :] if len(samples) >= 2 else samples
    growth_kb = (sum(half[-1]["rss_mb"]) - sum(half[0]["rss_mb"])) * 1024
    per_thousand = growth_kb / max(1, (half[-1]["moves"] - half[0]["moves"]) / 1000)
    levels_off = per_thousand < SOAK_FLAT_KB
    log(
        f"  last half: {growth_kb:.0f} KB over {half[-1]['moves'] - half[0]['moves']} moves, "
        f"{per_thousand:.1f} KB per 1,000 moves: {'levels off' if levels_off else 'still growing'}"
    )
    return {
        "players": n,
        "minutes": args.soak,
        "moves": moves,
        "errors": errors,
        "start_rss_mb": start,
        "samples": samples,
        "last_half_kb_per_1000_moves": per_thousand,
        "levels_off": levels_off,
    }


def figures(
    args: argparse.Namespace, floors: dict[str, Any], results: dict[str, Any]
) -> list[Figure]:
    pg8 = floors["pgbench_8"]
    echo = floors["echo"]
    rows = [
        Figure("pgbench INSERT/s, 1 client", floors["pgbench_1"], "/s"),
        Figure("pgbench INSERT/s, 8 clients", pg8, "/s"),
        Figure(f"echo socket p50 (N={args.players[0]}, closed loop)", echo["p50"], "ms"),
        Figure(f"echo socket p99 (N={args.players[0]}, closed loop)", echo["p99"], "ms"),
        Figure(f"echo socket frames/s (N={args.players[0]}, closed loop)", echo["rate"], "/s"),
        Figure(
            "  echo: busiest client process CPU",
            echo["client_max"],
            "cores",
            target=f"< {CLIENT_BOUND_SHARE}",
            ok=not client_bound(echo),
        ),
        Figure("echo HTTP req/s", echo["http"]["rate"], "/s"),
        Figure(
            f"GET {TRIVIAL_PATH} req/s",
            floors["trivial"]["rate"],
            "/s",
            echo["http"]["rate"],
            "echo HTTP",
        ),
        Figure(f"GET {TRIVIAL_PATH} p99", floors["trivial"]["p99"], "ms"),
    ]
    rows += closed_figures(args, floors, results.get("moves", {}))
    rows += paced_figures(results.get("paced", {}))
    if "rollover" in results:
        rows += rollover_figures(args, results["rollover"])
    if "daily" in results:
        d = results["daily"]
        alone, watched = d["alone"], d["watched"]
        rows.append(Figure(f"daily moves/s, {args.watch_players} players", alone["rate"], "/s"))
        rows.append(Figure("  errors, no watchers", alone["error_count"], "", target="0"))
        rows.append(Figure("  errors, watched", watched["error_count"], "", target="0"))
        rows.append(
            Figure(
                f"  with {d['watchers']} watchers",
                watched["rate"],
                "/s",
                alone["rate"],
                "no watchers",
                ">= 0.9x",
                watched["rate"] >= 0.9 * alone["rate"],
            )
        )
        ok = d["per_watcher_s"] <= 2
        rows.append(
            Figure("messages/s per watcher", d["per_watcher_s"], "/s", None, "", "<= 2", ok)
        )
        rows.append(
            Figure(
                "watcher delivery p99",
                d["delay_p99"],
                "ms",
                echo["p99"],
                "echo p99",
                "<= 1000 ms",
                d["delay_p99"] <= 1000 if not math.isnan(d["delay_p99"]) else False,
            )
        )
        rows.append(Figure("watcher delivery p50", d["delay_p50"], "ms", echo["p50"], "echo p50"))
    if "idle" in results:
        i = results["idle"]
        rows.append(
            Figure(
                "idle sockets held",
                i["connected"],
                "",
                args.idle,
                "asked",
                "all",
                i["connected"] == args.idle,
            )
        )
        rows.append(
            Figure("idle connect rate", i["rate"], "/s", None, "", ">= 300/s", i["rate"] >= 300)
        )
        during, before = i["during"]["p99"], i["before"]["p99"]
        rows.append(
            Figure(
                f"GET {REST_PATH} p99 while held",
                during,
                "ms",
                before,
                "before",
                "<= 1.5x",
                during <= 1.5 * before,
            )
        )
        rows.append(Figure(f"GET {REST_PATH} errors while held", i["during"]["failures"], ""))
    return rows


def closed_figures(
    args: argparse.Namespace, floors: dict[str, Any], moves: dict[int, list[dict[str, Any]]]
) -> list[Figure]:
    pg8, echo = floors["pgbench_8"], floors["echo"]
    small = args.players[0]
    rows = []
    for n, runs in moves.items():
        for index, res in enumerate(runs, 1):
            name = f"closed N={n} run {index}"
            ok = res["rate"] >= 0.25 * pg8
            rows.append(Figure(f"{name}: moves/s", res["rate"], "/s", pg8, "pgbench 8c"))
            rows[-1].target, rows[-1].ok = ">= 0.25x", ok
            rows.append(Figure(f"{name}: move p99", res["p99"], "ms", echo["p99"], "echo p99"))
            if n == small:
                rows[-1].target = f"<= {P99_OVER_ECHO}x"
                rows[-1].ok = res["p99"] <= P99_OVER_ECHO * echo["p99"]
        first = runs[0]
        errors = sum(r["error_count"] + r["unavailable_count"] for r in runs)
        rows.append(Figure(f"closed N={n}: move p50 (run 1)", first["p50"], "ms", echo["p50"]))
        rows[-1].floor_name = "echo p50"
        rows.append(Figure(f"closed N={n}: errors, all runs", errors, "", target="0"))
        rows[-1].ok = errors == 0
        cpu = statistics.median(r["cpu_ms"] for r in runs)
        rows.append(Figure(f"closed N={n}: server CPU/move (median)", cpu, "ms"))
        rows[-1].target, rows[-1].ok = f"<= {CPU_TARGET_MS} ms", cpu <= CPU_TARGET_MS
        rows.append(Figure(f"closed N={n}: server CPU used", first["cpu_share"], "cores"))
        rows.append(Figure(f"closed N={n}: client CPU used", first["client_share"], "cores"))
        rows.append(Figure(f"closed N={n}: PostgreSQL connections", first["db_connections"], ""))
    if len(moves) > 1:
        n_small, n_large = min(moves), max(moves)
        small_runs, large_runs = moves[n_small], moves[n_large]
        low = statistics.median(r["rate"] for r in small_runs)
        high = statistics.median(r["rate"] for r in large_runs)
        rows.append(
            Figure(
                f"closed moves/s N={n_large} (median of runs)",
                high,
                "/s",
                low,
                f"N={n_small}",
                ">= 1x",
                high >= low,
            )
        )
    return rows


def paced_figures(paced: dict[int, dict[str, Any]]) -> list[Figure]:
    rows = []
    for n, res in paced.items():
        echo, setup = res["echo"], res["setup"]
        name = f"paced N={n}"
        rows.append(Figure(f"{name}: game starts/s (set-up)", setup["games_rate"], "/s"))
        rows.append(Figure(f"{name}: moves/s offered", res["offered"], "/s"))
        rows.append(
            Figure(
                f"{name}: moves/s served",
                res["rate"],
                "/s",
                res["offered"],
                "offered",
                f">= {SERVED_SHARE}x",
                res["served_share"] >= SERVED_SHARE,
            )
        )
        rows.append(Figure(f"{name}: move p50", res["p50"], "ms", echo["p50"], "echo p50"))
        rows.append(
            Figure(
                f"{name}: move p99",
                res["p99"],
                "ms",
                echo["p99"],
                "echo p99",
                f"<= {P99_OVER_ECHO}x",
                res["p99"] <= P99_OVER_ECHO * echo["p99"],
            )
        )
        rows.append(Figure(f"{name}: errors", res["error_count"], "", target="0"))
        rows[-1].ok = res["error_count"] == 0
        rows.append(Figure(f"{name}: unavailable refusals", res["unavailable_count"], ""))
        rows[-1].target, rows[-1].ok = "0", res["unavailable_count"] == 0
        rows.append(Figure(f"{name}: server CPU/move", res["cpu_ms"], "ms"))
        rows[-1].target, rows[-1].ok = f"<= {CPU_TARGET_MS} ms", res["cpu_ms"] <= CPU_TARGET_MS
        rows.append(Figure(f"{name}: server CPU used", res["cpu_share"], "cores"))
        client_ok = not client_bound(res)
        rows.append(
            Figure(
                f"{name}: busiest client process CPU ({res['clients']} processes)",
                res["client_max"],
                "cores",
                target=f"< {CLIENT_BOUND_SHARE}",
                ok=client_ok,
            )
        )
        rows.append(Figure(f"{name}: clients' CPU, all processes", res["client_share"], "cores"))
        rows.append(Figure(f"{name}: client event-loop lag p99", res["lag_p99"], "ms"))
    if not paced:
        return rows
    ns = sorted(paced)
    served = [n for n in ns if paced[n]["served"]]
    largest = max(served, default=0)
    rows.append(Figure("paced: largest N served", largest, "", target=f">= {FLAT_AT}"))
    rows[-1].ok = largest >= FLAT_AT
    peak = max(paced[n]["rate"] for n in ns)
    last = paced[ns[-1]]["rate"]
    rows.append(
        Figure(
            f"no collapse: served at N={ns[-1]}",
            last,
            "/s",
            peak,
            "peak served",
            ">= 0.9x",
            last >= 0.9 * peak,
        )
    )
    at = FLAT_AT if FLAT_AT in paced else ns[-1]
    if at != ns[0]:
        cost, base = paced[at]["cpu_ms"], paced[ns[0]]["cpu_ms"]
        rows.append(
            Figure(
                f"flat cost: CPU/move at N={at}",
                cost,
                "ms",
                base,
                f"N={ns[0]}",
                "<= 1.2x",
                cost <= 1.2 * base,
            )
        )
    return rows


def rollover_figures(args: argparse.Namespace, roll: dict[str, Any]) -> list[Figure]:
    n = args.rollover
    rows = [
        Figure(
            f"rollover: players to first move ({roll['slug']}, {args.rollover_window:g} s)",
            roll["through"],
            "",
            n,
            "arrived",
            "all",
            roll["through"] == n,
        ),
        Figure("rollover: of them after a retry", roll["through_after_retry"], ""),
        Figure("rollover: arrival to first move p50", roll["p50"], "ms", target="-", ok=None),
        Figure(
            "rollover: arrival to first move p99",
            roll["p99"],
            "ms",
            target="<= 2000 ms",
            ok=roll["p99"] <= 2000,
        ),
        Figure("rollover: errors, all steps", roll["error_count"], "", target="0"),
        Figure("rollover: retries, all steps", roll["retries"], ""),
    ]
    rows[4].ok = roll["error_count"] == 0
    for step, record in roll["steps"].items():
        rows.append(Figure(f"rollover {step}: errors", record["error_count"], "", target="0"))
        rows[-1].ok = record["error_count"] == 0
    if roll["retry_after_count"]:
        rows.append(Figure("rollover: retry_after asked (median)", roll["retry_after"], "s"))
    rows.append(Figure("rollover: server CPU used", roll["cpu_share"], "cores"))
    rows.append(Figure("rollover: busiest client process CPU", roll["client_max"], "cores"))
    rows[-1].target, rows[-1].ok = f"< {CLIENT_BOUND_SHARE}", not client_bound(roll)
    return rows


def main() -> int:
    args = parse_args()
    raise_open_files()
    run = secrets.token_hex(3)
    deal_secret = secrets.token_urlsafe(32)
    os.environ["BENCH_DEAL_SECRET"] = deal_secret
    env = service_env(args.database_url, args.redis_url, deal_secret)
    env["CONN_MAX_AGE"] = str(args.conn_max_age)
    OUT.mkdir(parents=True, exist_ok=True)
    log(f"preparing {args.database_url}")
    prepare_database(env)

    floors: dict[str, Any] = {}
    log(f"floor: pgbench -c 1 and -c 8, -T {args.pgbench_seconds}")
    floors["pgbench_1"] = pgbench_inserts(args.database_url, 1, args.pgbench_seconds)
    floors["pgbench_8"] = pgbench_inserts(args.database_url, 8, args.pgbench_seconds)
    log(f"  {floors['pgbench_1']:.0f} and {floors['pgbench_8']:.0f} INSERT/s")
    echo_sockets = args.players[0]
    log(
        f"floor: echo socket, {echo_sockets} sockets as fast as answers come, {args.duration:.0f} s"
    )
    floors["echo"] = echo_floor(args, env, echo_sockets, 0)
    log(f"  echo p50 {floors['echo']['p50']:.2f} ms, p99 {floors['echo']['p99']:.2f} ms")

    served_env = dict(env)  # the service's, with the frame hook when asked for
    frames_prefix = OUT / "frames"
    if args.frames:
        for old_file in OUT.glob("frames.*"):
            old_file.unlink()
        hook = str(Path(__file__).resolve().parent / "framehook")
        served_env["PYTHONPATH"] = os.pathsep.join(filter(None, [hook, env.get("PYTHONPATH")]))
        served_env["FRAME_TIMING_OUT"] = str(frames_prefix)
    server = Server("config.asgi:application", args.port, served_env)
    results: dict[str, Any] = {}
    profile_path = OUT / "pyspy-move.txt"
    profile_path.unlink(missing_ok=True)
    log(f"starting the service on {HOST}:{args.port} with 2 workers")
    server.start()
    try:
        floors["trivial"] = asyncio.run(
            request_latencies(server.base, TRIVIAL_PATH, 3000, 8, args.duration)
        )
        log(f"floor: GET {TRIVIAL_PATH} {floors['trivial']['rate']:.0f} req/s")
        if "moves" not in args.skip:
            results["moves"] = {}
            for n in args.players:
                profile = None
                if n == args.players[0] and not args.no_profile:
                    profile = profile_path
                results["moves"][n] = moves_phase(args, server, run, n, profile)
        if "paced" not in args.skip and args.paced:
            results["paced"] = paced_phase(args, server, env, run)
        if "rollover" not in args.skip and args.rollover:
            results["rollover"] = rollover_phase(args, server, run)
        if "daily" not in args.skip and args.watchers:
            results["daily"] = daily_phase(args, server, run)
        if "idle" not in args.skip and args.idle:
            results["idle"] = idle_phase(args, server)
        if "soak" not in args.skip and args.soak:
            results["soak"] = soak_phase(args, server, run)
    finally:
        server.stop()
        log("service stopped")

    title = f"load benchmark {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC"
    title += " (quick)" if args.quick else ""
    table = print_table(figures(args, floors, results), title)
    profile_summary = f"moves, N = {args.players[0]}:\n" + summarise_profile(profile_path)
    watch_path = OUT / "pyspy-watch.txt"
    if "daily" in results and watch_path.exists():
        profile_summary += "\n\ndaily players with watchers:\n" + summarise_profile(watch_path)
    print("\n" + profile_summary)
    details = error_details(results)
    print("\n" + details)
    if "daily" in results:
        d = results["daily"]
        alone, watched = dict(d["alone"]["errors"]), dict(d["watched"]["errors"])
        print(f"daily move errors: {alone}, watched {watched}")
        print(f"watcher messages by type: {d['by_type']}; watcher errors: {d['watch_errors']}")
    if "idle" in results:
        print(f"idle socket errors: {results['idle']['errors']}")
    if "soak" in results:
        s = results["soak"]
        lines = [
            f"soak: {s['players']} players, {s['minutes']:g} min, {s['moves']} moves, "
            f"{s['errors']} errors; workers' RSS at the start {s['start_rss_mb']} MB",
            "| minute | moves | RSS per worker (MB) | move p99 |",
            "| --- | --- | --- | --- |",
            *(
                f"| {x['minute']} | {x['moves']} | {', '.join(f'{m:.1f}' for m in x['rss_mb'])} "
                f"| {x['p99']:.0f} ms |"
                for x in s["samples"]
            ),
            f"last half: {s['last_half_kb_per_1000_moves']:.1f} KB per 1,000 moves "
            f"({'levels off' if s['levels_off'] else 'still growing'}; flat below "
            f"{SOAK_FLAT_KB:g})",
        ]
        print("\n" + "\n".join(lines))
        profile_summary += "\n\n" + "\n".join(lines)
    if args.frames:  # as the workers last wrote them, once a second
        timings = "frame timings (benchmarks/frames.py):\n" + frames.summarise(str(frames_prefix))
        print("\n" + timings)
        profile_summary += "\n\n" + timings
    (OUT / "load.md").write_text(table + "\n\n" + details + "\n\n" + profile_summary + "\n")
    raw = {"floors": floors, "results": strip(results), "args": vars(args)}
    (OUT / "load.json").write_text(json.dumps(raw, indent=1, default=str))
    return 0


def error_details(results: dict[str, Any]) -> str:
    """Say what went wrong, by code: the moves' errors, the ``unavailable`` refusals apart
    (where they came: at the handshake, on a move, on reconnecting) with the ``retry_after``
    asked, and the rollover's steps."""
    lines = []
    for n, runs in results.get("moves", {}).items():
        errors = [dict(r["errors"]) for r in runs]
        refused = [dict(r["unavailable"]) for r in runs]
        lines.append(f"closed N={n}: errors by run {errors}; unavailable {refused}")
    for n, r in results.get("paced", {}).items():
        asked = (
            f" (retry_after median {percentile(r['retry_after'], 50):g} s)"
            if r["retry_after"]
            else ""
        )
        lines.append(
            f"paced N={n}: {r['connected']} of {n} players connected, sent "
            f"{r['sent_rate']:.1f} moves/s; errors {dict(r['errors'])}; unavailable "
            f"{dict(r['unavailable'])}{asked}; set-up: "
            f"{r['setup']['guests_rate']:.0f} guests/s, game start p50 "
            f"{r['setup']['start_p50']:.0f} ms p99 {r['setup']['start_p99']:.0f} ms, refusals "
            f"{r['setup']['refusals']}; echo errors {r['echo']['errors']}"
        )
    if "rollover" in results:
        roll = results["rollover"]
        lines.append(
            f"rollover: {roll['through']} of {roll['players']} players reached their first "
            f"move ({roll['through_after_retry']} after a retry); gave up: {roll['gave_up']}"
        )
        for step, s in roll["steps"].items():
            lines.append(
                f"  {step}: {s['ok']} ok, errors {s['errors']}, retries {s['retries']}, "
                f"p50 {s['p50']:.0f} ms, p99 {s['p99']:.0f} ms"
            )
    return "\n".join(lines) or "no move phase ran"


def strip(value: Any) -> Any:
    """Drop the raw lists (latencies, stamps) before saving the results as JSON."""
    if isinstance(value, dict):
        raw = ("latencies", "stamps", "lags", "retry_after", "specs")
        return {k: strip(v) for k, v in value.items() if k not in raw}
    if isinstance(value, list):
        return [strip(v) for v in value]
    if isinstance(value, defaultdict | Counter):
        return dict(value)
    return value


if __name__ == "__main__":
    sys.exit(main())
