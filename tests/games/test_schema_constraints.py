"""The OpenAPI schema declares the constraints the server enforces (what schemathesis relies on)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def schema(db) -> dict:
    answer = APIClient().get("/api/schema/?format=json")
    assert answer.status_code == 200
    return answer.json()


def resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def request_body(schema: dict, path: str) -> dict:
    body = schema["paths"][path]["post"]["requestBody"]["content"]
    assert list(body) == ["application/json"]  # every body is read as JSON, nothing else
    return resolve(schema, body["application/json"]["schema"])


def test_nickname_ply_move_and_seed_carry_the_servers_limits(schema) -> None:
    guest = request_body(schema, "/api/auth/guest/")["properties"]["nickname"]
    assert guest["pattern"] == "^[A-Za-z0-9_-]{3,24}$"

    play = request_body(schema, "/api/games/{game_id}/moves/")
    assert play["properties"]["ply"] == {
        "type": "integer",
        "minimum": 0,
        "description": "The game's current ply.",
    }
    shapes = play["properties"]["move"]["oneOf"]
    assert [shape["properties"]["type"]["enum"] for shape in shapes] == [
        ["move"],
        ["deal"],
        ["redeal"],
        ["undo"],
    ]
    assert all(shape["additionalProperties"] is False for shape in shapes)
    move = shapes[0]["properties"]
    assert (move["from"]["type"], move["to"]["type"]) == ("string", "string")
    assert (move["count"]["minimum"], move["count"]["maximum"]) == (1, 1000)
    assert shapes[0]["required"] == ["type", "from", "to"]

    seed = request_body(schema, "/api/games/")["properties"]["seed"]
    assert seed["maxLength"] == 200


@pytest.mark.parametrize(
    "path",
    ["/api/daily/{slug}/{date}/", "/api/leaderboards/{slug}/{date}/"],
)
def test_dates_are_declared_yyyy_mm_dd(schema, path: str) -> None:
    params = {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}
    assert params["date"]["pattern"] == "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def test_each_error_status_names_only_its_own_codes(schema) -> None:
    responses = schema["paths"]["/api/games/{game_id}/moves/"]["post"]["responses"]
    codes = {}
    for status in ("400", "401", "403", "404", "405", "409", "422", "429"):
        body = resolve(schema, responses[status]["content"]["application/json"]["schema"])
        assert body["required"] == ["detail", "error"]
        codes[status] = resolve(schema, body["properties"]["error"])["enum"]
    assert codes == {
        "400": ["invalid"],
        "401": ["not_authenticated"],
        "403": ["forbidden"],
        "404": ["not_found"],
        "405": ["method_not_allowed"],
        "409": ["game_over", "stale_ply"],
        "422": ["illegal_move"],
        "429": ["rate_limited"],
    }
