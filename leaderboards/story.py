"""The day's story: how a deal's day went for everyone, as figures a chart can draw.

``day_figures`` counts a deal's ranked results (the board's own set: voided results, banned
players' and results known tampered left out) by cards home, moves and won or not, in one
grouped query; ``story`` lays them out as the object of ``GET
/api/leaderboards/<slug>/<date>/story/`` (docs/api.md). The figures of a deal are kept in the
cache (``STORY_CACHE``) with the board count they were read at: reused while that count stands,
or for ``LIVE_SECONDS`` while the day is on (results arrive every second on a busy day; the
story may be that much behind the board).
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db.models import Count

from games.documents import compiled
from games.models import Deal
from games.payloads import day_is_over
from leaderboards.selectors import ranked_results

CARD_BARS = 13  # bars below "all home"; one more for every card home
MOVE_BARS = 10
LIVE_SECONDS = 5
KEEP_SECONDS = 24 * 3600
STORY_CACHE = "daily_patience:story:{deal_id}"


@dataclass(frozen=True, slots=True)
class DayFigures:
    """A deal's ranked results grouped: ``(foundation_cards, moves, won) → count``."""

    built_from: int
    groups: tuple[tuple[int, int, bool, int], ...]

    @property
    def total(self) -> int:
        return sum(count for *_, count in self.groups)

    @property
    def won(self) -> int:
        return sum(count for _, _, won, count in self.groups if won)

    def winners_median_moves(self) -> float | None:
        """Return the median moves of the day's winners (the players' par), None without one."""
        moves = [m for _, m, won, count in self.groups if won for _ in range(count)]
        return statistics.median(moves) if moves else None


def _read_figures(deal: Deal) -> DayFigures:
    rows = (
        ranked_results(deal.pk)
        .values_list("foundation_cards", "moves", "status")
        .annotate(count=Count("pk"))
        .order_by()
    )
    groups = tuple((cards, moves, status == "won", count) for cards, moves, status, count in rows)
    return DayFigures(deal.board_count, groups)


def day_figures(deal: Deal) -> DayFigures:
    """Return the deal's grouped figures, from the cache while fresh (see the module)."""
    key = STORY_CACHE.format(deal_id=deal.pk)
    kept = cache.get(key)
    live = not day_is_over(deal.date)
    if kept is not None:
        at, figures = kept
        if figures.built_from == deal.board_count or (live and time.time() - at < LIVE_SECONDS):
            return figures
    figures = _read_figures(deal)
    cache.set(key, (time.time(), figures), KEEP_SECONDS)
    return figures


def card_bars(figures: DayFigures, total_cards: int) -> list[dict[str, int]]:
    """Return the bars of cards home: ``CARD_BARS`` equal ranges below ``total_cards`` (fewer
    when the cards are fewer) and one for every card home, each ``{"from", "to", "count"}``."""
    width = max(1, math.ceil(total_cards / CARD_BARS))
    bars = [
        {"from": low, "to": min(low + width, total_cards) - 1, "count": 0}
        for low in range(0, total_cards, width)
    ]
    bars.append({"from": total_cards, "to": total_cards, "count": 0})
    for cards, _, _, count in figures.groups:
        index = len(bars) - 1 if cards >= total_cards else min(cards // width, len(bars) - 2)
        bars[index]["count"] += count
    return bars


def _nice_width(span: int, bars: int) -> int:
    """Return a round bar width (1, 2, 5 times a power of ten) that covers ``span`` in at most
    ``bars`` bars."""
    raw = max(1, math.ceil((span + 1) / bars))
    power = 10 ** (len(str(raw)) - 1)
    for step in (1, 2, 5, 10):
        if step * power >= raw:
            return step * power
    return 10 * power  # pragma: no cover - the loop ends at 10


def move_bars(figures: DayFigures) -> list[dict[str, int]]:
    """Return the bars of moves, ``{"from", "to", "count", "won"}``: at most ``MOVE_BARS``
    ranges of a round width from the fewest moves played to the most (none without results)."""
    if not figures.groups:
        return []
    low = min(moves for _, moves, _, _ in figures.groups)
    high = max(moves for _, moves, _, _ in figures.groups)
    width = _nice_width(high - low, MOVE_BARS)
    start = low - low % width
    bars = [
        {"from": at, "to": at + width - 1, "count": 0, "won": 0}
        for at in range(start, high + 1, width)
    ]
    for _, moves, won, count in figures.groups:
        bar = bars[(moves - start) // width]
        bar["count"] += count
        bar["won"] += count if won else 0
    return bars


def top_percent(rank: int, total: int) -> int:
    """Return the share of the day's ranked players at or above ``rank``, in whole percent
    rounded up ("top 12%"): rank 1 of 200 is the top 1%."""
    return max(1, math.ceil(100 * rank / max(total, rank, 1)))


def _par_of(deal: Deal | None) -> dict[str, Any] | None:
    """Return a past day's par figures: the winners' median moves and the certified line's
    length (the board's own figures, and ``Deal.par``), or None without that day's deal."""
    if deal is None or not day_is_over(deal.date):
        return None
    figures = day_figures(deal)
    median = figures.winners_median_moves()
    return {
        "date": deal.date.isoformat(),
        "winners": figures.won,
        "winners_median_moves": None if median is None else round(float(median), 1),
        "best_line": deal.par,
    }


def story(deal: Deal, *, player_entry: dict[str, Any] | None, total: int) -> dict[str, Any]:
    """Return the story object of docs/api.md: the day's counts and bars, the player's entry
    with their share from the top (``player``), and the par figures of the day (once over) and
    of the day before (``yesterday``)."""
    figures = day_figures(deal)
    total_cards = compiled(deal.rules).goal_cards  # the pack, or the tableau a win clears
    player = None
    if player_entry is not None:
        player = {
            "rank": player_entry["rank"],
            "top_percent": top_percent(player_entry["rank"], total),
            "status": player_entry["status"],
            "foundation_cards": player_entry["foundation_cards"],
            "moves": player_entry["moves"],
        }
    yesterday = (
        Deal.objects.filter(variant_id=deal.variant_id, date=deal.date - dt.timedelta(days=1))
        .select_related("variant")
        .first()
    )
    return {
        "variant": deal.variant.slug,
        "date": deal.date.isoformat(),
        "over": day_is_over(deal.date),
        "total": figures.total,
        "won": figures.won,
        "total_cards": total_cards,
        "cards": card_bars(figures, total_cards),
        "moves": move_bars(figures),
        "player": player,
        "day": _par_of(deal),
        "yesterday": _par_of(yesterday),
    }
