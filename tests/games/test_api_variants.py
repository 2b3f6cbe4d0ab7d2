"""The variants beside Caprice through the REST API: a daily and a practice game of each.

Each game is started, played a few moves that the engine computes on its own copy of the deal
(every answer's position checked against that copy), and resigned; the answers are the ones
docs/api.md documents, and a resigned daily game ranks on its deal's board.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from games import clock
from games.engine import (
    apply_move,
    builtin_variant,
    deal,
    legal_moves,
    parse_seed,
    player_view,
    practice_seed,
)
from games.models import Deal

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
VARIANTS = ["castile", "quadruple-canfield", "box-kite", "capricieuse"]
PLIES = 3


def dealt(slug: str, mode: str, text: str) -> Any:
    """Return the engine's own deal of the game: from the seed text, or the daily deal's seed."""
    if mode == "practice":
        seed = practice_seed(text)
    else:
        seed = parse_seed(Deal.objects.get(variant__slug=slug, date=NOON.date()).seed)
    return deal(builtin_variant(slug), seed)


@pytest.mark.parametrize("mode", ["daily", "practice"])
@pytest.mark.parametrize("slug", VARIANTS)
def test_a_game_of_each_variant_is_started_played_and_resigned(join, slug: str, mode: str) -> None:
    alice = join("Alice")
    body = {"variant": slug, "mode": mode}
    if mode == "practice":
        body["seed"] = f"{slug} at noon"

    with clock.frozen(NOON):
        # when Alice starts a game of the variant
        started = alice.post("/api/games/", body, "json")

        # then it is a new game on the variant's deal, in the position the engine deals
        assert started.status_code == 201, started.json()
        game = started.json()
        assert (game["variant"], game["mode"], game["player"]) == (slug, mode, "Alice")
        assert game["date"] == ("2026-12-01" if mode == "daily" else None)
        assert game["seed_text"] == body.get("seed")
        assert (game["status"], game["ply"], game["verified"], game["finished_at"]) == (
            "playing",
            0,
            False,
            None,
        )
        state = dealt(slug, mode, body.get("seed", ""))
        assert game["state"] == player_view(state)
        assert [pile["id"] for pile in game["state"]["piles"]] == list(state.variant.ids)
        assert game["foundation_cards"] == state.foundation_cards()

        # when she makes a few legal moves that the engine finds on its copy
        for ply in range(PLIES):
            move = next(m for m in legal_moves(state) if m.to_json()["type"] != "undo")
            answer = alice.post(
                f"/api/games/{game['id']}/moves/", {"ply": ply, "move": move.to_json()}, "json"
            )
            state = apply_move(state, move)

            # then each answer is the game one ply on, in the engine's position
            assert answer.status_code == 200, (ply, move.to_json(), answer.json())
            game = answer.json()
            assert (game["ply"], game["status"]) == (ply + 1, "playing")
            assert game["state"] == player_view(state)
            assert game["foundation_cards"] == state.foundation_cards()

        # when she resigns
        resigned = alice.post(f"/api/games/{game['id']}/resign/")
        late = alice.post(
            f"/api/games/{game['id']}/moves/", {"ply": PLIES, "move": {"type": "deal"}}, "json"
        )

    # then the game is over where she left it, and takes no more moves
    assert resigned.status_code == 200
    over = resigned.json()
    assert (over["status"], over["ply"], over["state"]) == ("resigned", PLIES, game["state"])
    assert over["finished_at"] is not None
    assert late.status_code == 409
    assert late.json()["error"] == "game_over"
    if mode == "practice":
        return
    # and a daily game is verified and ranks on its deal's board with what it reached
    assert over["verified"] is True
    cache.clear()
    with clock.frozen(NOON):
        board = APIClient().get(f"/api/leaderboards/{slug}/2026-12-01/").json()
    assert [(e["player"], e["status"], e["moves"], e["game"]) for e in board["entries"]] == [
        ("Alice", "resigned", PLIES, game["id"])
    ]
    assert board["entries"][0]["foundation_cards"] == state.foundation_cards()
