"""Rate limits of WebSocket frames: the live counterpart of the REST throttles.

Each incoming frame counts once for its socket and once for its player. The socket's count is a
token bucket kept on the consumer, in process (no I/O); the player's count is one
``core.ratelimits.hit()`` (one Redis script, atomic across worker processes; in memory without
Redis). ``settings.WEBSOCKET_RATE_LIMITS`` sets them::

    WEBSOCKET_RATE_LIMITS = {
        "socket": {"frames": 20, "seconds": 1},
        "player": {"frames": 600, "seconds": 60},
    }

A missing (or ``None``) entry means no limit of that kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from core import metrics, ratelimits

DEFAULT_LIMITS: dict[str, dict[str, float] | None] = {
    "socket": {"frames": 20, "seconds": 1},
    "player": {"frames": 600, "seconds": 60},
}


def limits() -> dict[str, Any]:
    """Return the configured limits, by kind (``socket``, ``player``)."""
    return getattr(settings, "WEBSOCKET_RATE_LIMITS", DEFAULT_LIMITS)


def exceeded(kind: str, frames: float, seconds: float) -> str:
    """Count a refusal of a ``kind`` limit (``socket``, ``player``) and return its sentence."""
    metrics.RATE_LIMIT_REFUSALS.labels(scope=f"ws_{kind}").inc()
    if kind == "socket":
        text = gettext(
            "More than {frames:g} messages in {seconds:g} s from this connection; slow down."
        )
    else:
        text = gettext(
            "More than {frames:g} messages in {seconds:g} s from this player; slow down."
        )
    return text.format(frames=frames, seconds=seconds)


class FrameBucket:
    """A token bucket of one socket: ``frames`` at once, refilled at ``frames / seconds``."""

    def __init__(
        self, frames: float, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.frames = frames
        self.seconds = seconds
        self.rate = frames / seconds
        self.tokens = float(frames)
        self.clock = clock
        self.stamp = clock()

    def take(self) -> bool:
        """Take one token; return whether there was one."""
        now = self.clock()
        self.tokens = min(self.frames, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def socket_bucket() -> FrameBucket | None:
    """Return a new bucket of the configured socket limit, or None when there is none."""
    limit = limits().get("socket")
    if not limit:
        return None
    return FrameBucket(limit["frames"], limit["seconds"])


def player_limit_is_remote() -> bool:
    """Whether counting a player's frame does network I/O (so it belongs off the event loop)."""
    return bool(settings.REDIS_URL) and bool(limits().get("player"))


def check_player(player: Any) -> str | None:
    """Count one frame of ``player`` (a primary key); return why it is refused, or None."""
    limit = limits().get("player")
    if not limit or player is None:
        return None
    verdict = ratelimits.hit(f"ws-player:{player}", limit=limit["frames"], seconds=limit["seconds"])
    return None if verdict.allowed else exceeded("player", limit["frames"], limit["seconds"])


async def acheck_player(player: Any) -> str | None:
    """``check_player`` on the event loop (``core.ratelimits.ahit``: no thread, no blocking)."""
    limit = limits().get("player")
    if not limit or player is None:
        return None
    verdict = await ratelimits.ahit(
        f"ws-player:{player}", limit=limit["frames"], seconds=limit["seconds"]
    )
    return None if verdict.allowed else exceeded("player", limit["frames"], limit["seconds"])
