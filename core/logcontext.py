"""What a log line is about: the request or socket, the player and the game, where known.

``config.middleware.RequestContextMiddleware`` sets the request's id (and the game's, from the
route) for an HTTP request; the sockets (``games.ws.base``) set the socket's id, the player's and
the game's for a connection. The values live in context variables, so they follow the request
or socket into the threads and tasks it starts (asgiref and asyncio copy the context), and
every record logged meanwhile carries them (``config.logging``).

The player of an HTTP request is read from the request itself when a line is written, only if
authentication has already run (``player_of``): logging never costs a query.
"""

from __future__ import annotations

import contextvars
import re
import uuid
from typing import Any

from django.utils.functional import empty


class HttpRequestState:
    """What the lines of one HTTP request say of it: its id, its game, the request itself.

    One object a request, shared by every context the request runs in (its task, the thread
    that runs its middleware and view), so what the view's thread learns (the request, hence
    the player) is seen by the access line written on the event loop afterwards.
    """

    __slots__ = ("game_id", "request", "request_id")

    def __init__(self, request_id: str, game_id: str | None = None) -> None:
        self.request_id = request_id
        self.game_id = game_id
        self.request: Any = None


http_request: contextvars.ContextVar[HttpRequestState | None] = contextvars.ContextVar(
    "patience_http_request", default=None
)
socket_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "patience_socket_id", default=None
)
player_id: contextvars.ContextVar[Any] = contextvars.ContextVar("patience_player_id", default=None)
game_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "patience_game_id", default=None
)

# An id a proxy passed along (X-Request-ID) is kept when it is this plain; anything else is
# replaced, so that a client cannot write what it likes into the logs.
_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def new_id() -> str:
    """Return a fresh id for a request or a socket (32 hexadecimal digits)."""
    return uuid.uuid4().hex


def check_given_id(value: str | None) -> str:
    """Return ``value`` (a proxy's ``X-Request-ID``) if it is a plain short id, else a new one."""
    if value and _GIVEN_ID.fullmatch(value):
        return value
    return new_id()


def player_of(http_request: Any) -> Any:
    """Return the primary key of the request's authenticated player, if authentication has
    already said who it is (never evaluating the lazy user: no query), else None."""
    if http_request is None:
        return None
    user = http_request.__dict__.get("user")
    if user is None:
        return None
    wrapped = getattr(user, "_wrapped", user)
    if wrapped is None or wrapped is empty:  # a lazy user not yet evaluated
        return None
    if not getattr(wrapped, "is_authenticated", False):
        return None
    return getattr(wrapped, "pk", None)


def current() -> dict[str, Any]:
    """Return the context of the running request or socket: only the ids that are known."""
    found: dict[str, Any] = {}
    state = http_request.get()
    if state is not None:
        found["request_id"] = state.request_id
    value = socket_id.get()
    if value is not None:
        found["socket_id"] = value
    player = player_id.get()
    if player is None and state is not None:
        player = player_of(state.request)
    if player is not None:
        found["player_id"] = player
    value = game_id.get()
    if value is None and state is not None:
        value = state.game_id
    if value is not None:
        found["game_id"] = value
    return found
