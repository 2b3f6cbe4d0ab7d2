"""Reads of leagues: access checks, a league and its members, its boards and standings.

Every read of a league's inside (members, invite code, boards, standings) goes through
``access_league_of_member``: only its members see it. A league's board is the day's verified
results of its current members in the order of every board, read by
``leaderboards.selectors.boards_among`` (one query; a league is small).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from typing import Any

from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock
from games.models import Deal, Player
from games.payloads import iso
from games.selectors import access_variant, check_date
from leaderboards.selectors import boards_among
from leagues import points
from leagues.models import CODE_LENGTH, League, Membership

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, no 1/I
CODE = re.compile(rf"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
ID = re.compile(r"[1-9][0-9]{0,17}")


# --- untrusted input --------------------------------------------------------------------------


def check_code(value: Any) -> str:
    """Return an invite code as stored (upper case); raise ``bad_code`` for anything else."""
    code = value.strip().upper() if isinstance(value, str) and len(value) <= 64 else None
    if code is None or CODE.fullmatch(code) is None:
        raise ServiceError(ErrorCode.BAD_CODE, gettext("No league has this invite code."))
    return code


def check_period(value: str | None) -> str:
    """Return ``week`` (the default) or ``month``; raise ``invalid`` otherwise."""
    if value is None:
        return "week"
    if value not in points.PERIODS:
        raise ServiceError(
            ErrorCode.INVALID, gettext("The period is 'week' or 'month'."), field="period"
        )
    return value


def check_day(text: str | None) -> dt.date:
    """Return the day a ``?date=`` names (today when absent); raise ``not_found`` for a date
    that is malformed or later than today."""
    today = clock.today()
    if text is None:
        return today
    day = check_date(text)
    if day > today:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("That day has not come yet."))
    return day


# --- access -----------------------------------------------------------------------------------


def _league(league_id: str | int) -> League:
    """Return the league of an id from a path (digits only reach the query); raise
    ``not_found``."""
    text = str(league_id)
    league = None
    if ID.fullmatch(text):
        league = League.objects.select_related("owner").filter(pk=int(text)).first()
    if league is None:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such league."))
    return league


def is_member(*, league_id: int, player_id: int) -> bool:
    return Membership.objects.filter(league_id=league_id, player_id=player_id).exists()


def access_league_of_member(league_id: str | int, *, player: Player) -> League:
    """Return the open league ``league_id`` if ``player`` is a member; raise ``not_found``,
    ``league_closed`` or ``not_member``."""
    league = _league(league_id)
    if not is_member(league_id=league.pk, player_id=player.pk):
        raise ServiceError(ErrorCode.NOT_MEMBER, gettext("You are not a member of this league."))
    if not league.is_open:
        raise ServiceError(ErrorCode.LEAGUE_CLOSED, gettext("This league is closed."))
    return league


def access_league_of_owner(league_id: str | int, *, player: Player) -> League:
    """Return the open league ``league_id`` if ``player`` owns it; raise as
    ``access_league_of_member`` does, or ``not_owner``."""
    league = access_league_of_member(league_id, player=player)
    if league.owner_id != player.pk:
        raise ServiceError(ErrorCode.NOT_OWNER, gettext("Only the league's owner may do this."))
    return league


def open_league_of_code(code: str) -> League:
    """Return the open league of an invite code (checked); raise ``bad_code`` for an unknown
    code, ``league_closed`` for a closed league's."""
    league = League.objects.filter(code=code).first()
    if league is None:
        raise ServiceError(ErrorCode.BAD_CODE, gettext("No league has this invite code."))
    if not league.is_open:
        raise ServiceError(ErrorCode.LEAGUE_CLOSED, gettext("This league is closed."))
    return league


def leagues_of_player_count(player: Player) -> int:
    return Membership.objects.filter(player=player, league__closed_at__isnull=True).count()


def member_ids(league: League) -> list[int]:
    return list(Membership.objects.filter(league=league).values_list("player_id", flat=True))


# --- payloads ---------------------------------------------------------------------------------


def invite_path(code: str) -> str:
    return f"/#/leagues/join/{code}"


def league_payload(league: League, *, members: int | None = None) -> dict[str, Any]:
    """Return the LEAGUE object of docs/api.md (for a member)."""
    count = members if members is not None else league.memberships.count()
    return {
        "id": league.pk,
        "name": league.name,
        "description": league.description,
        "owner": league.owner.nickname,
        "code": league.code,
        "invite_path": invite_path(league.code),
        "members": count,
        "created_at": iso(league.created_at),
    }


def league_detail(league: League) -> dict[str, Any]:
    """Return a LEAGUE with its ``member_list`` (nickname, joined), oldest member first."""
    rows = list(league.memberships.select_related("player"))
    return {
        **league_payload(league, members=len(rows)),
        "member_list": [
            {"player": row.player.nickname, "joined_at": iso(row.joined_at)} for row in rows
        ],
    }


def leagues_of(player: Player) -> list[dict[str, Any]]:
    """Return the open leagues of ``player``, by name."""
    leagues = list(
        League.objects.filter(memberships__player=player, closed_at__isnull=True).select_related(
            "owner"
        )
    )
    counts: dict[int, int] = defaultdict(int)
    for league_id in Membership.objects.filter(league__in=leagues).values_list(
        "league_id", flat=True
    ):
        counts[league_id] += 1
    return [league_payload(league, members=counts[league.pk]) for league in leagues]


# --- boards and standings ---------------------------------------------------------------------


def deal_of(slug: str, day: dt.date) -> Deal | None:
    """Return the deal of a variant and day if it was made (``not_found`` for the variant)."""
    variant = access_variant(slug)
    return Deal.objects.select_related("variant").filter(variant=variant, date=day).first()


def board_entries(league: League, deal: Deal | None) -> list[dict[str, Any]]:
    """Return the ENTRYs of the league's board of a deal, best first, ranks from 1."""
    if deal is None:
        return []
    return boards_among(deal_ids=[deal.pk], player_ids=member_ids(league))[deal.pk]


def league_board(league: League, *, slug: str, day: dt.date) -> dict[str, Any]:
    """Return the LEAGUE BOARD of docs/api.md: the league's board of a variant and day."""
    entries = board_entries(league, deal_of(slug, day))
    return {
        "league": league.pk,
        "variant": slug,
        "date": day.isoformat(),
        "total": len(entries),
        "entries": entries,
    }


def standings(league: League, *, slug: str, period: str, day: dt.date) -> dict[str, Any]:
    """Return the STANDINGS of docs/api.md: each member's points over the week or month holding
    ``day`` (days up to today), best first; equal points share a rank."""
    first, last = points.period_of(period, day)
    last = min(last, clock.today())
    variant = access_variant(slug)
    deals = list(
        Deal.objects.filter(variant=variant, date__gte=first, date__lte=last).values_list(
            "pk", flat=True
        )
    )
    members = list(league.memberships.select_related("player"))
    boards = boards_among(deal_ids=deals, player_ids=[row.player_id for row in members])
    tally = {row.player.nickname: {"points": 0, "days": 0, "wins": 0} for row in members}
    for entries in boards.values():
        for entry in entries:
            mine = tally[entry["player"]]
            mine["points"] += points.points_of(entry["rank"])
            mine["days"] += 1
            mine["wins"] += entry["rank"] == 1
    order = sorted(tally.items(), key=lambda item: (-item[1]["points"], item[0].lower()))
    rows: list[dict[str, Any]] = []
    for index, (nickname, mine) in enumerate(order):
        tied = rows and rows[-1]["points"] == mine["points"]
        rank = rows[-1]["rank"] if tied else index + 1
        rows.append({"rank": rank, "player": nickname, **mine})
    return {
        "league": league.pk,
        "variant": variant.slug,
        "period": period,
        "from": first.isoformat(),
        "to": points.period_of(period, day)[1].isoformat(),
        "points": list(points.POINTS),
        "standings": rows,
    }


def my_ranks(player: Player, *, slug: str, day: dt.date) -> list[dict[str, Any]]:
    """Return, for each open league of ``player``, their rank on its board of a variant and day
    (None before their result is verified) and the board's total: two queries and one read of
    the results of everyone in those leagues."""
    deal = deal_of(slug, day)
    leagues = list(League.objects.filter(memberships__player=player, closed_at__isnull=True))
    rows = Membership.objects.filter(league__in=leagues).values_list(
        "league_id", "player_id", "player__nickname"
    )
    names: dict[int, set[str]] = defaultdict(set)
    everyone: set[int] = set()
    for league_id, player_id, nickname in rows:
        names[league_id].add(nickname)
        everyone.add(player_id)
    board = boards_among(deal_ids=[deal.pk], player_ids=everyone)[deal.pk] if deal else []
    ranks = []
    for league in leagues:
        own = [entry["player"] for entry in board if entry["player"] in names[league.pk]]
        rank = own.index(player.nickname) + 1 if player.nickname in own else None
        ranks.append({"league": league.pk, "name": league.name, "rank": rank, "total": len(own)})
    return ranks
