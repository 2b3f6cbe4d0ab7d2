"""System checks of the deployment's sizing: workers × pool against PostgreSQL's limit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register


def pool_size(database: dict[str, Any]) -> int | None:
    """Return the most connections one worker's pool opens, or None without a pool."""
    pool = database.get("OPTIONS", {}).get("pool")
    if not pool:
        return None
    if pool is True:
        return 4  # psycopg-pool's default max_size when Django creates the pool
    return int(pool.get("max_size", pool.get("min_size", 4)))


@register(Tags.database, deploy=False)
def check_connection_budget(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Check the settings' sizing (:func:`connection_budget_warnings`)."""
    return connection_budget_warnings(
        settings.DATABASES.get("default", {}),
        workers=settings.WEB_CONCURRENCY,
        budget=settings.DATABASE_MAX_CONNECTIONS,
        threads=settings.ASGI_THREADS,
    )


def connection_budget_warnings(
    database: dict[str, Any], *, workers: int, budget: int, threads: int
) -> list[Warning]:
    """Warn when ``workers`` × the pool exceed ``budget`` connections, or when one worker runs
    more request ``threads`` than its pool has connections."""
    size = pool_size(database)
    if size is None:
        return []
    warnings: list[Warning] = []
    if workers * size > budget:
        warnings.append(
            Warning(
                f"{workers} workers × a pool of {size} connections = {workers * size}, more than "
                f"the {budget} connections PostgreSQL allows (DATABASE_MAX_CONNECTIONS).",
                hint="Lower DATABASE_POOL_MAX or WEB_CONCURRENCY, or raise max_connections on "
                "the server and DATABASE_MAX_CONNECTIONS with it (docs/operations.md, Sizing).",
                id="config.W001",
            )
        )
    if threads > size:
        warnings.append(
            Warning(
                f"ASGI_THREADS ({threads}) is more than DATABASE_POOL_MAX ({size}): requests "
                "beyond the pool wait for a connection and may time out.",
                hint="Set ASGI_THREADS to at most DATABASE_POOL_MAX.",
                id="config.W002",
            )
        )
    return warnings
