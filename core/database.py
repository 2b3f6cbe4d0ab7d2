"""PostgreSQL on the event loop: one small asynchronous connection pool per running loop.

Django's connections are synchronous, so a socket's database work used to run on a thread:
a hop to the thread and back for every frame, and the threads taking turns on the interpreter
lock. What runs often and simply on a socket (the ordinary move, ``games.services.batches``)
talks to PostgreSQL here instead, with psycopg's asynchronous pool, on the loop that serves the
socket. Everything else keeps Django's connections.

The pool belongs to the loop that made it (psycopg's asynchronous connections cannot cross
loops): a server has one loop per worker, a test one per test. It opens on first use with the
database of Django's ``default`` connection (the test database under tests) and holds
``DATABASE_LOOP_CONNECTIONS`` connections (default 2), in autocommit. ``close()`` closes the
running loop's pool (a clean shutdown, the end of a test).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from django.conf import settings
from django.db import connections
from psycopg import AsyncConnection
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool

DEFAULT_LOOP_CONNECTIONS = 2
TIMEOUT_SECONDS = 5.0

_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncConnectionPool] = (
    weakref.WeakKeyDictionary()
)
_Opening = asyncio.Task[AsyncConnectionPool]
_opening: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Opening] = (
    weakref.WeakKeyDictionary()
)


def available() -> bool:
    """Whether the default database is PostgreSQL (the only one these pools serve)."""
    return connections["default"].vendor == "postgresql"


def pool_size() -> int:
    """Return how many connections a loop's pool holds (``DATABASE_LOOP_CONNECTIONS``)."""
    return max(1, int(getattr(settings, "DATABASE_LOOP_CONNECTIONS", DEFAULT_LOOP_CONNECTIONS)))


def conninfo() -> str:
    """Return the connection string of Django's default database (its current name: the test
    database's under tests)."""
    config = connections["default"].settings_dict
    options = {
        key: value
        for key, value in (config.get("OPTIONS") or {}).items()
        if key in ("sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "options")
    }
    return make_conninfo(
        dbname=config["NAME"],
        user=config.get("USER") or None,
        password=config.get("PASSWORD") or None,
        host=config.get("HOST") or None,
        port=str(config["PORT"]) if config.get("PORT") else None,
        **options,
    )


async def _configure(connection: AsyncConnection[Any]) -> None:
    await connection.set_autocommit(True)


async def _open() -> AsyncConnectionPool:
    opened = AsyncConnectionPool(
        conninfo(),
        min_size=pool_size(),
        max_size=pool_size(),
        timeout=TIMEOUT_SECONDS,
        configure=_configure,
        kwargs={"prepare_threshold": 1},
        open=False,
        name="loop",
    )
    await opened.open()
    return opened


async def pool() -> AsyncConnectionPool:
    """Return the running loop's pool, opened on first use (once, however many ask at once)."""
    loop = asyncio.get_running_loop()
    found = _pools.get(loop)
    if found is not None:
        return found
    opening = _opening.get(loop)
    if opening is None:
        opening = _opening[loop] = loop.create_task(_open())
    try:
        found = await asyncio.shield(opening)
    finally:
        if opening.done():
            _opening.pop(loop, None)
    _pools[loop] = found
    return found


async def close() -> None:
    """Close the running loop's pool, if it has one."""
    found = _pools.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.close()


def check_pools_threadsafe(timeout: float = 2.0) -> None:
    """From a thread other than the loops': test the idle connections of every loop's pool
    and replace the dead at once (``core.breaker``, once PostgreSQL is back)."""
    for loop, found in list(_pools.items()):
        if loop.is_closed() or not loop.is_running():
            continue
        future = asyncio.run_coroutine_threadsafe(found.check(), loop)
        try:
            future.result(timeout=timeout)
        except Exception:
            future.cancel()


def open_pools() -> list[AsyncConnectionPool]:
    """Return the pools of every loop of this process (the metrics read their figures)."""
    return list(_pools.values())
