"""The suite runs on the services the environment names, never on a silent fallback.

With ``DATABASE_URL`` and ``REDIS_URL`` set (as ``.ci/run`` does), the database must be PostgreSQL
and the channel layer and cache must be Redis; without them, the embedded default must be in use.
"""

import os
import uuid

import pytest
from channels.layers import get_channel_layer
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import connection
from django_redis.cache import RedisCache

from config.env import env_bool

SERVICES_EXPECTED = (
    env_bool(os.environ, "DAILY_PATIENCE_REQUIRE_SERVICES", default=False)
    or bool(os.environ.get("DATABASE_URL"))
    or bool(os.environ.get("REDIS_URL"))
)


@pytest.mark.django_db
def test_database_is_the_configured_one() -> None:
    with connection.cursor() as cursor:
        if SERVICES_EXPECTED:
            cursor.execute("SELECT version()")
            version = cursor.fetchone()[0]
        else:
            cursor.execute("SELECT sqlite_version()")
            version = "SQLite " + cursor.fetchone()[0]

    if SERVICES_EXPECTED:
        assert connection.vendor == "postgresql"
        assert version.startswith("PostgreSQL")
        assert connection.settings_dict["NAME"].startswith("test_")
    else:
        assert connection.vendor == "sqlite"
        assert version.startswith("SQLite")


def test_channel_layer_and_cache_are_the_configured_ones() -> None:
    layer_class = type(get_channel_layer())
    layer_path = f"{layer_class.__module__}.{layer_class.__qualname__}"

    if SERVICES_EXPECTED:
        assert layer_path == "channels_redis.core.RedisChannelLayer"
        assert isinstance(caches["default"], RedisCache)
    else:
        assert layer_path == "channels.layers.InMemoryChannelLayer"
        assert isinstance(caches["default"], LocMemCache)


def test_cache_stores_and_returns_a_value() -> None:
    key = f"foundation-{uuid.uuid4().hex}"

    cache.set(key, {"deal": 7}, timeout=30)

    assert cache.get(key) == {"deal": 7}
    cache.delete(key)


async def test_a_message_goes_through_the_channel_layer() -> None:
    layer = get_channel_layer()
    group = f"foundation-{uuid.uuid4().hex}"
    channel = await layer.new_channel()
    await layer.group_add(group, channel)

    await layer.group_send(group, {"type": "game.update", "ply": 3})
    message = await layer.receive(channel)

    assert message == {"type": "game.update", "ply": 3}
    await layer.group_discard(group, channel)
