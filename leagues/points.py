"""Standings points: what a day's rank on a league's board is worth (docs/api.md, "Leagues").

Each day a member's verified result ranks on the league's board of that variant (the order of
every board); the rank earns ``POINTS[rank - 1]``, and every ranked result below the table's last
rank earns ``POINTS[-1]``. No result, no points. A week runs Monday to Sunday (UTC days), a month
is a calendar month.
"""

from __future__ import annotations

import datetime as dt

POINTS: tuple[int, ...] = (10, 8, 6, 5, 4, 3, 2, 1)
PERIODS = ("week", "month")


def points_of(rank: int) -> int:
    """Return the points of a day's rank (1 is the best)."""
    return POINTS[min(max(rank, 1), len(POINTS)) - 1]


def period_of(period: str, day: dt.date) -> tuple[dt.date, dt.date]:
    """Return the first and last day of the ``period`` ("week" or "month") holding ``day``."""
    if period == "week":
        first = day - dt.timedelta(days=day.weekday())
        return first, first + dt.timedelta(days=6)
    first = day.replace(day=1)
    following = (first + dt.timedelta(days=32)).replace(day=1)
    return first, following - dt.timedelta(days=1)
