"""Reads of the leaderboards: ranked, verified results of a daily deal.

The ranked list of a deal is cached (Redis in production) and dropped whenever one of its games
finishes; PostgreSQL stays the source of truth, so losing the cache loses nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

from games.models import Deal, Result
from games.payloads import iso
from games.verification import seal_is_valid

logger = logging.getLogger(__name__)

CACHE_SECONDS = 300
LIVE_ENTRIES = 20
REST_ENTRIES = 100


def _cache_key(deal_id: int) -> str:
    return f"leaderboard:v1:{deal_id}"


def _sealed_results(deal: Deal) -> list[Result]:
    """Return the deal's results whose seal holds, best first; log the others."""
    results = []
    for result in (
        Result.objects.filter(deal=deal)
        .select_related("player")
        .order_by("assisted", "-foundation_cards", "moves", "duration_ms", "finished_at", "game_id")
    ):
        if seal_is_valid(result):
            results.append(result)
        else:
            logger.error(
                "result of game %s fails its seal: kept off the leaderboard", result.game_id
            )
    return results


def ranked_entries(deal: Deal) -> list[dict[str, Any]]:
    """Return every ENTRY of the deal's leaderboard, best first (sealed, verified results)."""
    key = _cache_key(deal.pk)
    entries = cache.get(key)
    if entries is not None:
        return entries
    entries = [
        {
            "rank": rank,
            "player": result.player.nickname,
            "status": result.status,
            "foundation_cards": result.foundation_cards,
            "moves": result.moves,
            "duration_ms": result.duration_ms,
            "game": result.game_id,
            "finished_at": iso(result.finished_at),
            "assisted": result.assisted,
        }
        for rank, result in enumerate(_sealed_results(deal), start=1)
    ]
    cache.set(key, entries, CACHE_SECONDS)
    return entries


def forget(deal_id: int) -> None:
    """Drop the cached leaderboard of a deal (one of its games has just finished)."""
    cache.delete(_cache_key(deal_id))


def player_entry(entries: list[dict[str, Any]], nickname: str) -> dict[str, Any] | None:
    """Return the entry of the player named ``nickname`` (any case), or None."""
    wanted = nickname.lower()
    return next((e for e in entries if e["player"].lower() == wanted), None)


def leaderboard(deal: Deal, *, nickname: str | None = None) -> dict[str, Any]:
    """Return the leaderboard object of api.md: the top ``REST_ENTRIES`` entries, plus, when
    ``nickname`` is given, that player's entry as ``player_entry`` (also kept in ``entries``)."""
    ranked = ranked_entries(deal)
    limit = REST_ENTRIES
    data: dict[str, Any] = {
        "variant": deal.variant.slug,
        "date": deal.date.isoformat(),
        "entries": ranked[:limit],
    }
    if nickname is not None:
        mine = player_entry(ranked, nickname)
        if mine is not None and mine["rank"] > limit:
            data["entries"] = [*data["entries"], mine]
        data["player_entry"] = mine
    return data
