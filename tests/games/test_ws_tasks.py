"""Ending a socket's tasks: a task that swallows a cancellation still ends (games.ws.base)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from channels.exceptions import StopConsumer

from games.ws.base import cancel_and_wait, dispatch_until_stopped

HANG_GUARD = 10  # seconds: a regression fails the test instead of hanging the run


async def _write_then_block(written: asyncio.Future[None], ready: asyncio.Event) -> None:
    """What a channel-layer receive does: a write through ``wait_for``, then a blocking pop."""
    ready.set()
    await asyncio.wait_for(written, timeout=5)
    await asyncio.Event().wait()  # the blocking pop


async def test_a_task_whose_wait_for_swallowed_the_cancel_still_ends() -> None:
    written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    ready = asyncio.Event()
    task = asyncio.ensure_future(_write_then_block(written, ready))
    await ready.wait()

    written.set_result(None)  # the write ends in the same turn of the loop as the cancel
    async with asyncio.timeout(HANG_GUARD):
        assert await cancel_and_wait([task])

    assert task.cancelled()


async def _swallow_cancels(times: int, swallowed: list[int]) -> None:
    while True:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if len(swallowed) >= times:
                raise
            swallowed.append(1)


async def test_tasks_are_cancelled_again_until_they_end() -> None:
    swallowed: list[int] = []
    task = asyncio.ensure_future(_swallow_cancels(3, swallowed))
    await asyncio.sleep(0)

    async with asyncio.timeout(HANG_GUARD):
        assert await cancel_and_wait([task])

    assert task.cancelled() and len(swallowed) == 3


async def test_a_task_that_never_ends_is_given_up_after_the_time_allowed() -> None:
    swallowed: list[int] = []
    task = asyncio.ensure_future(_swallow_cancels(10**9, swallowed))
    await asyncio.sleep(0)

    async with asyncio.timeout(HANG_GUARD):
        assert not await cancel_and_wait([task], within=0.2)

    assert not task.done() and swallowed
    task.get_coro().close()  # end it for good: a closed coroutine runs no more


async def test_a_task_that_failed_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def fail() -> None:
        raise ValueError("the layer broke")

    failed = asyncio.ensure_future(fail())
    await asyncio.sleep(0)
    running = asyncio.ensure_future(asyncio.Event().wait())

    with caplog.at_level(logging.WARNING, logger="games.ws.base"):
        assert await cancel_and_wait([failed, running])

    assert running.cancelled()
    assert "the layer broke" in caplog.text


async def test_dispatch_ends_its_sources_when_a_handler_stops_the_consumer() -> None:
    swallowed: list[int] = []
    sources_ended: list[asyncio.Task[object] | None] = []
    messages = iter([{"type": "first"}, {"type": "stop"}])

    async def socket() -> dict[str, str]:
        await asyncio.sleep(0)
        return next(messages)

    async def layer() -> None:
        sources_ended.append(asyncio.current_task())
        await _swallow_cancels(1, swallowed)

    handled = []

    async def dispatch(message: dict[str, str]) -> None:
        handled.append(message["type"])
        if message["type"] == "stop":
            raise StopConsumer()

    async with asyncio.timeout(HANG_GUARD):
        with pytest.raises(StopConsumer):
            await dispatch_until_stopped([socket, layer], dispatch)

    assert handled == ["first", "stop"]
    assert swallowed == [1]
    assert all(task is not None and task.cancelled() for task in sources_ended)
