"""Heartbeats of the processes that serve no requests (the scheduler), kept in Redis.

``beat(name)`` records the moment under ``name``; ``/metrics`` reads them all back with
``read()`` (``config.metrics``), whichever worker answers and whatever machine the scheduler
runs on. Without Redis, or while it is away, nothing is recorded and nothing is read.
"""

from __future__ import annotations

import contextlib
import time

from core import redis_client

KEY = "daily_patience:heartbeats"
# The scheduler's (``manage.py runscheduler``): every turn of its loop, every run of the daily
# jobs that succeeded.
SCHEDULER = "scheduler"
SCHEDULER_RUN = "scheduler_run"


def beat(name: str, *, now: float | None = None) -> None:
    """Record that ``name`` happened now (seconds since the epoch)."""
    if not redis_client.configured():
        return
    moment = time.time() if now is None else now
    with contextlib.suppress(redis_client.Unavailable):
        redis_client.run(lambda client: client.hset(KEY, name, moment), what="heartbeats")


def read() -> dict[str, float]:
    """Return the last moment of every heartbeat recorded, by name."""
    if not redis_client.configured():
        return {}
    try:
        found = redis_client.run(lambda client: client.hgetall(KEY), what="heartbeats", text=True)
    except redis_client.Unavailable:
        return {}
    return {name: float(moment) for name, moment in found.items()}
