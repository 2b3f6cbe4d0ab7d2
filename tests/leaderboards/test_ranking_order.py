"""The board's order encoded as a sorted-set score plus member, tie level by tie level.

Redis orders by score, then by member byte by byte; ``order`` below sorts the same way, and one
test checks a real sorted set agrees.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass

import pytest

from leaderboards import ranking

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Figures:
    game_id: str
    foundation_cards: int = 10
    moves: int = 100
    duration_ms: int = 60_000
    finished_at: dt.datetime = NOON
    assisted: bool = False
    status: str = "resigned"


def order(*results: Figures) -> list[str]:
    """Return the game ids sorted as Redis sorts their (score, member) pairs."""
    keyed = sorted(results, key=lambda r: (ranking.score_of(r), ranking.member_of(r).encode()))
    return [r.game_id for r in keyed]


def test_more_foundation_cards_rank_first_whatever_the_rest() -> None:
    better = Figures("b", foundation_cards=11, moves=10_000, duration_ms=10**9)
    worse = Figures("a", foundation_cards=10, moves=1, duration_ms=1)

    assert order(worse, better) == ["b", "a"]


def test_with_equal_cards_fewer_moves_rank_first() -> None:
    better = Figures("b", moves=99, duration_ms=10**9, finished_at=NOON + dt.timedelta(hours=9))
    worse = Figures("a", moves=100, duration_ms=1)

    assert order(worse, better) == ["b", "a"]


def test_with_equal_cards_and_moves_the_shorter_game_ranks_first() -> None:
    better = Figures("b", duration_ms=59_999, finished_at=NOON + dt.timedelta(hours=1))
    worse = Figures("a", duration_ms=60_000)

    assert order(worse, better) == ["b", "a"]


def test_with_equal_cards_moves_and_duration_the_earlier_finish_ranks_first() -> None:
    better = Figures("b", finished_at=NOON)
    worse = Figures("a", finished_at=NOON + dt.timedelta(microseconds=1))

    assert order(worse, better) == ["b", "a"]


def test_the_game_id_breaks_a_tie_of_every_figure() -> None:
    assert order(Figures("b"), Figures("B"), Figures("a-"), Figures("a_")) == ["B", "a-", "a_", "b"]


def test_assisted_results_rank_after_every_unassisted_one() -> None:
    assisted = Figures("a", assisted=True, foundation_cards=208, moves=1, duration_ms=0)
    unassisted = Figures("b", foundation_cards=0, moves=10**6, duration_ms=10**9)

    assert order(assisted, unassisted) == ["b", "a"]


def test_scores_stay_exact_integers_in_a_double_at_the_extremes() -> None:
    # given the extreme figures a score may hold
    highest = ranking.score(assisted=True, foundation_cards=0, moves=ranking.MAX_MOVES)
    lowest = ranking.score(assisted=False, foundation_cards=ranking.MAX_CARDS, moves=0)

    # then they and their neighbours survive a round trip through a double
    for value in (highest, highest - 1, lowest, lowest + 1):
        assert int(float(value)) == value
    assert highest < 2**53
    assert ranking.score(assisted=False, foundation_cards=208, moves=5) + 1 == ranking.score(
        assisted=False, foundation_cards=208, moves=6
    )


def test_members_sort_by_duration_then_finish_time_at_every_width() -> None:
    # given durations and finish times whose decimal widths differ
    short = ranking.member(duration_ms=9, finished_at=NOON, game_id="z")
    long = ranking.member(duration_ms=10, finished_at=NOON, game_id="a")
    early = ranking.member(duration_ms=10, finished_at=NOON, game_id="b")
    late = ranking.member(duration_ms=10, finished_at=NOON + dt.timedelta(days=3650), game_id="a")

    assert sorted([late, early, long, short]) == [short, long, early, late]


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
def test_a_redis_sorted_set_agrees_with_the_encoding() -> None:
    import redis

    # given results that tie at each level in turn, added in a shuffled order
    results = [
        Figures("g7", assisted=True, foundation_cards=52),
        Figures("g6", finished_at=NOON + dt.timedelta(seconds=1)),
        Figures("g5b"),
        Figures("g5a"),
        Figures("g4", duration_ms=1),
        Figures("g3", moves=1),
        Figures("g2", foundation_cards=11),
    ]
    client = redis.Redis.from_url(os.environ["REDIS_URL"], decode_responses=True)
    key = "daily_patience:test:order"
    client.delete(key)
    try:
        client.zadd(key, {ranking.member_of(r): ranking.score_of(r) for r in results})

        # when
        members = client.zrange(key, 0, -1)
    finally:
        client.delete(key)

    # then
    assert [m.rsplit(":", 1)[1] for m in members] == ["g2", "g3", "g4", "g5a", "g5b", "g6", "g7"]
    assert members == [ranking.member_of(r) for r in reversed(results)]
