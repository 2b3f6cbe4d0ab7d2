"""Rate limits of the API, per player and per client IP, counted by ``core.ratelimits.hit``.

Each hit is one atomic count (one Redis script with ``REDIS_URL`` set, in memory without), so a
limit holds across worker processes and concurrent requests: N requests racing on one key get N
distinct counts, and never more than the limit are admitted in a window.

The rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (settings ``THROTTLE_RATES``,
each overridable as ``THROTTLE_<SCOPE>``) and are read on every request (not once at import, as
DRF's own throttles do), so settings overrides take effect at once.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from core import metrics, ratelimits

DURATIONS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """Read ``"<count>/<period>"`` (period ``s``, ``sec``, ``min``, ``hour``, ``day``...)."""
    try:
        count, period = rate.split("/", 1)
        return int(count), DURATIONS[period.strip()[0].lower()]
    except (ValueError, KeyError, IndexError):
        raise ImproperlyConfigured(f"A throttle rate reads like '600/min', not {rate!r}.") from None


class _Throttle(BaseThrottle):
    scope: str = ""

    def __init__(self) -> None:
        self._wait: float | None = None

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        if self.scope not in rates:
            raise ImproperlyConfigured(
                f"Set REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'][{self.scope!r}]."
            )
        return rates[self.scope]

    def get_key(self, request: Any, view: Any) -> str | None:
        """Return what to count the request under, or None not to count it."""
        raise NotImplementedError

    def allow_request(self, request: Any, view: Any) -> bool:
        rate = self.get_rate()
        key = self.get_key(request, view)
        if rate is None or key is None:
            return True
        limit, seconds = parse_rate(rate)
        verdict = ratelimits.hit(f"throttle:{self.scope}:{key}", limit=limit, seconds=seconds)
        self._wait = None if verdict.allowed else verdict.retry_after
        if not verdict.allowed:
            metrics.RATE_LIMIT_REFUSALS.labels(scope=self.scope).inc()
        return verdict.allowed

    def wait(self) -> float | None:
        return self._wait


class PlayerThrottle(_Throttle):
    """Count the requests of the authenticated player (anonymous requests are not counted)."""

    def get_key(self, request: Any, view: Any) -> str | None:
        if not request.user or not request.user.is_authenticated:
            return None
        return f"player:{request.user.pk}"


class IpThrottle(_Throttle):
    """Count the requests of one client IP (``NUM_PROXIES`` says which address to trust)."""

    def get_key(self, request: Any, view: Any) -> str | None:
        return f"ip:{self.get_ident(request)}"


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


class HintsPerPlayer(PlayerThrottle):
    scope = "hints_player"


class AccountPerPlayer(PlayerThrottle):
    """Writes of one's own account (password, deletion, export, tokens, sign out everywhere)."""

    scope = "account_player"


MOVES = [MovesPerPlayer, MovesPerIp]
HINTS = [HintsPerPlayer]
GAMES = [GamesPerPlayer, GamesPerIp]
AUTH = [AuthPerIp, AuthPerIpHourly]
ACCOUNT = [AccountPerPlayer, AuthPerIp]
