"""How many sockets of each game are open, so that a move no other tab watches pushes nothing.

A move answered on a game's socket is also pushed to the game's group, for the player's other
tabs. Through channels-redis a group message costs four Redis round trips and wakes the
sender's own channel, which then drops it: for nothing when the sender is the game's only
socket, the usual case. So each game socket counts itself here while it is open (one Redis key a
game: ``INCR`` when it opens, ``DECR`` when it closes; in memory without Redis, where the channel
layer is in memory too), and a socket's move is pushed only when ``others_open`` says another
may be open.

Doubt pushes: a count that Redis cannot give (unreachable, a key expired, a count below 1) reads
as "others may be open". A worker that dies leaves its sockets counted, which costs pushes, never
a missed one. Keys live ``TTL_SECONDS`` after the last open or move of the game.

A socket counts itself and joins the group *before* it reads the state it sends first, so a move
either reaches the new socket's first state or sees the count that makes it push.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from django.conf import settings

logger = logging.getLogger(__name__)

KEY_PREFIX = "daily_patience:tabs"
TTL_SECONDS = 7 * 24 * 3600
TIMEOUT_SECONDS = 0.25
BREAKER_SECONDS = 5.0


def _key(game_id: str) -> str:
    return f"{KEY_PREFIX}:{game_id}"


class _Redis:
    """Counts in Redis (short timeouts; after a failure, left alone for ``BREAKER_SECONDS``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: redis.Redis | None = None
        self._url: str | None = None
        self._down_until = 0.0

    def client(self) -> redis.Redis | None:
        url = settings.REDIS_URL
        with self._lock:
            if self._client is None or self._url != url:
                self._client = redis.Redis.from_url(
                    url,
                    socket_connect_timeout=TIMEOUT_SECONDS,
                    socket_timeout=TIMEOUT_SECONDS,
                )
                self._url, self._down_until = url, 0.0
            if time.monotonic() < self._down_until:
                return None
            return self._client

    def failed(self, error: Exception) -> None:
        self._down_until = time.monotonic() + BREAKER_SECONDS
        logger.warning("game tabs: Redis unreachable, every move is pushed for now: %r", error)

    def add(self, game_id: str, step: int) -> None:
        client = self.client()
        if client is None:
            return
        try:
            pipe = client.pipeline(transaction=False)
            pipe.incrby(_key(game_id), step)
            pipe.expire(_key(game_id), TTL_SECONDS)
            pipe.execute()
        except (redis.RedisError, OSError) as error:
            self.failed(error)

    def count(self, game_id: str) -> int | None:
        client = self.client()
        if client is None:
            return None
        try:
            pipe = client.pipeline(transaction=False)
            pipe.get(_key(game_id))
            pipe.expire(_key(game_id), TTL_SECONDS)
            found, _ = pipe.execute()
        except (redis.RedisError, OSError) as error:
            self.failed(error)
            return None
        return None if found is None else int(found)


class _Memory:
    """Counts in this process, for the embedded default (one process, an in-memory layer)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}

    def add(self, game_id: str, step: int) -> None:
        with self._lock:
            count = self._counts.get(game_id, 0) + step
            if count > 0:
                self._counts[game_id] = count
            else:
                self._counts.pop(game_id, None)

    def count(self, game_id: str) -> int | None:
        with self._lock:
            return self._counts.get(game_id)


_redis = _Redis()
_memory = _Memory()


def _store() -> _Redis | _Memory:
    return _redis if settings.REDIS_URL else _memory


def opened(game_id: str) -> None:
    """Count one more open socket of ``game_id`` (blocking I/O: call it in a worker thread)."""
    _store().add(game_id, 1)


def closed(game_id: str) -> None:
    """Count one socket of ``game_id`` fewer (blocking I/O: call it in a worker thread)."""
    _store().add(game_id, -1)


def others_open(game_id: str) -> bool:
    """Whether a socket of ``game_id`` other than the caller's may be open (doubt says yes)."""
    count = _store().count(game_id)
    return count is None or count != 1
