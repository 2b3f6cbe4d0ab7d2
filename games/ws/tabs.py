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
a missed one. Keys live ``TTL_SECONDS`` (longer than any game's day) after a socket of the game
last opened or closed; a move only reads its key (one command).

A socket counts itself and joins the group *before* it reads the state it sends first, so a move
either reaches the new socket's first state or sees the count that makes it push.

On the event loop, ``aopened``, ``aclosed`` and ``aothers_open`` do the same with no thread:
their commands go in the loop's next Redis pipeline (``core.redis_client.call``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import redis

from core import redis_client

KEY_PREFIX = "daily_patience:tabs"
TTL_SECONDS = 7 * 24 * 3600


def _key(game_id: str) -> str:
    return f"{KEY_PREFIX}:{game_id}"


class _Redis:
    """Counts in Redis (``core.redis_client``: short timeouts, one breaker)."""

    what = "every move is pushed to its game's group"

    def add(self, game_id: str, step: int) -> None:
        def add(client: redis.Redis) -> None:
            pipe = client.pipeline(transaction=False)
            pipe.incrby(_key(game_id), step)
            pipe.expire(_key(game_id), TTL_SECONDS)
            pipe.execute()

        with contextlib.suppress(redis_client.Unavailable):
            redis_client.run(add, what=self.what)

    def count(self, game_id: str) -> int | None:
        def count(client: redis.Redis) -> Any:
            return client.get(_key(game_id))

        try:
            found = redis_client.run(count, what=self.what)
        except redis_client.Unavailable:
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
    return _redis if redis_client.configured() else _memory


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


async def _aadd(game_id: str, step: int) -> None:
    if not redis_client.configured():
        _memory.add(game_id, step)
        return
    key = _key(game_id)
    with contextlib.suppress(redis_client.Unavailable):
        await asyncio.gather(
            redis_client.call("INCRBY", key, step, what=_redis.what),
            redis_client.call("EXPIRE", key, TTL_SECONDS, what=_redis.what),
        )


async def aopened(game_id: str) -> None:
    """``opened`` on the event loop."""
    await _aadd(game_id, 1)


async def aclosed(game_id: str) -> None:
    """``closed`` on the event loop."""
    await _aadd(game_id, -1)


async def aothers_open(game_id: str) -> bool:
    """``others_open`` on the event loop."""
    if not redis_client.configured():
        count = _memory.count(game_id)
    else:
        key = _key(game_id)
        try:
            found = await redis_client.call("GET", key, what=_redis.what)
        except redis_client.Unavailable:
            return True
        count = None if found is None else int(found)
    return count is None or count != 1
