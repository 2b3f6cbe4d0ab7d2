"""Writes of a player's own account: a password set or changed, the account deleted.

Deleting an account keeps its daily results, anonymised: the player row stays (every result's
seal covers its player's id, so the seals still hold and re-verification still passes) under a
new nickname ``deleted-<12 hex>``, with no password, no token, no session and no practice game;
the boards keep their ranks and show the new name (``games.signals.player_deleted``).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from core.text import is_text
from games import clock, signals
from games.models import ApiToken, Game, Player, Result, same_nickname

logger = logging.getLogger(__name__)

DELETED_PREFIX = "deleted-"


def _check_new_password(password: Any, player: Player) -> str:
    if not isinstance(password, str) or not password:
        raise ServiceError(ErrorCode.INVALID, gettext("A password is required."), field="password")
    if not is_text(password, limit=128):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("A password is at most 128 characters (no NUL)."),
            field="password",
        )
    try:
        validate_password(password, user=player)
    except ValidationError as error:
        raise ServiceError(ErrorCode.INVALID, " ".join(error.messages), field="password") from None
    return password


def _check_current_password(player: Player, current: Any) -> None:
    """Raise ``invalid`` (field ``current_password``) unless ``current`` is the password of a
    player who has one; a guest has none to give."""
    if not player.has_usable_password():
        return
    if not isinstance(current, str) or not is_text(current, limit=128):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("Give your current password."),
            field="current_password",
        )
    if not player.check_password(current):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("The current password is wrong."),
            field="current_password",
        )


def player_set_password(*, player: Player, password: Any, current_password: Any = None) -> Player:
    """Give a guest a password (the account is kept: it can log in anywhere), or change a
    player's password (the current one required). Other sessions end; tokens stay."""
    password = _check_new_password(password, player)
    _check_current_password(player, current_password)
    player.set_password(password)
    player.is_guest = False
    player.save(update_fields=["password", "is_guest"])
    logger.info("player %s set a password", player.pk)
    return player


def _check_confirmation(player: Player, confirm: Any) -> None:
    if not isinstance(confirm, str) or confirm != player.nickname:
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("To delete your account, confirm it with your nickname, exactly."),
            field="confirm",
        )


def _anonymous_nickname() -> str:
    while True:
        nickname = DELETED_PREFIX + secrets.token_hex(6)
        if not Player.objects.filter(same_nickname(nickname)).exists():
            return nickname


def player_delete(*, player: Player, confirm: Any, password: Any = None) -> Player:
    """Delete a player's account at their request: ``confirm`` must be their nickname, and
    ``password`` their password if they have one.

    The player row is kept, anonymised (see the module's docstring); its practice games go,
    its daily games stay (a game in play is closed with its day, as any). Raise ``invalid`` for
    a wrong confirmation or password, ``not_authenticated`` for an account already deleted.
    """
    _check_confirmation(player, confirm)
    try:
        _check_current_password(player, password)
    except ServiceError as error:
        error.extra["field"] = "password"
        raise
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        if locked.deleted_at is not None:
            raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("This account is deleted."))
        former = locked.nickname
        locked.nickname = _anonymous_nickname()
        locked.set_unusable_password()
        locked.is_active = False
        locked.deleted_at = clock.now()
        locked.save(update_fields=["nickname", "password", "is_active", "deleted_at"])
        Player.objects.filter(pk=locked.pk).update(sessions_epoch=F("sessions_epoch") + 1)
        ApiToken.objects.filter(player=locked).delete()
        Game.objects.filter(player=locked, mode=Game.Mode.PRACTICE).delete()
        deal_ids = list(
            Result.objects.filter(player=locked).values_list("deal_id", flat=True).distinct()
        )
        transaction.on_commit(
            lambda: signals.send(signals.player_deleted, player=locked, deal_ids=deal_ids)
        )
    logger.info("player %s deleted their account (was %r)", locked.pk, former)
    return locked
