"""What every socket shares: JSON framing, refusals, close codes, limits and faults.

``PatienceConsumer`` builds on Channels' ``AsyncJsonWebsocketConsumer``. It accepts every
handshake (so that a refusal can say why), checks the page the connection comes from, then
calls ``open()``. A refusal is one path, ``refuse(error)``: an error frame
``{"type": "error", "error": code, "detail": ...}`` (a code of ``core.errors.ErrorCode``, or
``unavailable``), then a close with one of these codes:

====== ==========================================================================
 4403  ``not_authenticated`` or ``forbidden`` (including a page of a foreign host)
 4404  ``not_found``: no such game or deal, or no such socket path
 4429  ``rate_limited``: too many frames (``games.ws.limits``)
 1009  ``invalid``: a frame larger than ``MAX_FRAME_BYTES``
 1011  ``unavailable``: the database cannot serve the socket now (Redis away closes no socket:
       its pushes pause until the channel layer answers again);
       ``server_error``: the server failed while opening the socket
====== ==========================================================================

A malformed frame (binary, not JSON, too deeply nested, not an object) is answered
``invalid`` and the socket stays open. An exception in a handler is logged and never ends the
socket without a close frame: a fault of the database or the channel layer closes it 1011
(``unavailable``); any other error is answered ``server_error`` and the socket stays open, unless
it happened while opening (then 1011). A send to a client that already closed its socket
(uvicorn's ``ClientDisconnected``, an ``OSError``) is neither: nobody is left to answer, and no
outage is taken from it. ``SocketGuard``, outside the whole stack, does the same
for anything that escapes before a consumer runs, so a handshake never ends in an HTTP 500.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import orjson
import psycopg
import psycopg_pool
import redis
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.utils import translation
from django.utils.translation import gettext
from uvicorn.protocols.utils import ClientDisconnected

from core import breaker, logcontext, metrics, redis_client
from core.errors import ErrorCode, ServiceError
from core.languages import scope_language
from games.ws import limits

logger = logging.getLogger(__name__)

CLOSE_TOO_BIG = 1009
CLOSE_UNAVAILABLE = 1011
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_RATE_LIMITED = 4429
MAX_FRAME_BYTES = 64 * 1024
CANCEL_AGAIN_SECONDS = 0.05
# While the channel layer's Redis is away a socket stays open and tries its layer again this
# often, once the layer's pause is over (``core.redis_client.layer_is_down``).
LAYER_RETRY_SECONDS = 1.0
PUSHES_PAUSE = "pushes to sockets pause"
UNAVAILABLE = ErrorCode.UNAVAILABLE.value


def _database_threads() -> int:
    """Return how many threads run the sockets' database calls in one process:
    ``WEBSOCKET_DATABASE_THREADS``, default 8. Keep it below ``DATABASE_POOL_MAX``: the HTTP
    requests of the worker borrow from the same pool."""
    return int(getattr(settings, "WEBSOCKET_DATABASE_THREADS", 0) or 8)


# Worker threads of the sockets' database calls, per process: at most this many connections.
DATABASE_THREADS = _database_threads()

T = TypeVar("T")
_executor = ThreadPoolExecutor(max_workers=DATABASE_THREADS, thread_name_prefix="ws-db")

_CLOSE_CODES = {
    ErrorCode.NOT_AUTHENTICATED: CLOSE_FORBIDDEN,
    ErrorCode.FORBIDDEN: CLOSE_FORBIDDEN,
    ErrorCode.NOT_FOUND: CLOSE_NOT_FOUND,
    ErrorCode.RATE_LIMITED: CLOSE_RATE_LIMITED,
    ErrorCode.NOT_MEMBER: CLOSE_FORBIDDEN,
    ErrorCode.LEAGUE_CLOSED: CLOSE_FORBIDDEN,
}
# Faults of the database: the breaker is told (``core.breaker``).
DATABASE_FAULTS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    psycopg_pool.PoolTimeout,
)
# A send to a client that has closed its socket (an OSError, as a Redis fault is): the client is
# gone, and nothing is down.
CLIENT_GONE: tuple[type[BaseException], ...] = (ClientDisconnected,)
# Faults of the services the socket needs: the socket cannot be served now.
FAULTS: tuple[type[BaseException], ...] = (
    redis_client.Unavailable,
    OperationalError,
    InterfaceError,
    redis.RedisError,
    psycopg.OperationalError,  # the loop's own connections (core.database)
    psycopg.InterfaceError,
    psycopg_pool.PoolTimeout,
    ConnectionError,
    OSError,
    asyncio.TimeoutError,
)


def in_thread(function: Callable[..., T]) -> Callable[..., Any]:
    """Return ``function`` as a coroutine function run on the sockets' database threads.

    Calls of different sockets run in parallel (``thread_sensitive=False``) on at most
    ``DATABASE_THREADS`` threads; each call starts and ends with ``close_old_connections()``, so
    with ``CONN_MAX_AGE = 0`` (the connection pool) its connection goes back when it returns,
    and otherwise each thread keeps at most one.
    """
    return database_sync_to_async(function, thread_sensitive=False, executor=_executor)


def close_thread_connections() -> None:
    """Close the database connections every database thread holds (tests, shutdown).

    Call it from outside those threads: one task per thread closes that thread's connections.
    """
    barrier = threading.Barrier(DATABASE_THREADS, timeout=10)

    def close() -> None:
        barrier.wait()
        connections.close_all()

    for future in [_executor.submit(close) for _ in range(DATABASE_THREADS)]:
        future.result(timeout=20)


def error_frame(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", **extra, "error": code, "detail": detail}


def error_message(error: ServiceError, **extra: Any) -> dict[str, Any]:
    """Return the socket's error message for a refusal: ``{"type": "error", ...payload}``."""
    return {"type": "error", **extra, **error.payload()}


def invalid(detail: str, **extra: Any) -> ServiceError:
    return ServiceError(ErrorCode.INVALID, detail, **extra)


def unavailable_frame() -> dict[str, Any]:
    return error_frame(
        UNAVAILABLE, gettext("The service cannot serve this socket now; try again soon.")
    )


async def cancel_and_wait(tasks: list[asyncio.Future[Any]], within: float | None = None) -> bool:
    """Cancel ``tasks`` and wait until they have ended (or ``within`` seconds, if given).

    A task may swallow a cancellation: on Python 3.11, ``asyncio.wait_for`` returns its result
    instead when what it awaits ends in the same turn of the loop as the cancel (CPython
    gh-86296, mended in 3.12), and redis-py writes each command through ``wait_for``. A socket's
    channel-layer receive hit that race on every few closes, then sat in Redis' blocking pop (5 s)
    and popped again, until some message for the process came. So the tasks are cancelled
    again every ``CANCEL_AGAIN_SECONDS`` while any runs. An exception a task ended with is
    logged. Return whether every task has ended.
    """
    loop = asyncio.get_running_loop()
    deadline = None if within is None else loop.time() + within
    pending = {task for task in tasks if not task.done()}
    try:
        while pending:
            for task in pending:
                task.cancel()
            wait = CANCEL_AGAIN_SECONDS
            if deadline is not None:
                wait = min(wait, deadline - loop.time())
                if wait <= 0:
                    return False
            _, pending = await asyncio.wait(pending, timeout=wait)
    finally:
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                logger.warning("a task ended with %r while it was cancelled", task.exception())
    return True


async def dispatch_until_stopped(
    sources: list[Callable[[], Any]], dispatch: Callable[[Any], Any]
) -> None:
    """Await a message from each source, dispatch each in turn, until ``dispatch`` raises.

    Channels' ``await_many_dispatch``, except that the sources' tasks are ended for sure on the
    way out (``cancel_and_wait``), so that a closed socket's consumer ends at once.
    """
    tasks = [asyncio.ensure_future(source()) for source in sources]
    try:
        while True:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for index, task in enumerate(tasks):
                if task.done():
                    result = task.result()
                    await dispatch(result)
                    tasks[index] = asyncio.ensure_future(sources[index]())
    finally:
        await cancel_and_wait(tasks)


def utf8_size_over(text: str, limit: int) -> bool:
    """Whether ``text`` takes more than ``limit`` bytes in UTF-8 (cheap for short text)."""
    if len(text) > limit:
        return True
    return len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit


class PatienceConsumer(AsyncJsonWebsocketConsumer):
    """The base of every socket of the service (see the module docstring)."""

    group: str | None = None
    kind: str | None = None  # counted open under this name (``core.metrics.SOCKETS_OPEN``)
    language = "en"
    accepted = False
    closing = False
    opened = False
    counted_open = False  # counted in core.metrics.SOCKETS_OPEN until it disconnects
    bucket: limits.FrameBucket | None = None
    _layer_failed = False
    _rejoin = False  # the group must be joined again once the layer is back

    # --- the consumer's life -------------------------------------------------------------

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run as Channels does, but a channel layer that fails ends the socket 1011 (its Redis
        being away does not: the socket waits for it, ``_layer_receive``)."""
        self.scope = scope
        self.language = scope_language(scope)
        self.enter_log_context()
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.base_send = send
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            sources.append(self._layer_receive)
        with contextlib.suppress(StopConsumer):
            await dispatch_until_stopped(sources, self.dispatch)

    def enter_log_context(self) -> None:
        """Name this socket, its player and its game in every line logged while it is served
        (``core.logcontext``: the connection's task and what it starts)."""
        logcontext.socket_id.set(logcontext.new_id())
        user = self.scope.get("user")
        if user is not None and getattr(user, "is_authenticated", False):
            logcontext.player_id.set(user.pk)
        kwargs = self.scope.get("url_route", {}).get("kwargs", {})
        if "game_id" in kwargs:
            logcontext.game_id.set(str(kwargs["game_id"]))

    async def _layer_receive(self) -> dict[str, Any]:
        """Return the socket's next channel-layer message.

        While the layer's Redis is away the socket stays open and its pushes pause: the outage
        is logged once (``core.redis_client``), the layer is tried again every
        ``LAYER_RETRY_SECONDS`` once its pause is over (``layer_is_down``), and the socket joins
        its group again (a restarted Redis has forgotten it) before it receives. Any other
        failure of the layer closes the socket 1011.
        """
        if self._layer_failed:
            await asyncio.Event().wait()  # never again; the socket is closing
        while True:
            try:
                if self._rejoin:  # the layer failed: wait for it, join again, then receive
                    while redis_client.layer_is_down():
                        await asyncio.sleep(LAYER_RETRY_SECONDS)
                    await self.rejoin()
                return await self.channel_layer.receive(self.channel_name)
            except asyncio.CancelledError:
                raise
            except redis_client.LAYER_FAULTS as error:
                metrics.CHANNEL_LAYER_FAILURES.labels(what="receive").inc()
                redis_client.report(error, what=PUSHES_PAUSE)
                self._rejoin = True
                await asyncio.sleep(LAYER_RETRY_SECONDS)
            except Exception:
                metrics.CHANNEL_LAYER_FAILURES.labels(what="receive").inc()
                logger.exception("the channel layer failed for %s", self.channel_name)
                self._layer_failed = True
                return {"type": "patience.layer_failed"}

    async def rejoin(self) -> None:
        """Join the socket's group again (raise while the layer is still away)."""
        if self.group is not None:
            await self.channel_layer.group_add(self.group, self.channel_name)
        self._rejoin = False

    async def patience_layer_failed(self, message: dict[str, Any]) -> None:
        await self.close_unavailable()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Route a message to its handler; turn any failure into an answer, never a drop.

        Unlike Channels' ``dispatch`` it does not close database connections on the event
        loop's thread: every database call here runs in a worker thread that returns its own.
        Everything it says is in the language of the handshake (its language cookie, else its
        ``Accept-Language``), as the same request over HTTP would be.
        """
        handler = getattr(self, message["type"].replace(".", "_"), None)
        if handler is None or message["type"].startswith("_"):
            logger.warning("no handler for a message of type %r", message["type"])
            return
        with translation.override(self.language):
            try:
                await handler(message)
            except StopConsumer:
                raise
            except Exception as error:
                await self.fail(error)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        await self.accept()
        self.accepted = True
        if self.scope.get("auth_error") == UNAVAILABLE or breaker.is_open():
            await self.close_unavailable()
            return
        refusal = self.check_scope()
        if refusal is not None:
            await self.refuse(refusal)
            return
        try:
            await self.open()
        except ServiceError as error:
            await self.refuse(error)
            return
        self.opened = True
        if self.kind is not None:
            self.counted_open = True
            metrics.SOCKETS_OPEN.labels(kind=self.kind).inc()

    def check_scope(self) -> ServiceError | None:
        """Return why the connection is refused before anything is read, or None."""
        if self.scope.get("origin") == "foreign":
            return ServiceError(
                ErrorCode.FORBIDDEN, gettext("Pages of other sites may not connect.")
            )
        return None

    async def open(self) -> None:
        """Load what the socket serves, join its group and send its first messages."""

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.closing = True
        if self.counted_open:
            self.counted_open = False
            metrics.SOCKETS_OPEN.labels(kind=self.kind).dec()
        try:
            await self.disconnect(message.get("code", 1000))
        except redis_client.LAYER_FAULTS as error:  # a dead layer forgets the group by itself
            redis_client.report(error, what=PUSHES_PAUSE)
        except Exception:
            logger.exception("leaving the socket's group failed")
        raise StopConsumer()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            group, self.group = self.group, None
            await self.channel_layer.group_discard(group, self.channel_name)

    async def join(self, group: str) -> None:
        """Join ``group``; while the layer's Redis is away, join it once the layer is back."""
        self.group = group
        try:
            await self.channel_layer.group_add(group, self.channel_name)
        except redis_client.LAYER_FAULTS as error:
            redis_client.report(error, what=PUSHES_PAUSE)
            self._rejoin = True

    # --- answering -----------------------------------------------------------------------

    async def refuse(self, error: ServiceError) -> None:
        """Tell the client why, then close with the code of the refusal."""
        await self.close_with(error_message(error), _CLOSE_CODES.get(error.code, CLOSE_FORBIDDEN))

    async def close_unavailable(self) -> None:
        await self.close_with(unavailable_frame(), CLOSE_UNAVAILABLE)

    async def close_with(self, frame: dict[str, Any], code: int) -> None:
        if self.closing:
            return
        self.closing = True
        if not self.accepted:
            await self.accept()
            self.accepted = True
        try:
            await self.send_json(frame)
        finally:
            await self.close(code=code)

    async def send_error(self, error: ServiceError, **extra: Any) -> None:
        if not self.closing:
            await self.send_json(error_message(error, **extra))

    async def fail(self, error: Exception) -> None:
        """Answer an exception of a handler (see the module docstring)."""
        if isinstance(error, CLIENT_GONE):
            # Nobody to answer; taken for a fault of Redis, it would pause every push.
            logger.debug("socket %s: the client left first: %r", self.channel_name, error)
            return
        if isinstance(error, FAULTS):
            # Logged once an outage, by the breaker that the fault is handed to.
            if isinstance(error, DATABASE_FAULTS):
                breaker.report(error)
            elif isinstance(error, redis_client.LAYER_FAULTS):
                redis_client.report(error, what=PUSHES_PAUSE)
            logger.debug("socket %s cannot be served: %r", self.channel_name, error)
            await self.close_unavailable()
            return
        logger.exception("socket %s failed", self.channel_name, exc_info=error)
        frame = error_frame(ErrorCode.SERVER_ERROR.value, gettext("The server failed; sorry."))
        if not self.opened:
            await self.close_with(frame, CLOSE_UNAVAILABLE)
        elif not self.closing:
            await self.send_json(frame)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        # orjson, not the json module: a game's frame (about 2.5 KB) is sent for every move, and
        # encoding it was a tenth of a worker's time (docs/scaling.md).
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS).decode()

    # --- receiving -----------------------------------------------------------------------

    @classmethod
    async def decode_json(cls, text_data: str) -> Any:
        try:
            return json.loads(text_data)
        except (ValueError, RecursionError):
            raise invalid(gettext("A frame must be a JSON object.")) from None

    def take_frame(self) -> bool:
        """Count a frame against the socket's bucket (made on the first frame)."""
        if self.bucket is None:
            self.bucket = limits.socket_bucket()
            if self.bucket is None:
                return True
        return self.bucket.take()

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self.closing or not self.opened:
            return
        if not self.take_frame():
            assert self.bucket is not None
            detail = limits.exceeded("socket", self.bucket.frames, self.bucket.seconds)
            await self.refuse(ServiceError(ErrorCode.RATE_LIMITED, detail))
            return
        text = message.get("text")
        if text is not None and utf8_size_over(text, MAX_FRAME_BYTES):
            detail = gettext("A frame holds at most {limit} bytes.").format(limit=MAX_FRAME_BYTES)
            await self.close_with(error_message(invalid(detail)), CLOSE_TOO_BIG)
            return
        try:
            if text is None:
                raise invalid(gettext("Send text frames holding a JSON object."))
            content = await self.decode_json(text)
            if not isinstance(content, dict):
                raise invalid(gettext("A frame must be a JSON object."))
            await self.receive_json(content)
        except ServiceError as error:
            if error.code == ErrorCode.RATE_LIMITED:
                await self.refuse(error)
            else:
                await self.send_error(error)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        raise invalid(gettext("This socket takes no messages."))


class NotFoundConsumer(PatienceConsumer):
    """The catch-all route: no socket lives at this path."""

    def check_scope(self) -> ServiceError | None:
        return ServiceError(ErrorCode.NOT_FOUND, gettext("No socket lives at this path."))


class SocketGuard:
    """ASGI middleware: whatever escapes the stack inside, the client gets a close frame."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        state = {"connected": False, "accepted": False, "closed": False}

        async def watched_receive() -> dict[str, Any]:
            message = await receive()
            if message["type"] == "websocket.connect":
                state["connected"] = True
            elif message["type"] == "websocket.disconnect":
                state["closed"] = True
            return message

        async def watched_send(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                state["accepted"] = True
            elif message["type"] == "websocket.close":
                state["closed"] = True
            await send(message)

        try:
            await self.inner(scope, watched_receive, watched_send)
        except Exception as error:
            if scope.get("type") != "websocket" or state["closed"]:
                raise
            logger.exception("a socket failed before its consumer could answer")
            if not state["connected"]:
                await watched_receive()
            if not state["accepted"]:
                await send({"type": "websocket.accept"})
            frame = (
                unavailable_frame()
                if isinstance(error, FAULTS)
                else error_frame(ErrorCode.SERVER_ERROR.value, gettext("The server failed; sorry."))
            )
            await send({"type": "websocket.send", "text": json.dumps(frame)})
            await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})
