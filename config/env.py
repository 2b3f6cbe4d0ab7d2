"""Turn environment variables into Django settings.

Every function here takes the environment as a plain mapping and returns plain data, so the
embedded default (no ``DATABASE_URL``, no ``REDIS_URL``) and the service configuration can be
tested without touching ``os.environ``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
GENERATED_SECRETS = ("SECRET_KEY", "DEAL_SECRET")
DEFAULT_ALLOWED_HOSTS = ("127.0.0.1", "localhost", "testserver")
DEFAULT_POOL_MIN = 2
DEFAULT_POOL_MAX = 10
DEFAULT_POOL_TIMEOUT = 5.0
# Redis holds only what can be rebuilt: a slow or dead server must cost a request little.
CACHE_SOCKET_TIMEOUT = 0.25
DEFAULT_GC_THRESHOLD = 10_000


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Read a boolean variable, accepting 1/0, true/false, yes/no and on/off."""
    raw = env.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}.")


LOG_FORMATS = ("json", "text")


def log_format(env: Mapping[str, str]) -> str:
    """Read ``LOG_FORMAT``: ``json`` (the default, one JSON object a line) or ``text``."""
    raw = (env.get("LOG_FORMAT") or "json").strip().lower()
    if raw not in LOG_FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {raw!r}.")
    return raw


def env_int(env: Mapping[str, str], name: str, default: int) -> int:
    """Read a whole number."""
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None


def env_float(env: Mapping[str, str], name: str, default: float) -> float:
    """Read a number of seconds (or any other decimal number)."""
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}.") from None


def env_seconds(env: Mapping[str, str], name: str, default: float, most: float) -> float:
    """Read a budget of seconds: more than 0 and at most ``most`` (NaN and infinity refused)."""
    value = env_float(env, name, default)
    if not 0 < value <= most:  # False for NaN
        raise ImproperlyConfigured(
            f"{name} must be more than 0 and at most {most:g} seconds, not {value:g}."
        )
    return value


def env_count(env: Mapping[str, str], name: str, default: int, least: int) -> int:
    """Read a whole number of at least ``least``."""
    value = env_int(env, name, default)
    if value < least:
        raise ImproperlyConfigured(f"{name} must be at least {least}, not {value}.")
    return value


def gc_threshold(env: Mapping[str, str]) -> int:
    """Read ``GC_THRESHOLD``, the youngest generation's collection threshold of a worker
    (config/collector.py): at least 100; 0 would switch the collector off and leak cycles."""
    value = env_int(env, "GC_THRESHOLD", DEFAULT_GC_THRESHOLD)
    if value < 100:
        raise ImproperlyConfigured(f"GC_THRESHOLD must be at least 100, not {value}.")
    return value


def env_list(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> list[str]:
    """Read a comma-separated list, dropping blanks."""
    raw = env.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def uses_embedded_default(env: Mapping[str, str]) -> bool:
    """Tell whether neither ``DATABASE_URL`` nor ``REDIS_URL`` is set."""
    return not env.get("DATABASE_URL") and not env.get("REDIS_URL")


def debug_config(env: Mapping[str, str]) -> bool:
    """Return ``DEBUG``: true by default only in the embedded default."""
    return env_bool(env, "DEBUG", default=uses_embedded_default(env))


def database_config(env: Mapping[str, str], base_dir: Path) -> dict[str, Any]:
    """Return the ``default`` database: ``DATABASE_URL`` when set, else SQLite at the root."""
    url = env.get("DATABASE_URL")
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(base_dir / "db.sqlite3"),
            # Writers take the lock when their transaction begins, so two requests racing on one
            # game serialize (the second then sees the new ply) instead of failing as "locked".
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
            # Tests use a file too: an in-memory database shares one cache between connections,
            # where concurrent writers fail at once instead of waiting their turn.
            "TEST": {"NAME": str(base_dir / "var" / f"test-{os.getpid()}.sqlite3")},
        }
    config = environ.Env.db_url_config(url)
    if config.get("ENGINE") == "django.db.backends.postgresql":
        connections_config = postgresql_connections(env)
        # The URL's own options (``?sslmode=require``…) are kept; these are added (and win
        # where both name one: ``DATABASE_CONNECT_TIMEOUT`` over ``?connect_timeout=``).
        options = {**config.get("OPTIONS", {}), **connections_config.pop("OPTIONS", {})}
        config.update(connections_config, OPTIONS=options)
    return config


# Lets a cursor that binds on the server have its statements prepared (psycopg's own default;
# Django's None turns preparing off for the whole connection). Django's cursors bind on the client
# and never prepare; the move's one statement binds on the server and asks to be prepared once
# per connection (games/services/moves.py).
PREPARE_THRESHOLD = 5


def postgresql_connections(env: Mapping[str, str]) -> dict[str, Any]:
    """Return how a worker holds its PostgreSQL connections: a pool by default.

    Under ASGI every request runs on a thread of its own, and each thread would keep its own
    persistent connection: a burst of requests then exhausts the server's ``max_connections``.
    The pool (Django's own, on psycopg-pool) caps one worker at ``DATABASE_POOL_MAX``
    connections; a request that finds none free waits ``DATABASE_POOL_TIMEOUT`` seconds, then
    fails with ``OperationalError`` (answered 503 ``unavailable``). The pool requires
    ``CONN_MAX_AGE`` 0: connections go back to the pool, not closed, at the end of a request.
    """
    if not env_bool(env, "DATABASE_POOL", default=True):
        return {
            "CONN_MAX_AGE": env_int(env, "CONN_MAX_AGE", 0),
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {"prepare_threshold": PREPARE_THRESHOLD},
        }
    low = env_int(env, "DATABASE_POOL_MIN", DEFAULT_POOL_MIN)
    high = env_int(env, "DATABASE_POOL_MAX", DEFAULT_POOL_MAX)
    if not 0 <= low <= high or high < 1:
        raise ImproperlyConfigured(
            f"DATABASE_POOL_MIN ({low}) must be at least 0 and at most DATABASE_POOL_MAX ({high}),"
            " which must be at least 1."
        )
    timeout = env_float(env, "DATABASE_POOL_TIMEOUT", DEFAULT_POOL_TIMEOUT)
    pool = {"min_size": low, "max_size": high, "timeout": timeout, "max_idle": 300}
    return {
        "CONN_MAX_AGE": 0,
        # The pool checks a connection before lending it: one dropped by a PostgreSQL restart
        # is replaced instead of failing the request.
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": {
            "pool": pool,
            "connect_timeout": env_int(env, "DATABASE_CONNECT_TIMEOUT", 5),
            "prepare_threshold": PREPARE_THRESHOLD,
        },
    }


LAYER_CONNECT_TIMEOUT = 1.0
LAYER_READ_TIMEOUT = 8.0


def channel_layers_config(env: Mapping[str, str]) -> dict[str, Any]:
    """Return ``CHANNEL_LAYERS``: Redis when ``REDIS_URL`` is set, else in memory."""
    url = env.get("REDIS_URL")
    if not url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # Short timeouts, so a paused Redis fails a socket's layer call instead of hanging it; the
    # read timeout stays above the layer's blocking receive (5 s).
    host = {
        "address": url,
        "socket_connect_timeout": LAYER_CONNECT_TIMEOUT,
        "socket_timeout": LAYER_READ_TIMEOUT,
    }
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [host], "prefix": "daily_patience"},
        }
    }


def cache_config(env: Mapping[str, str]) -> dict[str, Any]:
    """Return ``CACHES``: Redis when ``REDIS_URL`` is set, else local memory."""
    url = env.get("REDIS_URL")
    if not url:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    timeout = env_float(env, "CACHE_SOCKET_TIMEOUT", CACHE_SOCKET_TIMEOUT)
    return {
        "default": {
            # django-redis: with IGNORE_EXCEPTIONS an unreachable (or paused) Redis reads as a
            # miss and writes are skipped, after at most the socket timeouts.
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "daily_patience",
            "OPTIONS": {
                "CLIENT_CLASS": "django_redis.client.DefaultClient",
                "SOCKET_CONNECT_TIMEOUT": timeout,
                "SOCKET_TIMEOUT": timeout,
                "IGNORE_EXCEPTIONS": True,
                "CONNECTION_POOL_KWARGS": {"max_connections": 100, "health_check_interval": 30},
            },
        }
    }


def csrf_trusted_origins(env: Mapping[str, str], allowed_hosts: list[str]) -> list[str]:
    """Return ``CSRF_TRUSTED_ORIGINS``: as given, else derived from the allowed hosts."""
    if env.get("CSRF_TRUSTED_ORIGINS") is not None:
        return env_list(env, "CSRF_TRUSTED_ORIGINS", ())
    origins: list[str] = []
    for host in allowed_hosts:
        if host == "*":
            continue
        name = f"*{host}" if host.startswith(".") else host
        origins += [f"https://{name}", f"http://{name}", f"http://{name}:8000"]
    return origins


def read_secrets_file(path: Path) -> dict[str, str]:
    """Read ``NAME=value`` lines from a secrets file, ignoring blanks and comments."""
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, value = line.split("=", 1)
            values[name.strip()] = value.strip()
    return values


def write_secrets_file(path: Path) -> dict[str, str]:
    """Create the secrets file with fresh values, or read it if another process won the race."""
    values = {name: secrets.token_urlsafe(50) for name in GENERATED_SECRETS}
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    body = "# Generated on first run; keep out of version control.\n"
    body += "".join(f"{name}={value}\n" for name, value in values.items())
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(body)
    try:
        os.link(draft, path)
    except FileExistsError:
        return read_secrets_file(path)
    finally:
        draft.unlink()
    return values


def secrets_config(env: Mapping[str, str], path: Path, debug: bool) -> dict[str, str]:
    """Return ``SECRET_KEY`` and ``DEAL_SECRET``.

    The environment wins; missing values come from ``path``, which is created with fresh random
    values on first run. Without the environment's values and without a usable file, development
    falls back to throwaway values, while production refuses to start.
    """
    values = {name: env[name] for name in GENERATED_SECRETS if env.get(name)}
    if len(values) == len(GENERATED_SECRETS):
        return values
    try:
        stored = read_secrets_file(path) if path.exists() else write_secrets_file(path)
    except OSError as error:
        if not debug:
            missing = ", ".join(name for name in GENERATED_SECRETS if name not in values)
            raise ImproperlyConfigured(
                f"Set {missing} in the environment: DEBUG is off and {path} "
                f"could not be read or written ({error})."
            ) from error
        stored = {}
    for name in GENERATED_SECRETS:
        if name in values:
            continue
        if stored.get(name):
            values[name] = stored[name]
        elif debug:
            values[name] = secrets.token_urlsafe(50)
        else:
            raise ImproperlyConfigured(f"Set {name} in the environment: {path} lacks it.")
    return values
