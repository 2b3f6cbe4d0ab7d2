"""``GET /api/me/games/``: the caller's own games, newest first, paged and filtered."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from games import clock

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def alice_games(join):
    """Alice has four practice games (the second resigned) and Bob one."""
    alice, bob = join("Alice"), join("Bob")
    ids = []
    for minute in range(4):
        with clock.frozen(NOON + dt.timedelta(minutes=minute)):
            body = {"variant": "caprice", "mode": "practice", "seed": f"s{minute}"}
            ids.append(alice.post("/api/games/", body, "json").json()["id"])
    alice.post(f"/api/games/{ids[1]}/resign/")
    bob.post("/api/games/", {"variant": "caprice", "mode": "practice"}, "json")
    return alice, ids


def test_my_games_are_newest_first_with_their_total(alice_games) -> None:
    alice, ids = alice_games

    body = alice.get("/api/me/games/").json()

    assert body["total"] == 4
    assert [game["id"] for game in body["games"]] == ids[::-1]
    assert body["games"][0] == alice.get(f"/api/games/{ids[3]}/").json()


def test_my_games_filter_by_status_and_page(alice_games) -> None:
    alice, ids = alice_games

    playing = alice.get("/api/me/games/?status=playing&limit=2").json()
    over = alice.get("/api/me/games/?status=over").json()
    past_end = alice.get("/api/me/games/?offset=10").json()

    assert (playing["total"], [g["id"] for g in playing["games"]]) == (3, [ids[3], ids[2]])
    assert (over["total"], [g["id"] for g in over["games"]]) == (1, [ids[1]])
    assert (past_end["total"], past_end["games"]) == (4, [])


@pytest.mark.parametrize(
    "query",
    ["status=won", "limit=0", "limit=101", "limit=-1", "offset=x", "offset=%00", "limit=1e3"],
)
def test_bad_paging_or_filter_is_invalid(alice_games, query) -> None:
    alice, _ = alice_games

    answer = alice.get(f"/api/me/games/?{query}")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"


def test_my_games_need_a_player(variants) -> None:
    answer = APIClient().get("/api/me/games/")

    assert answer.status_code == 401
    assert answer.json()["error"] == "not_authenticated"
