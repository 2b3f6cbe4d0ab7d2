"""Hints that can be followed to a win: one winning line per game, followed without a search
while the player keeps to it, searched again (never back) once the player leaves it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from games import clock, positions
from games.engine import (
    Move as EngineMove,
)
from games.engine import (
    apply_move,
    legal_moves,
    parse_move,
    solve,
)
from games.models import Deal, Game, Move
from games.services import engine_state, hints

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture
def searches(settings, monkeypatch) -> list[dict[str, Any]]:
    """Search hints in the request's thread with the real solver; record each search's
    arguments (its position under ``state``)."""
    settings.HINT_PROCESSES = 0
    settings.HINT_SECONDS = 10
    made: list[dict[str, Any]] = []

    def recorded(state, **arguments):
        made.append({"state": state, **arguments})
        return solve(state, **arguments)

    monkeypatch.setattr(hints, "solve", recorded)
    return made


def practice(client, seed: str = "hints-1") -> dict:
    body = {"variant": "castile", "mode": "practice", "seed": seed}
    return client.post("/api/games/", body, "json").json()


def play(client, game: dict, move: dict) -> dict:
    answer = client.post(
        f"/api/games/{game['id']}/moves/", {"ply": game["ply"], "move": move}, "json"
    )
    assert answer.status_code == 200, answer.json()
    return answer.json()


def hint(client, game: dict) -> dict:
    answer = client.get(f"/api/games/{game['id']}/hint/")
    assert answer.status_code == 200, answer.json()
    return answer.json()


def test_a_player_who_follows_the_hints_gets_the_line_without_a_new_search(join, searches) -> None:
    # given Alice's game and the line her first hint found
    alice = join("Alice")
    game = practice(alice)
    first = hint(alice, game)
    line = Game.objects.get(pk=game["id"]).hint_line

    # when she plays that hint and the next ten, asking before each
    game = play(alice, game, first["move"])
    given = [first["move"]]
    for _ in range(10):
        move = hint(alice, game)["move"]
        given.append(move)
        game = play(alice, game, move)

    # then every hint was the line's next move, and only the first one searched
    assert given == line[:11]
    assert len(searches) == 1


def test_a_player_who_leaves_the_line_gets_a_new_search_that_never_goes_back(
    join, searches
) -> None:
    # given Alice followed the hints until she could play a move of her own that can be
    # taken back, and played it
    alice = join("Alice")
    game = practice(alice, "bench-1")
    while True:
        taken = hint(alice, game)["move"]
        row = Game.objects.get(pk=game["id"])
        state = engine_state(row)
        # (the line's move after the hint stays legal: a line followed blindly would give it)
        then = parse_move(row.hint_line[game["ply"] - row.hint_ply + 1])
        own = _a_move_that_can_be_taken_back(state, but=parse_move(taken), then=then)
        if own is not None or game["ply"] >= 40:
            break
        game = play(alice, game, taken)
    assert own is not None
    game = play(alice, game, own.to_json())
    # when she asks again, twice
    again = hint(alice, game)
    once_more = hint(alice, game)

    # then a second search was made, told the game's positions and her move; its hint
    # neither takes her move back nor returns to the start; asked again, the same hint comes
    # from the game's new line
    assert len(searches) == 2
    assert searches[1]["after"] == own
    assert len(searches[1]["avoid"]) == game["ply"] + 1
    assert searches[1]["avoid"][-1] == apply_move(state, own)
    back = EngineMove(own.target, own.source, own.count)
    assert parse_move(again["move"]) != back
    assert apply_move(apply_move(state, own), parse_move(again["move"])) not in searches[1]["avoid"]
    assert once_more == again
    stored = Game.objects.get(pk=game["id"])
    assert (stored.hint_ply, stored.hint_line[0]) == (game["ply"], again["move"])


def _a_move_that_can_be_taken_back(state, *, but, then) -> EngineMove | None:
    for move in legal_moves(state):
        if isinstance(move, EngineMove) and move != but:
            back = EngineMove(move.target, move.source, move.count)
            after = legal_moves(apply_move(state, move))
            if back in after and then in after:
                return move
    return None


def test_three_hints_at_one_position_are_the_same_hint_from_one_search(join, searches) -> None:
    alice = join("Alice")
    game = practice(alice, "bench-1")

    answers = [hint(alice, game) for _ in range(3)]

    assert answers[0]["move"] is not None
    assert answers == [answers[0]] * 3
    assert len(searches) == 1


def test_a_daily_game_follows_the_line_that_certified_its_deal(join, searches) -> None:
    # given today's certified capricieuse deal and Alice's game of it
    alice = join("Alice")
    with clock.frozen(NOON):
        body = {"variant": "capricieuse", "mode": "daily"}
        game = alice.post("/api/games/", body, "json").json()
    deal = Deal.objects.get(variant__slug="capricieuse", date=NOON.date())
    start = engine_state(Game.objects.get(pk=game["id"]))
    certified = solve(start, budget_seconds=10)
    assert certified.line is not None
    deal.certified, deal.solution = True, [m.to_json() for m in certified.line]
    deal.save()

    # when she asks for hints and plays them
    with clock.frozen(NOON):
        given = []
        for _ in range(3):
            move = hint(alice, game)["move"]
            given.append(move)
            game = play(alice, game, move)

    # then they are the certification's line, found without a search
    assert given == deal.solution[:3]
    assert searches == []


@pytest.mark.parametrize("damage", ["a move lost", "a move changed"])
def test_a_game_whose_log_is_damaged_is_refused_a_hint_with_409(join, searches, damage) -> None:
    # given Alice's game whose stored log no longer gives its position
    alice = join("Alice")
    game = practice(alice)
    game = play(alice, game, hint(alice, game)["move"])
    game = play(alice, game, hint(alice, game)["move"])
    row = Move.objects.get(game_id=game["id"], ply=1)
    if damage == "a move lost":
        row.delete()
    else:
        row.move = {"type": "move", "from": "tableau-0", "to": "tableau-0", "count": 1}
        row.save()
    Game.objects.filter(pk=game["id"]).update(hint_line=None)
    positions.cache.clear()

    # when she asks for a hint
    answer = alice.get(f"/api/games/{game['id']}/hint/")

    # then
    assert answer.status_code == 409
    assert answer.json() == {
        "error": "game_over",
        "detail": "This game's record is damaged: it cannot be played on.",
    }
