"""Who is connecting to a socket, and from which page.

Browsers authenticate by their session cookie; other clients give their API token as
``?token=<token>`` in the URL or as an ``Authorization: Token <token>`` header. A token, when
given, wins over the session; one that names no active player leaves the connection anonymous.
``PlayerAuthMiddleware`` sets in the scope:

- ``user``: the player, or ``AnonymousUser``;
- ``auth_method``: ``"token"``, ``"session"`` or None (anonymous);
- ``origin``: ``"absent"`` (no ``Origin`` header: not a browser), ``"allowed"`` (a page of an
  allowed host) or ``"foreign"`` (any other page, or an unreadable header);
- ``auth_error``: ``"unavailable"`` when the database could not be asked, else None.

Untrusted text (tokens, session keys) is checked against its shape before it can reach a query,
so a NUL or any junk byte is simply a bad credential. Token lookups are cached in process for
``TOKEN_CACHE_SECONDS`` (at most ``TOKEN_CACHE_SIZE`` tokens): a deactivated or deleted player, or a
revoked or expired token, loses access to new sockets within that time.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.auth import get_user
from channels.middleware import BaseMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import InterfaceError, OperationalError
from django.http.request import validate_host

from core import breaker
from games.services.tokens import token_authenticate
from games.ws.base import in_thread

TOKEN_KEYWORD = "token"
TOKEN_SHAPE = re.compile(r"[0-9A-Za-z]{1,64}")
SESSION_KEY_SHAPE = re.compile(r"[0-9a-z]{8,64}")
TOKEN_CACHE_SECONDS = 30.0
TOKEN_CACHE_SIZE = 10_000
_DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]


def token_from_scope(scope: dict[str, Any]) -> str | None:
    """Return the token the connection gives (query string first, then header), or None.

    A token of the wrong shape is returned as ``""`` (given, but names no one).
    """
    query_string = scope.get("query_string", b"")
    if isinstance(query_string, bytes):
        query_string = query_string.decode("latin-1")
    try:
        values = parse_qs(query_string, errors="replace").get("token")
    except ValueError:
        values = None
    if values:
        return _shaped(values[0])
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            keyword, _, key = value.decode("latin-1").strip().partition(" ")
            if keyword.lower() == TOKEN_KEYWORD:
                return _shaped(key.strip())
    return None


def _shaped(key: str) -> str:
    return key if TOKEN_SHAPE.fullmatch(key) else ""


def origin_of(scope: dict[str, Any]) -> str:
    """Classify the ``Origin`` header: ``absent``, ``allowed`` or ``foreign``."""
    values = [value for name, value in scope.get("headers", []) if name.lower() == b"origin"]
    if not values:
        return "absent"
    if len(values) > 1:
        return "foreign"
    try:
        parts = urlsplit(values[0].decode("ascii"))
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError for a port that is not one)
    except (UnicodeDecodeError, ValueError):
        return "foreign"
    if parts.scheme not in {"http", "https"} or not host:
        return "foreign"
    # ALLOWED_HOSTS names hosts, not ports (as Django checks a request's Host).
    if ":" in host:
        host = f"[{host}]"
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = _DEBUG_HOSTS
    return "allowed" if validate_host(host, allowed) else "foreign"


class _TokenCache:
    """A bounded, briefly kept map of token → player pk (None: no active player)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()

    def get(self, key: str) -> tuple[bool, Any]:
        now = time.monotonic()
        with self._lock:
            found = self._entries.get(key)
            if found is None or found[0] <= now:
                return False, None
            self._entries.move_to_end(key)
            return True, found[1]

    def put(self, key: str, user: Any) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic() + TOKEN_CACHE_SECONDS, user)
            self._entries.move_to_end(key)
            while len(self._entries) > TOKEN_CACHE_SIZE:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_tokens = _TokenCache()


def forget_tokens() -> None:
    """Drop the cached token lookups (tests; a player's deactivation takes effect at once)."""
    _tokens.clear()


def _lookup_token(key: str) -> Any:
    token = token_authenticate(key)
    return None if token is None else token.player


async def user_of_token(key: str) -> Any:
    """Return the active player the token belongs to, or ``AnonymousUser``."""
    if not key:
        return AnonymousUser()
    cached, user = _tokens.get(key)
    if not cached:
        user = await in_thread(_lookup_token)(key)
        _tokens.put(key, user)
    return user if user is not None else AnonymousUser()


def has_session_cookie(scope: dict[str, Any]) -> bool:
    """Whether the connection carries a session key of the right shape."""
    key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    return isinstance(key, str) and SESSION_KEY_SHAPE.fullmatch(key) is not None


class PlayerAuthMiddleware(BaseMiddleware):
    """Set ``user``, ``auth_method``, ``origin`` and ``auth_error`` in the scope (see above).

    It sits inside Channels' ``SessionMiddlewareStack`` (cookies and the lazy session).
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        scope = dict(scope, origin=origin_of(scope), auth_error=None, auth_method=None)
        user: Any = AnonymousUser()
        try:
            breaker.check()  # PostgreSQL known down: no lookup, the socket answers unavailable
            key = token_from_scope(scope)
            if key is not None:
                user, method = await user_of_token(key), "token"
            elif has_session_cookie(scope):
                user, method = await get_user(scope), "session"
            else:
                method = None
        except (OperationalError, InterfaceError):
            scope["auth_error"] = "unavailable"
            user, method = AnonymousUser(), None
        scope["user"] = user
        if user.is_authenticated:
            scope["auth_method"] = method
        return await super().__call__(scope, receive, send)
