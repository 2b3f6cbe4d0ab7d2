"""Each daily deal's board kept in Redis: a sorted set in the ranking order, at any size.

The order is ``games.verification.figures.RANKING`` (best first: unassisted before assisted, more
foundation cards, fewer moves, shorter duration, earlier finish, then the game id). A sorted-set
score is a double, exact for integers below 2**53, which cannot hold every component at once
(duration alone takes 27 bits, a finish time 51). So the score holds the first three (``score``: 1 +
12 + 32 bits, exact) and the member string the rest (``member``: zero-padded duration and finish
time, then the game id): Redis orders equal scores by member, byte by byte, which is the order of
the remaining components.

Keys of a deal (one hash tag, so a cluster keeps them together):

- ``…:z`` the sorted set of members;
- ``…:e`` a hash member → ENTRY JSON (without its rank), so a page is ``ZRANGE`` + ``HMGET``;
- ``…:p`` a hash lower-cased nickname → member, so a player's rank is ``HGET`` + ``ZRANK``;
- ``…:n`` how many PostgreSQL results the board was built from, each withdrawn one (voided, or
  of a banned player) counted once more. A reader compares it with ``Deal.board_count``
  (``results_count + withdrawals``): a missing or different count means the board is stale (a
  write lost while Redis was away, a flush, an expiry, a rebuild that read before a void) and is
  rebuilt from PostgreSQL.

Redis is called through ``core.redis_client`` (short timeouts, one breaker): when Redis cannot
answer, every function here returns None (or False) at once and the caller answers from
PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import redis

from core import redis_client
from games.verification.figures import Ranked

T = TypeVar("T")

KEY_PREFIX = "daily_patience:board"
KEEP_SECONDS = 8 * 24 * 3600  # a board unread for 8 days leaves Redis; a read rebuilds it
LOCK_MS = 60_000
REBUILD_BATCH = 5_000

CARDS_BITS = 12
MOVES_BITS = 32
MAX_CARDS = (1 << CARDS_BITS) - 1
MAX_MOVES = (1 << MOVES_BITS) - 1
DURATION_DIGITS = 12  # milliseconds: 31 years
FINISH_DIGITS = 17  # microseconds since 1970: until the year 5138
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


# --- the order --------------------------------------------------------------------------------


def score(*, assisted: bool, foundation_cards: int, moves: int) -> int:
    """Return the sorted-set score of a result (lower ranks first; an integer below 2**45)."""
    cards = MAX_CARDS - min(max(foundation_cards, 0), MAX_CARDS)
    plies = min(max(moves, 0), MAX_MOVES)
    return ((int(bool(assisted)) << CARDS_BITS | cards) << MOVES_BITS) | plies


def member(*, duration_ms: int, finished_at: dt.datetime, game_id: str) -> str:
    """Return the sorted-set member of a result: byte order breaks ties of equal scores."""
    duration = min(max(duration_ms, 0), 10**DURATION_DIGITS - 1)
    finish = max((finished_at - _EPOCH) // dt.timedelta(microseconds=1), 0)
    return f"{duration:0{DURATION_DIGITS}d}:{finish:0{FINISH_DIGITS}d}:{game_id}"


def member_of(result: Ranked) -> str:
    return member(
        duration_ms=result.duration_ms, finished_at=result.finished_at, game_id=result.game_id
    )


def score_of(result: Ranked) -> int:
    return score(
        assisted=result.assisted, foundation_cards=result.foundation_cards, moves=result.moves
    )


def entry_of(result: Ranked, nickname: str) -> dict[str, Any]:
    """Return the ENTRY of docs/api.md for a result, without its rank."""
    return {
        "player": nickname,
        "status": result.status,
        "foundation_cards": result.foundation_cards,
        "moves": result.moves,
        "duration_ms": result.duration_ms,
        "game": result.game_id,
        "assisted": result.assisted,
        "finished_at": result.finished_at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
    }


# --- Redis ------------------------------------------------------------------------------------

# KEYS z e p n; ARGV member score entry nickname keep. Add a result unless the board is missing
# (the next read rebuilds it whole) or already holds it (a rebuild got there first).
_ADD = """
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[1])
redis.call('INCR', KEYS[4])
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[5]) end
return 1
"""

# KEYS z e p n; ARGV start stop nickname. Read a page, the total and a player's entry at once.
_PAGE = """
local built = redis.call('GET', KEYS[4])
if not built then return {false} end
local entries = {}
if tonumber(ARGV[2]) >= tonumber(ARGV[1]) then
  local members = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])
  if #members > 0 then entries = redis.call('HMGET', KEYS[2], unpack(members)) end
end
local total = redis.call('ZCARD', KEYS[1])
local rank = -1
local mine = false
if ARGV[3] ~= '' then
  local m = redis.call('HGET', KEYS[3], ARGV[3])
  if m then
    local r = redis.call('ZRANK', KEYS[1], m)
    if r then
      rank = r
      mine = redis.call('HGET', KEYS[2], m)
    end
  end
end
return {built, total, entries, rank, mine}
"""

# KEYS z e p n; ARGV member nickname. Take a result off a board (a void, a ban) and count the
# withdrawal as ``Deal.withdrawals`` does, unless the board is missing (its next read rebuilds it).
_REMOVE = """
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('INCR', KEYS[4])
return removed
"""

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


_add = redis_client.script(_ADD, text=True)
_page = redis_client.script(_PAGE, text=True)
_remove = redis_client.script(_REMOVE, text=True)
_unlock = redis_client.script(_UNLOCK, text=True)


def _run(operation: Callable[[redis.Redis], T]) -> T | None:
    """Return ``operation(client)``, or None when Redis cannot answer (``core.redis_client``)."""
    try:
        return redis_client.run(operation, what="boards are read from the database", text=True)
    except redis_client.Unavailable:
        return None


def _keys(deal_id: int) -> tuple[str, str, str, str]:
    base = f"{KEY_PREFIX}:{{{deal_id}}}"
    return f"{base}:z", f"{base}:e", f"{base}:p", f"{base}:n"


def _lock_key(deal_id: int) -> str:
    return f"{KEY_PREFIX}:{{{deal_id}}}:lock"


def board_add(*, deal_id: int, result: Ranked, nickname: str) -> bool | None:
    """Add a just-verified result to its deal's board; return whether it was added.

    Nothing is added to a missing board (its next read rebuilds it from PostgreSQL, this result
    included). None when Redis cannot be reached: the board's count then falls behind
    ``Deal.results_count``, so the first read after Redis is back rebuilds it.
    """
    args = [
        member_of(result),
        score_of(result),
        json.dumps(entry_of(result, nickname), separators=(",", ":")),
        nickname.lower(),
        KEEP_SECONDS,
    ]
    added = _run(lambda client: _add(client, keys=_keys(deal_id), args=args))
    return None if added is None else int(added) == 1


@dataclass(frozen=True, slots=True)
class Page:
    """A page of a board read from Redis."""

    built_from: int | None  # None: no board in Redis
    total: int
    entries: list[dict[str, Any]]
    player_entry: dict[str, Any] | None


def board_page(*, deal_id: int, offset: int, limit: int, nickname: str | None) -> Page | None:
    """Read ``limit`` entries from ``offset`` (ranks from ``offset + 1``), the total and, with
    ``nickname``, that player's entry, in one round trip. None when Redis cannot be reached."""
    args = [offset, offset + limit - 1, (nickname or "").lower()]
    reply = _run(lambda client: _page(client, keys=_keys(deal_id), args=args))
    if reply is None:
        return None
    if reply[0] is None:
        return Page(None, 0, [], None)
    built, total, raw, rank, mine = reply
    entries = [
        {"rank": offset + index, **json.loads(text)}
        for index, text in enumerate(raw, start=1)
        if text is not None
    ]
    player_entry = {"rank": int(rank) + 1, **json.loads(mine)} if mine else None
    return Page(int(built), int(total), entries, player_entry)


def board_ranks(boards: Iterable[tuple[int, str]]) -> list[tuple[int | None, int | None]] | None:
    """Return, for each (deal id, member), the board's built-from count and the member's rank
    (1-based; None if absent), in one round trip. None when Redis cannot be reached."""
    pairs = list(boards)

    def ranks(client: redis.Redis) -> list[Any]:
        pipe = client.pipeline(transaction=False)
        for deal_id, name in pairs:
            z, _, _, n = _keys(deal_id)
            pipe.get(n)
            pipe.zrank(z, name)
        return pipe.execute()

    replies = _run(ranks)
    if replies is None:
        return None
    out: list[tuple[int | None, int | None]] = []
    for index in range(len(pairs)):
        built, rank = replies[2 * index], replies[2 * index + 1]
        out.append((None if built is None else int(built), None if rank is None else int(rank) + 1))
    return out


def board_rebuild(
    *, deal_id: int, batches: Iterator[tuple[list[tuple[Ranked, str]], int]]
) -> bool | None:
    """Rebuild a deal's board under a lock, so that one process rebuilds, from ``batches`` of
    ((ranked result, nickname) pairs, how many PostgreSQL results the batch was read from). The
    sum of the latter is the board's built-from count (results left out of the board included).

    Return True when rebuilt, False when another process holds the lock, None when Redis cannot
    be reached. The new board replaces the old one at once (built aside, then renamed).
    """
    token = secrets.token_hex(8)
    z, e, p, n = _keys(deal_id)
    aside = [f"{key}:{token}" for key in (z, e, p)]

    def rebuild(client: redis.Redis) -> bool:
        if not client.set(_lock_key(deal_id), token, nx=True, px=LOCK_MS):
            return False
        try:
            any_ranked = False
            scanned = 0
            for batch, read in batches:
                scanned += read
                if not batch:
                    continue
                named = [(member_of(result), result, nickname) for result, nickname in batch]
                pipe = client.pipeline(transaction=False)
                pipe.zadd(aside[0], {name: score_of(result) for name, result, _ in named})
                entries = {
                    name: json.dumps(entry_of(result, nickname), separators=(",", ":"))
                    for name, result, nickname in named
                }
                pipe.hset(aside[1], mapping=entries)  # type: ignore[arg-type]
                players = {nickname.lower(): name for name, _, nickname in named}
                pipe.hset(aside[2], mapping=players)  # type: ignore[arg-type]
                pipe.execute()
                any_ranked = True
            pipe = client.pipeline(transaction=True)
            if any_ranked:
                for temporary, final in zip(aside, (z, e, p), strict=True):
                    pipe.rename(temporary, final)
                    pipe.expire(final, KEEP_SECONDS)
            else:
                pipe.delete(z, e, p)
            pipe.set(n, scanned, ex=KEEP_SECONDS)
            pipe.execute()
        finally:
            client.delete(*aside)
            _unlock(client, keys=[_lock_key(deal_id)], args=[token])
        return True

    return _run(rebuild)


def board_remove(*, deal_id: int, result: Ranked, nickname: str) -> bool | None:
    """Take a withdrawn result (voided, or of a banned player) off its deal's board and count
    the withdrawal; return whether it was on the board. None when Redis cannot be reached: the
    board's count then falls behind ``Deal.board_count``, so its next read rebuilds it."""
    args = [member_of(result), nickname.lower()]
    removed = _run(lambda client: _remove(client, keys=_keys(deal_id), args=args))
    return None if removed is None else int(removed) == 1


def board_forget(*, deal_id: int) -> None:
    """Drop a deal's board from Redis (its next read rebuilds it)."""
    _run(lambda client: client.delete(*_keys(deal_id)))
