"""Reads of the leaderboards: deal boards at any size, players' profiles, results and all-time.

A deal's board is read from its Redis sorted set (``leaderboards.ranking``); a board found
missing or stale there (its built-from count differs from ``Deal.results_count``) is rebuilt
from PostgreSQL first. While Redis cannot be reached, or another process is rebuilding, the same
answer comes from PostgreSQL: one indexed page query, a COUNT for the total and a COUNT of better
results for a player's rank. No read loads a whole board.

Voided results and the results of banned players never rank (nor count in a total); only
results whose seal is valid rank (``games.verification.seals.seal_is_valid``): checked for every
result that enters Redis and for every result of a page answered from PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Collate, Lower
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock
from games.models import Deal, Player, Result, Variant, same_nickname
from games.payloads import iso
from games.selectors import access_variant
from games.verification import figures
from games.verification.seals import seal_is_valid
from leaderboards import ranking, stats
from leaderboards.models import PlayerVariantStats, UnrankedResult

logger = logging.getLogger(__name__)

LIVE_ENTRIES = 20
REST_ENTRIES = 100  # the default page size
ALL_TIME_ENTRIES = 20
NICKNAME_LIMIT = 24


# --- untrusted input --------------------------------------------------------------------------


def _plausible(nickname: str) -> bool:
    """Tell whether ``nickname`` may name a player (PostgreSQL refuses NUL in a query)."""
    return 0 < len(nickname) <= NICKNAME_LIMIT and "\x00" not in nickname


def check_variant(slug: str | None) -> Variant | None:
    """Return the variant a ``?variant=`` names (None when absent); raise ``invalid`` if none."""
    if slug is None:
        return None
    variant = Variant.objects.filter(slug=slug).first() if "\x00" not in slug else None
    if variant is None:
        raise ServiceError(
            ErrorCode.INVALID, gettext("No variant {slug!r}.").format(slug=slug), field="variant"
        )
    return variant


def access_player(nickname: str) -> Player:
    """Return the player named ``nickname`` in any case; raise ``not_found`` otherwise."""
    player = None
    if _plausible(nickname):
        found = Player.objects.filter(same_nickname(nickname), deleted_at__isnull=True)
        player = found.first()
    if player is None:
        raise ServiceError(
            ErrorCode.NOT_FOUND,
            gettext("No player is named {nickname!r}.").format(nickname=nickname),
        )
    return player


# --- the board in PostgreSQL ------------------------------------------------------------------


def _game_order() -> Collate | F:
    # Redis orders members byte by byte; PostgreSQL must order game ids the same way.
    return Collate("game_id", "C") if connection.vendor == "postgresql" else F("game_id")


def ranked_results(deal_id: int) -> QuerySet[Result]:
    """Return the deal's results that may rank, as a query (known tampered ones, voided ones
    and those of banned players left out)."""
    return _ranked_in([deal_id])


def _ranked_in(deal_ids: Collection[int]) -> QuerySet[Result]:
    """Return the results of these deals that may rank (see ``ranked_results``)."""
    unranked = UnrankedResult.objects.filter(deal_id__in=deal_ids).values("game_id")
    return (
        Result.objects.filter(
            deal_id__in=deal_ids, voided_at__isnull=True, player__banned_at__isnull=True
        )
        .exclude(game_id__in=unranked)
        .alias(game_order=_game_order())
    )


ORDER = figures.ordering(game_id="game_order")


def _better_than(result: Result) -> Q:
    """Return the condition of a result ranked before ``result`` on the same deal: better on
    the first figure of the order where the two differ."""
    same = Q()
    condition: Q | None = None
    for name, descending in figures.RANKING:
        field = "game_order" if name == "game_id" else name
        value = getattr(result, name)
        better = Q(**{f"{field}__{'gt' if descending else 'lt'}": value})
        condition = same & better if condition is None else condition | (same & better)
        same &= Q(**{field: value})
    assert condition is not None
    return condition


def _rank_in_database(result: Result) -> int:
    return ranked_results(result.deal_id).filter(_better_than(result)).count() + 1


@dataclass(frozen=True, slots=True)
class BoardRead:
    """A page of a deal's board as read, and what the read found to mend (by
    ``leaderboards.services.board_page``): a Redis board missing or behind PostgreSQL
    (``stale``: this page came from PostgreSQL), results whose seals do not hold (``tampered``:
    left out of the page)."""

    page: ranking.Page
    stale: bool = False
    tampered: tuple[Result, ...] = ()


def _database_page(deal: Deal, *, offset: int, limit: int, nickname: str | None) -> BoardRead:
    ranked = ranked_results(deal.pk)
    total = ranked.count()
    rows = list(ranked.select_related("player").order_by(*ORDER)[offset : offset + limit])
    entries = []
    tampered = []
    for result in rows:
        if not seal_is_valid(result):
            tampered.append(result)
            total -= 1
            continue
        entry = ranking.entry_of(result, result.player.nickname)
        entries.append({"rank": offset + len(entries) + 1, **entry})
    mine = None
    if nickname is not None and _plausible(nickname):
        result = (
            ranked.select_related("player")
            .alias(lower=Lower("player__nickname"))
            .filter(lower=nickname.lower())
            .first()
        )
        if result is not None and not seal_is_valid(result):
            tampered.append(result)
        elif result is not None:
            entry = ranking.entry_of(result, result.player.nickname)
            mine = {"rank": _rank_in_database(result), **entry}
    page = ranking.Page(deal.board_count, total, entries, mine)
    return BoardRead(page, tampered=tuple(tampered))


def _redis_page(
    deal: Deal, *, offset: int, limit: int, nickname: str | None
) -> tuple[ranking.Page | None, bool]:
    """Return the page from Redis if its board is fresh, and whether a board is there but stale
    (None and False while Redis is away)."""
    page = ranking.board_page(deal_id=deal.pk, offset=offset, limit=limit, nickname=nickname)
    if page is None or page.built_from == deal.board_count:
        return page, False
    # Stale or missing, or the caller's deal is an old copy: read the count again.
    counts = Deal.objects.filter(pk=deal.pk).values_list("results_count", "withdrawals").first()
    if counts is not None and page.built_from == sum(counts):
        return page, False
    return None, True


def board_from_database(deal: Deal) -> list[dict[str, Any]]:
    """Return every entry of the deal's board as PostgreSQL ranks it, Redis left aside (results
    whose seals do not hold left out, as on every board)."""
    everyone = ranked_results(deal.pk).count()
    return _database_page(deal, offset=0, limit=everyone, nickname=None).page.entries


def board(
    deal: Deal, *, offset: int = 0, limit: int = REST_ENTRIES, nickname: str | None = None
) -> BoardRead:
    """Read a page of the deal's board (ranks from ``offset + 1``), its total and, with
    ``nickname``, that player's entry: from Redis while its board is fresh, else from
    PostgreSQL. Nothing is written (see ``BoardRead``)."""
    page, stale = _redis_page(deal, offset=offset, limit=limit, nickname=nickname)
    if page is not None:
        return BoardRead(page)
    read = _database_page(deal, offset=offset, limit=limit, nickname=nickname)
    return BoardRead(read.page, stale=stale, tampered=read.tampered)


def boards_among(
    *, deal_ids: Collection[int], player_ids: Collection[int]
) -> dict[int, list[dict[str, Any]]]:
    """Return, for each of these deals, the ENTRYs of these players' results that may rank,
    best first in the order of every board (``ORDER``), ranked from 1 among them (results whose
    seals do not hold left out): a board of a few players, such as a league's, read in one
    query. Meant for small groups: it reads every one of their results on these deals."""
    boards: dict[int, list[dict[str, Any]]] = {deal_id: [] for deal_id in deal_ids}
    if not deal_ids or not player_ids:
        return boards
    rows = (
        _ranked_in(list(deal_ids))
        .filter(player_id__in=list(player_ids))
        .select_related("player")
        .order_by("deal_id", *ORDER)
    )
    for result in rows:
        if not seal_is_valid(result):
            continue
        entries = boards[result.deal_id]
        entry = ranking.entry_of(result, result.player.nickname)
        entries.append({"rank": len(entries) + 1, **entry})
    return boards


def leaderboard(
    deal: Deal, page: ranking.Page, *, offset: int, limit: int, nickname: str | None
) -> dict[str, Any]:
    """Return the leaderboard object of docs/api.md from a page of the deal's board read with
    ``offset``, ``limit`` and ``nickname``: ``total``, the entries and, when ``nickname`` is
    given, that player's entry as ``player_entry`` (also appended to ``entries`` when it ranks
    below the page)."""
    data: dict[str, Any] = {
        "variant": deal.variant.slug,
        "date": deal.date.isoformat(),
        "total": page.total,
        "entries": page.entries,
    }
    if nickname is not None:
        mine = page.player_entry
        if mine is not None and mine["rank"] > offset + limit:
            data["entries"] = [*page.entries, mine]
        data["player_entry"] = mine
    return data


# --- players ----------------------------------------------------------------------------------


def _stats_payload(runs: stats.Runs) -> dict[str, Any]:
    today = clock.today()
    return {
        "played": runs.played,
        "won": runs.won,
        "win_rate": stats.win_rate(runs),
        "current_streak": stats.current_streak(runs, today=today),
        "best_streak": runs.best_win_run,
        "played_streak": stats.current_played_streak(runs, today=today),
        "best_played_streak": runs.best_play_run,
        "average_moves": stats.average_moves(runs),
    }


def player_profile(nickname: str) -> dict[str, Any]:
    """Return the profile of docs/api.md: nickname, joined and stats per daily variant (three
    queries: the player, the variants, the player's stats)."""
    player = access_player(nickname)
    kept = {row.variant_id: row.runs for row in PlayerVariantStats.objects.filter(player=player)}
    variants = Variant.objects.filter(Q(enabled=True, daily=True) | Q(pk__in=kept))
    return {
        "nickname": player.nickname,
        "joined": iso(player.date_joined),
        "stats": {
            variant.slug: _stats_payload(kept.get(variant.pk, stats.Runs())) for variant in variants
        },
    }


def _history_ranks(results: list[Result]) -> list[int | None]:
    """Return each result's rank on its deal's board: from Redis where the board is fresh,
    else by a COUNT of better results; None for a result that may not rank."""
    valid = [seal_is_valid(result) for result in results]
    from_redis = ranking.board_ranks(
        (result.deal_id, ranking.member_of(result)) for result in results
    )
    ranks: list[int | None] = []
    for index, result in enumerate(results):
        if not valid[index]:
            ranks.append(None)
            continue
        if from_redis is not None:
            built, rank = from_redis[index]
            if built == result.deal.board_count and rank is not None:
                ranks.append(rank)
                continue
        ranks.append(_rank_in_database(result))
    return ranks


def player_results(
    nickname: str,
    *,
    viewer: Player | None,
    variant: Variant | None,
    offset: int,
    limit: int,
) -> dict[str, Any]:
    """Return ``{"total", "results"}``: the player's finished daily games, newest first, each
    with its rank; a day's results show to others only once that day has ended. Voided results
    and every result of a banned player are left out, as on the boards."""
    player = access_player(nickname)
    results = Result.objects.filter(player=player, voided_at__isnull=True)
    if player.banned_at is not None:
        results = results.none()
    if variant is not None:
        results = results.filter(deal__variant=variant)
    if viewer is None or viewer.pk != player.pk:
        results = results.filter(deal__date__lt=clock.today())
    total = results.count()
    page = list(
        results.select_related("deal__variant").order_by("-deal__date", "-finished_at")[
            offset : offset + limit
        ]
    )
    ranks = _history_ranks(page)
    return {
        "total": total,
        "results": [
            {
                "variant": result.deal.variant.slug,
                "date": result.deal.date.isoformat(),
                "status": result.status,
                "foundation_cards": result.foundation_cards,
                "moves": result.moves,
                "duration_ms": result.duration_ms,
                "assisted": result.assisted,
                "rank": rank,
                "game": result.game_id,
            }
            for result, rank in zip(page, ranks, strict=True)
        ],
    }


def all_time(slug: str) -> dict[str, Any]:
    """Return the variant's top ``ALL_TIME_ENTRIES`` players by wins and by best streak (banned
    players left out)."""
    variant = access_variant(slug)
    rows = PlayerVariantStats.objects.filter(
        variant=variant, player__banned_at__isnull=True
    ).select_related("player")
    wins = rows.filter(won__gt=0).order_by("-won", "player_id")[:ALL_TIME_ENTRIES]
    streaks = rows.filter(best_win_run__gt=0).order_by("-best_win_run", "player_id")[
        :ALL_TIME_ENTRIES
    ]
    return {
        "variant": variant.slug,
        "wins": [{"player": row.player.nickname, "wins": row.won} for row in wins],
        "streaks": [
            {"player": row.player.nickname, "best_streak": row.best_win_run} for row in streaks
        ],
    }
