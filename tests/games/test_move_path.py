"""The move path: an ordinary move is one statement; any other, one locking read of the few
columns a move needs, one append, one update."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine import legal_moves
from games.models import Game, Move
from games.services import moves

DAILY = {"variant": "caprice", "mode": "daily"}


def a_legal_move(game_id: str) -> dict:
    state = services.engine_state(Game.objects.get(pk=game_id))  # also warms the position cache
    return next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")


def statements(context: CaptureQueriesContext) -> list[str]:
    """Return the SQL statements run, savepoints left out."""
    return [
        query["sql"]
        for query in context.captured_queries
        if "SAVEPOINT" not in query["sql"].upper()
    ]


def test_an_ordinary_move_is_one_statement(join) -> None:
    if not moves.fast_path_applies():
        pytest.skip("the one-statement move is PostgreSQL's")
    # given a game with a cached position
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": a_legal_move(game["id"])}, "json"
    )
    move = a_legal_move(game["id"])

    # when a move is made
    with CaptureQueriesContext(connection) as context:
        answer = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 1, "move": move}, "json")

    # then the token lookup and one statement that updates the game and appends its move
    assert answer.status_code == 200
    assert answer.json()["ply"] == 2
    token, move_statement = statements(context)
    assert "games_apitoken" in token
    assert move_statement.lstrip().startswith("WITH moved AS (")
    assert "UPDATE games_game" in move_statement and "INSERT INTO games_move" in move_statement
    for heavy in ("rules =", "seed =", "FOR UPDATE"):
        assert heavy not in move_statement
    assert list(
        Move.objects.filter(game_id=game["id"]).order_by("ply").values_list("ply", flat=True)
    ) == [0, 1]


def test_the_locking_path_reads_the_game_once_appends_one_row_and_updates_a_few_columns(
    join, monkeypatch
) -> None:
    # given a game with a cached position, on a database without the one-statement path
    monkeypatch.setattr(moves, "fast_path_applies", lambda: False)
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": a_legal_move(game["id"])}, "json"
    )
    move = a_legal_move(game["id"])

    # when a move is made
    with CaptureQueriesContext(connection) as context:
        answer = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 1, "move": move}, "json")

    # then the token lookup, the locking read, the append and the update: nothing else
    assert answer.status_code == 200
    token, lock, append, update = statements(context)
    assert "games_apitoken" in token
    assert (
        lock.startswith("SELECT") and "FOR UPDATE" in lock.upper()
    ) or connection.vendor != "postgresql"
    for heavy in ('"rules"', '"seed"', '"state"'):
        assert heavy not in lock, f"the locking read loads {heavy}"
    assert append.startswith('INSERT INTO "games_move"')
    assert update.startswith('UPDATE "games_game"')
    assert '"rules"' not in update and '"seed"' not in update
    plies = Move.objects.filter(game_id=game["id"]).order_by("ply").values_list("ply", flat=True)
    assert list(plies) == [0, 1]


def test_the_database_refuses_a_second_move_at_the_same_ply(join) -> None:
    # given a game with one move
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    alice.post(
        f"/api/games/{game['id']}/moves/", {"ply": 0, "move": a_legal_move(game["id"])}, "json"
    )
    first = Move.objects.get(game_id=game["id"], ply=0)

    # when / then
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(game_id=game["id"], ply=0, move={"type": "deal"}, at=first.at, seal="")


def test_a_cold_position_is_rebuilt_from_the_move_rows(join) -> None:
    # given a game with moves, and a process that has forgotten every position
    from games import positions

    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    for ply in range(3):
        move = a_legal_move(game["id"])
        alice.post(f"/api/games/{game['id']}/moves/", {"ply": ply, "move": move}, "json")
    warm = alice.get(f"/api/games/{game['id']}/").json()
    positions.cache.clear()

    # when / then the game reads the same, and play goes on
    assert alice.get(f"/api/games/{game['id']}/").json() == warm
    move = a_legal_move(game["id"])
    positions.cache.clear()
    answer = alice.post(f"/api/games/{game['id']}/moves/", {"ply": 3, "move": move}, "json")
    assert answer.status_code == 200
    assert answer.json()["ply"] == 4
