"""Malformed input is a 4xx in the error shape of docs/api.md, never a 500."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.models import Player


@pytest.mark.parametrize(
    "nickname",
    ["Alice\n", "A" * 24 + "\n", "Bob\r\n", "\nCarol", "Al ice", "Al", "A" * 25, "Zoë", 7, None],
)
def test_a_bad_nickname_is_refused_as_invalid(variants, nickname) -> None:
    answer = APIClient().post("/api/auth/guest/", {"nickname": nickname}, format="json")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"
    assert answer.json()["field"] == "nickname"
    assert not Player.objects.exists()


def test_nicknames_are_unique_whatever_their_case(variants) -> None:
    first = APIClient().post("/api/auth/guest/", {"nickname": "Alice"}, format="json")
    second = APIClient().post("/api/auth/guest/", {"nickname": "aLICE"}, format="json")

    assert first.status_code == 201
    assert second.status_code == 400
    assert second.json()["error"] == "invalid"


def test_login_with_a_newline_in_the_nickname_is_refused_cleanly(variants) -> None:
    APIClient().post(
        "/api/auth/register/", {"nickname": "Alice", "password": "a long pass phrase"}, "json"
    )

    answer = APIClient().post(
        "/api/auth/login/", {"nickname": "Alice\n", "password": "a long pass phrase"}, "json"
    )

    assert answer.status_code == 401
    assert answer.json()["error"] == "not_authenticated"


@pytest.mark.parametrize(
    "move",
    [
        {"type": {"type": "deal"}},
        {"type": ["deal"]},
        {"type": None},
        {"type": 3},
        {"type": "move", "from": ["tableau-0"], "to": "foundation-0"},
        {"type": "move", "from": "tableau-0", "to": "foundation-0", "count": 10**30},
        ["deal"],
        "deal",
    ],
)
def test_a_malformed_move_is_invalid_not_a_server_error(join, move) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()

    answer = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 0, "move": move}, "json")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


@pytest.mark.parametrize("ply", [True, 1.0, "0", -1, 2**63, None])
def test_a_malformed_ply_is_invalid(join, ply) -> None:
    alice = join("Alice")
    game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()

    answer = alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": ply, "move": {"type": "deal"}}, "json"
    )

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


@pytest.mark.parametrize("game_id", ["x" * 33, "a%00b", "%00"])
def test_a_junk_game_id_is_not_found(join, game_id) -> None:
    alice = join("Alice")

    for answer in (
        alice.get(f"/api/games/{game_id}/"),
        alice.get(f"/api/games/{game_id}/replay/"),
        alice.post(f"/api/games/{game_id}/moves/", {"ply": 0, "move": {"type": "deal"}}, "json"),
        alice.post(f"/api/games/{game_id}/resign/"),
    ):
        assert answer.status_code == 404, answer.content
        assert answer.json()["error"] == "not_found"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/games/", '{"variant": "castile", "mode": "practice", "seed": "\\ud800"}'),
        ("/api/auth/register/", '{"nickname": "Zed", "password": "long enough \\udfff"}'),
        ("/api/auth/login/", '{"nickname": "Zed", "password": "\\ud800"}'),
    ],
)
def test_a_lone_surrogate_in_text_is_refused_cleanly(join, path, body) -> None:
    alice = join("Alice")

    answer = alice.post(path, body, content_type="application/json")

    assert 400 <= answer.status_code < 500
    assert answer.json()["error"] in {"invalid", "not_authenticated"}
