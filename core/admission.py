"""Admission control: a worker that is full says so to newcomers, and keeps serving its players.

A daily game's crowd arrives at once. Past what a worker can serve, letting everyone in makes
every player's moves slow to seconds; refusing the newcomers for a few seconds keeps the players
already in at their pace, and the newcomers get in as the rush thins. So each worker watches its
own pressure:

- **the event loop's lag**: a probe task sleeps ``PROBE_SECONDS`` and measures how late it wakes;
  the worst lag of the last ``WINDOW_SECONDS`` above ``ADMISSION_LOOP_LAG_MS`` means the loop
  cannot keep up (every frame of every socket waits that long);
- **what the apps watch** (``watch(name, check)``): ``games`` watches its moves waiting for the
  database (``ADMISSION_MOVE_BACKLOG``), the HTTP stack its requests waiting for a thread
  (``ADMISSION_REQUEST_WAIT_MS``, ``config.handler``).

While one of them is over its limit, ``AdmissionGuard`` (ASGI, around the HTTP and the
WebSocket stacks) refuses what would add players, before any session or database work:

- a socket's handshake gets ``{"type": "error", "error": "unavailable", "detail": ...,
  "retry_after": s}`` then the close code 1011;
- a new game (``POST /api/games/``) gets ``503`` ``{"error": "unavailable", "detail": ...,
  "retry_after": s}`` with ``Retry-After: s``.

Everything else goes on: the frames of open sockets (moves in flight are never dropped), every
other request. ``retry_after`` is ``ADMISSION_RETRY_SECONDS``; clients wait it times (1 + a
random fraction), so the refused do not all come back at once. ``ADMISSION=false`` turns
the guard off.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from core import metrics
from core.errors import ErrorCode
from core.languages import scope_language

logger = logging.getLogger(__name__)

PROBE_SECONDS = 0.05
WINDOW_SECONDS = 1.0
CLOSE_UNAVAILABLE = 1011
GAME_START = ("POST", "/api/games/")

_checks: dict[str, Callable[[], bool]] = {}


def watch(name: str, check: Callable[[], bool]) -> None:
    """Have the guard refuse newcomers while ``check()`` is true (``name`` goes in the log)."""
    _checks[name] = check


class Probe:
    """How late one event loop wakes from a short sleep, over the last ``WINDOW_SECONDS``."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.lags: deque[tuple[float, float]] = deque()  # (when, lag in seconds)
        self.task = loop.create_task(self.run())

    async def run(self) -> None:
        while True:
            asked = self.loop.time()
            await asyncio.sleep(PROBE_SECONDS)
            woke = self.loop.time()
            self.note(woke, max(0.0, woke - asked - PROBE_SECONDS))

    def note(self, when: float, lag: float) -> None:
        self.lags.append((when, lag))
        while self.lags and self.lags[0][0] < when - WINDOW_SECONDS:
            self.lags.popleft()

    def lag(self) -> float:
        """Return the worst lag of the window, counting a probe overdue now as lagging."""
        now = self.loop.time()
        worst = max((lag for when, lag in self.lags if when >= now - WINDOW_SECONDS), default=0.0)
        if self.lags:
            overdue = now - self.lags[-1][0] - PROBE_SECONDS
            worst = max(worst, overdue)
        return worst


_probes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Probe] = weakref.WeakKeyDictionary()


def probe() -> Probe:
    """Return the running loop's probe, started on first use."""
    loop = asyncio.get_running_loop()
    found = _probes.get(loop)
    if found is None:
        found = _probes[loop] = Probe(loop)
    return found


async def stop() -> None:
    """Stop the running loop's probe (tests, a clean shutdown)."""
    found = _probes.pop(asyncio.get_running_loop(), None)
    if found is not None:
        found.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await found.task


_last_reason: str | None = None


def pressure() -> str | None:
    """Return why this worker is full now (a short phrase for the log), or None."""
    limit = settings.ADMISSION_LOOP_LAG_MS / 1000
    lag = probe().lag()
    if lag > limit:
        return f"the event loop lags {lag * 1000:.0f} ms"
    for name, check in list(_checks.items()):
        if check():
            return f"{name} over its limit"
    return None


def refusing() -> bool:
    """Whether newcomers are refused now; logs when that starts and ends."""
    global _last_reason
    if not settings.ADMISSION:
        return False
    reason = pressure()
    if reason != _last_reason:
        if reason is not None and _last_reason is None:
            logger.warning("full: refusing new games and sockets (%s)", reason)
        elif reason is None:
            logger.warning("admitting new games and sockets again")
        _last_reason = reason
    return reason is not None


def retry_after() -> int:
    return max(1, int(settings.ADMISSION_RETRY_SECONDS))


def refusal(seconds: int) -> dict[str, Any]:
    """Return the body of a refusal, in the active language."""
    return {
        "error": ErrorCode.UNAVAILABLE.value,
        "detail": gettext("The service is full for the moment; try again in {seconds} s.").format(
            seconds=seconds
        ),
        "retry_after": seconds,
    }


class AdmissionGuard:
    """ASGI middleware: refuse newcomers while this worker is full (see the module docstring)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind = scope.get("type")
        if kind == "websocket" and refusing():
            await self.refuse_socket(scope, receive, send)
            return
        if kind == "http" and (scope.get("method"), scope.get("path")) == GAME_START and refusing():
            await self.refuse_request(scope, send)
            return
        await self.inner(scope, receive, send)

    async def refuse_socket(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = await receive()
        if message.get("type") != "websocket.connect":
            return
        metrics.ADMISSION_REFUSALS.labels(kind="socket").inc()
        seconds = retry_after()
        with translation.override(scope_language(scope)):
            frame = {"type": "error", **refusal(seconds)}
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps(frame)})
        await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})

    async def refuse_request(self, scope: dict[str, Any], send: Any) -> None:
        metrics.ADMISSION_REFUSALS.labels(kind="game_start").inc()
        seconds = retry_after()
        with translation.override(scope_language(scope)):
            body = json.dumps(refusal(seconds)).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(seconds).encode()),
        ]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})
