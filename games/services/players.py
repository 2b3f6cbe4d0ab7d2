"""Writes of players: guests, registered accounts, sign-in and API tokens."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext, gettext_lazy

from core.errors import ErrorCode, ServiceError
from core.text import is_text
from games.models import Player, same_nickname
from games.services.tokens import token_issue

NICKNAME = re.compile(r"[A-Za-z0-9_-]{3,24}")
NICKNAME_RULE = gettext_lazy("A nickname is 3 to 24 letters, digits, '_' or '-'.")


def is_nickname(value: Any) -> bool:
    """Tell whether ``value`` is a well-formed nickname (the whole text: no trailing newline)."""
    return isinstance(value, str) and NICKNAME.fullmatch(value) is not None


def check_nickname(nickname: Any) -> str:
    """Return a valid, free nickname; raise ``invalid`` otherwise (taken in any case)."""
    if not is_nickname(nickname):
        raise ServiceError(ErrorCode.INVALID, NICKNAME_RULE, field="nickname")
    if nickname.lower().startswith("deleted-"):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("Nicknames beginning with 'deleted-' are kept for deleted accounts."),
            field="nickname",
        )
    taken = Player.objects.filter(same_nickname(nickname)).values_list("is_guest", flat=True)
    for guest in taken[:1]:
        if guest:
            sentence = gettext(
                "The nickname {nickname!r} is taken by a guest account. A guest account has no "
                "password, so only the browser that made it plays as it: choose another nickname."
            )
        else:
            sentence = gettext(
                "The nickname {nickname!r} is taken. If it is yours, log in with its password."
            )
        raise ServiceError(ErrorCode.INVALID, sentence.format(nickname=nickname), field="nickname")
    return nickname


def _create_player(nickname: Any, password: str | None, *, guest: bool) -> Player:
    nickname = check_nickname(nickname)
    try:
        with transaction.atomic():
            return Player.objects.create_user(nickname, password, is_guest=guest)
    except IntegrityError:  # taken between the check and the insert
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("The nickname {nickname!r} is taken.").format(nickname=nickname),
            field="nickname",
        ) from None


def player_create_guest(*, nickname: Any) -> Player:
    """Create a guest player: a nickname, no password."""
    return _create_player(nickname, None, guest=True)


def player_register(*, nickname: Any, password: Any) -> Player:
    """Create a player with a password (checked by Django's password validators)."""
    if not isinstance(password, str) or not password:
        raise ServiceError(ErrorCode.INVALID, gettext("A password is required."), field="password")
    if not is_text(password, limit=128):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("A password is at most 128 characters (no NUL)."),
            field="password",
        )
    try:
        validate_password(password)
    except ValidationError as error:
        raise ServiceError(ErrorCode.INVALID, " ".join(error.messages), field="password") from None
    return _create_player(nickname, password, guest=False)


def player_login(*, request: Any, nickname: Any, password: Any) -> Player:
    """Return the player these credentials name; raise ``not_authenticated`` otherwise."""
    if not isinstance(nickname, str) or not isinstance(password, str):
        raise ServiceError(ErrorCode.INVALID, gettext("Give a nickname and a password."))
    if not is_nickname(nickname) or not is_text(password, limit=128):  # no junk reaches a query
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("Wrong nickname or password."))
    player = authenticate(request, nickname=nickname, password=password)
    if player is None:
        guest = Player.objects.filter(
            same_nickname(nickname), is_guest=True, deleted_at__isnull=True
        ).exists()
        if guest:
            raise ServiceError(
                ErrorCode.NOT_AUTHENTICATED,
                gettext(
                    "{nickname!r} is a guest account with no password: it cannot log in. A "
                    "guest keeps their account by setting a password before logging out."
                ).format(nickname=nickname),
            )
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("Wrong nickname or password."))
    return player  # type: ignore[return-value]


def player_token(*, player: Player) -> str:
    """Issue a new API token for a player signing in; return its secret (shown this once)."""
    _token, secret = token_issue(player=player)
    return secret
