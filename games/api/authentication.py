"""Token authentication of the API (kept apart from the views: DRF imports it from settings)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from games.services.tokens import is_secret, token_authenticate


class HexTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <secret>``: the live token whose digest the secret has.

    A secret that cannot be one is refused before any query; an expired, revoked or unknown
    one, or one of a deleted or deactivated player, is ``Invalid token.``. ``request.auth`` is
    the ``ApiToken`` row (so rotation knows which token the request came with).
    """

    def authenticate_credentials(self, key: str) -> Any:
        if not is_secret(key):
            raise AuthenticationFailed(gettext("Invalid token."))
        token = token_authenticate(key)
        if token is None:
            raise AuthenticationFailed(gettext("Invalid token."))
        return token.player, token
