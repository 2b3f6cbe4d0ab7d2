"""Fixtures of the league tests: players who sign up through the API, leagues made by them,
verified results made directly (as in tests/leaderboards)."""

from __future__ import annotations

import pytest

from tests.leaderboards.conftest import (  # noqa: F401  (fixtures shared with the board tests)
    DAY,
    _fresh_ranking,
    add_result_of,
    deal_of,
)


@pytest.fixture
def guest(db):
    """Return ``guest(nickname)``: an ``APIClient`` of a new guest, authenticated by its token
    (made through the services: no variant needed, unlike the suite's ``join``)."""
    from rest_framework.test import APIClient

    from games.services import player_create_guest
    from games.services.tokens import token_issue

    def make(nickname: str):
        player = player_create_guest(nickname=nickname)
        client = APIClient()
        _, secret = token_issue(player=player)
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        client.player = {"id": player.pk, "nickname": player.nickname}
        return client

    return make


@pytest.fixture
def league_of():
    """Return ``league_of(owner_client, name="Family", *members)``: a league made by the owner
    and joined by each member client through its code; the league's payload."""

    def make(owner, name: str = "Family", *members) -> dict:
        answer = owner.post("/api/leagues/", {"name": name}, format="json")
        assert answer.status_code == 201, answer.json()
        league = answer.json()
        for member in members:
            joined = member.post("/api/leagues/join/", {"code": league["code"]}, format="json")
            assert joined.status_code == 201, joined.json()
        return league

    return make
