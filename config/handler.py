"""Django's ASGI handler, with a fixed set of threads for the requests' synchronous code.

Django's own handler gives every request a context of its own (asgiref's
``ThreadSensitiveContext``), and asgiref gives every such context a new one-thread executor: each
request starts a thread, hops to it for the ``request_started`` signal, the view and the
response's ``close``, then joins it. Under a crowd that is a thread started and joined per
request, and as many threads as requests in flight, all asking the database pool at once.

``PooledThreadsHandler`` keeps ``ASGI_THREADS`` such contexts, each with its one thread, and
lends one to each request for its whole life: the request's synchronous code runs on that thread
(so Django's per-thread state, such as its database connection, stays with the request), and
the next request reuses it. A request that finds none free waits on the event loop, in order.

Every view of the service is synchronous, so the request makes one hop to its thread, not three
or more: the body is read on the loop, then the thread sends ``request_started``, runs the
middleware chain (loaded synchronous, as under WSGI) and the view, and closes a response that is
not streamed (``request_finished``: its database connection goes back to the pool); the answer
is written on the loop. A streamed response (a static file, an export) is closed after it is
sent, with one more hop.
This bounds a worker's concurrent requests to ``ASGI_THREADS`` (at most the database pool's
size: ``config.checks``), and while the request that has waited longest for a thread has waited
more than ``ADMISSION_REQUEST_WAIT_MS``, the worker is full for ``core.admission``: new games and
sockets are refused with a delay. The wait, not the number waiting, says when a worker is
behind: a request costs about a millisecond of its thread, so forty requests waiting are forty
milliseconds of queue, while one request waiting a second is a worker that cannot keep up.

Under WSGI and Django's test client none of this applies.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any, ClassVar

from asgiref.sync import SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from core import admission


class PooledThreadsHandler(ASGIHandler):
    """An ASGI handler that lends each request one of ``threads`` long-lived thread contexts."""

    waiting: ClassVar[dict[int, float]] = {}  # requests of this process waiting: since when
    _tickets = itertools.count()

    def __init__(self, threads: int) -> None:
        super().__init__()
        if threads < 1:
            raise ValueError("ASGI_THREADS must be at least 1")
        self.threads = threads
        self._free: asyncio.Queue[ThreadSensitiveContext] | None = None
        # The middleware chain as the request's thread runs it: synchronous.
        self._sync = BaseHandler()
        self._sync.load_middleware(is_async=False)
        admission.watch("HTTP requests' wait for a thread", self.queue_over_limit)

    def _contexts(self) -> asyncio.Queue[ThreadSensitiveContext]:
        # Made on first use, on the loop that serves the requests.
        if self._free is None:
            self._free = asyncio.Queue()
            for _ in range(self.threads):
                self._free.put_nowait(ThreadSensitiveContext())
        return self._free

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        free = self._contexts()
        try:
            context = free.get_nowait()
        except asyncio.QueueEmpty:
            ticket = next(self._tickets)
            PooledThreadsHandler.waiting[ticket] = time.monotonic()
            try:
                context = await free.get()
            finally:
                del PooledThreadsHandler.waiting[ticket]
        # asgiref runs thread-sensitive code (the signals, the view, ``close``) on the executor
        # of the current context, made at its first use and kept while the context lives.
        token = SyncToAsync.thread_sensitive_context.set(context)
        try:
            await self.handle(scope, receive, send)
        finally:
            SyncToAsync.thread_sensitive_context.reset(token)
            free.put_nowait(context)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serve one request: its body read here, the rest on its thread in one hop."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            response = await sync_to_async(self._serve, thread_sensitive=True)(scope, body_file)
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:
                pass  # the client went away while the answer was being written
            finally:
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=True)()
        finally:
            body_file.close()

    def _serve(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """On the request's thread: the signals, the middleware chain and the view."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self._sync.get_response(request)
            response._handler_class = self.__class__  # type: ignore[attr-defined]
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        assert response is not None
        if not response.streaming:
            response.close()  # its content is in memory; the connection goes back now
        return response

    @classmethod
    def longest_wait(cls) -> float:
        """Seconds the request waiting longest for a thread has waited (0 when none waits)."""
        waiting = list(cls.waiting.values())
        return time.monotonic() - min(waiting) if waiting else 0.0

    @classmethod
    def queue_over_limit(cls) -> bool:
        """Whether a request has waited for a thread longer than ``ADMISSION_REQUEST_WAIT_MS``."""
        return cls.longest_wait() * 1000 > settings.ADMISSION_REQUEST_WAIT_MS
