"""``GET /healthz`` reports database and Redis reachability and never fails with a 500."""

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def refuse(*args: Any, **kwargs: Any) -> None:
    raise ConnectionError("connection refused")


def test_healthz_answers_200_with_the_state_of_each_service(client: Client, settings) -> None:
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    database = body["database"]
    assert {key: database[key] for key in ("ok", "vendor")} == {
        "ok": True,
        "vendor": connection.vendor,
    }
    assert set(database) <= {"ok", "vendor", "pool"}
    assert body["redis"] == {"ok": True, "configured": bool(settings.REDIS_URL)}
    assert body["channel_layer"] in {
        "channels.layers.InMemoryChannelLayer",
        "channels_redis.core.RedisChannelLayer",
    }


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the connection pool is PostgreSQL's")
def test_healthz_reports_the_connection_pool(client: Client, settings) -> None:
    pool = settings.DATABASES["default"]["OPTIONS"]["pool"]

    report = client.get("/healthz").json()["database"]["pool"]

    assert (report["min"], report["max"], report["timeout"]) == (
        pool["min_size"],
        pool["max_size"],
        pool["timeout"],
    )
    assert set(report) == {"min", "max", "timeout", "size", "available", "waiting"}
    assert 0 <= report["available"] <= report["size"] <= report["max"]


def test_healthz_runs_one_query(client: Client) -> None:
    with CaptureQueriesContext(connection) as queries:
        client.get("/healthz")

    assert [query["sql"] for query in queries] == ["SELECT 1"]


def test_healthz_answers_503_when_the_database_is_unreachable(client: Client, monkeypatch) -> None:
    monkeypatch.setattr(type(connection._connections["default"]), "cursor", refuse)

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["error"] == "unavailable"
    assert body["detail"] == "Unreachable: database."
    assert body["database"]["ok"] is False
    assert body["database"]["error"] == "ConnectionError: connection refused"


def test_healthz_answers_503_when_the_configured_redis_is_down(client: Client, settings) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"

    response = client.get("/healthz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["detail"] == "Unreachable: redis."
    assert body["database"]["ok"] is True
    assert body["redis"]["ok"] is False
    assert body["redis"]["configured"] is True
    assert body["redis"]["error"].startswith("ConnectionError")


def test_healthz_rejects_other_methods(client: Client) -> None:
    assert client.post("/healthz").status_code == 405
