"""An unreachable Redis reads as a cache miss: nothing fails, nothing is lost."""

from __future__ import annotations

import socket

import pytest

from config.cache import ResilientRedisCache


@pytest.fixture
def dead_redis() -> ResilientRedisCache:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return ResilientRedisCache(
        f"redis://127.0.0.1:{port}/0", {"OPTIONS": {"socket_connect_timeout": 0.2}}
    )


def test_reads_are_misses_and_writes_do_nothing_when_redis_is_down(dead_redis) -> None:
    assert dead_redis.get("k") is None
    assert dead_redis.get("k", "fallback") == "fallback"
    assert dead_redis.get_many(["a", "b"]) == {}
    assert dead_redis.set("k", 1) is None
    assert dead_redis.add("k", 1) is False
    assert dead_redis.delete("k") is False
    assert dead_redis.has_key("k") is False


def test_incr_on_a_dead_cache_reads_as_a_missing_key(dead_redis) -> None:
    with pytest.raises(ValueError):
        dead_redis.incr("k")
