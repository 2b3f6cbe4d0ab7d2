"""Reads of the games app, each with the permission check it needs (``access_*``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext

from games import clock
from games.errors import ErrorCode, ServiceError
from games.models import Deal, Game, Player, Variant
from games.payloads import day_is_over, deal_payload


def variant_list() -> list[Variant]:
    """Return the enabled variants in display order."""
    return list(Variant.objects.filter(enabled=True))


def access_variant(slug: str) -> Variant:
    """Return the enabled variant ``slug``; raise ``not_found`` otherwise."""
    variant = Variant.objects.filter(slug=slug, enabled=True).first()
    if variant is None:
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("No variant {slug!r} is offered.").format(slug=slug)
        )
    return variant


DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def check_date(text: str) -> dt.date:
    """Return the date written ``YYYY-MM-DD``; raise ``not_found`` for anything else.

    Only that form: ``fromisoformat`` alone would also take ``20261201`` or ``2026-W48-1``.
    """
    try:
        if not DATE.match(text):
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("{text!r} is not a date (YYYY-MM-DD).").format(text=text)
        ) from None


def deal_counts(deal: Deal) -> dict[str, int]:
    """Return how many players started the deal and how many finished it."""
    counts = Game.objects.filter(deal=deal).aggregate(
        players=Count("pk"), finished=Count("pk", filter=~Q(status=Game.Status.PLAYING))
    )
    return {"players": counts["players"], "finished": counts["finished"]}


def daily_entry(deal: Deal, *, with_rules: bool = False) -> dict[str, Any]:
    """Return the daily deal object of api.md (with the deal's frozen rules document when
    asked: what a third party needs to replay its games)."""
    data = deal_payload(deal, **deal_counts(deal))
    if with_rules:
        data["rules"] = deal.rules
    return data


def access_past_or_present_deal(slug: str, date: dt.date) -> Deal | None:
    """Return the deal of ``slug`` on ``date`` if it exists; raise ``not_found`` for the future."""
    variant = access_variant(slug)
    if not variant.daily:
        raise ServiceError(
            ErrorCode.NOT_FOUND,
            gettext("{variant} has no daily deal.").format(variant=variant.translated("name")),
        )
    if date > clock.today():
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("That day has not begun: its deal is secret.")
        )
    return Deal.objects.filter(variant=variant, date=date).select_related("variant").first()


def check_game_id(game_id: Any) -> str:
    """Return a game id from untrusted input; raise ``not_found`` for what cannot be one."""
    text = str(game_id)
    if not text or len(text) > 32 or "\x00" in text:  # PostgreSQL refuses NUL in a query
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
    return text


def access_game(game_id: str, player: Player | None) -> Game:
    """Return a game its player may read, or anyone once its daily deal's day is over."""
    game = (
        Game.objects.select_related("variant", "deal", "player")
        .filter(pk=check_game_id(game_id))
        .first()
    )
    if game is None:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
    if player is not None and game.player_id == player.pk:
        return game
    if game.deal is not None and day_is_over(game.deal.date):
        return game
    if player is None:
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("Log in to see your games."))
    raise ServiceError(
        ErrorCode.FORBIDDEN, gettext("Only its player may see a game before its day ends.")
    )


def access_replay(game_id: str, player: Player | None) -> Game:
    """Return a game whose replay may be read: by its player once it is over, by anyone once
    its daily deal's day has ended."""
    game = access_game(game_id, player)
    if game.deal is not None and day_is_over(game.deal.date):
        return game
    if game.is_over:
        return game
    raise ServiceError(ErrorCode.FORBIDDEN, gettext("The replay opens when the game is over."))


PAGE_LIMIT = 100


def check_page(offset: Any, limit: Any, *, default: int = PAGE_LIMIT) -> tuple[int, int]:
    """Return ``(offset, limit)`` from query parameters (default 0 and ``default``; limit from
    1 to 100); raise ``invalid`` for anything else."""

    def number(value: Any, name: str, default: int, low: int, top: int) -> int:
        if value is None:
            return default
        text = str(value)
        if not text.isascii() or not text.isdigit() or len(text) > 9 or not low <= int(text) <= top:
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("'{name}' is an integer from {low} to {top}.").format(
                    name=name, low=low, top=top
                ),
                field=name,
            )
        return int(text)

    return (
        number(offset, "offset", 0, 0, 10**9),
        number(limit, "limit", default, 1, PAGE_LIMIT),
    )


GAME_STATUSES = {"playing": [Game.Status.PLAYING], "over": [Game.Status.WON, Game.Status.RESIGNED]}


def player_games(
    player: Player, *, status: Any = None, offset: int = 0, limit: int = PAGE_LIMIT
) -> tuple[int, list[Game]]:
    """Return how many games of ``player`` match ``status`` (``playing``, ``over`` or None for
    all) and that page of them, newest first."""
    games = Game.objects.filter(player=player)
    if status is not None:
        if status not in GAME_STATUSES:
            raise ServiceError(
                ErrorCode.INVALID, gettext("'status' is 'playing' or 'over'."), field="status"
            )
        games = games.filter(status__in=GAME_STATUSES[status])
    page = games.select_related("variant", "deal", "player").order_by("-started_at", "-id")
    return games.count(), list(page[offset : offset + limit])
