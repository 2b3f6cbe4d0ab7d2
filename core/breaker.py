"""The circuit breaker of PostgreSQL: once the database is known down, fail at once.

Without it, every request during an outage waits the connection pool's whole timeout before
its 503, holding a thread; and once PostgreSQL is back, a worker's pool still holds the dead
connections, each discarded on a request's time with psycopg-pool's back-off between attempts.

- ``report(error)``: a caller saw a database error. If the breaker is closed and no check is
  under way, a thread of the breaker connects to PostgreSQL itself (``PROBE_TIMEOUT`` s at
  most). When that fails too, the breaker opens: one warning is logged, naming the error, and
  ``patience_database_breaker_open`` is 1. A busy pool (its timeout, while the server answers)
  opens nothing.
- While it is open, ``is_open()`` is true: requests are answered 503 ``unavailable`` with
  ``Retry-After`` in a millisecond (``config.middleware.DatabaseBreakerMiddleware``), sockets
  close ``unavailable``, the readiness probe reports the database down without waiting.
- The thread tries a fresh connection every ``PROBE_SECONDS``. The first that works checks
  every pool of the process (Django's and the event loops': each idle connection tested, the
  dead replaced at once), then closes the breaker and logs one line with the outage's length.

Only PostgreSQL has a breaker; with SQLite ``report`` does nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import psycopg
from django.db import OperationalError, connections

from core import database, metrics

logger = logging.getLogger(__name__)

PROBE_SECONDS = 0.5
PROBE_TIMEOUT = 1  # seconds to connect, whole seconds (libpq's connect_timeout)
# Retry-After of the 503 answered while the breaker is open.
RETRY_AFTER_SECONDS = 2


class DatabaseDown(OperationalError):
    """PostgreSQL is known to be down: the request was not tried."""


_lock = threading.Lock()
_open = False
_checking = False
_opened_at = 0.0


def is_open() -> bool:
    """Whether PostgreSQL is known to be down now."""
    return _open


def check() -> None:
    """Raise ``DatabaseDown`` while the breaker is open."""
    if _open:
        raise DatabaseDown("PostgreSQL is unreachable; the request was not tried")


def report(error: BaseException | None = None) -> None:
    """Tell the breaker that a database call failed with ``error`` (see the module docstring).

    Never blocks and never raises: the check runs on the breaker's own thread.
    """
    global _checking
    if _open or _checking or not database.available():
        return
    with _lock:
        if _open or _checking:
            return
        _checking = True
    threading.Thread(target=_watch, args=(error,), name="database-breaker", daemon=True).start()


# The server answered, but refused one more connection (too many clients already): it is up, and
# the pools' own connections serve. Opening the breaker then would turn a full server into an
# outage.
_UP_BUT_FULL = frozenset({"53300"})
_FULL_WORDS = ("too many clients", "remaining connection slots are reserved")


def _reachable() -> bool:
    """Whether a fresh connection to PostgreSQL answers ``SELECT 1`` (or the server says it has
    no connection to spare)."""
    try:
        with psycopg.connect(database.conninfo(), connect_timeout=PROBE_TIMEOUT) as probe:
            probe.execute("SELECT 1")
    except psycopg.Error as error:
        text = str(error).lower()
        return error.sqlstate in _UP_BUT_FULL or any(words in text for words in _FULL_WORDS)
    except Exception:
        return False
    return True


def _watch(error: BaseException | None) -> None:
    """Confirm an outage; if it is one, open the breaker, wait for PostgreSQL, close it."""
    global _open, _checking, _opened_at
    try:
        if _reachable():
            return  # a busy pool or a passing fault: nothing to open
        with _lock:
            _open = True
            _opened_at = time.monotonic()
        metrics.DATABASE_BREAKER_OPEN.set(1)
        logger.warning(
            "PostgreSQL unreachable (%s); requests are answered 503 until it answers again",
            _describe(error),
        )
        while not _reachable():
            time.sleep(PROBE_SECONDS)
        refresh_pools()
        with _lock:
            _open = False
        metrics.DATABASE_BREAKER_OPEN.set(0)
        logger.warning(
            "PostgreSQL answers again after %.1f s; the pools' connections were checked",
            time.monotonic() - _opened_at,
        )
    finally:
        with _lock:
            _checking = False
        connections.close_all()  # this thread's own, if any


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "no answer"
    cause = error.__cause__ or error
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    return f"{type(cause).__name__}: {text}"[:300]


def refresh_pools() -> None:
    """Test every idle connection of this process's pools and replace the dead at once."""
    pool: Any = getattr(connections["default"], "pool", None)
    if pool is not None:
        try:
            pool.check()
        except Exception:
            logger.warning("checking the connection pool failed", exc_info=True)
    database.check_pools_threadsafe()


def reset() -> None:
    """Close the breaker at once (tests)."""
    global _open
    with _lock:
        _open = False
    metrics.DATABASE_BREAKER_OPEN.set(0)
