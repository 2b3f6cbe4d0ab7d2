"""Reads of the leaderboards: ranked, verified results of a daily deal.

The ranked list of a deal is cached (Redis in production) and dropped whenever one of its games
finishes; PostgreSQL stays the source of truth, so losing the cache loses nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

from games.models import Deal, Game
from games.payloads import iso

CACHE_SECONDS = 300
LIVE_ENTRIES = 20
REST_ENTRIES = 100


def _cache_key(deal_id: int) -> str:
    return f"leaderboard:v1:{deal_id}"


def _rank_key(game: Game) -> tuple[Any, ...]:
    return (-game.foundation_cards, game.ply, game.duration_ms, game.finished_at, game.pk)


def ranked_entries(deal: Deal) -> list[dict[str, Any]]:
    """Return every ENTRY of the deal's leaderboard, best first (finished and verified games)."""
    key = _cache_key(deal.pk)
    entries = cache.get(key)
    if entries is not None:
        return entries
    games = list(
        Game.objects.filter(deal=deal, verified=True)
        .exclude(status=Game.Status.PLAYING)
        .select_related("player")
    )
    games.sort(key=_rank_key)
    entries = [
        {
            "rank": rank,
            "player": game.player.nickname,
            "status": game.status,
            "foundation_cards": game.foundation_cards,
            "moves": game.ply,
            "duration_ms": game.duration_ms,
            "game": game.pk,
            "finished_at": iso(game.finished_at),
        }
        for rank, game in enumerate(games, start=1)
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
