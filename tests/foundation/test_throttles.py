"""The API's rate limits hold under concurrency: never more admitted than the limit.

The throttles count with ``core.ratelimits.hit`` (one atomic Redis script per hit), so requests
racing on one key, from threads here as from worker processes in production, each get their own
count. Each test counts on a Redis server of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

from core import redis_client
from games.api import throttles
from games.models import Player

# The most threads a test here releases at once.
BURST = 200


@pytest.fixture
def redis_counts(throwaway_redis, settings, monkeypatch):
    """Count rate limits on the throwaway Redis, with timeouts a loaded machine cannot miss.

    A Redis call that times out opens the limits for a while (availability first), so the
    tests of atomicity must not depend on 30 threads connecting within the production timeout.
    """
    monkeypatch.setattr(redis_client, "TIMEOUT_SECONDS", 5.0)
    redis_client.reset()  # clients made with the new timeouts, no breaker left open by another test
    settings.REDIS_URL = throwaway_redis.url
    # The connections a burst needs, opened one after another beforehand: the burst then
    # measures the counting, not 200 connects at once on a loaded machine.
    pool = redis_client.run(lambda client: client.connection_pool, what="the tests")
    opened = [pool.get_connection() for _ in range(BURST)]
    for connection in opened:
        pool.release(connection)
    yield throwaway_redis
    redis_client.reset()


def with_rates(settings, **rates: str) -> None:
    current = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**current, **rates},
    }


def all_at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(n)`` for n < count on ``count`` threads released together."""
    barrier = threading.Barrier(count)

    def run(n: int) -> Any:
        barrier.wait()
        try:
            return work(n)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def test_rates_read_like_drfs() -> None:
    assert throttles.parse_rate("600/min") == (600, 60)
    assert throttles.parse_rate("1000/hour") == (1000, 3600)
    assert throttles.parse_rate("5/s") == (5, 1)
    assert throttles.parse_rate("7/day") == (7, 86400)


def test_200_concurrent_moves_against_a_limit_of_100_admit_exactly_100(
    redis_counts, settings
) -> None:
    # given
    with_rates(settings, moves_player="100/min")
    request = SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=4242), META={})

    # when
    verdicts = all_at_once(BURST, lambda n: throttles.MovesPerPlayer().allow_request(request, None))

    # then: Redis counted every hit (no call fell back to this process's count)
    assert not redis_client.is_down()
    assert verdicts.count(True) == 100


def test_a_refused_request_says_when_to_come_back(redis_counts, settings) -> None:
    with_rates(settings, moves_player="1/min")
    request = SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=7), META={})
    first, second = throttles.MovesPerPlayer(), throttles.MovesPerPlayer()

    assert first.allow_request(request, None) is True
    assert first.wait() is None
    assert second.allow_request(request, None) is False
    assert 0 < second.wait() <= 60


@pytest.mark.django_db(transaction=True)
def test_concurrent_guest_sign_ups_over_the_limit_admit_no_more_than_it(
    redis_counts, settings, ws_variants
) -> None:
    # given
    with_rates(settings, auth_ip="10/min")

    # when
    codes = all_at_once(
        30,
        lambda n: (
            APIClient()
            .post("/api/auth/guest/", {"nickname": f"Guest{n}"}, format="json")
            .status_code
        ),
    )

    # then
    assert codes.count(201) == 10
    assert codes.count(429) == 20
    assert Player.objects.count() == 10
