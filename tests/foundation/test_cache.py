"""A slow or dead Redis never fails nor hangs a request: reads are misses, writes are skipped.

The cache is django-redis with ``IGNORE_EXCEPTIONS`` and short socket timeouts
(``config.env.cache_config``). Each test runs on a Redis server of its own, then pauses it
(SIGSTOP: connections are accepted, nothing answers) or kills it.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import caches
from django.db import connections
from rest_framework.test import APIClient

from config import env as config_env
from games import clock, services
from games.models import Player

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
# Longer than a request with a few cache calls takes at the configured timeouts (0.25 s each),
# shorter than the same calls took when Redis's timeouts were seconds: the bound of "hangs".
HANG_SECONDS = 3.0


def finishes(work: Callable[[], Any], seconds: float = HANG_SECONDS) -> Any:
    """Run ``work`` on a thread; fail if it has not returned after ``seconds``, else return."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:
            outcome["error"] = error
        finally:
            connections.close_all()  # this thread's own (back to the pool)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting on Redis after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.fixture
def redis_cache(throwaway_redis, settings):
    """Point the default cache at the throwaway Redis, configured as in production."""
    settings.CACHES = config_env.cache_config({"REDIS_URL": throwaway_redis.url})
    cache = caches["default"]
    cache.set("warm", 1)  # connect while the server answers
    yield cache
    throwaway_redis.resume()


def cache_round(cache) -> dict[str, Any]:
    """Call the cache as the service does; return what each call answered."""
    return {
        "get": cache.get("k"),
        "get_default": cache.get("k", "fallback"),
        "get_many": cache.get_many(["a", "b"]),
        "set": cache.set("k", 1),
        "add": cache.add("other", 1),
        "delete": cache.delete("k"),
    }


def test_the_cache_works_while_redis_answers(redis_cache) -> None:
    redis_cache.set("k", {"entries": [1, 2]})

    assert redis_cache.get("k") == {"entries": [1, 2]}


def test_a_dead_redis_reads_as_misses_and_skips_writes(redis_cache, throwaway_redis) -> None:
    throwaway_redis.kill()

    answers = finishes(lambda: cache_round(redis_cache))

    assert answers["get"] is None
    assert answers["get_default"] == "fallback"
    assert answers["get_many"] == {}
    assert not answers["add"]
    assert not answers["delete"]


def test_a_paused_redis_reads_as_misses_without_hanging(redis_cache, throwaway_redis) -> None:
    throwaway_redis.pause()

    answers = finishes(lambda: cache_round(redis_cache))

    assert answers["get"] is None
    assert answers["get_default"] == "fallback"
    assert answers["get_many"] == {}


@pytest.mark.parametrize("fault", ["pause", "kill"])
def test_a_request_that_reads_the_cache_succeeds_when_redis_fails(
    fault, redis_cache, throwaway_redis, ws_variants
) -> None:
    # given: the day's deal of caprice, then Redis failing
    with clock.frozen(NOON):
        player = Player.objects.create_user("Alice", None, is_guest=True)
        services.game_start(player=player, variant="caprice", mode="daily")
    APIClient().get("/healthz")  # a first request's start, outside the bound below
    getattr(throwaway_redis, fault)()

    # when
    with clock.frozen(NOON):
        answer = finishes(lambda: APIClient().get("/api/leaderboards/caprice/2026-12-01/"))

    # then
    assert answer.status_code == 200, answer.json()
    assert answer.json()["entries"] == []


def test_socket_frame_limits_let_frames_through_when_redis_is_dead(
    throwaway_redis, settings
) -> None:
    from games.ws import limits

    settings.REDIS_URL = throwaway_redis.url
    throwaway_redis.kill()

    assert finishes(lambda: limits.check_player(7)) is None


def test_while_redis_is_dead_the_rate_limit_counts_in_the_process(throwaway_redis, settings):
    from core import ratelimits, redis_client

    settings.REDIS_URL = throwaway_redis.url
    redis_client.reset()
    ratelimits.reset_memory()
    throwaway_redis.kill()

    try:
        verdicts = [ratelimits.hit("dead-redis", limit=2, seconds=60).allowed for _ in range(3)]
    finally:
        redis_client.reset()
        ratelimits.reset_memory()

    assert verdicts == [True, True, False]


@pytest.mark.django_db
def test_the_health_check_reports_a_paused_redis_without_hanging(throwaway_redis, settings):
    settings.REDIS_URL = throwaway_redis.url
    # A first request while Redis answers, so what the bound measures is the wait on Redis,
    # not a first request's start (the database pool opening, the views' first import).
    assert finishes(lambda: APIClient().get("/healthz")).status_code == 200
    throwaway_redis.pause()

    answer = finishes(lambda: APIClient().get("/healthz"))

    assert answer.status_code == 200
    assert answer.json()["status"] == "degraded"
    assert answer.json()["redis"] == {"ok": False, "configured": True}


def test_a_cache_outage_is_one_line_not_a_traceback_per_call(
    redis_cache, throwaway_redis, settings, caplog
) -> None:
    from core import redis_client

    settings.REDIS_URL = throwaway_redis.url
    redis_client.reset()
    throwaway_redis.kill()

    try:
        with caplog.at_level("WARNING"):
            for _ in range(3):
                cache_round(redis_cache)
    finally:
        redis_client.reset()

    assert not [record for record in caplog.records if record.name.startswith("django_redis")]
    said = [record.getMessage() for record in caplog.records if record.name == "core.redis_client"]
    assert len(said) == 1 and said[0].startswith("Redis unreachable (the cache misses)")
