"""Rate limits of the API, per player and per client IP, counted in the default cache.

The rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` and are read on every request
(not once at import, as DRF's own throttles do), so settings overrides take effect at once.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class _Throttle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(
                f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'][{self.scope!r}]."
            )
        return rates[self.scope]


class PlayerThrottle(_Throttle):
    """Count the requests of the authenticated player (anonymous requests are not counted)."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class IpThrottle(_Throttle):
    """Count the requests of one client IP (``NUM_PROXIES`` says which address to trust)."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class MovesPerPlayer(PlayerThrottle):
    scope = "moves_player"


class MovesPerIp(IpThrottle):
    scope = "moves_ip"


class GamesPerPlayer(PlayerThrottle):
    scope = "games_player"


class GamesPerIp(IpThrottle):
    scope = "games_ip"


class AuthPerIp(IpThrottle):
    scope = "auth_ip"


class AuthPerIpHourly(IpThrottle):
    scope = "auth_ip_hour"


MOVES = [MovesPerPlayer, MovesPerIp]
GAMES = [GamesPerPlayer, GamesPerIp]
AUTH = [AuthPerIp, AuthPerIpHourly]
