"""A daily game won through the REST API on the line that certified its deal, and ranked first.

The deal is made as the scheduler makes it (``deal_prepare``: the solver proves it winnable and
its winning line is stored); Alice then plays that line move by move over REST, and Bob plays a
little and resigns. The won branch of daily verification runs for real: the game is won and
verified, its sealed result exists, and the deal's board ranks her first as won.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.cache import cache
from rest_framework.test import APIClient

from games import clock, services
from games.engine import legal_moves
from games.models import Game, Result
from games.services import deals as deal_services
from games.verification.seals import seal_is_valid

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


def board(slug: str) -> dict[str, Any]:
    cache.clear()
    with clock.frozen(NOON):
        answer = APIClient().get(f"/api/leaderboards/{slug}/2026-12-01/")
    assert answer.status_code == 200, answer.json()
    return answer.json()


def move(client: APIClient, game_id: str, ply: int, played: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(f"/api/games/{game_id}/moves/", {"ply": ply, "move": played}, "json")
    assert answer.status_code == 200, (ply, played, answer.json())
    return answer.json()


def test_a_daily_game_won_on_the_solvers_line_is_verified_and_ranks_first_as_won(
    join, variants
) -> None:
    slug = "capricieuse"  # its winning line is short (74 moves), so the test is quick
    # given today's deal, certified by the solver with its winning line
    with clock.frozen(NOON):
        deal = deal_services.deal_prepare(variant=variants[slug], date=NOON.date(), seconds=5)
    assert deal.certified and deal.solution
    alice, bob = join("Alice"), join("Bob")

    # when Alice plays that line over REST, move by move
    with clock.frozen(NOON):
        game = alice.post("/api/games/", {"variant": slug, "mode": "daily"}, "json").json()
        assert game["date"] == "2026-12-01" and game["status"] == "playing"
        for ply, played in enumerate(deal.solution):
            assert game["status"] == "playing", f"over before ply {ply}"
            game = move(alice, game["id"], ply, played)

        # and Bob plays two moves of the same deal and resigns
        other = bob.post("/api/games/", {"variant": slug, "mode": "daily"}, "json").json()
        for ply in range(2):
            state = services.engine_state(Game.objects.get(pk=other["id"]))
            legal = next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")
            move(bob, other["id"], ply, legal)
        resigned = bob.post(f"/api/games/{other['id']}/resign/")
        assert resigned.status_code == 200

    # then her game is won and verified, with every card on the foundations
    total = sum(len(pile["cards"]) for pile in game["state"]["piles"])
    assert (game["status"], game["verified"]) == ("won", True)
    assert game["foundation_cards"] == total
    with clock.frozen(NOON):
        again = alice.get(f"/api/games/{game['id']}/").json()
    assert (again["status"], again["verified"], again["ply"]) == ("won", True, len(deal.solution))

    # and her sealed result holds what the replay proves
    result = Result.objects.get(game_id=game["id"])
    assert seal_is_valid(result)
    assert (result.status, result.moves, result.foundation_cards) == (
        "won",
        len(deal.solution),
        total,
    )
    assert result.deal_id == deal.pk

    # and the deal's board ranks her first as won, Bob below as resigned
    answer = board(slug)
    ranked = [(e["rank"], e["player"], e["status"], e["game"]) for e in answer["entries"]]
    assert ranked == [
        (1, "Alice", "won", game["id"]),
        (2, "Bob", "resigned", other["id"]),
    ]
    assert answer["total"] == 2
    first = answer["entries"][0]
    assert (first["foundation_cards"], first["moves"]) == (total, len(deal.solution))
