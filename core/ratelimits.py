"""Rate limits that hold across worker processes and concurrent requests.

``hit(key, limit=..., seconds=...)`` counts one hit under ``key`` in a sliding window of
``seconds`` (the two-bucket approximation: this fixed window's count plus the previous window's,
weighted by how much of it the sliding window still covers) and says whether it is within
``limit``. With ``REDIS_URL`` set the count is one Lua script on Redis, so it is atomic: N
concurrent hits of one key get N distinct counts, whichever process makes them. Without Redis
(the embedded default, one process) the count is kept in memory under a lock.

Redis is called through ``core.redis_client`` (short timeouts, one breaker). When Redis cannot
be reached the hit is counted in this process instead (each worker then holds its clients to the
whole limit on its own): a limit must never take the service down with it, nor vanish.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from core import redis_client

KEY_PREFIX = "daily_patience:rate"
WHAT = "rate limits count in each worker process"

# Count a hit in this window and return it with the previous window's count. The key lives for
# two windows, so the previous one is still there while it counts.
_SCRIPT = """
local hits = redis.call('INCRBY', KEYS[1], ARGV[1])
if hits == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local before = tonumber(redis.call('GET', KEYS[2]) or '0')
return {hits, before}
"""
_count = redis_client.script(_SCRIPT)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a hit is within its limit, the count it made, and when to try again."""

    allowed: bool
    count: float
    retry_after: float


def _redis_counts(current: str, previous: str, cost: int, ttl_ms: int) -> tuple[int, int] | None:
    """Return (this window's count, the previous one's) from Redis, or None while it is away."""
    try:
        hits, before = redis_client.run(
            lambda client: _count(client, keys=[current, previous], args=[cost, ttl_ms]),
            what=WHAT,
        )
    except redis_client.Unavailable:
        return None
    return int(hits), int(before)


class _Memory:
    """Windows counted in this process, for the embedded default."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[int, float]] = {}

    def counts(self, current: str, previous: str, cost: int, ttl_ms: int) -> tuple[int, int]:
        now = time.monotonic()
        with self._lock:
            if len(self._counts) > 10_000:
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            hits, expires = self._counts.get(current, (0, 0.0))
            if expires <= now:
                hits, expires = 0, now + ttl_ms / 1000
            hits += cost
            self._counts[current] = (hits, expires)
            before, before_expires = self._counts.get(previous, (0, 0.0))
            return hits, before if before_expires > now else 0

    def clear(self) -> None:
        with self._lock:
            self._counts.clear()


_memory = _Memory()


def _windows(key: str, seconds: float, moment: float) -> tuple[float, str, str, int]:
    """Return where ``moment`` falls in its window, the two windows' keys and their life."""
    position = moment / seconds
    window = math.floor(position)
    current = f"{KEY_PREFIX}:{key}:{window}"
    previous = f"{KEY_PREFIX}:{key}:{window - 1}"
    return position, current, previous, math.ceil(seconds * 2000) + 1000


def _verdict(hits: int, before: int, position: float, *, limit: int, seconds: float) -> Verdict:
    elapsed = position - math.floor(position)
    count = hits + before * (1 - elapsed)
    if count <= limit:
        return Verdict(True, count, 0.0)
    # The count falls below the limit as the previous window slides out, or at the next window.
    retry = (1 - elapsed) * seconds
    if before and hits <= limit:
        retry = min(retry, max(0.0, (count - limit) / before * seconds))
    return Verdict(False, count, max(retry, 0.001))


def hit(
    key: str, *, limit: int, seconds: float, cost: int = 1, now: float | None = None
) -> Verdict:
    """Count ``cost`` hits under ``key`` and tell whether the sliding window is within ``limit``.

    A refused hit still counts, so a client that keeps knocking stays refused.
    """
    moment = time.time() if now is None else now
    position, current, previous, ttl_ms = _windows(key, seconds, moment)
    counted = None
    if redis_client.configured():
        counted = _redis_counts(current, previous, cost, ttl_ms)
    if counted is None:  # no Redis, or Redis away: counted in this process
        counted = _memory.counts(current, previous, cost, ttl_ms)
    return _verdict(*counted, position, limit=limit, seconds=seconds)


async def ahit(key: str, *, limit: int, seconds: float, cost: int = 1) -> Verdict:
    """``hit`` on the event loop: the Redis script goes in the loop's next pipeline
    (``core.redis_client.call_script``); in memory without Redis, with no I/O."""
    position, current, previous, ttl_ms = _windows(key, seconds, time.time())
    if not redis_client.configured():
        counted = _memory.counts(current, previous, cost, ttl_ms)
        return _verdict(*counted, position, limit=limit, seconds=seconds)
    try:
        hits, before = await redis_client.call_script(
            _SCRIPT, [current, previous], [cost, ttl_ms], what=WHAT
        )
    except redis_client.Unavailable:
        hits, before = _memory.counts(current, previous, cost, ttl_ms)
    return _verdict(int(hits), int(before), position, limit=limit, seconds=seconds)


def reset_memory() -> None:
    """Forget the in-process counts (tests; Redis counts expire on their own)."""
    _memory.clear()
