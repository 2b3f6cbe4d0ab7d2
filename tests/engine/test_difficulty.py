"""Difficulty steps: cut points from a sample of efforts, a deal's step, the players' blend."""

from __future__ import annotations

import math

import pytest

from games.engine import difficulty
from games.engine.difficulty import blend, cut_points, players_step, step


def test_five_steps_take_a_fifth_of_the_sample_each() -> None:
    # given efforts 1 … 100 in any order
    efforts = list(range(100, 0, -1))

    # then the cut points are the 20th, 40th, 60th and 80th efforts
    cuts = cut_points(efforts)
    assert cuts == [20, 40, 60, 80]
    assert [sum(1 for e in efforts if step(cuts, e) == s) for s in range(1, 6)] == [20] * 5


def test_deals_the_solver_did_not_win_count_as_the_hardest() -> None:
    # given 10 deals, 3 of them undecided within the budget
    efforts = [5, 1, 9, 3, 7, 2, 8, math.inf, math.inf, math.inf]

    cuts = cut_points(efforts)

    # then the top cut lies among the undecided ones: any won deal beyond the 6th is step 4
    assert cuts == [2, 5, 8, math.inf]
    assert (step(cuts, 1), step(cuts, 3), step(cuts, 8), step(cuts, 9), step(cuts, 10**9)) == (
        1,
        2,
        3,
        4,
        4,
    )


def test_an_empty_sample_cannot_calibrate() -> None:
    with pytest.raises(ValueError):
        cut_points([])


@pytest.mark.parametrize(
    ("finished", "won", "cards_share", "expected"),
    [
        (4, 0, 0.0, None),  # too few players to say anything
        (10, 10, 1.0, 1),  # everyone won
        (10, 0, 0.0, 5),  # nobody won, nothing home
        (10, 6, 0.8, 2),  # hardness 0.3
        (10, 2, 0.5, 4),  # hardness 0.65
        (10, 0, 0.3, 5),  # hardness 0.85
    ],
)
def test_the_players_step(finished, won, cards_share, expected) -> None:
    assert players_step(finished=finished, won=won, cards_share=cards_share) == expected


@pytest.mark.parametrize(
    ("solver", "players", "finished", "expected"),
    [
        (2, None, 3, 2),  # the players say nothing: the solver's step stands
        (None, 4, 30, 4),  # uncertified: the players' step stands
        (None, None, 0, None),
        (1, 5, 20, 3),  # 20 players weigh half: 3.0
        (1, 5, 5, 2),  # 5 players weigh a fifth: 1.8
        (5, 1, 180, 1),  # 180 players weigh 0.9: 1.4
        (2, 3, 20, 3),  # 2.5 rounds half up
    ],
)
def test_the_blend_weighs_the_players_by_their_number(solver, players, finished, expected) -> None:
    assert blend(solver, players, finished=finished) == expected


def test_every_daily_variant_is_calibrated_from_its_own_sample() -> None:
    calibration = difficulty.calibration()
    for slug in ("caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse"):
        cuts = calibration[slug]
        assert len(cuts) == 4 and cuts == sorted(cuts), slug
    # Quadruple Canfield's deals are won in about a hundred positions, Box Kite's in thousands:
    # the same effort is a hard Quadruple Canfield and an easy Box Kite.
    effort = calibration["quadruple-canfield"][3] + 1
    assert difficulty.difficulty("quadruple-canfield", effort) == 5
    assert difficulty.difficulty("box-kite", effort) == 1


def test_a_variant_not_calibrated_falls_back_on_the_tenfold_scale() -> None:
    assert [difficulty.difficulty("no-such-variant", n) for n in (900, 54_321, 10**8)] == [1, 2, 5]
