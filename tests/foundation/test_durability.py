"""Acknowledged means durable: a move the service answered survives a fault of the move path.

The service runs as it is deployed (``python -m config.serve``, two workers) and is driven as a
client drives it (docs/api.md): guests and practice games over REST, then two dozen players each
sending legal moves over its game socket as fast as the answers come, each move computed
client-side by the engine from the game's seed. A move is acknowledged when its socket answers
the game at the next ply. While many moves are in flight, the test breaks the path: it kills
every worker (SIGKILL, in the middle of whatever they are writing), or it crashes PostgreSQL
(an immediate stop). Once the service or the database is back, every acknowledged move must be
in the database: each game at least at its highest acknowledged ply, its log exactly its plies
``0 .. ply-1``, each row carrying the server's seal.

The crash runs on a PostgreSQL cluster of the test's own, so the shared server is never
stopped, and the service runs in its default mode: whatever durability it promises by default
is what is tested.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import override_settings
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

import games.engine as engine
from games.models import Game, Move
from games.verification.daily import LoggedMove, Mismatch, check_log
from tests.foundation.conftest import service_env
from tests.net import free_port

pytestmark = pytest.mark.skipif(
    not django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="the move path's durability is PostgreSQL's: set DATABASE_URL to a PostgreSQL database",
)

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2
PLAYERS = 24
VARIANT = "quadruple-canfield"  # about 40 legal moves a position, rarely stuck
DEAL_SECRET = "a-durability-test-deal-secret-of-forty-chars"
ANSWERED_BEFORE_FAULT = 150  # moves acknowledged before the fault, over all players
IN_FLIGHT_AT_FAULT = PLAYERS // 2  # moves sent and not yet answered when the fault strikes
ANSWER_TIMEOUT = 10.0
SETTLE_SECONDS = 8.0  # how long the players may take to notice the fault and stop


def durable_env(**extra: str) -> dict[str, str]:
    """The service's environment: two workers, limits that a brisk test never reaches, and
    the move path in its default mode (whatever the caller's environment says)."""
    env = service_env(
        DEAL_SECRET=DEAL_SECRET,
        WEB_CONCURRENCY=str(WORKERS),
        DATABASE_POOL_TIMEOUT="1",
        WEBSOCKET_RATE_SOCKET="1000/1",
        WEBSOCKET_RATE_PLAYER="100000/60",
        THROTTLE_AUTH_IP="10000/min",
        THROTTLE_AUTH_IP_HOUR="100000/hour",
        THROTTLE_GAMES_IP="10000/min",
        THROTTLE_GAMES_PLAYER="10000/min",
        **extra,
    )
    env.pop("MOVES_SYNCHRONOUS_COMMIT", None)
    return env


# --- players ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    token: str
    game_id: str
    seed_text: str


def call(base: str, path: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
    """One REST request (a POST when given a body); return the answer's JSON."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data, headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def make_players(base: str) -> list[Player]:
    """Create ``PLAYERS`` guests, each with a practice game of its own, over REST."""
    run = secrets.token_hex(3)

    def one(index: int) -> Player:
        token = call(base, "/api/auth/guest/", {"nickname": f"dur{run}n{index}"})["token"]
        seed_text = f"durability-{run}-{index}"
        request = {"variant": VARIANT, "mode": "practice", "seed": seed_text}
        game = call(base, "/api/games/", request, token)
        return Player(token, game["id"], seed_text)

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(one, range(PLAYERS)))


@dataclass
class Moves:
    """What the players saw: the highest acknowledged ply of each game, the moves in flight,
    and whatever went wrong before the fault (nothing may)."""

    acked: dict[str, int] = field(default_factory=dict)
    answered: int = 0
    in_flight: int = 0
    in_flight_at_fault: int = 0
    faulted: bool = False
    errors: list[str] = field(default_factory=list)

    def fail(self, player: Player, what: str) -> None:
        if not self.faulted:
            self.errors.append(f"game {player.game_id}: {what}")


async def answer_to(ws: ClientConnection, ply: int) -> dict[str, Any]:
    """Return the answer to the move sent at ``ply``: an error, or the game at ``ply + 1``."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT))
        if message.get("type") == "error":
            return message
        if message.get("type") == "game" and message["game"]["ply"] == ply + 1:
            return message


async def play(port: int, player: Player, moves: Moves, stop: asyncio.Event) -> None:
    """Play legal moves on the player's game socket, one at a time, until ``stop``."""
    url = f"ws://127.0.0.1:{port}/ws/games/{player.game_id}/?token={player.token}"
    rng = random.Random(player.seed_text)
    state = engine.deal(engine.builtin_variant(VARIANT), engine.practice_seed(player.seed_text))
    try:
        async with connect(url, open_timeout=ANSWER_TIMEOUT, close_timeout=1) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT))
            if first.get("type") != "game" or first["game"]["ply"] != 0:
                moves.fail(player, f"the socket opened with {first}")
                return
            ply = 0
            while not stop.is_set():
                options = [m for m in engine.legal_moves(state) if not isinstance(m, engine.Undo)]
                if not options:
                    return  # stuck: this player is done
                move = rng.choice(options)
                await ws.send(json.dumps({"ply": ply, "move": move.to_json()}))
                moves.in_flight += 1
                try:
                    answer = await answer_to(ws, ply)
                finally:
                    moves.in_flight -= 1
                if answer["type"] != "game":
                    moves.fail(player, f"move {ply} was answered {answer}")
                    return
                state = engine.apply_move(state, move)
                ply += 1
                moves.acked[player.game_id] = ply
                moves.answered += 1
    except (OSError, TimeoutError, WebSocketException) as error:
        moves.fail(player, repr(error))


async def play_through_fault(
    port: int, players: list[Player], fault: Callable[[], Awaitable[None]]
) -> Moves:
    """Have every player play; once enough moves were answered and many are in flight, strike
    ``fault``; return what the players saw once they stopped."""
    moves, stop = Moves(), asyncio.Event()
    tasks = [asyncio.create_task(play(port, player, moves, stop)) for player in players]
    try:
        deadline = time.monotonic() + 30
        while moves.answered < ANSWERED_BEFORE_FAULT or moves.in_flight < IN_FLIGHT_AT_FAULT:
            if moves.errors or all(task.done() for task in tasks):
                raise AssertionError(f"the players failed before the fault: {moves.errors[:5]}")
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no moment with {IN_FLIGHT_AT_FAULT} moves in flight after "
                    f"{ANSWERED_BEFORE_FAULT} answered: {moves.answered} answered, "
                    f"{moves.in_flight} in flight"
                )
            await asyncio.sleep(0.002)
        moves.faulted, moves.in_flight_at_fault = True, moves.in_flight
        await fault()
        stop.set()
        await asyncio.wait(tasks, timeout=SETTLE_SECONDS)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return moves


# --- the check ----------------------------------------------------------------------------------


def lost_moves(cursor: Any, acked: dict[str, int]) -> list[str]:
    """Return what the database lacks of the acknowledged moves (nothing when all are there):
    a game behind its highest acknowledged ply, a log that is not exactly its plies, a row
    whose seal fails. ``cursor`` is a DB-API cursor on the service's database."""
    behind: dict[str, tuple[int, int]] = {}
    broken: list[str] = []
    with override_settings(DEAL_SECRET=DEAL_SECRET):
        for game_id, acknowledged in sorted(acked.items()):
            cursor.execute(f"SELECT ply FROM {Game._meta.db_table} WHERE id = %s", [game_id])
            found = cursor.fetchone()
            ply = found[0] if found else -1
            cursor.execute(
                f"SELECT ply, move::text, at, seal FROM {Move._meta.db_table}"
                " WHERE game_id = %s ORDER BY ply",
                [game_id],
            )
            rows = [LoggedMove(n, json.loads(move), at, seal) for n, move, at, seal in cursor]
            if ply < acknowledged:
                behind[game_id] = (acknowledged, ply)
            if len(rows) != ply:
                broken.append(f"game {game_id} is at ply {ply} with {len(rows)} move rows")
            try:
                check_log(game_id, rows)
            except Mismatch as mismatch:
                broken.append(f"game {game_id}: {mismatch}")
    problems = list(broken)
    if behind:
        lost = sum(acknowledged - max(ply, 0) for acknowledged, ply in behind.values())
        games = "; ".join(
            f"{game_id} acknowledged up to ply {acknowledged}, "
            + ("missing" if ply < 0 else f"at ply {ply}")
            for game_id, (acknowledged, ply) in behind.items()
        )
        moves = "move" if lost == 1 else "moves"
        problems.insert(
            0, f"{lost} acknowledged {moves} lost, in {len(behind)} of {len(acked)} games: {games}"
        )
    return problems


def report(moves: Moves, problems: list[str]) -> str:
    return (
        f"{sum(moves.acked.values())} moves acknowledged in {len(moves.acked)} games, "
        f"{moves.in_flight_at_fault} in flight at the fault. " + " | ".join(problems)
    )


# --- killing the workers ------------------------------------------------------------------------


def workers_of(supervisor: int) -> list[int]:
    """The worker processes of ``python -m config.serve`` (its children that multiprocessing
    spawned; not its resource tracker)."""
    path = Path(f"/proc/{supervisor}/task/{supervisor}/children")
    found = []
    for pid in path.read_text().split() if path.exists() else []:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            found.append(int(pid))
    return found


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(0.05)


def healthy(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
            return answer.status == 200
    except OSError:  # refused, or an HTTP error (503)
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the workers in /proc")
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_in_the_middle_of_its_moves_loses_no_acknowledged_move(
    ws_variants, uvicorn
) -> None:
    # given: the service, and two dozen players with a practice game each
    server = uvicorn(durable_env(), workers=WORKERS)
    wait_until(lambda: len(workers_of(server.process.pid)) == WORKERS, 30, "the workers start")
    players = make_players(server.base)
    killed: list[int] = []

    async def kill_the_workers() -> None:
        for pid in workers_of(server.process.pid):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    # when: every worker is killed while many moves are in flight, and the supervisor
    # starts new ones
    moves = asyncio.run(play_through_fault(server.port, players, kill_the_workers))
    assert len(killed) == WORKERS
    wait_until(
        lambda: (
            len(set(workers_of(server.process.pid)) - set(killed)) == WORKERS
            and healthy(server.base)
        ),
        30,
        "new workers serve",
    )

    # then: the database holds every acknowledged move, sealed, and the service shows every
    # game at least where its player was answered
    with connection.cursor() as cursor:
        problems = lost_moves(cursor, moves.acked)
    shown = {
        player.game_id: call(server.base, f"/api/games/{player.game_id}/", token=player.token)
        for player in players
    }
    behind = [
        f"{game_id} at ply {shown[game_id]['ply']}, acknowledged up to {acknowledged}"
        for game_id, acknowledged in sorted(moves.acked.items())
        if shown[game_id]["ply"] < acknowledged
    ]
    if behind:
        problems.append(f"the service shows {len(behind)} games behind: {'; '.join(behind)}")
    assert not problems, report(moves, problems)


# --- crashing PostgreSQL ------------------------------------------------------------------------


def postgres_program(name: str) -> str | None:
    """Return the path of a PostgreSQL server program (``initdb``, ``pg_ctl``), if installed."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(versions[-1]) if versions else None


class ThrowawayPostgres:
    """A PostgreSQL cluster of the test's own in a temporary directory, on a port of its own,
    that the test may crash (an immediate stop: the server's processes quit at once, with no
    checkpoint and no write of what waits in their memory). PostgreSQL refuses to run as root:
    as root, its programs run as the ``postgres`` user."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"postgres://postgres@127.0.0.1:{port}/postgres"
        self.root = Path(tempfile.mkdtemp(prefix="patience-postgres-"))
        self.data = self.root / "data"
        self.as_owner: list[str] = []
        if os.geteuid() == 0:
            self.as_owner = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, user="postgres")

    def run(self, program: str, *arguments: Any, check: bool = True) -> None:
        command = [*self.as_owner, str(postgres_program(program)), *map(str, arguments)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert not check or result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"

    def create(self) -> None:
        # -N skips only initdb's own sync of the new files: the server still flushes its WAL
        # as configured, and a crash of its processes leaves what they wrote to the system.
        self.run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-N")

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root}"
        )
        self.run("pg_ctl", "-D", self.data, "-o", options, "-l", self.root / "log", "-w", "start")

    def crash(self) -> None:
        self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def drop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def throwaway_postgres() -> Iterator[ThrowawayPostgres]:
    """A started PostgreSQL of the test's own (port ``THROWAWAY_POSTGRES_PORT``, else a free
    one), dropped at teardown whatever happened."""
    if not (postgres_program("initdb") and postgres_program("pg_ctl")):
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("PostgreSQL refuses root, and there is no postgres user to run it")
        if not shutil.which("runuser"):
            pytest.skip("PostgreSQL refuses root, and runuser is missing")
    server = ThrowawayPostgres(int(os.environ.get("THROWAWAY_POSTGRES_PORT") or free_port()))
    try:
        server.create()
        server.start()
        yield server
    finally:
        server.drop()


PREPARE = (
    "import django; django.setup(); from django.core.management import call_command; "
    "call_command('migrate', interactive=False); call_command('loadvariants')"
)


def prepare(env: dict[str, str]) -> None:
    """Migrate the service's database and load its variants, as a deployment does
    (``manage.py migrate``, ``manage.py loadvariants``; one process for both)."""
    result = subprocess.run(
        [sys.executable, "-c", PREPARE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_postgresql_crash_loses_no_acknowledged_move_in_the_default_mode(
    throwaway_postgres, uvicorn
) -> None:
    # given: the service in its default mode on a PostgreSQL of the test's own
    env = durable_env(DATABASE_URL=throwaway_postgres.url)
    prepare(env)
    server = uvicorn(env, workers=WORKERS)
    players = make_players(server.base)

    async def crash() -> None:
        await asyncio.to_thread(throwaway_postgres.crash)

    # when: PostgreSQL crashes while many moves are in flight, and starts again
    moves = asyncio.run(play_through_fault(server.port, players, crash))
    throwaway_postgres.start()

    # then: every acknowledged move survived the crash, sealed
    with psycopg.connect(throwaway_postgres.url, autocommit=True) as database:
        problems = lost_moves(database.cursor(), moves.acked)
    assert not problems, report(moves, problems)
