"""Streak arithmetic: consecutive UTC days, across months and years, today not yet played."""

from __future__ import annotations

import datetime as dt

from leaderboards import stats
from leaderboards.stats import Runs, runs_from


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def days(*spec: tuple[str, bool]) -> Runs:
    """Return the runs of (date, won) results, each of 100 moves, added day after day."""
    runs = Runs()
    for date, won in spec:
        after = stats.advance(runs, date=d(date), won=won, moves=100)
        assert after is not None
        runs = after
    return runs


def test_consecutive_wins_across_a_month_and_a_year_end_make_one_streak() -> None:
    runs = days(
        ("2026-11-30", True),
        ("2026-12-01", True),
        ("2026-12-31", True),
        ("2027-01-01", True),
        ("2027-01-02", True),
    )

    assert (runs.win_run, runs.best_win_run) == (3, 3)
    assert stats.current_streak(runs, today=d("2027-01-02")) == 3


def test_february_of_a_leap_year_rolls_over_to_march() -> None:
    runs = days(("2028-02-28", True), ("2028-02-29", True), ("2028-03-01", True))

    assert stats.current_streak(runs, today=d("2028-03-01")) == 3
    assert days(("2027-02-28", True), ("2027-03-01", True)).win_run == 2


def test_today_not_yet_played_breaks_no_streak() -> None:
    runs = days(("2026-11-29", True), ("2026-11-30", True))

    assert stats.current_streak(runs, today=d("2026-12-01")) == 2
    assert stats.current_played_streak(runs, today=d("2026-12-01")) == 2


def test_a_missed_day_breaks_both_streaks_and_keeps_the_best() -> None:
    # given three days won, a day missed, then one more win
    runs = days(
        ("2026-11-26", True), ("2026-11-27", True), ("2026-11-28", True), ("2026-11-30", True)
    )

    assert (runs.win_run, runs.best_win_run, runs.play_run, runs.best_play_run) == (1, 3, 1, 3)
    assert stats.current_streak(runs, today=d("2026-11-30")) == 1


def test_a_day_not_played_since_yesterday_ends_the_current_streaks() -> None:
    runs = days(("2026-11-28", True), ("2026-11-29", True))

    assert stats.current_streak(runs, today=d("2026-12-01")) == 0
    assert stats.current_played_streak(runs, today=d("2026-12-01")) == 0
    assert runs.best_win_run == 2


def test_a_lost_day_breaks_the_win_streak_but_not_the_played_streak() -> None:
    runs = days(("2026-11-29", True), ("2026-11-30", True), ("2026-12-01", False))

    assert stats.current_streak(runs, today=d("2026-12-01")) == 0
    assert stats.current_played_streak(runs, today=d("2026-12-01")) == 3
    assert (runs.played, runs.won, runs.best_win_run) == (3, 2, 2)


def test_a_new_win_after_a_loss_starts_again_at_one() -> None:
    runs = days(("2026-11-29", True), ("2026-11-30", False), ("2026-12-01", True))

    assert stats.current_streak(runs, today=d("2026-12-01")) == 1


def test_a_result_out_of_date_order_is_refused_and_runs_from_sorts() -> None:
    # given a later day counted first
    runs = days(("2026-12-02", True))

    # then an earlier day cannot be added on top; computing again from all results sorts them
    assert stats.advance(runs, date=d("2026-12-01"), won=True, moves=10) is None
    again = runs_from([(d("2026-12-02"), True, 100), (d("2026-12-01"), True, 10)])
    assert (again.win_run, again.played, again.moves_total) == (2, 2, 110)


def test_rates_and_averages() -> None:
    runs = runs_from(
        [(d("2026-12-01"), True, 10), (d("2026-12-02"), False, 21), (d("2026-12-03"), False, 30)]
    )

    assert stats.win_rate(runs) == 0.3333
    assert stats.average_moves(runs) == 20.3
    assert (stats.win_rate(Runs()), stats.average_moves(Runs())) == (0.0, None)
