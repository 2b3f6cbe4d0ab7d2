"""No answer of the REST API ever shows a card the player cannot see (random games)."""

from __future__ import annotations

import json
import random

import pytest

from games import services
from games.engine import card_code, legal_moves
from games.models import Game

PLIES = 150


def hidden_slots(game_id: str) -> dict[tuple[str, int], str]:
    """Return, from the server's full state, every (pile id, index) the player cannot see."""
    game = Game.objects.get(pk=game_id)
    state = services.engine_state(game)
    stock = state.variant.stock_index
    slots = {}
    for i, (pile_id, pile) in enumerate(zip(state.variant.ids, state.piles, strict=True)):
        hidden = len(pile.cards) if i == stock else pile.hidden
        for index in range(hidden):
            slots[(pile_id, index)] = card_code(pile.cards[index])
    return slots


def assert_redacted(game_id: str, payload: dict) -> None:
    slots = hidden_slots(game_id)
    piles = {pile["id"]: pile["cards"] for pile in payload["state"]["piles"]}
    for (pile_id, index), code in slots.items():
        assert piles[pile_id][index] is None, f"{pile_id}[{index}] shows {code}"
    for pile_id in ("stock",):
        assert all(card is None for card in piles.get(pile_id, []))
    text = json.dumps(payload)
    visible = {c for cards in piles.values() for c in cards if c is not None}
    for code in set(slots.values()) - visible:
        assert f'"{code}"' not in text, f"the hidden card {code} appears in the answer"


@pytest.mark.parametrize(
    ("slug", "seed"),
    [("box-kite", 1), ("box-kite", 2), ("quadruple-canfield", 3), ("quadruple-canfield", 4)],
)
def test_random_play_never_reveals_a_hidden_card(join, slug: str, seed: int) -> None:
    # given
    rng = random.Random(seed)
    alice = join("Alice")
    answer = alice.post("/api/games/", {"variant": slug, "mode": "daily"}, "json")
    game = answer.json()
    assert_redacted(game["id"], game)
    if slug == "quadruple-canfield":  # Box Kite deals every card face up, without a stock
        assert any(slot[0] == "stock" for slot in hidden_slots(game["id"]))

    # when / then: every answer along a random game hides what it must
    for _ in range(PLIES):
        if game["status"] != "playing":
            break
        moves = legal_moves(services.engine_state(Game.objects.get(pk=game["id"])))
        if not moves:
            break
        move = rng.choice(moves).to_json()
        answer = alice.post(
            f"/api/games/{game['id']}/moves/", {"ply": game["ply"], "move": move}, "json"
        )
        assert answer.status_code == 200, answer.json()
        game = answer.json()
        assert_redacted(game["id"], game)
        assert_redacted(game["id"], alice.get(f"/api/games/{game['id']}/").json())
    assert game["ply"] > 0
