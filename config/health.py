"""``GET /healthz``: tell whether the database and Redis answer, and how the pool is used."""

from __future__ import annotations

from typing import Any

import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

# Short: a stalled Redis must not hold the health check (or a load balancer probing it) long.
REDIS_TIMEOUT_SECONDS = 0.5


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
    """Run ``SELECT 1`` on the default database; report the pool when there is one."""
    report: dict[str, Any] = {"ok": False, "vendor": connection.vendor}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:
        report["error"] = f"{type(error).__name__}: {error}".strip()
    else:
        report["ok"] = True
    try:
        pool = pool_report()
    except Exception:  # the figures are a courtesy: never fail the check for them
        pool = None
    if pool is not None:
        report["pool"] = pool
    return report


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
    except Exception as error:
        report["error"] = f"{type(error).__name__}: {error}".strip()
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
def healthz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when the database and the configured Redis answer, else 503."""
    database = check_database()
    cache = check_redis()
    healthy = database["ok"] and cache["ok"]
    payload: dict[str, Any] = {
        "status": "ok" if healthy else "unavailable",
        "database": database,
        "redis": cache,
        "channel_layer": channel_layer_path(),
    }
    if not healthy:
        down = [name for name, part in (("database", database), ("redis", cache)) if not part["ok"]]
        payload["error"] = "unavailable"
        payload["detail"] = gettext("Unreachable: {services}.").format(services=", ".join(down))
    return JsonResponse(payload, status=200 if healthy else 503)
