"""A Redis cache that degrades instead of failing.

Redis holds only what can be rebuilt (leaderboard copies, rate-limit counters); PostgreSQL holds
every game and result. So when Redis is unreachable, a cache call logs a warning and behaves as a
miss (reads return the default, writes do nothing) rather than turning a request into an error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)
T = TypeVar("T")


def _soft(method: Callable[..., T], fallback: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: RedisCache, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (RedisError, OSError) as error:
            logger.warning("cache unavailable, %s skipped: %s", method.__name__, error)
            return fallback(*args, **kwargs)

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


def _default(key: Any, default: Any = None, *args: Any, **kwargs: Any) -> Any:
    return default


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


def _false(*args: Any, **kwargs: Any) -> bool:
    return False


def _empty(*args: Any, **kwargs: Any) -> dict[str, Any]:
    return {}


def _incr_missing(key: Any, *args: Any, **kwargs: Any) -> int:
    raise ValueError(f"Key {key!r} not found (cache unavailable)")


class ResilientRedisCache(RedisCache):
    """Django's Redis cache, where an unreachable server reads as a miss."""

    get = _soft(RedisCache.get, _default)
    get_many = _soft(RedisCache.get_many, _empty)
    has_key = _soft(RedisCache.has_key, _false)
    set = _soft(RedisCache.set, _nothing)
    set_many = _soft(RedisCache.set_many, lambda *a, **k: [])
    add = _soft(RedisCache.add, _false)
    touch = _soft(RedisCache.touch, _false)
    delete = _soft(RedisCache.delete, _false)
    delete_many = _soft(RedisCache.delete_many, _nothing)
    incr = _soft(RedisCache.incr, _incr_missing)
    clear = _soft(RedisCache.clear, _false)
