"""Helpers of the socket tests: players with tokens, sessions, legal moves, frames, and the
communicator that checks everything a socket sends against the message schemas."""

from __future__ import annotations

import json
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from games import services
from games.engine import legal_moves
from games.models import Game, Player
from tests.socket_schemas import check_close, check_message


def make_player(nickname: str) -> tuple[Player, str]:
    """Return a new guest and its API token."""
    player = services.player_create_guest(nickname=nickname)
    return player, services.player_token(player=player)


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


class CheckedCommunicator(WebsocketCommunicator):
    """A ``WebsocketCommunicator`` that checks every output of the socket as it is read: each
    message against its schema in ``docs/schemas/`` (an unknown type fails), each close against
    the error message before it (``tests.socket_schemas``). ``check_unread`` checks what the test
    left unread."""

    last_message: dict[str, Any] | None = None

    async def receive_output(self, timeout: float = 1) -> dict[str, Any]:
        output = await super().receive_output(timeout)
        self.check(output)
        return output

    def check(self, output: dict[str, Any]) -> None:
        if output["type"] == "websocket.send":
            assert output.get("text") is not None, f"sockets send text frames only: {output!r}"
            message = json.loads(output["text"])
            check_message(self.scope["path"], message)
            self.last_message = message
        elif output["type"] == "websocket.close":
            check_close(output.get("code", 1000), self.last_message)

    def check_unread(self) -> None:
        while not self.output_queue.empty():
            self.check(self.output_queue.get_nowait())
