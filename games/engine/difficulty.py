"""A deal's difficulty, 1 (easy) to 5 (hard), calibrated per variant.

The solver's effort to win a deal (``SolveResult.nodes``, the positions it expanded) means
nothing across variants: Quadruple Canfield's deals are won in about 130 positions, Box Kite's in
tens of thousands. So each variant has its own four cut points, the quintiles of the effort over
a sample of its deals (``benchmarks/difficulty.py``, written to ``difficulty.json`` beside this
module): a deal of step 1 took no more effort than the easiest fifth of the sample, a deal of step
5 more than four fifths of it. A deal the solver did not win within the sample's budget counts as
harder than every deal it won (effort beyond the budget: a cut point among those deals is the
budget itself, so a deal won with more effort is past it); a deal proved lost is left out (a
daily deal is never one proved lost).

Once a day is over, the step the solver gave is blended with how the day's players did
(``blend``): see its docstring and docs/winrates.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path

STEPS = 5
CALIBRATION_FILE = Path(__file__).with_name("difficulty.json")

# The blend: below PLAYERS_AT_LEAST finished results the players say nothing; with n results
# their step weighs n / (n + PLAYERS_HALF_WEIGHT) (half at that many players).
PLAYERS_AT_LEAST = 5
PLAYERS_HALF_WEIGHT = 20


def cut_points(efforts: Sequence[float]) -> list[float]:
    """Return the four cut points that split ``efforts`` into five steps of about a fifth each.

    ``efforts`` holds the solver's positions for each deal of the sample, ``math.inf`` for a
    deal it did not win within the budget. Cut point ``k`` (1 to 4) is the effort of the deal at
    ``k / 5`` of the sorted sample (nearest rank); it may be ``math.inf`` when more than a fifth
    of the sample was left undecided. Raise ``ValueError`` for an empty sample.
    """
    if not efforts:
        raise ValueError("no deal to calibrate from")
    ordered = sorted(efforts)
    n = len(ordered)
    return [ordered[max(0, math.ceil(n * k / STEPS) - 1)] for k in range(1, STEPS)]


def step(cuts: Sequence[float], effort: float) -> int:
    """Return the step, 1 to 5, of a deal the solver won after ``effort`` positions: one more
    than the number of cut points it exceeds."""
    return 1 + sum(1 for cut in cuts if effort > cut)


def players_step(*, finished: int, won: int, cards_share: float) -> int | None:
    """Return the step the day's players give a deal, or None below ``PLAYERS_AT_LEAST``.

    Their hardness is ``1 - (won / finished + cards_share) / 2``: the share who did not win and
    the mean share of the cards left off the foundations, weighed alike. Cut in fifths: 0–0.2 is
    step 1, 0.8–1 step 5.
    """
    if finished < PLAYERS_AT_LEAST:
        return None
    hardness = 1 - (won / finished + min(max(cards_share, 0.0), 1.0)) / 2
    return max(1, min(STEPS, 1 + math.floor(hardness * STEPS)))


def blend(solver: int | None, players: int | None, *, finished: int) -> int | None:
    """Return the difficulty of a day that is over: the solver's step and the players' step
    (``players_step``), the players' weighing ``finished / (finished + PLAYERS_HALF_WEIGHT)``,
    rounded half up. Either alone stands when the other is None."""
    if players is None:
        return solver
    if solver is None:
        return players
    weight = finished / (finished + PLAYERS_HALF_WEIGHT)
    return max(1, min(STEPS, math.floor(solver * (1 - weight) + players * weight + 0.5)))


def log_step(effort: float) -> int:
    """Return the uncalibrated step: one for each tenfold of positions beyond 1,000."""
    return max(1, min(STEPS, math.ceil(math.log10(max(effort, 1))) - 3))


@cache
def calibration() -> dict[str, list[float]]:
    """Return the cut points of each calibrated variant, by slug (``difficulty.json``; none
    without the file)."""
    if not CALIBRATION_FILE.exists():
        return {}
    data = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    # A cut point among the undecided deals is "beyond the budget": a deal won with more effort
    # than the budget exceeds it (the sample's undecided deals could have been won so).
    return {
        slug: [float(entry["budget_nodes"] if cut is None else cut) for cut in entry["cuts"]]
        for slug, entry in data["variants"].items()
    }


def difficulty(slug: str, effort: float) -> int:
    """Return the step of a deal of variant ``slug`` the solver won after ``effort`` positions:
    by the variant's calibration, or by ``log_step`` for a variant not calibrated."""
    cuts = calibration().get(slug)
    return log_step(effort) if cuts is None else step(cuts, effort)
