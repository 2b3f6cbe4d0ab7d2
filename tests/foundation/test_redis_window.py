"""Redis on the event loop (``core.redis_client.call``): one pipeline per turn of the loop, the
breaker shared with the synchronous client, scripts loaded again when the server lost them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis

from core import redis_client

pytestmark = pytest.mark.skipif(
    "not __import__('django.conf').conf.settings.REDIS_URL", reason="needs REDIS_URL"
)

KEY = "daily_patience:test:window"


@pytest.fixture(autouse=True)
def clean(settings: Any) -> Any:
    redis_client.reset()
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(KEY)
    yield client
    client.delete(KEY)
    client.close()
    redis_client.reset()


async def closing(coroutine: Any) -> Any:
    try:
        return await coroutine
    finally:
        await redis_client.close_window()


def test_commands_of_one_turn_go_in_one_pipeline(monkeypatch: Any) -> None:
    sent: list[int] = []
    real = redis_client._Window._pipeline

    async def pipeline(self: Any, commands: list[Any]) -> list[Any]:
        sent.append(len(commands))
        return await real(self, commands)

    monkeypatch.setattr(redis_client._Window, "_pipeline", pipeline)

    async def five() -> list[Any]:
        return list(
            await asyncio.gather(*(redis_client.call("INCR", KEY, what="a test") for _ in range(5)))
        )

    answers = asyncio.run(closing(five()))

    assert sorted(answers) == [1, 2, 3, 4, 5]
    assert sent == [5]


def test_a_script_the_server_lost_is_loaded_again(clean: Any) -> None:
    source = "return redis.call('INCRBY', KEYS[1], ARGV[1])"

    async def twice() -> list[Any]:
        first = await redis_client.call_script(source, [KEY], [2], what="a test")
        clean.script_flush()
        second = await redis_client.call_script(source, [KEY], [3], what="a test")
        return [first, second]

    assert asyncio.run(closing(twice())) == [2, 5]


def test_an_unreachable_server_raises_unavailable_and_opens_the_breaker(settings: Any) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there

    async def call() -> None:
        await redis_client.call("GET", KEY, what="a test")

    with pytest.raises(redis_client.Unavailable):
        asyncio.run(closing(call()))
    assert redis_client.is_down()
    with pytest.raises(redis_client.Unavailable):  # at once, while the breaker is open
        asyncio.run(closing(call()))


def test_a_failure_inside_the_window_reaches_every_caller(monkeypatch: Any) -> None:
    async def broken(self: Any, commands: list[Any]) -> list[Any]:
        raise ValueError("a bug")

    monkeypatch.setattr(redis_client._Window, "_pipeline", broken)

    async def two() -> list[Any]:
        calls = [redis_client.call("GET", KEY, what="a test") for _ in range(2)]
        return list(await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 5))

    answers = asyncio.run(closing(two()))

    assert [type(answer) for answer in answers] == [ValueError, ValueError]
