"""``verify_daily``, branch by branch: each refusal comes from one small edit of a valid game.

No database: the game, its deal and its move rows are plain objects built with the engine, as
the verifier reads them, so each test changes exactly one thing a forger could change.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from types import SimpleNamespace
from typing import Any

import pytest

from games.engine import (
    builtin_rules,
    commitment,
    daily_seed,
    legal_moves,
    replay,
    state_to_json,
)
from games.verification.daily import Claim, LoggedMove, Mismatch, verify_daily
from games.verification.seals import move_seal

SECRET = "verify-daily-secret"
VARIANT = "caprice"
GAME_ID = "vd0123456789abcd"
START = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)
FINISHED = START + dt.timedelta(minutes=5)


@pytest.fixture(autouse=True)
def _secret(settings) -> None:
    settings.DEAL_SECRET = SECRET


def _line(rules: dict[str, Any], seed: bytes, plies: int) -> list[dict[str, Any]]:
    """Return ``plies`` legal moves from the deal (never undo), each the first one offered."""
    moves: list[dict[str, Any]] = []
    for _ in range(plies):
        state = replay(rules, seed, moves).state
        moves.append(next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo"))
    return moves


def _rows(game_id: str, moves: list[dict[str, Any]]) -> list[LoggedMove]:
    rows = []
    for ply, move in enumerate(moves):
        at = START + dt.timedelta(seconds=7 * ply)
        rows.append(
            LoggedMove(ply, move, at, move_seal(game_id=game_id, ply=ply, move=move, at=at))
        )
    return rows


@pytest.fixture
def valid() -> dict[str, Any]:
    """A daily Caprice game of three sealed moves on its deal, resigned, and what its row says."""
    rules = builtin_rules(VARIANT)
    seed = daily_seed(SECRET, VARIANT, "2026-12-01", 0)
    deal = SimpleNamespace(
        pk=41, variant_id=7, seed=seed.hex(), commitment=commitment(seed), rules=rules
    )
    game = SimpleNamespace(
        pk=GAME_ID,
        mode="daily",
        deal_id=41,
        variant_id=7,
        player_id=3,
        seed=seed.hex(),
        rules=rules,
        assisted=False,
    )
    moves = _line(rules, seed, 3)
    reached = replay(rules, seed, moves)
    claimed = Claim(
        status="resigned",
        state=state_to_json(reached.state),
        foundation_cards=reached.state.foundation_cards(),
        ply=reached.plies,
    )
    return {"game": game, "deal": deal, "rows": _rows(GAME_ID, moves), "claimed": claimed}


def verify(case: dict[str, Any]):
    return verify_daily(
        game=case["game"],
        deal=case["deal"],
        rows=case["rows"],
        claimed=case["claimed"],
        finished_at=FINISHED,
    )


def refusal(case: dict[str, Any]) -> str:
    with pytest.raises(Mismatch) as refused:
        verify(case)
    return refused.value.reason


def test_a_valid_game_is_accepted_with_the_figures_its_replay_proves(valid) -> None:
    figures = verify(valid)

    assert figures.status == "resigned"
    assert figures.moves == 3
    assert figures.foundation_cards == valid["claimed"].foundation_cards
    assert figures.duration_ms == 14_000  # first sealed move to last
    assert (figures.finished_at, figures.assisted) == (FINISHED, False)


def test_a_practice_game_is_not_a_daily_game(valid) -> None:
    valid["game"].mode = "practice"
    assert refusal(valid) == "not_daily"


def test_a_game_of_another_deal_is_not_a_daily_game_of_this_one(valid) -> None:
    valid["game"].deal_id = 42
    assert refusal(valid) == "not_daily"


def test_a_game_of_another_variant_is_refused(valid) -> None:
    valid["game"].variant_id = 8
    assert refusal(valid) == "variant"


def test_a_game_without_a_player_is_refused(valid) -> None:
    valid["game"].player_id = None
    assert refusal(valid) == "player"


def test_a_deal_whose_seed_is_not_a_seed_is_refused(valid) -> None:
    valid["deal"].seed = "not hex"
    assert refusal(valid) == "seed"


def test_a_deal_whose_seed_does_not_match_its_commitment_is_refused(valid) -> None:
    # the deal's seed swapped for the next attempt's (the game dealt from it too)
    other = daily_seed(SECRET, VARIANT, "2026-12-01", 1).hex()
    valid["deal"].seed = valid["game"].seed = other
    assert refusal(valid) == "commitment"


def test_a_game_dealt_from_another_seed_is_refused(valid) -> None:
    valid["game"].seed = daily_seed(SECRET, VARIANT, "2026-12-01", 1).hex()
    assert refusal(valid) == "seed"


def test_a_game_under_other_rules_is_refused(valid) -> None:
    valid["game"].rules = {**valid["game"].rules, "name": "Caprice, kinder"}
    assert refusal(valid) == "rules"


def test_a_log_with_a_missing_ply_is_refused(valid) -> None:
    del valid["rows"][1]
    assert refusal(valid) == "log_gap"


def test_a_move_without_the_servers_seal_is_refused(valid) -> None:
    rows = valid["rows"]
    rows[2] = dataclasses.replace(rows[2], at=rows[2].at + dt.timedelta(seconds=1))
    assert refusal(valid) == "move_seal"


def test_a_log_that_does_not_replay_is_refused(valid) -> None:
    # a sealed (so server-written) move that the deal's rules refuse
    illegal = {"type": "move", "from": "tableau-0", "to": "tableau-0", "count": 1}
    rows = valid["rows"]
    rows[2] = LoggedMove(
        2, illegal, rows[2].at, move_seal(game_id=GAME_ID, ply=2, move=illegal, at=rows[2].at)
    )
    assert refusal(valid) == "replay"


def test_a_claimed_win_that_the_log_does_not_reach_is_refused(valid) -> None:
    valid["claimed"] = dataclasses.replace(valid["claimed"], status="won")
    assert refusal(valid) == "not_won"


def test_a_stored_position_that_the_log_does_not_reach_is_refused(valid) -> None:
    state = valid["claimed"].state
    valid["claimed"] = dataclasses.replace(valid["claimed"], state={**state, "redeals_left": 7})
    assert refusal(valid) == "state"


@pytest.mark.parametrize("figure", ["foundation_cards", "ply"])
def test_figures_that_the_log_does_not_prove_are_refused(valid, figure: str) -> None:
    claimed = valid["claimed"]
    valid["claimed"] = dataclasses.replace(claimed, **{figure: getattr(claimed, figure) + 1})
    assert refusal(valid) == "figures"
