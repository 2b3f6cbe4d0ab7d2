"""Streak arithmetic of a player's daily results in one variant (pure: no database, no clock).

A streak counts consecutive UTC days with a won daily game (the played streak: with a finished
one, won or not). ``Runs`` is what is kept per player and variant; ``advance`` adds a result of a
day later than all before it, ``runs_from`` computes the runs of any results from scratch, and
the current streaks are read against today: today not yet played breaks neither.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, replace

ONE_DAY = dt.timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Runs:
    """A player's counts and streak runs in one variant."""

    played: int = 0
    won: int = 0
    moves_total: int = 0
    last_date: dt.date | None = None  # the latest day with a result; the played run ends there
    play_run: int = 0
    best_play_run: int = 0
    win_run: int = 0
    win_run_end: dt.date | None = None  # the latest day won; the win run ends there
    best_win_run: int = 0


def advance(runs: Runs, *, date: dt.date, won: bool, moves: int) -> Runs | None:
    """Return ``runs`` after a result on ``date``, or None when ``date`` is not later than every
    day already counted (out of order: compute the runs again with ``runs_from``)."""
    if runs.last_date is not None and date <= runs.last_date:
        return None
    after_day = runs.last_date == date - ONE_DAY
    play_run = runs.play_run + 1 if after_day else 1
    changed = replace(
        runs,
        played=runs.played + 1,
        won=runs.won + int(won),
        moves_total=runs.moves_total + moves,
        last_date=date,
        play_run=play_run,
        best_play_run=max(runs.best_play_run, play_run),
    )
    if not won:
        return changed
    win_run = runs.win_run + 1 if runs.win_run_end == date - ONE_DAY else 1
    return replace(
        changed, win_run=win_run, win_run_end=date, best_win_run=max(runs.best_win_run, win_run)
    )


def runs_from(results: Iterable[tuple[dt.date, bool, int]]) -> Runs:
    """Return the runs of (date, won, moves) results given in any order, one per day."""
    runs = Runs()
    for date, won, moves in sorted(results, key=lambda result: result[0]):
        runs = advance(runs, date=date, won=won, moves=moves) or runs
    return runs


def current_streak(runs: Runs, *, today: dt.date) -> int:
    """Return the win streak still alive today: it ends on the latest day played, yesterday or
    today (a day played and not won after it breaks it)."""
    if runs.last_date is None or runs.win_run_end != runs.last_date:
        return 0
    return runs.win_run if runs.last_date >= today - ONE_DAY else 0


def current_played_streak(runs: Runs, *, today: dt.date) -> int:
    """Return the played streak still alive today (its last day is yesterday or today)."""
    if runs.last_date is None:
        return 0
    return runs.play_run if runs.last_date >= today - ONE_DAY else 0


def win_rate(runs: Runs) -> float:
    return round(runs.won / runs.played, 4) if runs.played else 0.0


def average_moves(runs: Runs) -> float | None:
    return round(runs.moves_total / runs.played, 1) if runs.played else None
