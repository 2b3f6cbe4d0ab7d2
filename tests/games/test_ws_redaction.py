"""No socket message ever carries the identity of a card its player cannot see.

A random game of each of two variants is played over the game socket while a daily socket
watches the same deal; every message of both is checked against the server's full position.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from channels.db import database_sync_to_async

from games import services
from games.documents import compiled
from games.engine import legal_moves
from games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)

CARD = re.compile(r'"([A2-9TJQK][CDHS])"')
MOVES_PER_GAME = 60


def full_position(game: Game) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return the server's full position of ``game`` (engine format) and its legal moves."""
    moves = [move.to_json() for move in legal_moves(services.engine_state(game))]
    if game.ply:
        moves.append({"type": "undo"})  # sometimes legal, sometimes refused: both are fine
    return game.state, moves


@database_sync_to_async
def load(game_id: str) -> tuple[int, dict[str, Any], list[dict[str, Any]], int | None]:
    game = Game.objects.get(pk=game_id)
    state, moves = full_position(game)
    return game.ply, state, moves, compiled(game.rules).stock_index


def split(full: dict[str, Any], stock: int | None) -> tuple[Counter[str], Counter[str]]:
    """Return the visible and the hidden cards of a full position, as multisets."""
    visible: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for index, pile in enumerate(full["piles"]):
        down = len(pile["cards"]) if index == stock else pile["hidden"]
        hidden.update(pile["cards"][:down])
        visible.update(pile["cards"][down:])
    return visible, hidden


def check_game_message(
    raw: str, full: dict[str, Any], stock: int | None, ply: int
) -> dict[str, Any]:
    """Check a game message against the full position it shows; return it decoded."""
    message = json.loads(raw)
    assert message["type"] == "game", message
    assert message["game"]["ply"] == ply
    shown = message["game"]["state"]["piles"]
    assert [p["id"] for p in shown] == [p["id"] for p in full["piles"]]
    for index, (seen, pile) in enumerate(zip(shown, full["piles"], strict=True)):
        down = len(pile["cards"]) if index == stock else pile["hidden"]
        assert len(seen["cards"]) == len(pile["cards"]), pile["id"]
        assert seen["cards"][:down] == [None] * down, f"{pile['id']} shows a face-down card"
        assert seen["cards"][down:] == pile["cards"][down:], pile["id"]
    check_no_hidden_identity(raw, full, stock)
    return message


def check_no_hidden_identity(raw: str, full: dict[str, Any], stock: int | None) -> None:
    """Check that a raw message names no card beyond those face up (copies counted)."""
    visible, hidden = split(full, stock)
    named = Counter(CARD.findall(raw))
    beyond = named - visible
    assert not beyond, f"the message names cards the player cannot see: {sorted(beyond)}"
    assert hidden, "a position with nothing hidden proves nothing"


async def play_at_random(ws_connect: Any, variant: str, seed: int) -> None:
    rng = random.Random(seed)

    def begin() -> tuple[str, str, str]:
        player = services.player_create_guest(nickname=f"rand-{variant}"[:24])
        game, _ = services.game_start(player=player, variant=variant, mode="daily")
        return game.pk, services.player_token(player=player), game.deal.date.isoformat()

    game_id, token, date = await database_sync_to_async(begin)()
    watcher = await ws_connect(f"/ws/daily/{variant}/{date}/")
    socket = await ws_connect(f"/ws/games/{game_id}/?token={token}")
    ply, full, moves, stock = await load(game_id)
    check_game_message(await socket.receive_from(timeout=5), full, stock, ply)
    watched = [await watcher.receive_from(timeout=5)]

    for _ in range(MOVES_PER_GAME):
        if not [m for m in moves if m["type"] != "undo"]:
            break
        await socket.send_json_to({"ply": ply, "move": rng.choice(moves)})
        raw = await socket.receive_from(timeout=5)
        if json.loads(raw)["type"] == "error":  # an undo refused
            assert json.loads(raw)["error"] == "illegal_move"
            check_no_hidden_identity(raw, full, stock)
        else:
            ply, full, moves, stock = await load(game_id)
            check_game_message(raw, full, stock, ply)
        while not await watcher.receive_nothing(timeout=0.01):
            watched.append(await watcher.receive_from(timeout=5))

    await socket.send_json_to({"type": "resign"})
    ply, full, _, stock = await load(game_id)
    resigned = check_game_message(await socket.receive_from(timeout=5), full, stock, ply)
    assert resigned["game"]["status"] == "resigned"
    while not await watcher.receive_nothing(timeout=1.5):  # the last batch comes within 1 s
        watched.append(await watcher.receive_from(timeout=5))
    assert await socket.receive_nothing(timeout=0.1)  # nothing pushed twice

    kinds = Counter(json.loads(raw)["type"] for raw in watched)
    assert kinds["progress"] >= 1  # batched: at most one a second
    assert kinds["leaderboard"] == 2  # on connect, and when the game finished
    progress = [p for raw in watched for p in json.loads(raw).get("players", [])]
    assert progress[-1]["ply"] == ply
    for raw in watched:
        assert not CARD.findall(raw), raw
    assert ply > 5, "the random game should have gone somewhere"


@pytest.mark.parametrize("variant", ["box-kite", "quadruple-canfield"])
async def test_a_random_game_never_reveals_a_hidden_card(
    ws_connect: Any, ws_variants: Any, settings: Any, variant: str
) -> None:
    settings.WEBSOCKET_RATE_LIMITS = {}  # a robot plays faster than the limits allow people
    await play_at_random(ws_connect, variant, seed=20261201)
