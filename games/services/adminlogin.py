"""The admin login page's lockout: failures counted per account and per address.

Failures are rows in PostgreSQL (``AdminLoginFailure``), not counts in Redis: a lockout must
hold across a restart and while Redis is away, and admin sign-ins are few (each failure already
costs a password hash, which dwarfs the insert). ``ADMIN_LOGIN_ACCOUNT_FAILURES`` failures for
one nickname, or ``ADMIN_LOGIN_ADDRESS_FAILURES`` from one address, within
``ADMIN_LOCKOUT_MINUTES`` lock that nickname or address out until that long after the last
failure; attempts while locked are refused unchecked (right password included) and not counted.
Every failure and every lockout is logged (logger ``games.services.adminlogin``).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, Max

from core import metrics
from games import clock
from games.models import AdminLoginFailure

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Lockout:
    """Who is locked out (``"account"`` or ``"address"``) and for how many more seconds."""

    scope: str
    seconds: int

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.seconds / 60))


def _window() -> dt.timedelta:
    return dt.timedelta(minutes=settings.ADMIN_LOCKOUT_MINUTES)


def _name(nickname: object) -> str:
    return (nickname if isinstance(nickname, str) else "").strip().lower()[:150]


def admin_login_lockout(*, nickname: object, address: str) -> Lockout | None:
    """Return the lockout that refuses this attempt, or None when it may be checked."""
    now = clock.now()
    since = now - _window()
    for scope, rows, limit in (
        (
            "account",
            AdminLoginFailure.objects.filter(nickname=_name(nickname), at__gt=since),
            settings.ADMIN_LOGIN_ACCOUNT_FAILURES,
        ),
        (
            "address",
            AdminLoginFailure.objects.filter(address=address, at__gt=since),
            settings.ADMIN_LOGIN_ADDRESS_FAILURES,
        ),
    ):
        found = rows.aggregate(count=Count("id"), last=Max("at"))
        if found["count"] >= limit:
            seconds = (found["last"] + _window() - now).total_seconds()
            logger.warning(
                "admin login refused: %s locked out (nickname %r, address %s), %d s left",
                scope,
                _name(nickname),
                address,
                seconds,
            )
            metrics.RATE_LIMIT_REFUSALS.labels(scope=f"admin_login_{scope}").inc()
            return Lockout(scope, max(1, math.ceil(seconds)))
    return None


def admin_login_failed(*, nickname: object, address: str) -> Lockout | None:
    """Record a failed admin sign-in; return the lockout it starts, if it starts one."""
    now = clock.now()
    name = _name(nickname)
    AdminLoginFailure.objects.filter(at__lte=now - _window()).delete()
    AdminLoginFailure.objects.create(at=now, nickname=name, address=address)
    since = now - _window()
    account = AdminLoginFailure.objects.filter(nickname=name, at__gt=since).count()
    from_address = AdminLoginFailure.objects.filter(address=address, at__gt=since).count()
    logger.warning(
        "admin login failed: nickname %r from %s (%d failures for it, %d from the address)",
        name,
        address,
        account,
        from_address,
    )
    seconds = int(_window().total_seconds())
    for scope, count, limit in (
        ("account", account, settings.ADMIN_LOGIN_ACCOUNT_FAILURES),
        ("address", from_address, settings.ADMIN_LOGIN_ADDRESS_FAILURES),
    ):
        if count == limit:
            logger.error(
                "admin login lockout: %s locked for %d min after %d failures (nickname %r, "
                "address %s)",
                scope,
                settings.ADMIN_LOCKOUT_MINUTES,
                count,
                name,
                address,
            )
            return Lockout(scope, seconds)
    return None


def admin_login_succeeded(*, nickname: object) -> None:
    """Forget the failures of an account that just signed in."""
    AdminLoginFailure.objects.filter(nickname=_name(nickname)).delete()
