"""Writes of API tokens: issued with a secret shown once, stored as its SHA-256, expiring,
rotated and revoked by their player, and all ended at once by "sign out everywhere".

A token's secret is 40 lowercase hex digits (160 random bits), so one SHA-256 is enough to
store it: no one can guess a secret from its digest, and the lookup stays one indexed query.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock
from games.models import ApiToken, Player

SECRET_HEX = 40
LAST_USED_EVERY = dt.timedelta(hours=1)
"""``last_used_at`` is written at most this often per token (never on every request)."""


def is_secret(value: Any) -> bool:
    """Tell whether ``value`` has the shape of a token secret (checked before any query)."""
    return (
        isinstance(value, str)
        and len(value) == SECRET_HEX
        and all(c in "0123456789abcdef" for c in value)
    )


def token_digest(secret: str) -> str:
    """Return what is stored of a secret: its SHA-256 in hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def token_lifetime() -> dt.timedelta:
    return dt.timedelta(days=settings.TOKEN_LIFETIME_DAYS)


def token_issue(*, player: Player) -> tuple[ApiToken, str]:
    """Make a new token for ``player``; return it with its secret, which is never shown again.

    Expired tokens of the player are dropped, and beyond ``TOKEN_LIMIT`` live tokens the oldest
    are revoked (each sign-in makes one).
    """
    secret = secrets.token_hex(SECRET_HEX // 2)
    now = clock.now()
    with transaction.atomic():
        token = ApiToken.objects.create(
            player=player,
            digest=token_digest(secret),
            created_at=now,
            expires_at=now + token_lifetime(),
            last_used_at=None,
        )
        ApiToken.objects.filter(player=player, expires_at__lte=now).delete()
        keep = ApiToken.objects.filter(player=player).order_by("-created_at", "-id")
        surplus = list(keep.values_list("pk", flat=True)[settings.TOKEN_LIMIT :])
        if surplus:
            ApiToken.objects.filter(pk__in=surplus).delete()
    return token, secret


def token_authenticate(secret: str) -> ApiToken | None:
    """Return the live token of this secret, with its active player, or None.

    One query; ``last_used_at`` is written at most once an hour per token.
    """
    if not is_secret(secret):
        return None
    token = ApiToken.objects.select_related("player").filter(digest=token_digest(secret)).first()
    now = clock.now()
    if token is None or token.expires_at <= now:
        return None
    player = token.player
    if not player.is_active or player.deleted_at is not None:
        return None
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def token_revoke(*, player: Player, token_id: Any) -> None:
    """End one token of ``player``; raise ``not_found`` for a token that is not theirs."""
    if not isinstance(token_id, int) or isinstance(token_id, bool) or not 0 < token_id < 2**63:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such token."))
    deleted, _ = ApiToken.objects.filter(player=player, pk=token_id).delete()
    if not deleted:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such token."))


def tokens_revoke_all(*, player: Player) -> int:
    """End every token of ``player``; return how many were live."""
    deleted, _ = ApiToken.objects.filter(player=player).delete()
    return deleted


def token_rotate(*, player: Player, current: ApiToken | None) -> tuple[ApiToken, str]:
    """Make a new token and end ``current`` (the one the request came with, if any)."""
    with transaction.atomic():
        if current is not None:
            ApiToken.objects.filter(player=player, pk=current.pk).delete()
        return token_issue(player=player)


def player_sign_out_everywhere(*, player: Player) -> None:
    """End every browser session (their auth hash changes) and every token of ``player``."""
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(sessions_epoch=F("sessions_epoch") + 1)
        ApiToken.objects.filter(player=player).delete()
    player.refresh_from_db(fields=["sessions_epoch"])
