"""Authenticate WebSocket connections by API token.

Browsers authenticate by their session cookie (Channels' ``AuthMiddlewareStack``); other clients
give their DRF token as ``?token=<token>`` in the URL or as an ``Authorization: Token <token>``
header. ``TokenAuthMiddleware`` sits inside ``AuthMiddlewareStack``, so a token, when given, wins
over the session; a token that names no active player leaves the connection anonymous.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.contrib.auth.models import AnonymousUser
from rest_framework.authtoken.models import Token

TOKEN_KEYWORD = "token"


def token_from_scope(scope: dict[str, Any]) -> str | None:
    """Return the token the connection gives (query string first, then header), or None."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    values = query.get("token")
    if values:
        return values[0]
    for name, value in scope.get("headers", []):
        if name.lower() == b"authorization":
            keyword, _, key = value.decode("latin-1").strip().partition(" ")
            if keyword.lower() == TOKEN_KEYWORD and key.strip():
                return key.strip()
    return None


@database_sync_to_async
def user_of_token(key: str) -> Any:
    """Return the active player the token belongs to, or ``AnonymousUser``."""
    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return AnonymousUser()
    return token.user


class TokenAuthMiddleware(BaseMiddleware):
    """Set ``scope["user"]`` from an API token when the connection gives one."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = token_from_scope(scope)
        if key is not None:
            scope = dict(scope, user=await user_of_token(key))
        return await super().__call__(scope, receive, send)
