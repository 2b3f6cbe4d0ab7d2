"""The store of what changed on each daily deal, read by the live pushes (``leaderboards.live``).

Every committed change of a daily game (``games.signals.game_changed``) is recorded by
``record_game`` in one Redis script (in memory without Redis): the player's latest progress in a
hash per deal, the player's last move time in a sorted set per deal (presence), and a "board
changed" flag when the game is over (``board_changed`` sets it when a result leaves a board or
comes back). ``take`` hands a deal's batch to one caller per deal per ``FLUSH_SECONDS``,
cluster-wide (it keeps the last flush time in Redis; a caller whose clock reads a little before
it is refused too, one a minute or more before it is taken as a stale record and let through).
Writers (``leaderboards.services``, the receiver) never wait on the pushes. A board change the
store could not take (Redis away) stays pending in the process, and is marked once the store
answers again, at the process's next change or flush (``mark_pending_boards``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from core import redis_client
from games.models import Game

logger = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0
PRESENCE_SECONDS = 60.0
KEY_TTL_SECONDS = 180
KEY_PREFIX = "daily_patience:live"

_board_listeners: list[Callable[[int], None]] = []


def now() -> float:
    """Return the time of the live side (one function, so tests can drive it)."""
    return time.time()


def when_board_changes(listener: Callable[[int], None]) -> None:
    """Have ``listener(deal_id)`` called in this process whenever a deal's board changes."""
    _board_listeners.append(listener)


def _tell_board_changed(deal_id: int) -> None:
    for listener in _board_listeners:
        listener(deal_id)


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


def _record_call(
    deal_id: int, progress: dict[str, Any], *, over: bool, now: float
) -> tuple[list[str], list[Any]]:
    """Return the keys and arguments of ``_RECORD`` for a player's progress on a deal."""
    k = _keys(deal_id)
    keys = [k["progress"], k["presence"], k["dirty"]]
    args = [progress["player"], json.dumps(progress), progress["ply"], now, int(over)]
    return keys, [*args, KEY_TTL_SECONDS]


_record = redis_client.script(_RECORD)
_take = redis_client.script(_TAKE)
_presence = redis_client.script(_PRESENCE)


class RedisStore:
    """Changes kept in Redis, shared by every worker process (``core.redis_client``)."""

    what = "live updates of daily deals pause"

    def _call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        return redis_client.run(lambda client: script(client, keys=keys, args=args), what=self.what)

    def record(self, deal_id: int, progress: dict[str, Any], *, over: bool, now: float) -> None:
        self._call(_record, *_record_call(deal_id, progress, over=over, now=now))

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


# Deals whose board change this process could not mark in the store (Redis away): marked once
# it answers again (``mark_pending_boards``), so no watcher misses a finished game for good.
_pending_boards: set[int] = set()
_pending_lock = threading.Lock()


def _remember_board(deal_id: int) -> None:
    with _pending_lock:
        _pending_boards.add(deal_id)


def mark_pending_boards() -> None:
    """Mark in the store the board changes it missed while away, if it answers now. Never
    raises; what it still cannot mark stays pending."""
    if not _pending_boards:  # the usual case, on every change and flush: no lock taken
        return
    with _pending_lock:
        pending = sorted(_pending_boards)
    for deal_id in pending:
        try:
            store().mark_board(deal_id)
        except Exception:  # still away: tried again at the next change or flush
            return
        with _pending_lock:
            _pending_boards.discard(deal_id)


def record_game(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    """Receive ``games.signals.game_changed``: record a daily game's change. Never raises.

    A finished game whose change the store did not take leaves its deal's board pending
    (``mark_pending_boards``)."""
    if game.deal_id is None:
        return
    over = False
    try:
        over = game.is_over
        if over:
            _tell_board_changed(game.deal_id)
        store().record(game.deal_id, progress_of(game), over=over, now=now())
    except redis_client.Unavailable:
        if over:
            _remember_board(game.deal_id)  # Redis is away: the outage is logged once
    except Exception as error:  # a lost live update must never fail the write
        if over:
            _remember_board(game.deal_id)
        logger.warning("could not record the progress of game %s: %r", game.pk, error)
    else:
        mark_pending_boards()


async def arecord_move(sender: Any = None, *, game: Game, **kwargs: Any) -> None:
    """Receive ``games.signals.move_played`` on the event loop: record a daily game's ordinary
    move, in the loop's next Redis pipeline (``core.redis_client.call_script``). Never raises."""
    if game.deal_id is None:
        return
    progress = progress_of(game)
    try:
        if not redis_client.configured():
            _memory_store.record(game.deal_id, progress, over=False, now=now())
            return
        keys, args = _record_call(game.deal_id, progress, over=False, now=now())
        await redis_client.call_script(_RECORD, keys, args, what=RedisStore.what)
    except redis_client.Unavailable:
        pass  # Redis is away: the outage is logged once (core.redis_client)
    except Exception as error:  # a lost live update must never fail the write
        logger.warning("could not record the progress of game %s: %r", game.pk, error)


def board_changed(deal_id: int) -> None:
    """Have the deal's next push send its leaderboard again (a result left it or came back).
    Never raises."""
    try:
        _tell_board_changed(deal_id)
        store().mark_board(deal_id)
    except redis_client.Unavailable:
        _remember_board(deal_id)  # Redis is away: the outage is logged once (core.redis_client)
    except Exception as error:  # a lost live update must never fail the write
        _remember_board(deal_id)
        logger.warning("could not mark the board of deal %s changed: %r", deal_id, error)


def reset() -> None:
    """Forget the store's data and the pending board changes (tests only)."""
    with _pending_lock:
        _pending_boards.clear()
    with contextlib.suppress(redis_client.Unavailable):
        store().reset()
