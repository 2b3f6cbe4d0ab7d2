"""What the load benchmarks share: the service under test, its floors, clients and the table.

Everything here talks to the service through its public contract (``docs/api.md``: REST and
WebSocket); the only private knowledge is what the benchmark sets itself (``DEAL_SECRET``, so a
client can re-derive a daily deal it plays, as anyone can once the day has ended).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "bench"
PYTHON = sys.executable
# The service as production starts it: uvicorn, one listening socket per worker (config/serve.py).
SERVE = [PYTHON, "-m", "config.serve"]
HOST = "127.0.0.1"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/dp_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/5"
CLK_TCK = os.sysconf("SC_CLK_TCK")

# The per-IP REST throttles count every simulated player as one client (all of them come from
# 127.0.0.1); the per-player limits stay at their defaults.
BENCH_THROTTLES = {
    "THROTTLE_AUTH_IP": "100000/min",
    "THROTTLE_AUTH_IP_HOUR": "1000000/hour",
    "THROTTLE_GAMES_IP": "100000/min",
    "THROTTLE_MOVES_IP": "1000000/min",
    # Every player is one guest; each stays under 4.5 moves/s, but the socket limits are lifted
    # so that a limit never hides what the service itself can take.
    "WEBSOCKET_RATE_SOCKET": "1000/1",
    "WEBSOCKET_RATE_PLAYER": "1000000/60",
}


def raise_open_files() -> int:
    """Raise this process's open-file limit to its hard limit (inherited by children)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values: Sequence[float], q: float) -> float:
    """Return the ``q`` percentile (0–100) of ``values`` by nearest rank; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[rank]


def service_env(database_url: str, redis_url: str, deal_secret: str) -> dict[str, str]:
    """Return the environment of the service under test: production settings, fresh secrets."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("THROTTLE_", "DJANGO_", "DEBUG", "WEBSOCKET_RATE_"))
    }
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DAILY_PATIENCE_REQUIRE_SERVICES="1",
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        DEAL_SECRET=deal_secret,
        ALLOWED_HOSTS=HOST,
        LOG_LEVEL=os.environ.get("BENCH_LOG_LEVEL", "WARNING"),
        **BENCH_THROTTLES,
    )
    return env


def prepare_database(env: dict[str, str]) -> None:
    """Create the benchmark database afresh (every run starts empty, with this run's deal
    secret behind its deals), empty its Redis database, migrate and load the variants."""
    url = env["DATABASE_URL"]
    name = url.rsplit("/", 1)[1]
    server = url.rsplit("/", 1)[0] + "/postgres"
    exists = subprocess.run(
        ["psql", server, "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{name}'"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not exists:
        subprocess.run(["psql", server, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    psql(url, "DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()  # this benchmark's own Redis database only
    for command in (["migrate", "--noinput"], ["loadvariants"]):
        subprocess.run(
            [PYTHON, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )


def psql(database_url: str, sql: str) -> str:
    """Run ``sql`` with psql and return its unaligned output."""
    return subprocess.run(
        ["psql", database_url, "-qtAX", "-v", "ON_ERROR_STOP=1", "-c", sql],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


# --- the service and the echo app as subprocesses ----------------------------------------------


def _ppid(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(text[text.rindex(")") + 2 :].split()[1])


def cpu_seconds(pids: Iterable[int]) -> float:
    """Return the user + system CPU seconds the processes ``pids`` have used so far."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


@dataclass
class Server:
    """One ``config.serve`` (uvicorn) process tree serving ``app`` with ``workers`` workers."""

    app: str
    port: int
    env: dict[str, str]
    workers: int = 2
    name: str = "service"
    process: subprocess.Popen[bytes] | None = None
    log_path: Path = field(default_factory=lambda: OUT / "server.log")

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, ready_path: str = "/healthz", timeout: float = 60) -> None:
        OUT.mkdir(parents=True, exist_ok=True)
        self.log_path = OUT / f"{self.name}.log"
        log = self.log_path.open("wb")
        command = [*SERVE, self.app, "--host", HOST, "--port", str(self.port)]
        command += ["--workers", str(self.workers)]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=raise_open_files,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited; see {self.log_path}")
            try:
                with urllib.request.urlopen(self.base + ready_path, timeout=2) as answer:
                    if answer.status == 200 and len(self.worker_pids()) >= self.workers:
                        return
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer {ready_path} in {timeout} s")

    def worker_pids(self) -> list[int]:
        """Return the worker processes (children of the uvicorn supervisor; with one worker,
        uvicorn itself)."""
        if self.process is None:
            return []
        master = self.process.pid
        if self.workers == 1:
            return [master]
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _ppid(int(entry.name)) == master:
                try:
                    command = (entry / "cmdline").read_bytes()
                except OSError:
                    continue
                if b"resource_tracker" not in command:  # multiprocessing's helper
                    pids.append(int(entry.name))
        return sorted(pids)

    def cpu(self) -> float:
        return cpu_seconds(self.worker_pids())

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


# --- floors -------------------------------------------------------------------------------------

MOVE_TABLE = "bench_move_floor"
PGBENCH_SCRIPT = f"""\\set ply random(1, 2000000000)
INSERT INTO {MOVE_TABLE} (game_id, ply, move, at)
VALUES (md5(random()::text), :ply, '{{"type": "move", "from": "tableau-3", "to": "foundation-5", \
"count": 1}}', now())
ON CONFLICT DO NOTHING;
"""


def pgbench_inserts(database_url: str, clients: int, seconds: int) -> float:
    """Return pgbench's rate of single-row INSERTs shaped like a move row, ``clients`` clients."""
    if shutil.which("pgbench") is None:
        raise RuntimeError("pgbench is missing: apt-get install -y postgresql-client")
    psql(
        database_url,
        f"CREATE TABLE IF NOT EXISTS {MOVE_TABLE} (game_id text NOT NULL, ply int NOT NULL, "
        f"move jsonb NOT NULL, at timestamptz NOT NULL, UNIQUE (game_id, ply)); "
        f"TRUNCATE {MOVE_TABLE};",
    )
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(PGBENCH_SCRIPT)
    try:
        result = subprocess.run(
            [
                "pgbench",
                "-n",
                "-f",
                script.name,
                "-c",
                str(clients),
                "-j",
                str(min(clients, 2)),
                "-T",
                str(seconds),
                database_url,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(script.name)
    for line in result.stdout.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(f"no tps in pgbench output:\n{result.stdout}")


# --- small async clients ------------------------------------------------------------------------


async def http_json(
    session: Any, method: str, url: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    """Send one request with aiohttp and return (status, decoded JSON or None)."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    async with session.request(method, url, json=body, headers=headers) as answer:
        text = await answer.text()
        try:
            return answer.status, json.loads(text) if text else None
        except ValueError:
            return answer.status, None


async def request_latencies(
    base: str, path: str, requests: int, concurrency: int, duration: float
) -> dict[str, float]:
    """Fetch ``path`` ``requests`` times over ``concurrency`` connections (at most ``duration``
    seconds); return the rate, p50, p99 (ms) and the number of non-200 answers."""
    import aiohttp

    latencies: list[float] = []
    failures = 0
    deadline = time.monotonic() + duration
    remaining = requests

    async def client(session: aiohttp.ClientSession) -> None:
        nonlocal remaining, failures
        while remaining > 0 and time.monotonic() < deadline:
            remaining -= 1
            started = time.perf_counter()
            try:
                async with session.get(base + path) as answer:
                    await answer.read()
                    ok = answer.status == 200
            except (TimeoutError, aiohttp.ClientError):
                ok = False
            latencies.append((time.perf_counter() - started) * 1000)
            failures += not ok

    timeout = aiohttp.ClientTimeout(total=10)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        started = time.perf_counter()
        await asyncio.gather(*(client(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return {
        "rate": len(latencies) / elapsed if elapsed else 0.0,
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "failures": failures,
        "count": len(latencies),
    }


# --- the result table ---------------------------------------------------------------------------


@dataclass
class Figure:
    """One measured figure, its floor, and its target as a predicate on the ratio or value."""

    name: str
    value: float
    unit: str = ""
    floor: float | None = None
    floor_name: str = ""
    target: str = ""
    ok: bool | None = None

    @property
    def ratio(self) -> float | None:
        if self.floor in (None, 0) or math.isnan(self.value) or math.isnan(self.floor or 0):
            return None
        return self.value / self.floor  # type: ignore[operator]


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return f"{text} {unit}".strip()


def print_table(figures: list[Figure], title: str) -> str:
    """Print ``figure | value | floor | ratio | target | ok`` and return the text."""
    rows = [("figure", "value", "floor", "ratio", "target", "ok")]
    for f in figures:
        floor = f"{_number(f.floor, f.unit)} ({f.floor_name})" if f.floor_name else "-"
        ratio = "-" if f.ratio is None else f"{f.ratio:.3g}x"
        ok = "-" if f.ok is None else ("yes" if f.ok else "NO")
        rows.append((f.name, _number(f.value, f.unit), floor, ratio, f.target or "-", ok))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"## {title}", ""]
    for index, row in enumerate(rows):
        lines.append(
            "| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + " |"
        )
        if index == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    text = "\n".join(lines)
    print(text, flush=True)
    return text


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class ConnectionPeak:
    """Sample, on a thread, how many PostgreSQL connections the benchmark database has."""

    def __init__(self, database_url: str, every: float = 0.5) -> None:
        import threading

        self.database_url = database_url
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psycopg

        name = self.database_url.rsplit("/", 1)[1]
        with psycopg.connect(self.database_url, autocommit=True) as connection:
            while not self._stop.is_set():
                row = connection.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (name,)
                ).fetchone()
                self.peak = max(self.peak, int(row[0]) - 1 if row else 0)  # not this one
                self._stop.wait(self.every)

    def __enter__(self) -> ConnectionPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
