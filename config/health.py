"""Probes of a worker: ``GET /livez`` (alive) and ``GET /readyz`` (ready to serve; ``/healthz``
is its older name, kept for existing probes).

- ``/livez`` does no I/O: 200 while the process answers requests. A supervisor restarts a
  worker that stops answering it.
- ``/readyz`` reports PostgreSQL (``SELECT 1``, and the pool's figures), the migrations (none
  unapplied) and Redis (``PING``). It answers 503 only for what the instance cannot serve without:
  the database, or a schema behind the code. Redis down is 200 with ``"status": "degraded"``:
  play goes on without it (rate limits in process, live pushes paused; docs/operations.md).

No answer carries an exception's text: what failed is logged, once per outage
(``core.breaker``, ``core.redis_client``). Neither probe is served through the public proxy
(deploy/nginx.conf).
"""

from __future__ import annotations

import threading
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from core import breaker

# Short: a stalled Redis must not hold the health check (or a load balancer probing it) long.
REDIS_TIMEOUT_SECONDS = 0.5

_migrated = threading.Event()  # set once every migration was found applied: never checked again


def pool_report() -> dict[str, Any] | None:
    """Return the figures of this worker's connection pool, or None without a pool."""
    pool = getattr(connection, "pool", None)
    if pool is None:
        return None
    stats = pool.get_stats()
    return {
        "min": pool.min_size,
        "max": pool.max_size,
        "timeout": pool.timeout,
        "size": stats.get("pool_size", 0),
        "available": stats.get("pool_available", 0),
        "waiting": stats.get("requests_waiting", 0),
    }


def check_database() -> dict[str, Any]:
    """Run ``SELECT 1`` on the default database, unless the breaker knows it is down; report
    the pool when there is one."""
    report: dict[str, Any] = {"ok": False, "vendor": connection.vendor}
    if not breaker.is_open():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except Exception as error:
            breaker.report(error)
        else:
            report["ok"] = True
    try:
        pool = pool_report()
    except Exception:  # the figures are a courtesy: never fail the check for them
        pool = None
    if pool is not None:
        report["pool"] = pool
    return report


def check_migrations() -> dict[str, Any]:
    """Count the migrations of the code not applied to the database (once all are, the answer
    is remembered for the life of the process)."""
    if _migrated.is_set():
        return {"ok": True, "unapplied": 0}
    try:
        executor = MigrationExecutor(connection)
        unapplied = len(executor.migration_plan(executor.loader.graph.leaf_nodes()))
    except Exception as error:
        breaker.report(error)
        return {"ok": False}
    if unapplied == 0:
        _migrated.set()
    return {"ok": unapplied == 0, "unapplied": unapplied}


def check_redis() -> dict[str, Any]:
    """PING the Redis server named by ``REDIS_URL``; without one there is nothing to check."""
    url = settings.REDIS_URL
    if not url:
        return {"ok": True, "configured": False}
    report: dict[str, Any] = {"ok": False, "configured": True}
    client = redis.Redis.from_url(
        url, socket_connect_timeout=REDIS_TIMEOUT_SECONDS, socket_timeout=REDIS_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except Exception:
        return report
    finally:
        client.close()
    report["ok"] = True
    return report


def channel_layer_path() -> str:
    """Return the dotted class path of the default channel layer."""
    layer = get_channel_layer()
    if layer is None:
        return "none"
    return f"{type(layer).__module__}.{type(layer).__qualname__}"


@require_GET
def livez(request: HttpRequest) -> JsonResponse:
    """Answer 200: the process is alive and serves requests (no I/O)."""
    return JsonResponse({"status": "ok"})


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when the instance can serve (``degraded`` without Redis), else 503."""
    database = check_database()
    migrations = check_migrations() if database["ok"] else {"ok": False}
    cache = check_redis()
    parts = (("database", database), ("migrations", migrations))
    missing = [name for name, part in parts if not part["ok"]]
    status = "unavailable" if missing else ("ok" if cache["ok"] else "degraded")
    payload: dict[str, Any] = {
        "status": status,
        "database": database,
        "migrations": migrations,
        "redis": cache,
        "channel_layer": channel_layer_path(),
    }
    if missing:
        payload["error"] = "unavailable"
        payload["detail"] = gettext("Not ready: {parts}.").format(parts=", ".join(missing))
    response = JsonResponse(payload, status=503 if missing else 200)
    if missing:
        response["Retry-After"] = "5"
        response._has_been_logged = True  # type: ignore[attr-defined]  # the outage is logged once
    return response
