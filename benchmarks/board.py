"""Leaderboard benchmark: a deal's board at 1,000, 10,000 and 100,000 results, in one run.

Run: ``make board`` (or ``.venv/bin/python benchmarks/board.py``; ``--quick`` for a smoke run).
It starts the service as production runs it (2 workers, PostgreSQL, Redis), seeds verified
results on one daily deal in bulk (``seed_results``), and at each size measures over the
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
import random
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))

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


def setup_django(env: dict[str, str]) -> None:
    """Configure Django in this process against the benchmark database, with the service's
    secrets (the seals of seeded results are keyed by its ``DEAL_SECRET``)."""
    import django

    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    django.setup()


GAME_COLUMNS = (
    "id", "mode", "seed", "seed_text", "seed_chosen", "rules", "state", "ply", "status", "stuck",
    "can_undo", "foundation_cards", "verified", "assisted", "started_at", "first_move_at",
    "last_move_at", "finished_at", "deal_id", "player_id", "variant_id",
)  # fmt: skip
RESULT_COLUMNS = (
    "game_id", "deal_id", "player_id", "status", "foundation_cards", "moves", "duration_ms",
    "finished_at", "assisted", "seal", "verified_at",
)  # fmt: skip
PLAYER_COLUMNS = (
    "password", "is_superuser", "nickname", "is_guest", "is_staff", "is_active", "date_joined",
)  # fmt: skip


def _copy(cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """COPY ``rows`` into ``table`` (a column the model gained without a default fails loudly)."""
    names = ", ".join(f'"{c}"' for c in columns)
    with cursor.cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row(row)


def seed_results(deal_id: int, start: int, stop: int, run: str) -> None:
    """Insert results ``start`` … ``stop - 1`` of one deal in bulk (COPY): a guest player, a
    finished daily game (one in ten won) and its sealed result each, with spread foundation
    counts, plies and times; then count them in ``Deal.results_count``. The deal's Redis board
    is left as it was: its count no longer matches, so the next read rebuilds it.

    This is the one place that knows the tables (``games_player``, ``games_game``,
    ``games_result``). The seeded games have no move rows, so they are lighter than real ones;
    the results carry the seal verification would have given them.
    """
    import datetime as dt
    import hashlib

    from django.db import connection, transaction
    from django.db.models import F

    from games.models import Deal, Player
    from games.verification.figures import Figures
    from games.verification.seals import result_seal

    deal = Deal.objects.get(pk=deal_id)
    decks = int(deal.rules.get("decks", 1))
    rules = json.dumps(deal.rules)
    now = dt.datetime.now(dt.UTC)
    first = now - dt.timedelta(hours=2)
    batch = 10_000
    for low in range(start, stop, batch):
        high = min(stop, low + batch)
        with transaction.atomic(), connection.cursor() as cursor:
            nicknames = [f"s{run}_{i}" for i in range(low, high)]
            players = [("!", False, n, True, False, True, now) for n in nicknames]
            _copy(cursor, "games_player", PLAYER_COLUMNS, players)
            ids = dict(Player.objects.filter(nickname__in=nicknames).values_list("nickname", "pk"))
            games, results = [], []
            for i, nickname in zip(range(low, high), nicknames, strict=True):
                player_id = ids[nickname]
                h = int.from_bytes(hashlib.sha256(f"{run}:{i}".encode()).digest()[:4], "big")
                won = h % 10 == 0
                last = first + dt.timedelta(seconds=60 + h % 3600, milliseconds=h % 1000)
                figures = Figures(
                    status="won" if won else "resigned",
                    foundation_cards=52 * decks if won else h % 52,
                    moves=40 + h % 400,
                    duration_ms=int((last - first).total_seconds() * 1000),
                    finished_at=last + dt.timedelta(seconds=5),
                    assisted=False,
                )
                game_id = hashlib.md5(f"{run}:{i}".encode()).hexdigest()
                games.append(
                    (game_id, "daily", deal.seed, "", True, rules, "{}", figures.moves,
                     figures.status, False, False, figures.foundation_cards, True, False,
                     first - dt.timedelta(seconds=30), first, last, figures.finished_at,
                     deal.pk, player_id, deal.variant_id)
                )  # fmt: skip
                seal = result_seal(
                    game_id=game_id, deal_id=deal.pk, player_id=player_id, figures=figures
                )
                results.append(
                    (game_id, deal.pk, player_id, figures.status, figures.foundation_cards,
                     figures.moves, figures.duration_ms, figures.finished_at, False, seal,
                     figures.finished_at)
                )  # fmt: skip
            _copy(cursor, "games_game", GAME_COLUMNS, games)
            _copy(cursor, "games_result", RESULT_COLUMNS, results)
            Deal.objects.filter(pk=deal_id).update(results_count=F("results_count") + high - low)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_player, games_game, games_result")
    connection.close()


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


DAILY_MOVES = 6  # legal moves each finishing player makes before resigning


def deal_start(deal_id: int) -> Any:
    """Return the deal's first position, dealt by the engine from its seed and frozen rules."""
    import games.engine as engine
    from games.models import Deal

    deal = Deal.objects.get(pk=deal_id)
    return engine.deal(engine.compile_rules(deal.rules), engine.parse_seed(deal.seed))


async def fresh_daily_games(
    base: str, slug: str, start: Any, count: int, tag: str
) -> list[tuple[str, str]]:
    """Create ``count`` guests, each with a daily game of the deal (first position ``start``)
    in which it makes a few legal moves over REST; return (token, game id)."""
    import aiohttp

    import games.engine as engine

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
            state = start
            rng = random.Random(f"{tag}:{index}")
            for ply in range(DAILY_MOVES):
                options = [m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo)]
                if not options:
                    break
                move = rng.choice(options)
                status, answer = await http_json(
                    session,
                    "POST",
                    f"{base}/api/games/{game['id']}/moves/",
                    {"ply": ply, "move": move.to_json()},
                    token,
                )
                if status != 200:
                    raise RuntimeError(f"move: {status} {answer}")
                state = engine.apply_move(state, move)
            games.append((token, game["id"]))
    return games


async def finish_games(base: str, games: list[tuple[str, str]]) -> list[float]:
    """Resign each game in turn (verify, seal, rank); return how long each took (ms)."""
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


async def timed_get(base: str, path: str) -> tuple[float, dict[str, Any]]:
    """Fetch ``path`` once; return (milliseconds, decoded body)."""
    import aiohttp

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as session:
        started = time.perf_counter()
        status, body = await http_json(session, "GET", base + path)
        elapsed = (time.perf_counter() - started) * 1000
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body}")
    return elapsed, body


def board_state(deal_id: int) -> tuple[int, int | None]:
    """Return the deal's ``results_count`` and the count its Redis board was built from."""
    import redis

    from games.models import Deal
    from leaderboards import ranking

    count = Deal.objects.filter(pk=deal_id).values_list("results_count", flat=True).get()
    built = redis.Redis.from_url(os.environ["REDIS_URL"]).get(ranking._keys(deal_id)[3])
    return count, None if built is None else int(built)


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
    setup_django(env)
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
        log(f"board of {slug} {date} (deal {deal_id})")
        board = f"/api/leaderboards/{slug}/{date}/"
        seeded = 0
        for size in args.sizes:
            started = time.perf_counter()
            seed_results(deal_id, seeded, size, run)
            log(f"seeded {size - seeded} results in {time.perf_counter() - started:.1f} s")
            seeded = size
            # The first read finds the board stale (its count is not results_count): rebuilt.
            rebuild_ms, first = asyncio.run(timed_get(server.base, f"{board}?limit=20"))
            count, built = board_state(deal_id)
            log(f"  first read (rebuild) {rebuild_ms:.0f} ms; total {first.get('total')}")
            if built != count:
                raise RuntimeError(f"board built from {built}, deal counts {count}")
            # Then warm reads (both workers): the median of 10.
            second_ms = statistics.median(
                asyncio.run(timed_get(server.base, f"{board}?limit=20"))[0] for _ in range(10)
            )
            tag = f"{run}{size}"
            games = asyncio.run(
                fresh_daily_games(server.base, slug, deal_start(deal_id), args.finishes, tag)
            )
            finish = asyncio.run(finish_games(server.base, games))
            count_after, built_after = board_state(deal_id)
            if count_after != count + len(games) or built_after != count_after:
                raise RuntimeError(
                    f"after {len(games)} finishes: results_count {count} -> {count_after}, "
                    f"board built from {built} -> {built_after} (not incremental)"
                )
            seeded_total = size + args.finishes * (args.sizes.index(size) + 1)
            top = measure(args, server, board)
            # A player about two thirds down the board (ranks are spread by a hash).
            nickname = f"s{run}_{(size * 2) // 3}"
            mine = measure(args, server, f"{board}?player={nickname}")
            trivial = measure(args, server, TRIVIAL_PATH)
            rows[size] = {
                "top": top,
                "player": mine,
                "trivial": trivial,
                "rebuild_ms": rebuild_ms,
                "second_read_ms": second_ms,
                "finish_ms": statistics.median(finish),
                "finish_max": max(finish),
                "finishes": finish,
                "results": count_after,
                "expected_results": seeded_total,
            }
            log(
                f"  {size}: top {top['rate']:.1f}/s (p99 {top['p99']:.0f} ms), ?player "
                f"{mine['rate']:.1f}/s, trivial {trivial['rate']:.1f}/s, finish "
                f"{rows[size]['finish_ms']:.0f} ms median, rebuild {rebuild_ms:.0f} ms"
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
        figures.append(Figure(f"  first read (rebuild) at {size:,}", row["rebuild_ms"], "ms"))
        figures.append(
            Figure(f"  warm read (median of 10) at {size:,}", row["second_read_ms"], "ms")
        )
        errors = row["top"]["failures"] + row["player"]["failures"]
        figures.append(Figure(f"  non-200 answers at {size:,}", errors, "", target="0"))
    return figures


if __name__ == "__main__":
    sys.exit(main())
