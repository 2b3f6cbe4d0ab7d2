"""Leaderboard benchmark: a deal's board at 1,000, 10,000 and 100,000 results, in one run.

Run: ``make board`` (or ``.venv/bin/python benchmarks/board.py``; ``--quick`` for a smoke run).
It starts the service as production runs it (2 workers, PostgreSQL, Redis), seeds verified
results on one daily deal by bulk SQL (``seed_results``), and at each size measures over the
public API the rate of ``GET /api/leaderboards/<slug>/<date>/`` (the top), of the same with
``?player=<nickname>`` (a player far down the board), of a trivial JSON view (``GET
/api/variants/``), and what finishing one more game costs (``POST /api/games/<id>/resign/`` of
a fresh daily game on that deal, the median of ``--finishes``). Targets: top at 100,000 ≥ 0.5×
trivial; top at 100,000 ≥ 0.8× top at 1,000; finishing at 100,000 ≤ 2× finishing at 1,000.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    OUT,
    Figure,
    Server,
    http_json,
    log,
    prepare_database,
    print_table,
    psql,
    raise_open_files,
    request_latencies,
    service_env,
)

TRIVIAL_PATH = "/api/variants/"
DAILY_PREFERENCE = ("caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse")


def seed_results(database_url: str, deal_id: int, start: int, stop: int, run: str) -> None:
    """Insert results ``start`` … ``stop - 1`` of one deal: a guest player and a finished,
    verified daily game each (one in ten won), with spread foundation counts, plies and times.

    This is the one place that knows the tables: when results move to their own model, adapt
    this function only. The seeded games carry the deal's rules but an empty move log and
    state, so each row is lighter than a real one.
    """
    psql(
        database_url,
        f"""
        INSERT INTO games_player
            (password, last_login, is_superuser, nickname, is_guest, is_staff, is_active,
             date_joined)
        SELECT '!', NULL, false, 's{run}_' || i, true, false, true, now()
        FROM generate_series({start}, {stop - 1}) AS i;

        INSERT INTO games_game
            (id, mode, seed, seed_text, rules, moves, state, ply, status, stuck,
             foundation_cards, verified, started_at, first_move_at, last_move_at, finished_at,
             deal_id, player_id, variant_id)
        SELECT md5('{run}' || p.nickname), 'daily', d.seed, '', d.rules, '[]'::jsonb,
               '{{}}'::jsonb, 40 + (h % 400), CASE WHEN h % 10 = 0 THEN 'won' ELSE 'resigned' END,
               false, CASE WHEN h % 10 = 0 THEN 52 * (d.rules->>'decks')::int ELSE h % 52 END,
               true, now() - interval '2 hours', now() - interval '2 hours',
               now() - interval '2 hours' + (h % 3600) * interval '1 second',
               now() - interval '1 hour' + (h % 3600) * interval '1 second',
               d.id, p.id, d.variant_id
        FROM games_player p
        CROSS JOIN LATERAL (SELECT abs(hashtext(p.nickname)) AS h) AS hashed
        JOIN games_deal d ON d.id = {deal_id}
        WHERE p.nickname LIKE 's{run}\\_%'
          AND substring(p.nickname FROM {len(run) + 3})::int BETWEEN {start} AND {stop - 1};
        ANALYZE games_game;
        """,
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 10,000, short phases")
    parser.add_argument("--sizes", type=int, nargs="+", help="board sizes (1000 10000 100000)")
    parser.add_argument("--duration", type=float, help="seconds per rate measurement (10)")
    parser.add_argument("--finishes", type=int, help="games finished per size (10)")
    port = int(os.environ.get("BENCH_BOARD_PORT", "8332"))
    parser.add_argument("--port", type=int, default=port, help="(BENCH_BOARD_PORT, 8332)")
    parser.add_argument("--conn-max-age", default="0", help="CONN_MAX_AGE of the service")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL"))
    args = parser.parse_args()
    args.sizes = args.sizes or ([1000, 10_000] if args.quick else [1000, 10_000, 100_000])
    args.duration = args.duration or (3.0 if args.quick else 10.0)
    args.finishes = args.finishes or (3 if args.quick else 5)
    args.database_url = args.database_url or DEFAULT_DATABASE_URL
    args.redis_url = args.redis_url or DEFAULT_REDIS_URL
    return args


async def fresh_daily_games(base: str, slug: str, count: int, tag: str) -> list[tuple[str, str]]:
    """Create ``count`` guests with a daily game of ``slug`` each; return (token, game id)."""
    import aiohttp

    games = []
    async with aiohttp.ClientSession() as session:
        for index in range(count):
            status, body = await http_json(
                session, "POST", base + "/api/auth/guest/", {"nickname": f"f{tag}x{index}"}
            )
            if status != 201:
                raise RuntimeError(f"guest: {status} {body}")
            token = body["token"]
            request = {"variant": slug, "mode": "daily"}
            status, game = await http_json(session, "POST", base + "/api/games/", request, token)
            if status not in (200, 201):
                raise RuntimeError(f"game: {status} {game}")
            games.append((token, game["id"]))
    return games


async def finish_games(base: str, games: list[tuple[str, str]]) -> list[float]:
    """Resign each game in turn; return how long each finish took (ms)."""
    import aiohttp

    times = []
    async with aiohttp.ClientSession() as session:
        for token, game_id in games:
            started = time.perf_counter()
            status, body = await http_json(
                session, "POST", f"{base}/api/games/{game_id}/resign/", {}, token
            )
            times.append((time.perf_counter() - started) * 1000)
            if status != 200:
                raise RuntimeError(f"resign: {status} {body}")
    return times


def measure(args: argparse.Namespace, server: Server, path: str) -> dict[str, float]:
    return asyncio.run(request_latencies(server.base, path, 100_000, 8, args.duration))


def main() -> int:
    args = parse_args()
    raise_open_files()
    run = secrets.token_hex(2)
    env = service_env(args.database_url, args.redis_url, secrets.token_urlsafe(32))
    env["CONN_MAX_AGE"] = str(args.conn_max_age)  # see load.py's --conn-max-age
    log(f"preparing {args.database_url}")
    prepare_database(env)
    server = Server("config.asgi:application", args.port, env, name="board-service")
    rows: dict[int, dict[str, Any]] = {}
    server.start()
    try:
        deals = asyncio.run(daily_list(server.base))
        by_slug = {d["variant"]: d for d in deals}
        slug = next((s for s in DAILY_PREFERENCE if s in by_slug), deals[0]["variant"])
        date = by_slug[slug]["date"]
        deal_id = int(
            psql(
                args.database_url,
                f"SELECT d.id FROM games_deal d JOIN games_variant v ON v.id = d.variant_id "
                f"WHERE v.slug = '{slug}' AND d.date = '{date}'",
            )
        )
        board = f"/api/leaderboards/{slug}/{date}/"
        seeded = 0
        for size in args.sizes:
            started = time.perf_counter()
            seed_results(args.database_url, deal_id, seeded, size, run)
            log(f"seeded {size - seeded} results in {time.perf_counter() - started:.1f} s")
            seeded = size
            games = asyncio.run(fresh_daily_games(server.base, slug, args.finishes, f"{run}{size}"))
            finish = asyncio.run(finish_games(server.base, games))
            top = measure(args, server, board)
            # A player about two thirds down the board (ranks are spread by a hash).
            nickname = f"s{run}_{(size * 2) // 3}"
            mine = measure(args, server, f"{board}?player={nickname}")
            trivial = measure(args, server, TRIVIAL_PATH)
            rows[size] = {
                "top": top,
                "player": mine,
                "trivial": trivial,
                "finish_ms": statistics.median(finish),
                "finish_max": max(finish),
            }
            log(
                f"  {size}: top {top['rate']:.1f}/s (p99 {top['p99']:.0f} ms), ?player "
                f"{mine['rate']:.1f}/s, trivial {trivial['rate']:.1f}/s, finish "
                f"{rows[size]['finish_ms']:.0f} ms median"
            )
    finally:
        server.stop()
        log("service stopped")
    figures = table(args, rows)
    title = f"leaderboard benchmark {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC"
    text = print_table(figures, title + (" (quick)" if args.quick else ""))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "board.md").write_text(text + "\n")
    (OUT / "board.json").write_text(json.dumps(rows, indent=1))
    return 0


async def daily_list(base: str) -> list[dict[str, Any]]:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        status, body = await http_json(session, "GET", base + "/api/daily/")
    if status != 200:
        raise RuntimeError(f"GET /api/daily/: {status}")
    return body


def table(args: argparse.Namespace, rows: dict[int, dict[str, Any]]) -> list[Figure]:
    figures: list[Figure] = []
    smallest, largest = min(rows), max(rows)
    for size, row in rows.items():
        trivial = row["trivial"]["rate"]
        top = Figure(f"top req/s at {size:,}", row["top"]["rate"], "/s", trivial, "trivial")
        if size == largest:
            top.target, top.ok = ">= 0.5x", row["top"]["rate"] >= 0.5 * trivial
        figures.append(top)
        if size != smallest:
            first = rows[smallest]["top"]["rate"]
            ok = row["top"]["rate"] >= 0.8 * first if size == largest else None
            figures.append(
                Figure(
                    f"  top at {size:,} vs {smallest:,}",
                    row["top"]["rate"],
                    "/s",
                    first,
                    f"top at {smallest:,}",
                    ">= 0.8x" if size == largest else "",
                    ok,
                )
            )
        figures.append(Figure(f"  top p99 at {size:,}", row["top"]["p99"], "ms"))
        figures.append(
            Figure(f"?player= req/s at {size:,}", row["player"]["rate"], "/s", trivial, "trivial")
        )
        figures.append(Figure(f"trivial req/s at {size:,}", trivial, "/s"))
        finish = Figure(f"finish one game at {size:,}", row["finish_ms"], "ms")
        if size != smallest:
            finish.floor = rows[smallest]["finish_ms"]
            finish.floor_name = f"at {smallest:,}"
            if size == largest:
                finish.target = "<= 2x"
                finish.ok = row["finish_ms"] <= 2 * rows[smallest]["finish_ms"]
        figures.append(finish)
        errors = row["top"]["failures"] + row["player"]["failures"]
        figures.append(Figure(f"  non-200 answers at {size:,}", errors, "", target="0"))
    return figures


if __name__ == "__main__":
    sys.exit(main())
