"""The HTTP stack runs on the event loop under ASGI, and the requests' threads are kept.

A middleware that can only run synchronously puts every middleware outside it, and the request,
on a thread, with two more hops between the loop and that thread, and it silently turns the
asynchronous middlewares outside it synchronous: it once left the concurrency limit a no-op.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest
from django.test import override_settings

from config.handler import PooledThreadsHandler


def test_no_middleware_is_adapted_to_run_on_a_thread(caplog: Any) -> None:
    # when Django builds the ASGI middleware chain
    with caplog.at_level(logging.DEBUG, logger="django.request"):
        PooledThreadsHandler(threads=2)

    # then it adapts none of the middlewares between the loop and a thread
    adapted = [r.getMessage() for r in caplog.records if "adapted" in r.getMessage()]
    assert adapted == []


@pytest.mark.parametrize("bad", [0, -1])
def test_a_handler_needs_at_least_one_thread(bad: int) -> None:
    with pytest.raises(ValueError):
        PooledThreadsHandler(threads=bad)


@pytest.mark.django_db(transaction=True)
async def test_requests_reuse_a_fixed_set_of_threads_and_get_their_answers() -> None:
    # given a handler with two threads
    handler = PooledThreadsHandler(threads=2)
    answers: list[int] = []

    async def call(path: str) -> None:
        messages = iter([{"type": "http.request", "body": b"", "more_body": False}])

        async def receive() -> dict[str, Any]:
            try:
                return next(messages)
            except StopIteration:
                await asyncio.sleep(3600)
                raise

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answers.append(message["status"])

        scope = {
            "type": "http",
            "method": "GET",
            "path": path,
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "server": ("testserver", 80),
            "client": ("127.0.0.1", 1),
        }
        await handler(scope, receive, send)

    # when twelve requests are served, four at a time
    threads_before = executor_threads()
    with override_settings(ALLOWED_HOSTS=["testserver"]):
        for _ in range(3):
            await asyncio.gather(*(call("/livez") for _ in range(4)))
    threads_after = executor_threads()

    # then each got its answer, and at most two threads were added for all of them
    assert answers == [200] * 12
    assert 0 < len(threads_after - threads_before) <= 2
    assert handler.waiting() == 0


async def test_a_freed_thread_goes_to_the_oldest_write_then_the_oldest_read(
    monkeypatch: Any,
) -> None:
    # given one thread, held by a request
    release = asyncio.Event()
    served: list[str] = []

    async def handle(self: Any, scope: Any, receive: Any, send: Any) -> None:
        if scope["name"] == "first":
            await release.wait()
        served.append(scope["name"])

    monkeypatch.setattr(PooledThreadsHandler, "handle", handle)
    handler = PooledThreadsHandler(threads=1)

    def request(name: str, method: str) -> asyncio.Future[None]:
        scope = {"type": "http", "method": method, "name": name}
        return asyncio.ensure_future(handler(scope, None, None))

    first = request("first", "GET")
    await asyncio.sleep(0)
    # when two reads, then two writes, then a read that gives up, queue behind it
    queued = [request("page-1", "GET"), request("page-2", "HEAD")]
    queued += [request("start-1", "POST"), request("start-2", "DELETE")]
    leaving = request("gone", "GET")
    await asyncio.sleep(0.01)
    assert handler.waiting() == 5
    leaving.cancel()
    release.set()
    await asyncio.gather(first, *queued)

    # then the writes went first, each class in its order, and nothing was lost or left waiting
    assert served == ["first", "start-1", "start-2", "page-1", "page-2"]
    assert handler.waiting() == 0
    assert handler.lent().free and len(handler.lent().free) == 1


def executor_threads() -> set[int]:
    return {t.ident or 0 for t in threading.enumerate() if "ThreadPoolExecutor" in t.name}
