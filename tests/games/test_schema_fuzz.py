"""Schemathesis over ``/api/schema/``: no request the schema allows, or breaks, yields a 5xx, and
every answer conforms to the schema (status, content type, body).

A bounded run: a few examples per operation, positive (what the schema allows) and negative
(what it forbids), generated afresh on every run (Hypothesis prints the seed of a failure:
``pytest --hypothesis-seed=N`` replays it); ``make fuzz`` runs longer against a live server.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.conf import settings as settings_module
from hypothesis import HealthCheck, settings
from rest_framework.test import APIClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from games import clock

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
UNTHROTTLED = {scope: "100000/min" for scope in settings_module.THROTTLE_RATES}


@pytest.fixture
def api_schema(fuzz_world):
    """The schema, served and called through the WSGI app in the test's own transaction."""
    from django.core import signals
    from django.db import close_old_connections

    from config.wsgi import application

    # As Django's test client does: a request must not close the test's database connection
    # (after ``fuzz_world``, whose test client connects the handlers again when it is done).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def fuzz_world(join, settings):
    """A guest with a daily and a practice game, and no rate limit in the way."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": UNTHROTTLED}
    client = join("Fuzzer")
    daily = client.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()
    practice = client.post(
        "/api/games/", {"variant": "castile", "mode": "practice", "seed": "x"}, "json"
    ).json()
    token = client._credentials["HTTP_AUTHORIZATION"]
    from games.models import ApiToken

    kept = ApiToken.objects.get(player_id=client.player["id"])
    return {"token": token, "games": [daily["id"], practice["id"]], "kept": kept}


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_no_request_yields_a_5xx_and_answers_conform(case, fuzz_world) -> None:
    # given real identifiers for about half the cases, so that bodies reach the services
    params = case.path_parameters or {}
    steer = len(repr(case.body)) % 2 == 0
    if "game_id" in params and steer:
        params["game_id"] = fuzz_world["games"][len(repr(case.body)) % 4 // 2]
    if "slug" in params and steer:
        params["slug"] = "caprice"
    if "date" in params and steer:
        params["date"] = clock.today().isoformat()

    # (a case may have rotated or revoked the token: it is the same one for every case)
    fuzz_world["kept"].save()

    # when, then
    case.call_and_validate(headers={"Authorization": fuzz_world["token"]}, checks=CHECKS)


@pytest.mark.parametrize("kind", [{}, []])
def test_move_type_of_an_unhashable_json_value_is_400_invalid(join, kind) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()

    # when
    answer = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": {"type": kind}}, "json"
    )

    # then
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


def test_a_practice_seed_with_a_lone_surrogate_is_400_invalid(join) -> None:
    # given a JSON body whose seed is the escaped lone surrogate \ud800
    alice = join("Alice")
    body = '{"variant": "castile", "mode": "practice", "seed": "\\ud800"}'

    # when
    answer = alice.post("/api/games/", body, content_type="application/json")

    # then
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


def test_an_oversized_body_is_a_4xx_error_body(variants, settings) -> None:
    # given a body just over the limit
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = '{"nickname": "' + "a" * 2000 + '"}'

    # when
    answer = APIClient().post("/api/auth/guest/", body, content_type="application/json")

    # then
    assert 400 <= answer.status_code < 500
    assert set(answer.json()) >= {"error", "detail"}


def test_a_daily_replay_carries_no_seed_before_the_day_ends(join) -> None:
    # given Alice resigned today's daily game
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()
    alice.post(f"/api/games/{game['id']}/resign/")

    # when
    answer = alice.get(f"/api/games/{game['id']}/replay/")

    # then
    assert answer.status_code == 200
    assert answer.json()["seed"] is None
