"""Writes of leagues: create, join, leave, rename, remove a member, a new code, close.

Each write that changes who is in a league tells the league's sockets after the commit
(``leagues.announce``): a player who left or was removed, or every member of a closed league,
loses access at once. The limits (``LEAGUES_PER_PLAYER``, ``LEAGUE_MEMBERS``) hold under
concurrent requests: a join locks the league's row, and the joining player's, first.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from core.text import is_text
from games.models import Player, same_nickname
from games.services.players import NICKNAME_RULE, is_nickname
from leagues import announce, selectors
from leagues.models import CODE_LENGTH, DESCRIPTION_LIMIT, League, Membership

CODE_ATTEMPTS = 5


# --- untrusted input --------------------------------------------------------------------------


def check_name(value: Any) -> str:
    """Return a league name: the rules of a nickname (3 to 24 letters, digits, '_' or '-')."""
    if not is_nickname(value):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("A league's name follows the nickname rule: {rule}").format(rule=NICKNAME_RULE),
            field="name",
        )
    return value


def check_description(value: Any) -> str:
    """Return a description (blank when absent): text of at most ``DESCRIPTION_LIMIT``."""
    if value is None:
        return ""
    if not is_text(value, limit=DESCRIPTION_LIMIT):
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("A description is text of at most {limit} characters.").format(
                limit=DESCRIPTION_LIMIT
            ),
            field="description",
        )
    return value.strip()


# --- writes -----------------------------------------------------------------------------------


def _new_code() -> str:
    return "".join(secrets.choice(selectors.CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _check_room_for(player: Player) -> None:
    """Raise ``too_many_leagues`` when ``player`` is in as many open leagues as allowed."""
    limit = settings.LEAGUES_PER_PLAYER
    if selectors.leagues_of_player_count(player) >= limit:
        raise ServiceError(
            ErrorCode.TOO_MANY_LEAGUES,
            gettext("A player may be in at most {limit} leagues.").format(limit=limit),
        )


def _with_new_code(write: Any) -> Any:
    """Run ``write(code)`` with a fresh code, again with another if the code was taken."""
    for _ in range(CODE_ATTEMPTS - 1):
        try:
            with transaction.atomic():
                return write(_new_code())
        except IntegrityError:
            continue
    return write(_new_code())


def league_create(*, owner: Player, name: Any, description: Any = None) -> League:
    """Create a league owned (and joined) by ``owner``, with a fresh invite code."""
    name = check_name(name)
    description = check_description(description)
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=owner.pk).first()
        _check_room_for(owner)

        def create(code: str) -> League:
            league = League.objects.create(
                name=name, description=description, owner=owner, code=code
            )
            Membership.objects.create(league=league, player=owner)
            return league

        return _with_new_code(create)


def league_join(*, player: Player, code: Any) -> League:
    """Add ``player`` to the open league of the invite ``code``; raise ``bad_code``,
    ``league_closed``, ``already_member``, ``league_full`` or ``too_many_leagues``."""
    code = selectors.check_code(code)
    with transaction.atomic():
        league = selectors.open_league_of_code(code)
        league = League.objects.select_for_update().select_related("owner").get(pk=league.pk)
        Player.objects.select_for_update().filter(pk=player.pk).first()
        if not league.is_open:  # closed since it was read
            raise ServiceError(ErrorCode.LEAGUE_CLOSED, gettext("This league is closed."))
        if selectors.is_member(league_id=league.pk, player_id=player.pk):
            raise ServiceError(
                ErrorCode.ALREADY_MEMBER,
                gettext("You are already a member of this league."),
                league=league.pk,
            )
        limit = settings.LEAGUE_MEMBERS
        if league.memberships.count() >= limit:
            raise ServiceError(
                ErrorCode.LEAGUE_FULL,
                gettext("This league is full: it has {limit} members.").format(limit=limit),
            )
        _check_room_for(player)
        Membership.objects.create(league=league, player=player)
        announce.members_changed(league_id=league.pk)
    return league


def league_leave(*, player: Player, league: League) -> None:
    """Take ``player`` out of ``league`` (its owner cannot leave: the owner closes it)."""
    if league.owner_id == player.pk:
        raise ServiceError(
            ErrorCode.OWNER_CANNOT_LEAVE,
            gettext("The owner cannot leave the league: close it instead."),
        )
    with transaction.atomic():
        Membership.objects.filter(league=league, player=player).delete()
        announce.members_changed(league_id=league.pk, removed=player.pk)


def member_remove(*, league: League, nickname: Any) -> None:
    """Remove the member ``nickname`` (any case) from ``league``; raise ``not_member`` if no
    member has that name, and refuse the owner's own removal."""
    if not is_nickname(nickname):
        raise ServiceError(ErrorCode.NOT_MEMBER, gettext("No member has this nickname."))
    with transaction.atomic():
        row = (
            Membership.objects.select_related("player")
            .filter(same_nickname(nickname, "player__nickname"), league=league)
            .first()
        )
        if row is None:
            raise ServiceError(ErrorCode.NOT_MEMBER, gettext("No member has this nickname."))
        if row.player_id == league.owner_id:
            raise ServiceError(
                ErrorCode.OWNER_CANNOT_LEAVE,
                gettext("The owner cannot leave the league: close it instead."),
            )
        row.delete()
        announce.members_changed(league_id=league.pk, removed=row.player_id)


def league_update(*, league: League, name: Any = None, description: Any = None) -> League:
    """Rename ``league`` and/or change its description (each left as it is when None)."""
    fields = []
    if name is not None:
        league.name = check_name(name)
        fields.append("name")
    if description is not None:
        league.description = check_description(description)
        fields.append("description")
    if fields:
        league.save(update_fields=fields)
    return league


def code_regenerate(*, league: League) -> League:
    """Give ``league`` a new invite code: the old one no longer lets anyone in."""

    def regenerate(code: str) -> League:
        league.code = code
        league.save(update_fields=["code"])
        return league

    return _with_new_code(regenerate)


def league_close(*, league: League) -> League:
    """Close ``league``: no one joins it any more and its members lose its boards."""
    with transaction.atomic():
        updated = League.objects.filter(pk=league.pk, closed_at__isnull=True).update(
            closed_at=timezone.now()
        )
        league.refresh_from_db(fields=["closed_at"])
        if updated:
            announce.members_changed(league_id=league.pk, closed=True)
    return league
