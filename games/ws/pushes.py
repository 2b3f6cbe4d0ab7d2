"""Pushes of a game's new states to its sockets, sent after the database commit.

Group ``game.<id>`` gets every new state of a game (for its player's other tabs) as
``{"type": "game.update", "game": GAME}``. The daily side (progress, presence, leaderboard of a
deal) belongs to ``leaderboards``, which listens to the same signal.

How a change reaches the sockets:

- A service sends ``games.signals.game_changed`` once the write is committed (in
  ``transaction.on_commit``). ``push_game``, its receiver here (connected in
  ``GamesConfig.ready()``), is sync, callable from any thread and cheap: it hands the push to the
  event loop. Inside a running loop the push becomes a task of that loop; in a worker thread of a
  running server (``sync_to_async``) it is queued onto the server's loop with
  ``call_soon_threadsafe`` and the thread does not wait for it; with no loop at all (a
  management command, a sync test) it is sent right away with ``async_to_sync``.
- A consumer that answers the change itself wraps its service call in ``collecting()``: the pushes
  are then collected instead of dispatched, the consumer sends its answer first, and only then
  awaits ``announce_game(payload)`` for each collected game, on the event loop.

A channel layer failure is logged and never undoes or fails the write that caused it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
from collections.abc import Iterator
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

from core import metrics, redis_client
from games.models import Game
from games.payloads import game_payload

logger = logging.getLogger(__name__)

_collected: contextvars.ContextVar[list[Game] | None] = contextvars.ContextVar(
    "games_pushes_collected", default=None
)
_tasks: set[asyncio.Task[None]] = set()
PAUSED = "pushes to a game's other tabs pause"


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


async def announce_game(game: dict[str, Any]) -> None:
    """Push ``game`` (a GAME payload) to the sockets of that game; log a layer failure."""
    layer = get_channel_layer()
    if layer is None:
        return
    if redis_client.layer_is_down():
        return  # pushes pause while the layer's Redis is away; a tab's next answer carries it
    group = game_group(game["id"])
    try:
        await layer.group_send(group, {"type": "game.update", "game": game})
    except Exception as error:  # the write is committed; a lost notification must not undo it
        metrics.CHANNEL_LAYER_FAILURES.labels(what="game_push").inc()
        if isinstance(error, redis_client.LAYER_FAULTS):
            redis_client.report(error, what=PAUSED)  # logged once an outage
        else:
            logger.exception("could not notify %s", group)


@contextlib.contextmanager
def collecting() -> Iterator[list[Game]]:
    """Collect the games changed inside the block instead of pushing them (see the docstring)."""
    changed: list[Game] = []
    token = _collected.set(changed)
    try:
        yield changed
    finally:
        _collected.reset(token)


def push_game(sender: Any = None, *, game: Game, **named: Any) -> None:
    """Receive ``games.signals.game_changed``: push the game's new state to its sockets (or
    collect it for the consumer that is answering it)."""
    collected = _collected.get()
    if collected is not None:
        collected.append(game)
        return
    try:
        payload = game_payload(game)
    except Exception:
        logger.exception("could not build the payload of game %s", game.pk)
        return
    _dispatch(payload)


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """Return the running event loop this worker thread serves (``sync_to_async``), or None."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def _spawn(game: dict[str, Any]) -> None:
    task = asyncio.get_running_loop().create_task(announce_game(game))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


def _dispatch(game: dict[str, Any]) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # called on the loop itself
        _spawn(game)
        return
    loop = _server_loop()
    if loop is not None:
        try:
            loop.call_soon_threadsafe(_spawn, game)
            return
        except RuntimeError:  # the loop closed meanwhile
            pass
    async_to_sync(announce_game)(game)


async def drain() -> None:
    """Wait for the pushes handed to this loop (tests, and a clean shutdown)."""
    loop = asyncio.get_running_loop()
    pending = [task for task in _tasks if task.get_loop() is loop]
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
