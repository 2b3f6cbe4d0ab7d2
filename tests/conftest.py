"""Shared pytest fixtures for the whole suite."""

import asyncio
import contextlib

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Collect the static files under their hashed names (config/staticfiles.py) before any
    page names them: pytest-django turns ``DEBUG`` off, under which ``{% static %}`` reads the
    manifest, here and in the servers the tests start. Collected again whenever a source file
    is newer than the manifest, so never stale."""
    import os
    from pathlib import Path

    from django.conf import settings
    from django.contrib.staticfiles.finders import get_finders
    from django.contrib.staticfiles.management.commands.collectstatic import Command
    from django.core.management import call_command

    from config.staticfiles import HashedNamesStorage

    manifest = Path(settings.STATIC_ROOT) / HashedNamesStorage.manifest_name
    collected = manifest.stat().st_mtime if manifest.exists() else 0.0
    sources = (storage.path(path) for finder in get_finders() for path, storage in finder.list([]))
    if all(os.path.getmtime(source) <= collected for source in sources):
        return
    command = Command()
    command.storage = HashedNamesStorage()
    call_command(command, interactive=False, verbosity=0)


# --- WebSocket tests (tests/games/test_ws_*.py) ---------------------------------------------

WS_ORIGIN = (b"origin", b"http://testserver")


@pytest.fixture
async def ws_connect():
    """Return ``connect(path, headers=(), origin=True)``: an open ``CheckedCommunicator``.

    It sends the ``Origin`` of the test server (a browser's page) unless ``origin`` is false.
    Every message the socket sends, and every close, is checked against the message schemas of
    ``docs/schemas/`` as it is read, and what is left unread at teardown too. At teardown every
    communicator is disconnected, the live flush task stopped, the channel layer flushed and the
    worker threads' database connections closed (else PostgreSQL cannot drop the test database).
    Tests using it need ``@pytest.mark.django_db(transaction=True)``.
    """
    import redis
    from channels.db import database_sync_to_async
    from channels.layers import channel_layers, get_channel_layer
    from django.core.cache import cache
    from django.db import connections

    from config.asgi import application
    from core import admission, database, redis_client
    from games.services import batches
    from games.ws import auth, pushes
    from games.ws.base import close_thread_connections
    from leaderboards import live
    from tests.games.sockets import CheckedCommunicator

    await database_sync_to_async(cache.clear)()  # no leaderboard or rate count of another test
    opened = []

    async def connect(path: str, headers: tuple = (), origin: bool = True) -> CheckedCommunicator:
        sent = [WS_ORIGIN, *headers] if origin else list(headers)
        communicator = CheckedCommunicator(application, path, headers=sent)
        opened.append(communicator)
        connected, _ = await communicator.connect(timeout=5)
        assert connected, f"the socket {path} was not accepted"
        return communicator

    yield connect
    unread_failures = []
    async with asyncio.timeout(30):  # a teardown that hangs fails the test, not the whole run
        for communicator in opened:
            try:
                communicator.check_unread()
            except AssertionError as failure:  # raised once everything is cleaned up
                unread_failures.append(failure)
            await communicator.disconnect(timeout=5)
        await live.stop()
        await pushes.drain()
        await batches.drain()
        await database.close()  # the loop's own connections (core.database)
        await redis_client.close_window()
        await admission.stop()
        await database_sync_to_async(live.reset)()
        auth.forget_tokens()
        layer = get_channel_layer()
        if hasattr(layer, "flush"):
            # A test's own layer that the test has stopped cannot be flushed.
            with contextlib.suppress(redis.RedisError, OSError):
                await layer.flush()
        # A Redis layer keeps locks and connections bound to this test's event loop: the next
        # test (a new loop) gets a new layer.
        if hasattr(layer, "close_pools"):
            await layer.close_pools()
    channel_layers.backends.clear()
    await database_sync_to_async(connections.close_all)()
    await database_sync_to_async(close_thread_connections)()
    if unread_failures:
        raise unread_failures[0]


@pytest.fixture
def ws_variants(transactional_db, settings):
    """Create the launch variants of the engine's catalogue (unless already there), by slug,
    with a fixed DEAL_SECRET (so a day's deals are the same on every machine)."""
    settings.DEAL_SECRET = TEST_DEAL_SECRET
    return _launch_variants()


# --- REST API tests (tests/games/test_api_*.py, tests/leaderboards/) ------------------------

TEST_DEAL_SECRET = "test-deal-secret"


@pytest.fixture(autouse=True)
def _fresh_daily_list(settings):
    """Build GET /api/daily/ on every request, so each test sees its own counts."""
    settings.DAILY_LIST_SECONDS = 0


@pytest.fixture(autouse=True)
def _patient_admission(settings):
    """Take a loop that lags for a moment (a test's own synchronous work) for no overload: the
    tests of ``core.admission`` set their own limits."""
    settings.ADMISSION_LOOP_LAG_MS = 10_000


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Start every test with an empty cache: no rate count or leaderboard of another test."""
    from django.core.cache import cache

    cache.clear()
    _forget_rate_counts()
    yield


def _forget_rate_counts():
    """Drop the counts of ``core.ratelimits`` (in memory, and on the test Redis when set)."""
    import redis
    from django.conf import settings

    from core import ratelimits

    ratelimits.reset_memory()
    if settings.REDIS_URL:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2)
        try:
            keys = list(client.scan_iter(f"{ratelimits.KEY_PREFIX}:*", count=1000))
            if keys:
                client.delete(*keys)
        except redis.RedisError:
            pass
        finally:
            client.close()


def _launch_variants():
    """Load the launch variants as ``manage.py loadvariants`` does; return them by slug."""
    from games.models import Variant
    from games.services import variants_load

    slugs = variants_load()
    return {variant.slug: variant for variant in Variant.objects.filter(slug__in=slugs)}


@pytest.fixture
def variants(db, settings):
    """Create the launch variants of the engine's catalogue, by slug, with a fixed DEAL_SECRET."""
    settings.DEAL_SECRET = TEST_DEAL_SECRET
    return _launch_variants()


@pytest.fixture
def join(variants):
    """Return ``join(nickname)``: an ``APIClient`` of a new guest, authenticated by its token."""
    from rest_framework.test import APIClient

    def join(nickname: str):
        client = APIClient()
        answer = client.post("/api/auth/guest/", {"nickname": nickname}, format="json")
        assert answer.status_code == 201, answer.json()
        client.logout()  # drop the session: the token alone authenticates
        client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
        client.player = answer.json()["player"]
        return client

    return join
