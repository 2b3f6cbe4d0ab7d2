"""WebSocket consumers: a player's game, and the watchers of a daily deal.

``GameConsumer`` (``ws/games/<id>/``) lets the game's player play over the socket. The client
sends ``{"ply": n, "move": MOVE}`` (or ``{"type": "resign"}``); the server answers
``{"type": "game", "game": GAME}`` or ``{"type": "error", "error": code, "detail": ..., "ply": n}``
with the semantics of the REST endpoints: both call ``games.services``. For ``stale_ply`` the
``ply`` is the server's current ply; otherwise it echoes the client's. Every new state of the game
(a move from REST or from another tab) is pushed as ``{"type": "game", "game": GAME}``; a socket is
not sent again the state it has just been answered with.

``DailyConsumer`` (``ws/daily/<slug>/<date>/``) is open to anyone. It sends the top of the deal's
leaderboard on connect, ``{"type": "leaderboard", "entries": [ENTRY, ...]}``, again whenever it
changes, and ``{"type": "progress", "player", "foundation_cards", "ply", "status"}`` as players
advance. Anything a client sends there is answered ``invalid``.

A refused connection is accepted, told why with an error message
(``{"type": "error", "error": code, "detail": ...}``), then closed with one of these codes:

====== ================================================================================
 4403  ``not_authenticated`` (no session, no valid token) or ``forbidden`` (not the player)
 4404  ``not_found``: no such game or daily deal (unknown variant, bad or future date, past
       day never dealt), as REST answers 404
 4429  ``rate_limited``: too many frames (``settings.WEBSOCKET_RATE_LIMITS``)
====== ================================================================================

A malformed frame (binary, not JSON, not an object, missing or bad fields) is answered
``{"type": "error", "error": "invalid", ...}`` and the socket stays open.
"""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from games import events, selectors, services, ws_limits
from games.errors import ErrorCode, ServiceError
from games.models import Game
from games.payloads import game_payload

CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_RATE_LIMITED = 4429

_CLOSE_CODES = {
    ErrorCode.NOT_AUTHENTICATED: CLOSE_FORBIDDEN,
    ErrorCode.FORBIDDEN: CLOSE_FORBIDDEN,
    ErrorCode.NOT_FOUND: CLOSE_NOT_FOUND,
    ErrorCode.RATE_LIMITED: CLOSE_RATE_LIMITED,
}


def error_message(error: ServiceError, **extra: Any) -> dict[str, Any]:
    """Return the socket's error message for a refusal: ``{"type": "error", ...payload}``."""
    return {"type": "error", **extra, **error.payload()}


def invalid(detail: str) -> ServiceError:
    return ServiceError(ErrorCode.INVALID, detail)


def parse_frame(text_data: str | None, bytes_data: bytes | None) -> dict[str, Any]:
    """Return the JSON object of a text frame; raise ``invalid`` for anything else."""
    if text_data is None:
        raise invalid("Send text frames holding a JSON object.")
    try:
        frame = json.loads(text_data)
    except ValueError:
        raise invalid("A frame must be a JSON object.") from None
    if not isinstance(frame, dict):
        raise invalid("A frame must be a JSON object.")
    return frame


class PatienceConsumer(AsyncWebsocketConsumer):
    """What both consumers share: refusing with a reason, JSON out, frame rate limits."""

    group: str | None = None
    closing = False

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content))

    async def refuse(self, error: ServiceError) -> None:
        """Tell the client why, then close with the code of the refusal."""
        self.closing = True
        await self.send_json(error_message(error))
        await self.close(code=_CLOSE_CODES.get(error.code, CLOSE_FORBIDDEN))

    async def join(self, group: str) -> None:
        self.group = group
        await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = None

    def player_key(self) -> Any:
        user = self.scope.get("user")
        return user.pk if user is not None and user.is_authenticated else None

    async def within_rate_limit(self) -> bool:
        """Count the incoming frame; refuse and close the socket when it is one too many."""
        check = sync_to_async(ws_limits.check_frame, thread_sensitive=False)
        exceeded = await check(socket=self.channel_name, player=self.player_key())
        if exceeded is None:
            return True
        await self.refuse(ServiceError(ErrorCode.RATE_LIMITED, exceeded))
        return False

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closing or not await self.within_rate_limit():
            return
        try:
            frame = parse_frame(text_data, bytes_data)
            await self.receive_frame(frame)
        except ServiceError as error:
            await self.send_json(error_message(error))

    async def receive_frame(self, frame: dict[str, Any]) -> None:
        raise invalid("This socket takes no messages.")


class GameConsumer(PatienceConsumer):
    """The socket of one game, for its player only."""

    game_id: str = ""
    last_sent: tuple[int, str] | None = None

    async def connect(self) -> None:
        await self.accept()
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        try:
            game = await self.load_game()
        except ServiceError as error:
            await self.refuse(error)
            return
        await self.join(events.game_group(self.game_id))
        await self.send_game(game)

    @database_sync_to_async
    def load_game(self) -> dict[str, Any]:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            if not Game.objects.filter(pk=self.game_id).exists():
                raise ServiceError(ErrorCode.NOT_FOUND, "No such game.")
            raise ServiceError(
                ErrorCode.NOT_AUTHENTICATED,
                "Log in, or give your API token as ?token=... or an Authorization header.",
            )
        game = selectors.access_game(self.game_id, user)
        if game.player_id != user.pk:
            raise ServiceError(ErrorCode.FORBIDDEN, "Only the game's player may connect.")
        return game_payload(services.game_close_if_expired(game=game))

    async def send_game(self, game: dict[str, Any]) -> None:
        self.last_sent = (game["ply"], game["status"])
        await self.send_json({"type": "game", "game": game})

    async def receive_frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type", "move")
        if kind == "resign":
            await self.answer(self.resign(), **({"ply": frame["ply"]} if "ply" in frame else {}))
            return
        if kind != "move":
            raise invalid("Send {'ply': n, 'move': MOVE} or {'type': 'resign'}.")
        if "ply" not in frame or "move" not in frame:
            raise ServiceError(
                ErrorCode.INVALID,
                "A move frame is {'ply': n, 'move': MOVE}.",
                ply=frame.get("ply"),
            )
        await self.answer(self.move(frame["ply"], frame["move"]), ply=frame["ply"])

    async def answer(self, call: Any, **echo: Any) -> None:
        """Send the game a service call returns, or its refusal with the ``ply`` of api.md."""
        try:
            game = await call
        except ServiceError as error:
            await self.send_json(error_message(error, **echo))
            return
        await self.send_game(game)

    @database_sync_to_async
    def move(self, ply: Any, move: Any) -> dict[str, Any]:
        game = services.game_move(
            game_id=self.game_id, player=self.scope["user"], ply=ply, move=move
        )
        return game_payload(game)

    @database_sync_to_async
    def resign(self) -> dict[str, Any]:
        game = services.game_resign(game_id=self.game_id, player=self.scope["user"])
        return game_payload(game)

    async def game_update(self, event: dict[str, Any]) -> None:
        """Push a new state of the game, unless this socket has just been sent it."""
        game = event["game"]
        if self.closing or (game["ply"], game["status"]) == self.last_sent:
            return
        await self.send_game(game)


class DailyConsumer(PatienceConsumer):
    """The socket of a daily deal's watchers: its leaderboard and players' progress."""

    async def connect(self) -> None:
        await self.accept()
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            group, entries = await self.load_leaderboard(kwargs["slug"], kwargs["date"])
        except ServiceError as error:
            await self.refuse(error)
            return
        await self.join(group)
        await self.send_json({"type": "leaderboard", "entries": entries})

    @database_sync_to_async
    def load_leaderboard(self, slug: str, date_text: str) -> tuple[str, list[dict[str, Any]]]:
        from leaderboards.selectors import LIVE_ENTRIES, ranked_entries

        deal = services.deal_of_day(slug=slug, date_text=date_text)
        group = events.daily_group(deal.variant.slug, deal.date.isoformat())
        return group, ranked_entries(deal)[:LIVE_ENTRIES]

    async def daily_progress(self, event: dict[str, Any]) -> None:
        if not self.closing:
            await self.send_json(event["event"])

    async def daily_leaderboard(self, event: dict[str, Any]) -> None:
        if not self.closing:
            await self.send_json({"type": "leaderboard", "entries": event["entries"]})
