"""``/livez`` (alive, no I/O) and ``/readyz`` (``/healthz``): PostgreSQL, migrations and Redis,
failing only on what the instance cannot serve without, and never with an exception's text."""

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config import health
from core import breaker

pytestmark = pytest.mark.django_db

SECRET_TEXT = "password=hunter2 host=10.9.8.7"


def refuse(*args: Any, **kwargs: Any) -> None:
    raise ConnectionError(f"connection refused ({SECRET_TEXT})")


@pytest.fixture(autouse=True)
def closed_breaker(monkeypatch):
    """No breaker thread: a failure reported here opens nothing behind the test's back."""
    monkeypatch.setattr(breaker, "report", lambda error=None: None)
    yield
    breaker.reset()


def test_livez_answers_200_without_touching_anything(client: Client) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/livez")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})
    assert list(queries) == []


@pytest.mark.parametrize("path", ["/readyz", "/healthz"])
def test_readyz_answers_200_with_the_state_of_each_service(client: Client, settings, path) -> None:
    response = client.get(path)

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    database = body["database"]
    assert {key: database[key] for key in ("ok", "vendor")} == {
        "ok": True,
        "vendor": connection.vendor,
    }
    assert set(database) <= {"ok", "vendor", "pool"}
    assert body["migrations"] == {"ok": True, "unapplied": 0}
    assert body["redis"] == {"ok": True, "configured": bool(settings.REDIS_URL)}
    assert body["channel_layer"] in {
        "channels.layers.InMemoryChannelLayer",
        "channels_redis.core.RedisChannelLayer",
    }


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the connection pool is PostgreSQL's")
def test_readyz_reports_the_connection_pool(client: Client, settings) -> None:
    pool = settings.DATABASES["default"]["OPTIONS"]["pool"]

    report = client.get("/readyz").json()["database"]["pool"]

    assert (report["min"], report["max"], report["timeout"]) == (
        pool["min_size"],
        pool["max_size"],
        pool["timeout"],
    )
    assert set(report) == {"min", "max", "timeout", "size", "available", "waiting"}
    assert 0 <= report["available"] <= report["size"] <= report["max"]


def test_readyz_runs_one_query_once_migrations_are_known_applied(client: Client) -> None:
    client.get("/readyz")  # the migrations are checked once a process

    with CaptureQueriesContext(connection) as queries:
        client.get("/readyz")

    assert [query["sql"] for query in queries] == ["SELECT 1"]


def test_readyz_answers_503_when_the_database_is_unreachable(client: Client, monkeypatch) -> None:
    monkeypatch.setattr(type(connection._connections["default"]), "cursor", refuse)

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response["Retry-After"]
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["error"] == "unavailable"
    assert body["detail"] == "Not ready: database, migrations."
    assert body["database"]["ok"] is False
    assert "error" not in body["database"]
    assert "refused" not in response.content.decode()
    assert SECRET_TEXT not in response.content.decode()


def test_readyz_answers_503_when_a_migration_is_not_applied(client: Client, monkeypatch) -> None:
    monkeypatch.setattr(health, "_migrated", type(health._migrated)())  # not yet checked
    monkeypatch.setattr(
        "django.db.migrations.executor.MigrationExecutor.migration_plan",
        lambda self, targets: [("games", "0099_future")],
    )

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["migrations"] == {"ok": False, "unapplied": 1}
    assert response.json()["detail"] == "Not ready: migrations."


def test_readyz_answers_200_degraded_when_the_configured_redis_is_down(
    client: Client, settings
) -> None:
    settings.REDIS_URL = "redis://127.0.0.1:1/0"

    response = client.get("/readyz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["database"]["ok"] is True
    assert body["redis"] == {"ok": False, "configured": True}


def test_readyz_reports_the_database_down_at_once_while_the_breaker_is_open(
    client: Client, monkeypatch
) -> None:
    monkeypatch.setattr(breaker, "_open", True)

    with CaptureQueriesContext(connection) as queries:
        response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["database"]["ok"] is False
    assert list(queries) == []


@pytest.mark.parametrize("path", ["/livez", "/readyz", "/healthz"])
def test_the_probes_reject_other_methods(client: Client, path) -> None:
    assert client.post(path).status_code == 405
