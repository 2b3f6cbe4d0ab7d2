"""``GET /metrics`` in one process: who may read it, and that each family moves when the service
does what it counts (docs/metrics.md). The same across worker processes:
``test_metrics_workers.py``."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import HttpCommunicator
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from core import admission, heartbeats, redis_client
from games import clock, services
from games.engine import SolveResult
from games.management.commands import runscheduler
from games.models import Deal
from games.services import hints
from games.ws import pushes
from tests.games.sockets import a_legal_move, make_player, receive

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    """Return every sample of an exposition, by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def scrape(**meta: str) -> Samples:
    answer = Client().get("/metrics", **meta)
    assert answer.status_code == 200, answer.content
    return parse(answer.content.decode())


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


# --- who may read them -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "10.1.2.3", "192.168.0.7", "172.20.0.5"])
def test_the_metrics_are_served_to_the_loopback_and_private_networks(address) -> None:
    answer = Client().get("/metrics", REMOTE_ADDR=address)

    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/plain; version=0.0.4")
    assert b"# TYPE patience_moves_total counter" in answer.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "not an address"]
)
def test_the_metrics_are_not_found_from_a_public_address(address) -> None:
    answer = Client().get("/metrics", REMOTE_ADDR=address)

    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"
    assert b"patience_" not in answer.content


@pytest.mark.django_db
def test_behind_proxies_the_client_they_name_is_the_one_checked(settings) -> None:
    # given nginx and a TLS proxy in front (NUM_PROXIES=2), as in docker-compose.yml
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 2}
    proxied = Client(REMOTE_ADDR="172.18.0.3")

    # a public client, whatever it writes first in X-Forwarded-For
    forged = "10.0.0.1, 93.184.216.34, 172.18.0.2"
    assert proxied.get("/metrics", HTTP_X_FORWARDED_FOR=forged).status_code == 404
    # Prometheus on the internal network, straight to the service
    assert proxied.get("/metrics").status_code == 200


@pytest.mark.django_db
def test_prometheus_scrapes_over_plain_http_where_https_is_enforced(settings) -> None:
    settings.SECURE_SSL_REDIRECT = True

    assert Client().get("/metrics").status_code == 200
    assert Client().get("/api/variants/").status_code == 301  # the public API is redirected


@pytest.mark.django_db
def test_without_proxies_a_forwarded_address_is_not_believed() -> None:
    answer = Client().get("/metrics", REMOTE_ADDR="93.184.216.34", HTTP_X_FORWARDED_FOR="127.0.0.1")

    assert answer.status_code == 404


# --- the families move -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # counted once committed
def test_a_game_start_and_its_finish_count_by_variant_and_mode(join) -> None:
    # given
    client = join("Counted")
    before = scrape()

    # when
    started = client.post("/api/games/", {"variant": "box-kite", "mode": "daily"}, "json")
    resigned = client.post(f"/api/games/{started.json()['id']}/resign/")

    # then
    assert started.status_code == 201 and resigned.status_code == 200
    after = scrape()
    labels = {"variant": "box-kite", "mode": "daily"}
    started_total = "patience_games_started_total"
    assert value(after, started_total, **labels) == value(before, started_total, **labels) + 1
    finished = {**labels, "status": "resigned"}
    assert value(after, "patience_games_finished_total", **finished) == (
        value(before, "patience_games_finished_total", **finished) + 1
    )
    verified = "patience_results_verified_total"
    assert value(after, verified, mode="daily") == value(before, verified, mode="daily") + 1
    route = {"route": "api-games", "status": "2xx"}
    count = "patience_http_request_duration_seconds_count"
    assert value(after, count, **route) == value(before, count, **route) + 1


@pytest.mark.django_db(transaction=True)
def test_a_rate_limit_refusal_counts_by_scope(join, settings) -> None:
    # given a player allowed one new game a minute
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "games_player": "1/min",
        },
    }
    client = join("Hasty")
    before = scrape()

    # when
    answers = [
        client.post("/api/games/", {"variant": "box-kite", "mode": "practice"}, "json")
        for _ in range(2)
    ]

    # then
    assert [answer.status_code for answer in answers] == [201, 429]
    after = scrape()
    name = "patience_rate_limit_refusals_total"
    assert value(after, name, scope="games_player") == value(before, name, scope="games_player") + 1
    refused = {"route": "api-games", "status": "4xx"}
    count = "patience_http_request_duration_seconds_count"
    assert value(after, count, **refused) == value(before, count, **refused) + 1


@pytest.mark.django_db(transaction=True)
async def test_a_full_worker_counts_the_new_game_it_refuses() -> None:
    # given a worker over one of its limits
    from config.asgi import application

    before = await database_sync_to_async(scrape)()
    admission.watch("a test's limit", lambda: True)
    try:
        # when
        answer = await HttpCommunicator(application, "POST", "/api/games/").get_response()
    finally:
        admission._checks.pop("a test's limit")
        await admission.stop()

    # then
    assert answer["status"] == 503
    after = await database_sync_to_async(scrape)()
    name = "patience_admission_refusals_total"
    assert value(after, name, kind="game_start") == value(before, name, kind="game_start") + 1


@pytest.mark.django_db(transaction=True)
async def test_a_move_over_the_game_socket_counts_its_path_latency_and_batch(
    ws_connect: Any, ws_variants: Any
) -> None:
    # given a player's game and its socket open
    player, token = await database_sync_to_async(make_player)("mover")
    game, _ = await database_sync_to_async(services.game_start)(
        player=player, variant="box-kite", mode="practice"
    )
    before = await database_sync_to_async(scrape)()
    socket = await ws_connect(f"/ws/games/{game.pk}/?token={token}")
    await receive(socket)
    opened = await database_sync_to_async(scrape)()
    move = await a_legal_move(game.pk)

    # when
    await socket.send_json_to({"ply": 0, "move": move})
    answer = await receive(socket)

    # then
    assert answer["type"] == "game" and answer["game"]["ply"] == 1
    after = await database_sync_to_async(scrape)()
    gauge = "patience_sockets_open"
    assert value(opened, gauge, kind="game") == value(before, gauge, kind="game") + 1
    batched = django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    path = "batched" if batched else "thread"
    latency = "patience_socket_move_duration_seconds_count"
    assert value(after, latency, path=path) == value(before, latency, path=path) + 1
    moves = sum(
        value(after, "patience_moves_total", path=name)
        - value(before, "patience_moves_total", path=name)
        for name in ("batched", "statement", "locking")
    )
    assert moves == 1
    if batched:
        assert value(after, "patience_moves_total", path="batched") == (
            value(before, "patience_moves_total", path="batched") + 1
        )
        size = "patience_move_batch_size_count"
        assert value(after, size) == value(before, size) + 1

    await socket.disconnect()
    closed = await database_sync_to_async(scrape)()
    assert value(closed, gauge, kind="game") == value(before, gauge, kind="game")


@pytest.mark.django_db
def test_the_redis_breaker_is_reported_open_while_an_outage_lasts(settings) -> None:
    # given
    server = redis_client._Server("redis://127.0.0.1:1/0")
    failures = value(scrape(), "patience_redis_failures_total")

    # when
    server.failed(ConnectionError("refused"), "a test")
    during = scrape()
    server.worked()

    # then
    assert value(during, "patience_redis_breaker_open") == 1
    assert value(during, "patience_redis_failures_total") == failures + 1
    assert value(scrape(), "patience_redis_breaker_open") == 0


@pytest.mark.django_db
@pytest.mark.skipif(not django_settings.REDIS_URL, reason="heartbeats are kept in Redis")
def test_the_scheduler_heartbeat_and_the_newest_deal_are_read_when_scraped(variants) -> None:
    # given a scheduler that turned a minute ago, and tomorrow's deal made an hour ago
    heartbeats.beat(heartbeats.SCHEDULER, now=time.time() - 60)
    tomorrow = clock.today() + dt.timedelta(days=1)
    deal = Deal.objects.create(
        variant=variants["box-kite"], date=tomorrow, seed="00", commitment="00", rules={}
    )
    Deal.objects.filter(pk=deal.pk).update(created_at=clock.now() - dt.timedelta(hours=1))

    # when
    samples = scrape()

    # then
    beat = value(samples, "patience_scheduler_heartbeat_timestamp_seconds")
    assert time.time() - 70 < beat < time.time() - 50
    assert 3590 < value(samples, "patience_deal_newest_age_seconds") < 3700
    newest = value(samples, "patience_deal_newest_date_timestamp_seconds")
    assert newest == dt.datetime.combine(tomorrow, dt.time(), tzinfo=dt.UTC).timestamp()


@pytest.mark.django_db
def test_hint_searches_count_what_ran_what_was_refused_and_what_ran_out_of_time(
    join, settings, monkeypatch
) -> None:
    # given a game, hints searched in the request's thread by a solver that runs out of time
    settings.HINT_PROCESSES = 0
    settings.HINT_SECONDS = 0.2
    monkeypatch.setattr(
        hints, "solve", lambda state, **kwargs: SolveResult("unknown", None, nodes=1, seconds=0.2)
    )
    client = join("Hinted")
    body = {"variant": "castile", "mode": "practice", "seed": "metrics-hint"}
    game = client.post("/api/games/", body, "json").json()
    path = f"/api/games/{game['id']}/hint/"
    before = scrape()

    # when one hint is searched, and one is asked while the searcher is busy
    searched = client.get(path)
    hints._one_at_a_time.acquire()
    try:
        refused = client.get(path)
    finally:
        hints._one_at_a_time.release()

    # then
    assert searched.status_code == 200 and searched.json()["move"] is None
    assert refused.status_code == 429
    after = scrape()
    name = "patience_hint_searches_total"
    for outcome in ("ran", "refused", "timed_out"):
        assert value(after, name, outcome=outcome) == value(before, name, outcome=outcome) + 1


@pytest.mark.django_db(transaction=True)
async def test_a_push_the_channel_layer_fails_to_send_is_counted(monkeypatch) -> None:
    # given a channel layer that cannot send
    class Broken:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            raise ConnectionError("the layer is away")

    monkeypatch.setattr(pushes, "get_channel_layer", lambda: Broken())
    name = "patience_channel_layer_failures_total"
    before = value(await database_sync_to_async(scrape)(), name, what="game_push")

    # when
    await pushes.announce_game({"id": "a-game"})

    # then
    after = value(await database_sync_to_async(scrape)(), name, what="game_push")
    assert after == before + 1


@pytest.mark.django_db
@pytest.mark.skipif(not django_settings.REDIS_URL, reason="heartbeats are kept in Redis")
@pytest.mark.parametrize("succeeded", [True, False])
def test_the_scheduler_beats_at_each_turn_and_after_each_run_that_succeeded(
    monkeypatch, succeeded
) -> None:
    # given no heartbeat yet, and daily jobs that succeed or fail
    redis_client.run(lambda client: client.delete(heartbeats.KEY), what="a test")
    monkeypatch.setattr(runscheduler.Command, "run_jobs", lambda self, days: succeeded)
    monkeypatch.setattr(runscheduler.Command, "run_checks", lambda self: None)
    monkeypatch.setattr(runscheduler.Command, "run_regenerations", lambda self: None)
    started = time.time()

    # when
    with pytest.raises(SystemExit) if not succeeded else contextlib.nullcontext():
        call_command("runscheduler", "--once")

    # then
    beats = heartbeats.read()
    assert started <= beats[heartbeats.SCHEDULER] <= time.time()
    assert (heartbeats.SCHEDULER_RUN in beats) is succeeded
    samples = scrape()
    assert value(samples, "patience_scheduler_heartbeat_timestamp_seconds") == pytest.approx(
        beats[heartbeats.SCHEDULER]
    )
