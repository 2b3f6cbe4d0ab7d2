"""Load benchmark of the service: each figure beside a floor measured in the same run.

Run: ``make load`` (or ``.venv/bin/python benchmarks/load.py``; ``--quick`` for a smoke run of
seconds). It migrates the benchmark database, measures the floors (pgbench's single-row INSERT
rate, a bare echo socket served by the same uvicorn, a trivial JSON view), starts the service as
production runs it (``python -m config.serve config.asgi:application --workers 2``: uvicorn with
a listening socket per worker, on PostgreSQL and Redis,
``DEBUG=false``, fresh secrets), then measures over the public API only:

1. moves over WebSocket by N = 50 and N = 200 simulated players (practice games, legal moves
   computed client-side by the engine from the deal's seed), with py-spy on both workers at N = 50
   and while the daily players are watched (``--gil``: only the thread holding the interpreter
   lock is sampled, so the shares are of each worker's interpreter time, where moves queue);
2. daily players moving, first alone, then watched by 1,000 sockets on their deal;
3. 10,000 idle daily sockets: connect rate, and REST p99 while they are held;

and prints ``figure | value | floor | ratio | target | ok``. Each player (and each echo socket)
sends at most ``--player-rate`` frames a second, starting at a random point of that interval, so
the players are not in step (in step, every worker got its players' frames in one burst five
times a second, and the echo floor measured that burst). Nothing here is part of the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

import _clients
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


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts, seconds per phase")
    parser.add_argument("--players", type=int, nargs="+", help="N of the move phases (50 200)")
    parser.add_argument("--duration", type=float, help="seconds of each measured phase (30)")
    parser.add_argument("--idle", type=int, help="idle daily sockets to hold (10000)")
    parser.add_argument("--watchers", type=int, help="watchers of one deal (1000)")
    parser.add_argument("--watch-players", type=int, help="daily players while watched (50)")
    parser.add_argument("--player-rate", type=float, default=4.5, help="max moves/s a player")
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
    parser.add_argument("--skip", nargs="*", default=[], help="phases: moves daily idle")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL"))
    args = parser.parse_args()
    quick = args.quick
    args.players = args.players or ([10, 40] if quick else [50, 200])
    args.duration = args.duration or (5.0 if quick else 30.0)
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
    merged: dict[str, Any] = {"moves": 0, "latencies": [], "errors": Counter(), "stamps": []}
    merged["client_cpu"] = 0.0
    for report in reports:
        merged["moves"] += report.get("moves", 0)
        merged["latencies"] += report.get("latencies", [])
        merged["errors"].update(report.get("errors", {}))
        merged["stamps"] += report.get("stamps", [])
        merged["client_cpu"] += report.get("client_cpu", 0.0)
    return merged


# --- set-up through the API ---------------------------------------------------------------------


async def make_players(
    base: str, count: int, mode: str, slug: str, run: str, daily: dict[str, Any] | None = None
) -> list[_clients.PlayerSpec]:
    """Create ``count`` guests and one game each (``mode`` practice or daily) over REST."""
    import aiohttp

    specs: list[_clients.PlayerSpec] = []
    setup_errors: list[str] = []
    gate = asyncio.Semaphore(8)
    daily_seed = daily_deal_seed(daily) if daily else b""

    async def one(session: aiohttp.ClientSession, index: int) -> None:
        nickname = f"b{run}{mode[0]}{index}"
        seed_text = f"bench-{run}-{index}"
        request: dict[str, Any] = {"variant": slug, "mode": mode}
        if mode == "practice":
            request["seed"] = seed_text
        token = None
        for attempt in range(3):  # a failed set-up request is retried, then the player dropped
            async with gate:
                try:
                    if token is None:
                        status, body = await http_json(
                            session, "POST", base + "/api/auth/guest/", {"nickname": nickname}
                        )
                        if status != 201:
                            raise RuntimeError(f"guest {status} {body}")
                        token = body["token"]
                    status, game = await http_json(
                        session, "POST", base + "/api/games/", request, token
                    )
                    if status not in (200, 201):
                        raise RuntimeError(f"game {status} {game}")
                except (RuntimeError, aiohttp.ClientError, TimeoutError) as error:
                    setup_errors.append(str(error)[:120])
                    await asyncio.sleep(1 + attempt)
                    continue
            seed = engine.practice_seed(seed_text) if mode == "practice" else daily_seed
            specs.append(
                _clients.PlayerSpec(nickname, token, game["id"], slug, mode, seed, seed_text)
            )
            return

    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        await asyncio.gather(*(one(session, i) for i in range(count)))
    if setup_errors:
        log(f"  {len(setup_errors)} set-up requests failed, e.g. {setup_errors[0]}")
    if not specs:
        raise RuntimeError(f"no player could be set up: {setup_errors[:3]}")
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
        ready = collect(queue, "ready", len(processes), 180)
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
        p50=percentile(merged["latencies"], 50),
        p99=percentile(merged["latencies"], 99),
        cpu_ms=cpu * 1000 / moves if moves else math.nan,
        cpu_share=cpu / elapsed,
        client_share=merged["client_cpu"] / elapsed,
        error_count=sum(merged["errors"].values()),
        connected=sum(ready),
    )
    return merged


def echo_floor(args: argparse.Namespace, env: dict[str, str], sockets: int) -> dict[str, Any]:
    echo = Server("benchmarks.echo:app", args.echo_port, env, name="echo")
    echo.start(ready_path="/")
    try:
        phase = _clients.Phase(port=args.echo_port, duration=args.duration, origin=False)
        phase.player_rate = args.player_rate
        shares = [(n, phase) for n in split_count(sockets, args.clients)]
        processes, queue, go, _release = _clients.spawn(_clients.echo_process, shares)
        try:
            collect(queue, "ready", len(processes), 60)
            go.set()
            reports = collect(queue, "result", len(processes), args.duration + 60)
        finally:
            go.set()
            join(processes)
        merged = merge(reports)
        http = asyncio.run(request_latencies(echo.base, "/", 2000, 8, args.duration))
    finally:
        echo.stop()
    return {
        "p50": percentile(merged["latencies"], 50),
        "p99": percentile(merged["latencies"], 99),
        "rate": merged["moves"] / args.duration,
        "http": http,
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
) -> dict[str, Any]:
    log(f"moves: creating {n} players with practice games of {PRACTICE_VARIANT}")
    specs = asyncio.run(make_players(server.base, n, "practice", PRACTICE_VARIANT, f"{run}n{n}"))
    phase = _clients.Phase(
        port=args.port,
        duration=args.duration,
        origin=args.origin,
        player_rate=args.player_rate,
        seed=n,
    )
    result = run_players(server, specs, phase, args.clients, profile_to=profile)
    log(
        f"  N={n}: {result['rate']:.1f} moves/s, p50 {result['p50']:.1f} ms, p99 "
        f"{result['p99']:.1f} ms, errors {dict(result['errors'])}, {result['cpu_ms']:.2f} ms "
        f"CPU/move"
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


def figures(
    args: argparse.Namespace, floors: dict[str, Any], results: dict[str, Any]
) -> list[Figure]:
    pg8 = floors["pgbench_8"]
    echo = floors["echo"]
    rows = [
        Figure("pgbench INSERT/s, 1 client", floors["pgbench_1"], "/s"),
        Figure("pgbench INSERT/s, 8 clients", pg8, "/s"),
        Figure(f"echo socket p50 (N={args.players[0]})", echo["p50"], "ms"),
        Figure(f"echo socket p99 (N={args.players[0]})", echo["p99"], "ms"),
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
    small, large = args.players[0], args.players[-1]
    for n, res in results.get("moves", {}).items():
        rows.append(Figure(f"moves/s N={n}", res["rate"], "/s", pg8, "pgbench 8c"))
        if n == large:
            rows[-1].target, rows[-1].ok = ">= 0.25x", res["rate"] >= 0.25 * pg8
        rows.append(Figure(f"move p50 N={n}", res["p50"], "ms", echo["p50"], "echo p50"))
        rows.append(Figure(f"move p99 N={n}", res["p99"], "ms", echo["p99"], "echo p99"))
        if n == small:
            rows[-1].target, rows[-1].ok = "<= 10x", res["p99"] <= 10 * echo["p99"]
        rows.append(Figure(f"errors N={n}", res["error_count"], "", target="0"))
        if n == large:
            rows[-1].ok = res["error_count"] == 0
        rows.append(Figure(f"server CPU/move N={n}", res["cpu_ms"], "ms", target="<= 3 ms"))
        rows[-1].ok = res["cpu_ms"] <= 3
        rows.append(Figure(f"server CPU used N={n} (of 2 cores)", res["cpu_share"], "cores"))
        rows.append(Figure(f"client CPU used N={n}", res["client_share"], "cores"))
        rows.append(Figure(f"PostgreSQL connections N={n} (peak)", res["db_connections"], ""))
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
    log(f"floor: echo socket, {echo_sockets} sockets for {args.duration:.0f} s")
    floors["echo"] = echo_floor(args, env, echo_sockets)
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
        if "daily" not in args.skip and args.watchers:
            results["daily"] = daily_phase(args, server, run)
        if "idle" not in args.skip and args.idle:
            results["idle"] = idle_phase(args, server)
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
    errors = {n: r["errors"] for n, r in results.get("moves", {}).items()}
    print(f"\nmove errors by kind: {errors}")
    if "daily" in results:
        d = results["daily"]
        alone, watched = dict(d["alone"]["errors"]), dict(d["watched"]["errors"])
        print(f"daily move errors: {alone}, watched {watched}")
        print(f"watcher messages by type: {d['by_type']}; watcher errors: {d['watch_errors']}")
    if "idle" in results:
        print(f"idle socket errors: {results['idle']['errors']}")
    if args.frames:  # as the workers last wrote them, once a second
        timings = "frame timings (benchmarks/frames.py):\n" + frames.summarise(str(frames_prefix))
        print("\n" + timings)
        profile_summary += "\n\n" + timings
    (OUT / "load.md").write_text(table + "\n\n" + profile_summary + "\n")
    raw = {"floors": floors, "results": strip(results), "args": vars(args)}
    (OUT / "load.json").write_text(json.dumps(raw, indent=1, default=str))
    return 0


def strip(value: Any) -> Any:
    """Drop the raw lists (latencies, stamps) before saving the results as JSON."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in ("latencies", "stamps")}
    if isinstance(value, defaultdict | Counter):
        return dict(value)
    return value


if __name__ == "__main__":
    sys.exit(main())
