"""The one clock of the service: every "now" and "today" comes from here.

Tests pin time with ``frozen(...)``; production reads the system clock (UTC).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

_pinned: dt.datetime | None = None


def now() -> dt.datetime:
    """Return the current time, timezone-aware in UTC."""
    return _pinned if _pinned is not None else dt.datetime.now(dt.UTC)


def today() -> dt.date:
    """Return the current UTC date: the day of the daily deals being played."""
    return now().date()


@contextmanager
def frozen(moment: dt.datetime) -> Iterator[None]:
    """Pin the clock at ``moment`` (made UTC if naive) for the duration of the block."""
    global _pinned
    previous = _pinned
    _pinned = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    try:
        yield
    finally:
        _pinned = previous
