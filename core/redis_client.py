"""The process's Redis clients: one per server, one timeout policy, one circuit breaker.

Everything that talks to Redis itself (rate limits, the open tabs of game sockets, the live
store of each deal, the boards, the health check) goes through here; the channel layer and
the cache keep the clients of their own libraries.

A call is made with ``run(operation, what=...)``: the operation gets the client of
``settings.REDIS_URL`` and its result is returned. Without ``REDIS_URL``, or while the breaker
is open, ``run`` raises ``Unavailable`` at once, and so does a call that fails (a Redis error, a
timeout: connect and read wait ``TIMEOUT_SECONDS``); a failure opens the breaker for
``BREAKER_SECONDS``, so a dead or paused server costs one timeout, not one per request. Every
caller has its answer for ``Unavailable`` (a limit lets the hit through, a board is read from
PostgreSQL...). An outage is logged once when it starts, naming what it costs, and once when a
call works again.

On the event loop (``games.services.batches``, the game socket's ordinary move) the same server
is reached without blocking: ``await call(command, *args, what=...)`` and ``await
call_script(source, keys, args, what=...)`` queue one command in the running loop's window, and
the window sends every command queued meanwhile in one pipeline, at most one pipeline in flight
per loop: a thousand moves a second cost a few hundred round trips, not thousands. The window
shares the breaker and the timeouts above.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import redis
import redis.asyncio
from django.conf import settings
from redis.commands.core import Script

from core import metrics

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 0.25
BREAKER_SECONDS = 5.0
HEALTH_CHECK_SECONDS = 30
ERRORS: tuple[type[BaseException], ...] = (redis.RedisError, OSError)

T = TypeVar("T")


class Unavailable(Exception):
    """Redis is not configured, or cannot answer now."""


# What the channel layer (channels-redis) raises when its Redis is away.
LAYER_FAULTS: tuple[type[BaseException], ...] = (Unavailable, *ERRORS, asyncio.TimeoutError)


class _Server:
    """The clients of one server URL (bytes and decoded), its scripts and its breaker."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._clients: dict[bool, redis.Redis] = {}
        self._scripts: dict[tuple[bool, str], Script] = {}
        self._lock = threading.Lock()
        self.down_until = 0.0
        self.down = False  # an outage is under way (logged when it began)

    def client(self, text: bool) -> redis.Redis:
        found = self._clients.get(text)
        if found is None:
            with self._lock:
                found = self._clients.get(text)
                if found is None:
                    found = self._clients[text] = redis.Redis.from_url(
                        self.url,
                        socket_connect_timeout=TIMEOUT_SECONDS,
                        socket_timeout=TIMEOUT_SECONDS,
                        health_check_interval=HEALTH_CHECK_SECONDS,
                        decode_responses=text,
                    )
        return found

    def script(self, source: str, text: bool) -> Script:
        found = self._scripts.get((text, source))
        if found is None:
            found = self._scripts[(text, source)] = self.client(text).register_script(source)
        return found

    def failed(self, error: BaseException, what: str) -> None:
        self.down_until = time.monotonic() + BREAKER_SECONDS
        metrics.REDIS_FAILURES.inc()
        if not self.down:
            self.down = True
            metrics.REDIS_BREAKER_OPEN.set(1)
            logger.warning("Redis unreachable (%s): %r", what, error)

    def worked(self) -> None:
        if self.down:
            self.down = False
            metrics.REDIS_BREAKER_OPEN.set(0)
            logger.warning("Redis answers again")

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


_servers: dict[str, _Server] = {}
_servers_lock = threading.Lock()


def configured() -> bool:
    """Whether the service is configured with a Redis server (``REDIS_URL``)."""
    return bool(settings.REDIS_URL)


def _server() -> _Server:
    url = settings.REDIS_URL
    if not url:
        raise Unavailable("no REDIS_URL is configured")
    found = _servers.get(url)
    if found is None:
        with _servers_lock:
            found = _servers.setdefault(url, _Server(url))
    return found


def run(operation: Callable[[redis.Redis], T], *, what: str, text: bool = False) -> T:
    """Return ``operation(client)``; raise ``Unavailable`` (see the module docstring).

    ``what`` says what callers lose while Redis is away, for the log; ``text`` gives a client
    that decodes answers to ``str``.
    """
    server = _server()
    if time.monotonic() < server.down_until:
        raise Unavailable("Redis was unreachable a moment ago")
    try:
        result = operation(server.client(text))
    except ERRORS as error:
        server.failed(error, what)
        raise Unavailable(str(error)) from error
    server.worked()
    return result


def script(source: str, *, text: bool = False) -> Callable[..., Any]:
    """Return a callable ``(client, keys=..., args=...)`` running the Lua ``source`` there
    (loaded once per client: ``EVALSHA``, with ``EVAL`` when the server lost it)."""

    def call(client: redis.Redis, *, keys: list[Any], args: list[Any]) -> Any:
        return _server().script(source, text)(keys=keys, args=args, client=client)

    return call


_layer_down_until = 0.0


def report(error: BaseException, *, what: str, layer: bool = True) -> None:
    """Tell the breaker that a call to the configured server outside this module failed: the
    outage is logged once, and calls here fail at once for a while. With ``layer`` (a call of
    the channel layer), the layer is taken as down for as long (``layer_is_down``)."""
    global _layer_down_until
    if configured():
        if layer:
            _layer_down_until = time.monotonic() + BREAKER_SECONDS
        _server().failed(error, what)


def layer_is_down() -> bool:
    """Whether a call of the channel layer failed within the last ``BREAKER_SECONDS``: pushes
    pause meanwhile, instead of each waiting on a dead or stalled server."""
    return time.monotonic() < _layer_down_until


def pushes_pause() -> bool:
    """Whether a push a socket would wait for should be skipped now: the channel layer failed
    lately, or this server's breaker is open (a stalled Redis would hold the socket for the
    layer's whole read timeout)."""
    return layer_is_down() or is_down()


def is_down() -> bool:
    """Whether the breaker of the configured server is open (False without Redis)."""
    url = settings.REDIS_URL
    found = _servers.get(url) if url else None
    return found is not None and time.monotonic() < found.down_until


def reset() -> None:
    """Forget every client and close every breaker (tests; a server that changed)."""
    global _layer_down_until
    _layer_down_until = 0.0
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.close()


# --- on the event loop ----------------------------------------------------------------------


class _Window:
    """The commands one loop queued since its last pipeline, and the client that sends them."""

    def __init__(self, loop: asyncio.AbstractEventLoop, server: _Server) -> None:
        self.loop = loop
        self.server = server
        self.client = redis.asyncio.Redis.from_url(
            server.url,
            socket_connect_timeout=TIMEOUT_SECONDS,
            socket_timeout=TIMEOUT_SECONDS,
            health_check_interval=HEALTH_CHECK_SECONDS,
        )
        self.queued: list[tuple[tuple[Any, ...], asyncio.Future[Any], str]] = []
        self.sending = False
        self.scripts: dict[str, str] = {}  # sha -> source

    def add(self, command: tuple[Any, ...], what: str) -> asyncio.Future[Any]:
        future = self.loop.create_future()
        self.queued.append((command, future, what))
        if not self.sending:
            self.sending = True
            self.loop.create_task(self.send())
        return future

    async def send(self) -> None:
        try:
            while self.queued:
                batch, self.queued = self.queued, []
                await self._send(batch)
        finally:
            self.sending = False

    async def _send(self, batch: list[tuple[tuple[Any, ...], asyncio.Future[Any], str]]) -> None:
        try:
            answers = await self._pipeline([command for command, _, _ in batch])
            missing = [
                index
                for index, answer in enumerate(answers)
                if isinstance(answer, redis.exceptions.NoScriptError)
            ]
            if missing:  # the server lost (or never had) a script: load, send those again
                for source in self.scripts.values():
                    await self.client.script_load(source)
                again = await self._pipeline([batch[index][0] for index in missing])
                for index, answer in zip(missing, again, strict=True):
                    answers[index] = answer
        except ERRORS as error:
            self.server.failed(error, batch[0][2])
            for _, future, _ in batch:
                if not future.done():
                    future.set_exception(Unavailable(str(error)))
            return
        except BaseException as error:  # never leave a caller waiting on a command
            for _, future, _ in batch:
                if not future.done():
                    future.set_exception(
                        error if isinstance(error, Exception) else Unavailable("cancelled")
                    )
            if not isinstance(error, Exception):
                raise
            logger.exception("a Redis pipeline failed")
            return
        self.server.worked()
        for (_, future, _), answer in zip(batch, answers, strict=True):
            if future.done():
                continue
            if isinstance(answer, Exception):
                future.set_exception(Unavailable(str(answer)))
            else:
                future.set_result(answer)

    async def _pipeline(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        pipe = self.client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        return list(await pipe.execute(raise_on_error=False))


_windows: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Window] = (
    weakref.WeakKeyDictionary()
)


def _window() -> _Window:
    server = _server()
    if time.monotonic() < server.down_until:
        raise Unavailable("Redis was unreachable a moment ago")
    loop = asyncio.get_running_loop()
    found = _windows.get(loop)
    if found is None or found.server is not server:
        found = _windows[loop] = _Window(loop, server)
    return found


async def call(*command: Any, what: str) -> Any:
    """Send one Redis command in the running loop's next pipeline; return its answer (bytes).

    Raise ``Unavailable`` as ``run`` does.
    """
    return await _window().add(command, what)


async def call_script(source: str, keys: list[Any], args: list[Any], *, what: str) -> Any:
    """Run the Lua ``source`` in the running loop's next pipeline (``EVALSHA``, loaded again
    when the server has lost it); return its answer."""
    window = _window()
    sha = hashlib.sha1(source.encode("utf-8")).hexdigest()
    window.scripts.setdefault(sha, source)
    return await window.add(("EVALSHA", sha, len(keys), *keys, *args), what)


async def close_window() -> None:
    """Close the running loop's client (tests, a clean shutdown)."""
    found = _windows.pop(asyncio.get_running_loop(), None)
    if found is not None:
        await found.client.aclose()
