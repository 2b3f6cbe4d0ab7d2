"""Helpers of the socket tests: players with tokens, sessions, legal moves, frames."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.test import Client
from rest_framework.authtoken.models import Token

from games import services
from games.engine import legal_moves
from games.models import Game, Player


def make_player(nickname: str) -> tuple[Player, str]:
    """Return a new guest and its API token."""
    player = services.player_create_guest(nickname=nickname)
    return player, Token.objects.create(user=player).key


def session_cookie(player: Player) -> tuple[bytes, bytes]:
    """Return the cookie header of a browser session logged in as ``player``."""
    client = Client()
    client.force_login(player)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


@database_sync_to_async
def a_legal_move(game_id: str) -> dict[str, Any]:
    """Return the first legal move the engine lists for the game."""
    game = Game.objects.get(pk=game_id)
    return legal_moves(services.engine_state(game))[0].to_json()


async def receive(communicator: Any) -> dict[str, Any]:
    """Return the next JSON frame (waiting up to 5 s)."""
    return await communicator.receive_json_from(timeout=5)


async def close_code(communicator: Any) -> int:
    """Return the code of the close frame that must come next."""
    output = await communicator.receive_output(timeout=5)
    assert output["type"] == "websocket.close", output
    return output["code"]
