"""Token authentication of the API (kept apart from the views: DRF imports it from settings)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


class HexTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``; a key that cannot be one is refused before any query."""

    def authenticate_credentials(self, key: str) -> Any:
        if len(key) != 40 or not all(c in "0123456789abcdef" for c in key):
            raise AuthenticationFailed(gettext("Invalid token."))
        return super().authenticate_credentials(key)
