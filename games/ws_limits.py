"""Rate limits of WebSocket frames: the live counterpart of the REST throttles.

Each incoming frame counts once per socket and once per player, in a sliding window kept in the
Django cache (Redis in production, so every worker process shares the player's count). The
window is the usual two-bucket approximation: the current fixed window's count plus the previous
window's count weighted by how much of it still overlaps the sliding window.

``settings.WEBSOCKET_RATE_LIMITS`` sets the limits::

    WEBSOCKET_RATE_LIMITS = {
        "socket": {"frames": 20, "seconds": 1},
        "player": {"frames": 300, "seconds": 60},
    }

A missing (or ``None``) entry means no limit of that kind.
"""

from __future__ import annotations

import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

KEY_PREFIX = "ws-rate"
DEFAULT_LIMITS: dict[str, dict[str, float] | None] = {
    "socket": {"frames": 20, "seconds": 1},
    "player": {"frames": 300, "seconds": 60},
}


def limits() -> dict[str, Any]:
    """Return the configured limits, by kind (``socket``, ``player``)."""
    return getattr(settings, "WEBSOCKET_RATE_LIMITS", DEFAULT_LIMITS)


def _count(key: str, seconds: float, now: float) -> float:
    """Count one hit under ``key`` and return the hits of the sliding window ending now."""
    position = now / seconds
    window = math.floor(position)
    current = f"{KEY_PREFIX}:{key}:{window}"
    previous = f"{KEY_PREFIX}:{key}:{window - 1}"
    ttl = math.ceil(seconds * 2) + 1
    cache.add(current, 0, ttl)
    try:
        # None: the cache is unreachable (django-redis ignores the error); count this hit alone.
        hits = cache.incr(current) or 1
    except ValueError:  # expired between add and incr
        cache.set(current, 1, ttl)
        hits = 1
    before = cache.get(previous) or 0
    return hits + before * (1 - (position - window))


def check_frame(*, socket: str, player: Any = None, now: float | None = None) -> str | None:
    """Count one frame of ``socket`` (and of ``player`` when given).

    Return None while within every limit, else a sentence saying which limit was exceeded.
    """
    moment = time.time() if now is None else now
    configured = limits()
    keys = [("socket", f"socket:{socket}")]
    if player is not None:
        keys.append(("player", f"player:{player}"))
    for kind, key in keys:
        limit = configured.get(kind)
        if not limit:
            continue
        frames, seconds = limit["frames"], limit["seconds"]
        if _count(key, seconds, moment) > frames:
            per = "this connection" if kind == "socket" else "this player"
            return f"More than {frames} messages in {seconds:g} s from {per}; slow down."
    return None
