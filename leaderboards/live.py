"""The live side of a daily deal: progress, presence and leaderboard pushes to its watchers.

Pushes scale with deals, not moves. Every committed change of a daily game
(``games.signals.game_changed``) is recorded by ``record_game`` in one Redis script (in memory
without Redis): the player's latest progress in a hash per deal, the player's last move time in a
sorted set per deal (presence), and a "board changed" flag when the game is over. Each worker
process that has watchers of a deal runs one flush task (started by the first watcher to connect,
ended when its last watcher leaves); every ``TICK_SECONDS`` it asks the store to ``take`` each
watched deal's batch. ``take`` is atomic and lets one caller per deal per ``FLUSH_SECONDS`` through,
cluster-wide (it keeps the last flush time in Redis; a caller whose clock reads a little before
it is refused too, one a minute or more before it is taken as a stale record and let through),
so however many workers and moves there are, a deal's watchers get at most one group message a
second, holding any of:

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
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core import redis_client
from games import services
from games.models import Deal, Game
from games.ws.base import cancel_and_wait, in_thread
from leaderboards import selectors

logger = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0
TICK_SECONDS = 0.25
PRESENCE_SECONDS = 60.0
SNAPSHOT_SECONDS = 1.0
DEAL_CACHE_SECONDS = 10.0
KEY_TTL_SECONDS = 180
KEY_PREFIX = "daily_patience:live"


def daily_group(slug: str, date_iso: str) -> str:
    """Return the channel-layer group of a deal's watchers (one member per process)."""
    return f"daily.{slug}.{date_iso}"


def _now() -> float:
    """Return the time of the live side (one function, so tests can drive it)."""
    return time.time()


def top_entries(deal: Deal) -> tuple[list[dict[str, Any]], int]:
    """Return the top ``LIVE_ENTRIES`` entries of a deal's leaderboard and how many there are."""
    return selectors.top_entries(deal, selectors.LIVE_ENTRIES)


# --- the store of changes ---------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """What a deal's watchers are to be told: progress by player, board change, presence."""

    progress: list[dict[str, Any]]
    board_changed: bool
    playing: int | None  # None: unchanged since it was last pushed


_RECORD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
if (not old) or tonumber(cjson.decode(old)['ply']) <= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('EXPIRE', KEYS[1], ARGV[6])
if ARGV[5] == '1' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('SET', KEYS[3], '1', 'EX', ARGV[6])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
return 1
"""

_TAKE = """
local now = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '')
if last and last - now < 60 and now - last < tonumber(ARGV[2]) then return false end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
local progress = redis.call('HVALS', KEYS[2])
redis.call('DEL', KEYS[2])
local dirty = redis.call('GET', KEYS[3])
redis.call('DEL', KEYS[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. (now - tonumber(ARGV[3])))
local playing = redis.call('ZCARD', KEYS[4])
local sent = redis.call('GET', KEYS[5]) or '0'
local changed = 0
if sent ~= tostring(playing) then
  changed = 1
  redis.call('SET', KEYS[5], playing, 'EX', ARGV[4])
end
return {progress, dirty and 1 or 0, playing, changed}
"""

_PRESENCE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[2])))
return redis.call('ZCARD', KEYS[1])
"""


def _keys(deal_id: int) -> dict[str, str]:
    base = f"{KEY_PREFIX}:{deal_id}"
    return {
        "lock": f"{base}:flushed",
        "progress": f"{base}:progress",
        "dirty": f"{base}:board",
        "presence": f"{base}:presence",
        "sent": f"{base}:presence-sent",
    }


_record = redis_client.script(_RECORD)
_take = redis_client.script(_TAKE)
_presence = redis_client.script(_PRESENCE)


class RedisStore:
    """Changes kept in Redis, shared by every worker process (``core.redis_client``)."""

    what = "live updates of daily deals pause"

    def _call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        return redis_client.run(lambda client: script(client, keys=keys, args=args), what=self.what)

    def record(self, deal_id: int, progress: dict[str, Any], *, over: bool, now: float) -> None:
        k = _keys(deal_id)
        self._call(
            _record,
            [k["progress"], k["presence"], k["dirty"]],
            [
                progress["player"],
                json.dumps(progress),
                progress["ply"],
                now,
                int(over),
                KEY_TTL_SECONDS,
            ],
        )

    def mark_board(self, deal_id: int) -> None:
        """Have the deal's next push send its leaderboard again."""
        key = _keys(deal_id)["dirty"]
        redis_client.run(lambda client: client.set(key, "1", ex=KEY_TTL_SECONDS), what=self.what)

    def take(self, deal_id: int, now: float) -> Batch | None:
        k = _keys(deal_id)
        found = self._call(
            _take,
            [k["lock"], k["progress"], k["dirty"], k["presence"], k["sent"]],
            [repr(now), FLUSH_SECONDS, PRESENCE_SECONDS, KEY_TTL_SECONDS],
        )
        if found is None:
            return None
        progress, dirty, playing, changed = found
        return Batch(
            progress=sorted((json.loads(raw) for raw in progress), key=lambda p: p["player"]),
            board_changed=bool(dirty),
            playing=int(playing) if changed else None,
        )

    def presence(self, deal_id: int, now: float) -> int:
        k = _keys(deal_id)
        return int(self._call(_presence, [k["presence"]], [repr(now), PRESENCE_SECONDS]))

    def reset(self) -> None:
        def delete_all(client: redis.Redis) -> None:
            for key in client.scan_iter(match=f"{KEY_PREFIX}:*", count=500):
                client.delete(key)

        redis_client.run(delete_all, what=self.what)


@dataclass
class _MemoryDeal:
    progress: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: dict[str, float] = field(default_factory=dict)
    dirty: bool = False
    flushed: float | None = None
    sent: int = 0


class MemoryStore:
    """Changes kept in this process, for the embedded default (one process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deals: dict[int, _MemoryDeal] = {}

    def record(self, deal_id: int, progress: dict[str, Any], *, over: bool, now: float) -> None:
        player = progress["player"]
        with self._lock:
            deal = self._deals.setdefault(deal_id, _MemoryDeal())
            old = deal.progress.get(player)
            if old is None or old["ply"] <= progress["ply"]:
                deal.progress[player] = progress
            if over:
                deal.seen.pop(player, None)
                deal.dirty = True
            else:
                deal.seen[player] = now

    def mark_board(self, deal_id: int) -> None:
        """Have the deal's next push send its leaderboard again."""
        with self._lock:
            self._deals.setdefault(deal_id, _MemoryDeal()).dirty = True

    def _playing(self, deal: _MemoryDeal, now: float) -> int:
        deal.seen = {p: t for p, t in deal.seen.items() if t >= now - PRESENCE_SECONDS}
        return len(deal.seen)

    def take(self, deal_id: int, now: float) -> Batch | None:
        with self._lock:
            deal = self._deals.setdefault(deal_id, _MemoryDeal())
            last = deal.flushed
            if last is not None and last - now < 60 and now - last < FLUSH_SECONDS:
                return None
            deal.flushed = now
            progress = sorted(deal.progress.values(), key=lambda p: p["player"])
            dirty, deal.progress, deal.dirty = deal.dirty, {}, False
            playing = self._playing(deal, now)
            changed = playing != deal.sent
            deal.sent = playing
            return Batch(progress, dirty, playing if changed else None)

    def presence(self, deal_id: int, now: float) -> int:
        with self._lock:
            return self._playing(self._deals.setdefault(deal_id, _MemoryDeal()), now)

    def reset(self) -> None:
        with self._lock:
            self._deals.clear()


_redis_store = RedisStore()
_memory_store = MemoryStore()


def store() -> RedisStore | MemoryStore:
    """Return the store: in Redis when ``REDIS_URL`` is set, else in this process."""
    return _redis_store if redis_client.configured() else _memory_store


def progress_of(game: Game) -> dict[str, Any]:
    return {
        "player": game.player.nickname,
        "foundation_cards": game.foundation_cards,
        "ply": game.ply,
        "status": game.status,
    }


def record_game(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    """Receive ``games.signals.game_changed``: record a daily game's change. Never raises."""
    if game.deal_id is None:
        return
    try:
        over = game.is_over
        if over:
            selectors.forget(game.deal_id)
            _snapshots.pop(game.deal_id, None)
        store().record(game.deal_id, progress_of(game), over=over, now=_now())
    except Exception as error:  # a lost live update must never fail the write
        logger.warning("could not record the progress of game %s: %r", game.pk, error)


def board_changed(deal_id: int) -> None:
    """Have the deal's next push send its leaderboard again (a result left it or came back).
    Never raises."""
    try:
        _snapshots.pop(deal_id, None)
        store().mark_board(deal_id)
    except Exception as error:  # a lost live update must never fail the write
        logger.warning("could not mark the board of deal %s changed: %r", deal_id, error)


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
_watched: dict[int, WatchedDeal] = {}


def _resolve(slug: str, date_text: str) -> Deal:
    return services.deal_of_day(slug=slug, date_text=date_text)


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
    entries, total = top_entries(deal)
    playing = store().presence(deal.pk, _now())
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
    return await sync_to_async(store().presence, thread_sensitive=False)(watched.deal_id, now)


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


def _take_all(deal_ids: list[int], now: float) -> dict[int, Batch]:
    taken = {}
    chosen = store()
    for deal_id in deal_ids:
        batch = chosen.take(deal_id, now)
        if batch is not None:
            taken[deal_id] = batch
    return taken


async def flush(now: float | None = None, watched: list[WatchedDeal] | None = None) -> int:
    """Send every due batch of the watched deals; return how many group messages were sent."""
    moment = _now() if now is None else now
    deals = {w.deal_id: w for w in (list(_watched.values()) if watched is None else watched)}
    if not deals:
        return 0
    taken = await sync_to_async(_take_all, thread_sensitive=False)(list(deals), moment)
    layer = get_channel_layer()
    sent = 0
    for deal_id, batch in taken.items():
        messages: list[dict[str, Any]] = []
        if batch.progress:
            messages.append({"type": "progress", "players": batch.progress})
        if batch.board_changed:
            selectors.forget(deal_id)
            entries, total = await in_thread(top_entries)(deals[deal_id].deal)
            messages.append(leaderboard_message(entries, total))
        if batch.playing is not None:
            messages.append({"type": "presence", "playing": batch.playing})
        if not messages or layer is None:
            continue
        if batch.board_changed or batch.playing is not None:
            _snapshots.pop(deal_id, None)
        push = {"type": "daily.push", "deal": deal_id, "messages": messages}
        await layer.group_send(deals[deal_id].group, push)
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
    """

    def __init__(self) -> None:
        self.layer: Any = None
        self.channel: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.members: dict[int, set[Any]] = {}

    async def _ensure(self) -> Any:
        loop = asyncio.get_running_loop()
        layer = get_channel_layer()
        running = self.task is not None and not self.task.done()
        if running and self.layer is layer and self.task.get_loop() is loop:  # type: ignore[union-attr]
            return layer
        await self.stop()
        self.layer, self.members = layer, {}
        # The "specific" prefix the consumers use: channels-redis pops one list per prefix.
        self.channel = await layer.new_channel()
        self.task = loop.create_task(self.run(), name="leaderboards-live-hub")
        return layer

    async def join(self, watched: WatchedDeal, consumer: Any) -> None:
        layer = await self._ensure()
        members = self.members.setdefault(watched.deal_id, set())
        if not members:
            await layer.group_add(watched.group, self.channel)
        members.add(consumer)

    async def leave(self, watched: WatchedDeal, consumer: Any) -> None:
        members = self.members.get(watched.deal_id)
        if members is None:
            return
        members.discard(consumer)
        if not members:
            del self.members[watched.deal_id]
            with contextlib.suppress(Exception):  # a dead layer forgets the group by itself
                await self.layer.group_discard(watched.group, self.channel)

    async def run(self) -> None:
        while True:
            try:
                message = await self.layer.receive(self.channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the layer is away: try again shortly
                logger.warning("live hub cannot receive: %r", error)
                await asyncio.sleep(1)
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
            try:
                await flush()
            except Exception as error:
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
    with contextlib.suppress(redis_client.Unavailable):
        store().reset()
