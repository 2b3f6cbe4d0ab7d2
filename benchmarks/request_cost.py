"""The cost of one HTTP request: rate, latency and worker CPU a request, beside a bare echo app.

Run: ``make http-bench`` (or ``.venv/bin/python benchmarks/request_cost.py``). It starts the
service as production runs it (``python -m config.serve``, production settings, its own
database and Redis database from ``BENCH_DATABASE_URL``/``BENCH_REDIS_URL``, as ``load.py``)
with one worker, and the echo app (``benchmarks/echo.py``) on the same server, then fetches each
path ``--requests`` times over ``--concurrency`` connections and prints, beside the echo app's
figures of the same run: requests a second, p50 and p99, and the CPU seconds the worker process
spent per request (the figure that holds on a busy machine, where the rates do not).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    Server,
    cpu_seconds,
    prepare_database,
    request_latencies,
    service_env,
)

DEFAULT_PATHS = ["/api/variants/", "/api/daily/", "/livez"]


def measure(
    server: Server, path: str, requests: int, concurrency: int, seconds: float
) -> dict[str, float]:
    asyncio.run(request_latencies(server.base, path, max(100, requests // 10), concurrency, 5))
    pids = server.worker_pids()
    cpu_before, started = cpu_seconds(pids), time.monotonic()
    figures = asyncio.run(request_latencies(server.base, path, requests, concurrency, seconds))
    cpu, elapsed = cpu_seconds(pids) - cpu_before, time.monotonic() - started
    served = figures["rate"] * elapsed
    figures["cpu_ms"] = cpu / served * 1000 if served else float("nan")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=DEFAULT_PATHS)
    parser.add_argument("--requests", type=int, default=4000, help="per path (4000)")
    parser.add_argument("--concurrency", type=int, default=8, help="connections (8)")
    parser.add_argument("--seconds", type=float, default=10, help="at most, per path (10)")
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", 8340)))
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL)
    env = service_env(database_url, redis_url, secrets.token_hex(32))
    prepare_database(env)
    echo = Server("benchmarks.echo:app", args.port + 1, env, workers=1, name="echo")
    service = Server("config.asgi:application", args.port, env, workers=1, name="request-cost")
    echo.start(ready_path="/")
    service.start()
    try:
        floor = measure(echo, "/", args.requests, args.concurrency, args.seconds)
        print(
            f"{'path':<20} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/req':>11}"
            f" {'rate / echo':>12}"
        )
        rows = [("echo app /", floor)]
        rows += [
            (path, measure(service, path, args.requests, args.concurrency, args.seconds))
            for path in args.paths
        ]
        for name, figures in rows:
            ratio = figures["rate"] / floor["rate"] if floor["rate"] else float("nan")
            print(
                f"{name:<20} {figures['rate']:>8.0f} {figures['p50']:>8.1f} {figures['p99']:>8.1f}"
                f" {figures['cpu_ms']:>11.2f} {ratio:>11.3f}x"
            )
            if figures.get("failures"):
                print(f"  {figures['failures']} answers were not 200")
    finally:
        service.stop()
        echo.stop()


if __name__ == "__main__":
    main()
