"""Django's ASGI handler, with a fixed set of threads for the requests' synchronous code.

Django's own handler gives every request a context of its own (asgiref's
``ThreadSensitiveContext``), and asgiref gives every such context a new one-thread executor: each
request starts a thread, hops to it for the ``request_started`` signal, the view and the
response's ``close``, then joins it. Under a crowd that is a thread started and joined per
request, and as many threads as requests in flight, all asking the database pool at once.

``PooledThreadsHandler`` keeps ``ASGI_THREADS`` such contexts, each with its one thread, and
lends one to each request for its whole life: the request's synchronous code runs on that thread
(so Django's per-thread state, such as its database connection, stays with the request), and
the next request reuses it. A request that finds none free waits on the event loop, in order
within its class, writes before reads (``Threads``).

Every view of the service is synchronous, so the request makes one hop to its thread, not three
or more: the body is read on the loop, then the thread sends ``request_started``, runs the
middleware chain (loaded synchronous, as under WSGI) and the view, and closes a response that is
not streamed (``request_finished``: its database connection goes back to the pool); the answer
is written on the loop. A streamed response (a static file, an export) is closed after it is
sent, with one more hop.

This bounds a worker's concurrent requests to ``ASGI_THREADS`` (at most the database pool's
size: ``config.checks``), and while the write that has waited longest for a thread has waited
more than ``ADMISSION_REQUEST_WAIT_MS``, the worker is full for ``core.admission``: new games and
sockets are refused with a delay. The wait, not the number waiting, says when a worker is
behind: a request costs about a millisecond of its thread, so forty requests waiting are forty
milliseconds of queue, while one request waiting a second is a worker that cannot keep up.

Under WSGI and Django's test client none of this applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from typing import Any

from asgiref.sync import SyncToAsync, ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from core import admission

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
Waiter = tuple[float, "asyncio.Future[ThreadSensitiveContext]"]  # since when, and the handover


class Threads:
    """The thread contexts of one worker, lent to one request at a time.

    Two classes of requests wait for them, each first come, first served: writes (``POST`` and
    the like: a guest's sign-up, a game's start, a move over REST), then reads (pages, lists). A
    freed thread goes to the oldest waiting write, else the oldest waiting read: under a rush the
    players already on their way to a game get there first, and the newcomers' pages wait.
    """

    def __init__(self, count: int) -> None:
        self.free: deque[ThreadSensitiveContext] = deque(
            ThreadSensitiveContext() for _ in range(count)
        )
        self.waiting: tuple[deque[Waiter], deque[Waiter]] = (deque(), deque())

    async def take(self, write: bool) -> ThreadSensitiveContext:
        if self.free and not any(self.waiting):
            return self.free.popleft()
        waiter: Waiter = (time.monotonic(), asyncio.get_running_loop().create_future())
        queue = self.waiting[0 if write else 1]
        queue.append(waiter)
        try:
            return await waiter[1]
        except asyncio.CancelledError:
            future = waiter[1]
            if future.done() and not future.cancelled():
                self.give(future.result())  # handed a thread as it was cancelled: pass it on
            raise
        finally:
            with contextlib.suppress(ValueError):
                queue.remove(waiter)

    def give(self, context: ThreadSensitiveContext) -> None:
        for queue in self.waiting:
            while queue:
                _since, future = queue.popleft()
                if not future.done():
                    future.set_result(context)
                    return
        self.free.append(context)

    def longest_wait(self) -> float:
        """Seconds the oldest waiting write has waited (0 when none waits)."""
        writes = self.waiting[0]
        return time.monotonic() - writes[0][0] if writes else 0.0

    def count_waiting(self) -> int:
        return sum(len(queue) for queue in self.waiting)


class PooledThreadsHandler(ASGIHandler):
    """An ASGI handler that lends each request one of ``threads`` long-lived thread contexts."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        if threads < 1:
            raise ValueError("ASGI_THREADS must be at least 1")
        self.threads = threads
        self._threads: Threads | None = None
        # The middleware chain as the request's thread runs it: synchronous.
        self._sync = BaseHandler()
        self._sync.load_middleware(is_async=False)
        admission.watch("HTTP writes' wait for a thread", self.queue_over_limit)

    def lent(self) -> Threads:
        # Made on first use, on the loop that serves the requests.
        if self._threads is None:
            self._threads = Threads(self.threads)
        return self._threads

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        threads = self.lent()
        context = await threads.take(write=scope.get("method") in WRITES)
        # asgiref runs thread-sensitive code (the signals, the view, ``close``) on the executor
        # of the current context, made at its first use and kept while the context lives.
        token = SyncToAsync.thread_sensitive_context.set(context)
        try:
            await self.handle(scope, receive, send)
        finally:
            SyncToAsync.thread_sensitive_context.reset(token)
            threads.give(context)

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

    def waiting(self) -> int:
        """Requests waiting for a thread."""
        return self._threads.count_waiting() if self._threads is not None else 0

    def queue_over_limit(self) -> bool:
        """Whether a write has waited for a thread longer than ``ADMISSION_REQUEST_WAIT_MS``."""
        waited = self._threads.longest_wait() if self._threads is not None else 0.0
        return waited * 1000 > settings.ADMISSION_REQUEST_WAIT_MS
