"""The game socket ``ws/games/<id>/``: a player plays one game over it.

The client sends ``{"ply": n, "move": MOVE}`` (or ``{"type": "resign"}``); the server answers
``{"type": "game", "game": GAME}`` or ``{"type": "error", "error": code, "detail": ..., "ply": n}``
with the semantics of the REST endpoints: both call ``games.services``. For ``stale_ply`` the
``ply`` is the server's current ply; otherwise it echoes the client's. Every new state of the game
(a move from REST or from another tab) is pushed as ``{"type": "game", "game": GAME}``; a socket is
not sent again the state it has just been answered with.

Only the game's player may connect: by session (a browser, whose ``Origin`` must be an allowed
host) or by token (any client; one without ``Origin`` is not a browser). Refusals and close codes:
``games.ws.base``. Frames are checked here (``check_*``) before a service sees them.

An ordinary move never leaves the event loop: the player's rate limit, the engine, the write
(``games.services.move_play``: many sockets' moves in one statement, each answered once its
own row is durable) and the count of the game's other tabs all run on it, their Redis commands
sharing the loop's pipelines. Anything else (a resignation, a move that is illegal or wins or
whose position is not cached, a move the batch could not write) costs one trip to a worker
thread (``thread_sensitive=False``) for the locking path of ``games.services``, which words the
refusal and verifies a finish. The answer is sent first; the push to the game's other sockets
follows, only when another socket of the game may be open (``games.ws.tabs`` counts them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext

from core import breaker, metrics, redis_client
from core.errors import ErrorCode, ServiceError
from games import positions, selectors, services
from games.models import Game
from games.payloads import game_payload
from games.ws import limits, pushes, tabs
from games.ws.base import PatienceConsumer, in_thread, invalid

MAX_PLY = 2**31 - 1
MAX_MOVE_FIELDS = 8
_SCALARS = (str, int, float, bool, type(None))


def check_ply(value: Any) -> int:
    """Return the ply of a frame; raise ``invalid`` unless it is a sane non-negative integer."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PLY:
        raise invalid("'ply' must be a non-negative integer.", field="ply")
    return value


def check_move_shape(value: Any) -> dict[str, Any]:
    """Return a MOVE object that is flat and small; its meaning is the service's to check."""
    if not isinstance(value, dict) or len(value) > MAX_MOVE_FIELDS:
        raise invalid("'move' must be a MOVE object.", field="move")
    for key, field in value.items():
        if not isinstance(field, _SCALARS) or (isinstance(field, str) and len(field) > 64):
            raise invalid(
                gettext("The move's {key!r} must be a short text or a number.").format(key=key),
                field="move",
            )
    if not isinstance(value.get("type"), str):
        raise invalid("A move's 'type' must be a text.", field="move")
    return value


def echo_ply(frame: dict[str, Any]) -> dict[str, Any]:
    """Return the ``ply`` to echo in an error, when the frame's ply is one."""
    ply = frame.get("ply")
    if isinstance(ply, int) and not isinstance(ply, bool) and 0 <= ply <= MAX_PLY:
        return {"ply": ply}
    return {}


def progress_key(game: dict[str, Any]) -> tuple[int, bool]:
    """Order the states of one game: by ply, and a finished state after the last one in play."""
    return game["ply"], game["status"] != "playing"


class GameConsumer(PatienceConsumer):
    """The socket of one game, for its player only."""

    kind = "game"
    game_id: str = ""
    last_sent: tuple[int, bool] | None = None
    counted = False  # counted open in games.ws.tabs

    def check_scope(self) -> ServiceError | None:
        refusal = super().check_scope()
        absent = self.scope.get("origin") == "absent"
        if refusal is None and absent and self.scope.get("auth_method") != "token":
            return ServiceError(
                ErrorCode.NOT_AUTHENTICATED,
                gettext(
                    "A client that sends no Origin must give its API token "
                    "(?token=... or an Authorization header)."
                ),
            )
        return refusal

    async def open(self) -> None:
        self.game_id = self.scope["url_route"]["kwargs"]["game_id"]
        await in_thread(self.access_game)()
        await tabs.aopened(self.game_id)
        self.counted = True
        # Counted and joined before the first state is read: a move made meanwhile either is in
        # that state or is pushed here (games.ws.tabs).
        await self.join(pushes.game_group(self.game_id))
        game = await in_thread(self.load_game)()
        await self.send_game(game)

    async def disconnect(self, code: int) -> None:
        if self.counted:
            self.counted = False
            await tabs.aclosed(self.game_id)
        await super().disconnect(code)

    def load_game(self) -> dict[str, Any]:
        game = services.game_close_if_expired(game=self.access_game())
        positions.warm(game)  # the first move here need not replay the log
        return game_payload(game)

    def access_game(self) -> Game:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            if not Game.objects.filter(pk=self.game_id).exists():
                raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
            raise ServiceError(
                ErrorCode.NOT_AUTHENTICATED,
                gettext("Log in, or give your API token as ?token=... or an Authorization header."),
            )
        game = selectors.access_game(self.game_id, user)
        if game.player_id != user.pk:
            raise ServiceError(ErrorCode.FORBIDDEN, gettext("Only the game's player may connect."))
        return game

    async def send_game(self, game: dict[str, Any]) -> None:
        self.last_sent = progress_key(game)
        await self.send_json({"type": "game", "game": game})

    # --- frames --------------------------------------------------------------------------

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        arrived = time.monotonic()
        try:
            kind, echo = self.check_frame(content)
        finally:
            await self.count_frame()  # every frame counts, a malformed one too
        player = self.scope["user"]
        breaker.check()  # PostgreSQL known down: answered unavailable at once
        if kind == "move":
            try:
                game = await services.move_play(
                    game_id=self.game_id, player=player, ply=content["ply"], move=content["move"]
                )
            except ServiceError as error:
                await self.send_error(error, **echo)
                return
            if game is not None:
                await self.answer_ordinary(game)
                moved = time.monotonic() - arrived
                metrics.SOCKET_MOVE_SECONDS.labels(path="batched").observe(moved)
                return

            def action() -> Game:
                return services.game_move(
                    game_id=self.game_id, player=player, ply=content["ply"], move=content["move"]
                )

            await self.play(action, echo)
            moved = time.monotonic() - arrived
            metrics.SOCKET_MOVE_SECONDS.labels(path="thread").observe(moved)
            return

        def resign() -> Game:
            return services.game_resign(game_id=self.game_id, player=player)

        await self.play(resign, echo)

    def check_frame(self, frame: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Return what a frame asks for (``move`` or ``resign``) and the ``ply`` to echo; raise
        ``invalid``."""
        kind = frame.get("type", "move")
        echo = echo_ply(frame)
        if kind == "resign":
            return kind, echo
        if kind != "move":
            raise invalid(
                gettext("Send {{'ply': n, 'move': MOVE}} or {{'type': 'resign'}}.").format()
            )
        if "ply" not in frame or "move" not in frame:
            raise invalid("A move frame is {'ply': n, 'move': MOVE}.", **echo)
        check_ply(frame["ply"])
        check_move_shape(frame["move"])
        return kind, echo

    async def count_frame(self) -> None:
        """Count a frame against the player's limit (on the loop: ``games.ws.limits``)."""
        refusal = await limits.acheck_player(self.scope["user"].pk)
        if refusal is not None:
            raise ServiceError(ErrorCode.RATE_LIMITED, refusal)

    async def answer_ordinary(self, game: Game) -> None:
        """Answer an ordinary move written on the loop, then push it to the game's other tabs."""
        answer = game_payload(game)
        await self.send_game(answer)
        if redis_client.pushes_pause():
            return  # the other tabs' pushes pause while Redis is away
        if await tabs.aothers_open(self.game_id):
            await pushes.announce_game(answer)

    def serve(self, action: Callable[[], Game]) -> tuple[Any, list[dict[str, Any]]]:
        """Run in a worker thread: call the service, build the payloads once.

        Return the answer (a GAME payload or the ``ServiceError``) and the payloads to push:
        none of this socket's game when no other socket of it is open (``games.ws.tabs``).
        """
        answer: Any
        with pushes.collecting() as changed:
            try:
                game = action()
            except ServiceError as error:
                game, answer = None, error
            else:
                answer = game_payload(game)
        if any(item.pk == self.game_id for item in changed) and not tabs.others_open(self.game_id):
            changed = [item for item in changed if item.pk != self.game_id]
        others = [answer if item is game else game_payload(item) for item in changed]
        return answer, others

    async def play(self, action: Callable[[], Game], echo: dict[str, Any]) -> None:
        answer, others = await in_thread(self.serve)(action)
        if isinstance(answer, ServiceError):
            await self.send_error(answer, **echo)
        else:
            await self.send_game(answer)
        if others and redis_client.pushes_pause():
            return  # the other tabs' pushes pause while Redis is away
        for game in others:
            await pushes.announce_game(game)

    # --- pushes --------------------------------------------------------------------------

    async def game_update(self, event: dict[str, Any]) -> None:
        """Push a new state of the game, unless this socket has been sent it (or a later one)."""
        game = event["game"]
        if self.closing or (self.last_sent is not None and progress_key(game) <= self.last_sent):
            return
        await self.send_game(game)
