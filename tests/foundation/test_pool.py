"""A burst of requests neither exhausts PostgreSQL nor breaks the service.

Under ASGI each request runs on a thread of its own; with persistent connections every thread
kept one, and a burst exhausted ``max_connections`` for good. With the pool, one worker holds at
most ``DATABASE_POOL_MAX`` connections, and ``ASGI_THREADS`` bounds its concurrent requests.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection

from tests.foundation.conftest import service_env

pytestmark = pytest.mark.skipif(
    not django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="the connection pool is PostgreSQL's: set DATABASE_URL to a PostgreSQL database",
)

WORKERS = 2
POOL_MAX = 4
REQUESTS = 200
APPLICATION = "daily-patience-burst"


def call(base: str, n: int) -> int:
    """Send the n-th request of the burst (a sign-up, or a read); return its status."""
    if n % 2:
        request = urllib.request.Request(f"{base}/api/variants/")
    else:
        body = json.dumps({"nickname": f"Burst{n}"}).encode()
        request = urllib.request.Request(
            f"{base}/api/auth/guest/", body, {"Content-Type": "application/json"}
        )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


class ConnectionCount:
    """Sample, until stopped, how many connections the service holds to the test database."""

    def __init__(self, dsn: str, database: str) -> None:
        self.most = 0
        self._stop = threading.Event()
        self._dsn, self._database = dsn, database
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        with psycopg.connect(self._dsn, autocommit=True) as watcher:
            while not self._stop.is_set():
                (count,) = watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = %s AND application_name = %s",
                    [self._database, APPLICATION],
                ).fetchone()
                self.most = max(self.most, count)
                self._stop.wait(0.02)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(10)
        return self.most


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_200_requests_stays_within_the_pool_and_leaves_the_service_up(
    ws_variants, uvicorn
) -> None:
    # given: two workers with pools of four
    env = service_env(
        DATABASE_POOL_MIN="1",
        DATABASE_POOL_MAX=str(POOL_MAX),
        DATABASE_POOL_TIMEOUT="10",
        ASGI_THREADS=str(POOL_MAX),
        WEB_CONCURRENCY=str(WORKERS),
        PGAPPNAME=APPLICATION,
        THROTTLE_AUTH_IP="100000/min",
        THROTTLE_AUTH_IP_HOUR="100000/hour",
    )
    server = uvicorn(env, workers=WORKERS)
    params = connection.get_connection_params()
    dsn = psycopg.conninfo.make_conninfo(
        host=params.get("host") or "127.0.0.1",
        port=params.get("port") or 5432,
        user=params.get("user") or "postgres",
        password=params.get("password") or "",
        dbname="postgres",
    )
    watch = ConnectionCount(dsn, connection.settings_dict["NAME"])

    # when
    with ThreadPoolExecutor(max_workers=100) as pool:
        codes = Counter(pool.map(lambda n: call(server.base, n), range(REQUESTS)))
    most = watch.stop()

    # then
    assert codes == {201: REQUESTS // 2, 200: REQUESTS // 2}, server.output()[-3000:]
    assert 0 < most <= WORKERS * POOL_MAX
    assert call(server.base, 1) == 200
    with urllib.request.urlopen(f"{server.base}/healthz", timeout=10) as health:
        assert json.load(health)["database"]["ok"] is True
