"""The API's refusals: malformed bodies, unknown paths, methods, rate limits, and the schema."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.usefixtures("variants")

INVALID_BODIES = [
    ("{not json", "application/json"),
    ("[1, 2]", "application/json"),
    ('"Alice"', "application/json"),
    ("null", "application/json"),
    ("nickname=Alice", "application/x-www-form-urlencoded"),
    ("Alice", "text/plain"),
    ("[" * 50_000, "application/json"),  # deep, yet within the body size limit
]


@pytest.mark.parametrize(("body", "content_type"), INVALID_BODIES)
def test_a_body_that_is_not_a_json_object_is_invalid(body: str, content_type: str) -> None:
    answer = APIClient().post("/api/auth/guest/", body, content_type=content_type)

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"
    assert set(answer.json()) == {"error", "detail"}


@pytest.mark.parametrize(("body", "content_type"), INVALID_BODIES)
def test_a_move_body_that_is_not_a_json_object_is_invalid(join, body, content_type) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()

    answer = alice.post(f"/api/games/{game['id']}/moves/", body, content_type=content_type)

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


@pytest.mark.parametrize("kind", [{"deal": True}, ["deal"], 3, None, True])
def test_a_move_whose_type_is_not_a_string_is_invalid(join, kind) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()

    answer = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": {"type": kind}}, "json"
    )

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


@pytest.mark.parametrize(
    "path",
    [
        "/api/",
        "/api/nothing/",
        "/api/variants",
        "/api/games/a%00b/",
        "/api/daily/caprice/2026-12-01/x/",
    ],
)
def test_an_unknown_api_path_is_a_json_404(path: str) -> None:
    answer = APIClient().get(path)

    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/json"
    assert answer.json()["error"] == "not_found"


def test_a_wrong_method_is_405_with_the_error_body() -> None:
    answer = APIClient().delete("/api/variants/")

    assert answer.status_code == 405
    assert answer.json() == {
        "error": "method_not_allowed",
        "detail": 'Method "DELETE" not allowed.',
    }


def test_json_is_answered_whatever_accept_asks() -> None:
    answer = APIClient().get("/api/variants/?format=xml", HTTP_ACCEPT="text/csv")

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/json"


def test_guests_beyond_the_rate_are_rate_limited(settings) -> None:
    # given
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "auth_ip": "2/min"},
    }
    client = APIClient()

    # when
    answers = [client.post("/api/auth/guest/", {"nickname": f"Guest{n}"}, "json") for n in range(3)]

    # then
    assert [a.status_code for a in answers] == [201, 201, 429]
    body = answers[2].json()
    assert body["error"] == "rate_limited"
    assert 1 <= body["retry_after"] <= 60
    assert answers[2]["Retry-After"] == str(body["retry_after"])


def test_moves_beyond_the_players_rate_are_rate_limited(join, settings) -> None:
    # given
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "moves_player": "3/min"},
    }
    url = f"/api/games/{game['id']}/moves/"

    # when
    codes = [
        alice.post(url, {"ply": 5, "move": {"type": "deal"}}, "json").status_code for _ in "1234"
    ]

    # then
    assert codes == [409, 409, 409, 429]


def test_game_creation_beyond_the_players_rate_is_rate_limited(join, settings) -> None:
    alice = join("Alice")
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "games_player": "1/min"},
    }
    practice = {"variant": "caprice", "mode": "practice"}

    codes = [alice.post("/api/games/", practice, "json").status_code for _ in "12"]

    assert codes == [201, 429]


API_PATHS = [
    "/api/auth/guest/",
    "/api/auth/register/",
    "/api/auth/login/",
    "/api/auth/logout/",
    "/api/auth/csrf/",
    "/api/me/",
    "/api/me/games/",
    "/api/me/password/",
    "/api/me/tokens/",
    "/api/me/tokens/{token_id}/",
    "/api/me/export/",
    "/api/variants/",
    "/api/variants/{slug}/",
    "/api/daily/",
    "/api/daily/{slug}/",
    "/api/daily/{slug}/{date}/",
    "/api/games/",
    "/api/games/{game_id}/",
    "/api/games/{game_id}/moves/",
    "/api/games/{game_id}/resign/",
    "/api/games/{game_id}/replay/",
    "/api/games/{game_id}/replay/positions/",
    "/api/games/{game_id}/hint/",
    "/api/leaderboards/{slug}/{date}/",
    "/api/leaderboards/{slug}/{date}/story/",
    "/api/leaderboards/{slug}/all-time/",
    "/api/players/{nickname}/",
    "/api/players/{nickname}/results/",
    "/api/leagues/",
    "/api/leagues/join/",
    "/api/leagues/ranks/{slug}/{date}/",
    "/api/leagues/{league}/",
    "/api/leagues/{league}/leave/",
    "/api/leagues/{league}/code/",
    "/api/leagues/{league}/members/{nickname}/",
    "/api/leagues/{league}/boards/{slug}/{date}/",
    "/api/leagues/{league}/standings/{slug}/",
]


def test_the_schema_lists_every_path_of_the_contract() -> None:
    answer = APIClient().get("/api/schema/")

    assert answer.status_code == 200
    schema = yaml.safe_load(answer.content)
    assert sorted(schema["paths"]) == sorted(API_PATHS)
    moves = schema["paths"]["/api/games/{game_id}/moves/"]["post"]["responses"]
    assert {"200", "400", "401", "403", "404", "409", "422", "429"} <= set(moves)


def test_the_schema_generates_without_warnings(tmp_path) -> None:
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "s.yml"))
