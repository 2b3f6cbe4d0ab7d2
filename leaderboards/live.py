"""The live side of a daily deal: progress, presence and leaderboard pushes to its watchers.

Pushes scale with deals, not moves. What changed is recorded in ``leaderboards.changes``. Each
worker process that has watchers of a deal runs one flush task (started by the first watcher to
connect, ended when its last watcher leaves); every ``TICK_SECONDS`` it asks the store to
``take`` each watched deal's batch, which lets one caller per deal per ``FLUSH_SECONDS``
through, cluster-wide. So however many workers and moves there are, a deal's watchers get at
most one group message a second, holding any of:

- ``{"type": "progress", "players": [{"player", "foundation_cards", "ply", "status"}, ...]}``:
  the latest figures of every player who changed since the last batch;
- ``{"type": "leaderboard", "entries": [top 20 ENTRY], "total": int}`` when a game finished;
- ``{"type": "presence", "playing": int}`` when the count changed: players whose game is in play
  and who made a change in the last ``PRESENCE_SECONDS``.

On connect a watcher gets the leaderboard and presence from a per-process snapshot kept for
``SNAPSHOT_SECONDS`` (``snapshot``), so connecting costs no more than a small cached read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core import metrics, redis_client
from games.models import Deal
from games.services import deal_of_day
from games.ws.base import LAYER_RETRY_SECONDS, cancel_and_wait, in_thread
from leaderboards import changes, services

logger = logging.getLogger(__name__)

TICK_SECONDS = 0.25
SNAPSHOT_SECONDS = 1.0
DEAL_CACHE_SECONDS = 10.0


def daily_group(slug: str, date_iso: str) -> str:
    """Return the channel-layer group of a deal's watchers (one member per process)."""
    return f"daily.{slug}.{date_iso}"


# --- watched deals, snapshots ------------------------------------------------------------


@dataclass
class WatchedDeal:
    """A deal some sockets of this process watch."""

    deal: Deal
    group: str
    sockets: int = 0

    @property
    def deal_id(self) -> int:
        return self.deal.pk


_deal_cache: dict[tuple[str, str], tuple[float, Deal]] = {}
_snapshots: dict[int, tuple[float, list[dict[str, Any]]]] = {}
changes.when_board_changes(lambda deal_id: _snapshots.pop(deal_id, None))
_watched: dict[int, WatchedDeal] = {}


def _resolve(slug: str, date_text: str) -> Deal:
    return deal_of_day(slug=slug, date_text=date_text)


async def find_deal(slug: str, date_text: str) -> WatchedDeal:
    """Return the deal a daily socket names (briefly cached); raise ``not_found``."""
    now = time.monotonic()
    cached = _deal_cache.get((slug, date_text))
    if cached is not None and cached[0] > now:
        deal = cached[1]
    else:
        deal = await in_thread(_resolve)(slug, date_text)
        if len(_deal_cache) > 1000:
            _deal_cache.clear()
        _deal_cache[(slug, date_text)] = (now + DEAL_CACHE_SECONDS, deal)
    found = _watched.get(deal.pk)
    if found is not None:
        return found
    return WatchedDeal(deal, daily_group(deal.variant.slug, deal.date.isoformat()))


def leaderboard_message(entries: list[dict[str, Any]], total: int) -> dict[str, Any]:
    return {"type": "leaderboard", "entries": entries, "total": total}


def _snapshot_now(deal: Deal) -> list[dict[str, Any]]:
    entries, total = services.top_entries(deal)
    try:
        playing = changes.store().presence(deal.pk, changes.now())
    except redis_client.Unavailable:
        playing = 0  # Redis is away: presence is unknown until it returns
    return [leaderboard_message(entries, total), {"type": "presence", "playing": playing}]


async def snapshot(watched: WatchedDeal) -> list[dict[str, Any]]:
    """Return the messages a new watcher gets: the leaderboard and presence (cached 1 s)."""
    now = time.monotonic()
    cached = _snapshots.get(watched.deal_id)
    if cached is not None and cached[0] > now:
        return cached[1]
    messages = await in_thread(_snapshot_now)(watched.deal)
    _snapshots[watched.deal_id] = (now + SNAPSHOT_SECONDS, messages)
    return messages


async def store_presence(watched: WatchedDeal, *, now: float) -> int:
    """Return how many players of the deal are playing now (from the store)."""
    presence = changes.store().presence
    return await sync_to_async(presence, thread_sensitive=False)(watched.deal_id, now)


def watch(watched: WatchedDeal) -> None:
    """Count one more watcher of a deal in this process, and make sure the flush task runs."""
    found = _watched.setdefault(watched.deal_id, watched)
    found.sockets += 1
    _flusher.ensure()


def unwatch(deal_id: int) -> None:
    found = _watched.get(deal_id)
    if found is None:
        return
    found.sockets -= 1
    if found.sockets <= 0:
        del _watched[deal_id]


# --- flushing ---------------------------------------------------------------------------


def _take_all(deal_ids: list[int], now: float) -> dict[int, changes.Batch]:
    changes.mark_pending_boards()
    taken = {}
    chosen = changes.store()
    for deal_id in deal_ids:
        batch = chosen.take(deal_id, now)
        if batch is not None:
            taken[deal_id] = batch
    return taken


async def _mark_board_again(deal_id: int) -> None:
    """Have the deal's next due batch carry its leaderboard again, after a batch that took
    the change could not push it (``changes.board_changed``: kept pending while the store is
    away too)."""
    await sync_to_async(changes.board_changed, thread_sensitive=False)(deal_id)


async def flush(now: float | None = None, watched: list[WatchedDeal] | None = None) -> int:
    """Send every due batch of the watched deals; return how many group messages were sent.

    A changed leaderboard that a batch could not read or send is marked changed again, so the
    deal's next due batch carries it."""
    moment = changes.now() if now is None else now
    deals = {w.deal_id: w for w in (list(_watched.values()) if watched is None else watched)}
    if not deals:
        return 0
    taken = await sync_to_async(_take_all, thread_sensitive=False)(list(deals), moment)
    layer = get_channel_layer()
    sent = 0
    order = list(taken.items())
    for index, (deal_id, batch) in enumerate(order):
        messages: list[dict[str, Any]] = []
        if batch.progress:
            messages.append({"type": "progress", "players": batch.progress})
        board_changed = batch.board_changed
        if board_changed:
            try:
                entries, total = await in_thread(services.top_entries)(deals[deal_id].deal)
            except Exception as error:  # the database is away for a moment: retried
                logger.warning("live leaderboard of deal %s not read: %r", deal_id, error)
                await _mark_board_again(deal_id)
                board_changed = False
            else:
                messages.append(leaderboard_message(entries, total))
        if batch.playing is not None:
            messages.append({"type": "presence", "playing": batch.playing})
        if not messages or layer is None:
            continue
        if board_changed or batch.playing is not None:
            _snapshots.pop(deal_id, None)
        push = {"type": "daily.push", "deal": deal_id, "messages": messages}
        try:
            await layer.group_send(deals[deal_id].group, push)
        except Exception as error:
            metrics.CHANNEL_LAYER_FAILURES.labels(what="daily_push").inc()
            # This batch's board, and those of the batches taken after it, go with the next.
            for unsent, unsent_batch in order[index:]:
                if unsent_batch.board_changed:
                    await _mark_board_again(unsent)
            if isinstance(error, redis_client.LAYER_FAULTS):
                redis_client.report(error, what=changes.RedisStore.what)
            raise
        sent += 1
    return sent


# --- fan-out in this process ------------------------------------------------------------


STOP_SECONDS = 2.0


async def _stop_task(task: asyncio.Task[Any] | None) -> None:
    """Cancel a task of this process and wait for it to end, up to ``STOP_SECONDS``."""
    if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
        return  # a task of another (ended) loop is gone with it
    if not await cancel_and_wait([task], within=STOP_SECONDS):
        logger.warning("the task %s did not stop within %s s", task.get_name(), STOP_SECONDS)


class _Hub:
    """This process's one member of each watched deal's group.

    A deal's group holds one channel per process, not one per watcher, so a push costs one
    channel-layer message per process; the hub hands it to the process's own sockets of that
    deal. (channels-redis serialises a group message once per member: a member per watcher made
    every push cost as many Redis writes as watchers.)

    While Redis is away the hub waits, its sockets stay open, and once a call works again it
    joins its groups anew (a restarted Redis has forgotten them) before it receives again.
    """

    def __init__(self) -> None:
        self.layer: Any = None
        self.channel: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.members: dict[int, set[Any]] = {}
        self.groups: dict[int, str] = {}
        self.lost = False  # the groups must be joined again (the layer failed)

    async def _ensure(self) -> Any:
        loop = asyncio.get_running_loop()
        layer = get_channel_layer()
        running = self.task is not None and not self.task.done()
        if running and self.layer is layer and self.task.get_loop() is loop:  # type: ignore[union-attr]
            return layer
        await self.stop()
        self.layer, self.members, self.groups, self.lost = layer, {}, {}, False
        # The "specific" prefix the consumers use: channels-redis pops one list per prefix.
        self.channel = await layer.new_channel()
        self.task = loop.create_task(self.run(), name="leaderboards-live-hub")
        return layer

    async def join(self, watched: WatchedDeal, consumer: Any) -> None:
        layer = await self._ensure()
        members = self.members.setdefault(watched.deal_id, set())
        if not members:
            self.groups[watched.deal_id] = watched.group
            try:
                await layer.group_add(watched.group, self.channel)
            except redis_client.LAYER_FAULTS as error:  # joined once the layer is back (run)
                redis_client.report(error, what=changes.RedisStore.what)
                self.lost = True
        members.add(consumer)

    async def leave(self, watched: WatchedDeal, consumer: Any) -> None:
        members = self.members.get(watched.deal_id)
        if members is None:
            return
        members.discard(consumer)
        if not members:
            del self.members[watched.deal_id]
            self.groups.pop(watched.deal_id, None)
            with contextlib.suppress(Exception):  # a dead layer forgets the group by itself
                await self.layer.group_discard(watched.group, self.channel)
                if self.members.get(watched.deal_id):
                    # A socket of the deal joined while the group was left (a page that goes
                    # from one board of the deal to another): join it again, after the discard.
                    await self.layer.group_add(watched.group, self.channel)

    async def rejoin(self) -> None:
        """Join every group of the hub again; raise while the layer is still away."""
        for group in list(self.groups.values()):
            await self.layer.group_add(group, self.channel)
        self.lost = False

    async def run(self) -> None:
        while True:
            try:
                if self.lost:
                    await self.rejoin()
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the layer is away: try again shortly
                metrics.CHANNEL_LAYER_FAILURES.labels(what="receive").inc()
                self.lost = True
                if isinstance(error, redis_client.LAYER_FAULTS):
                    redis_client.report(error, what=changes.RedisStore.what)
                else:
                    logger.warning("live hub cannot receive: %r", error)
                await asyncio.sleep(LAYER_RETRY_SECONDS)
                continue
            if message.get("type") != "daily.push":
                continue
            frames = [json.dumps(pushed) for pushed in message["messages"]]  # once, not per socket
            for consumer in list(self.members.get(message.get("deal"), ())):
                try:
                    consumer.push(frames)
                except Exception as error:  # one socket's trouble is not the others'
                    logger.warning("live push to a watcher failed: %r", error)

    async def stop(self) -> None:
        task, self.task = self.task, None
        self.members = {}
        await _stop_task(task)


_hub = _Hub()


async def join(watched: WatchedDeal, consumer: Any) -> None:
    """Let ``consumer`` (a daily socket) get the deal's pushes through this process's hub."""
    await _hub.join(watched, consumer)


async def leave(watched: WatchedDeal, consumer: Any) -> None:
    """Stop sending the deal's pushes to ``consumer``."""
    await _hub.leave(watched, consumer)


class _Flusher:
    """The flush task of this process: runs while the process has watchers."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None

    def ensure(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is not None and not self.task.done() and self.task.get_loop() is loop:
            return
        self.task = loop.create_task(self.run(), name="leaderboards-live-flush")

    async def run(self) -> None:
        while _watched:
            if redis_client.layer_is_down():
                await asyncio.sleep(TICK_SECONDS)  # paused while the layer's Redis is away
                continue
            try:
                await flush()
            except Exception as error:
                if not isinstance(error, redis_client.LAYER_FAULTS):  # an outage is logged once
                    logger.warning("live flush failed: %r", error)
            await asyncio.sleep(TICK_SECONDS)

    async def stop(self) -> None:
        task, self.task = self.task, None
        await _stop_task(task)


_flusher = _Flusher()


async def stop() -> None:
    """Stop this process's flush and hub tasks (tests; a clean shutdown)."""
    await _flusher.stop()
    await _hub.stop()


def reset() -> None:
    """Forget what this process knows of the live side, and the store's data (tests only)."""
    _deal_cache.clear()
    _snapshots.clear()
    _watched.clear()
    changes.reset()
