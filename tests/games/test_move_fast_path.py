"""The one-statement move and the locking path agree; whatever the fast path declines, the
locking path answers exactly as before, and nothing is written twice."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from typing import Any
from unittest import mock

import psycopg
import pytest
from django.db import OperationalError, connection, connections, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import clock, positions, services
from games.engine import apply_move, legal_moves, parse_move
from games.models import Game, Move, Player, Result
from games.services import games as game_services
from games.services import moderation, moves
from games.verification.seals import move_seal

DAILY = {"variant": "caprice", "mode": "daily"}
NOON = dt.datetime(2026, 6, 1, 12, 0, tzinfo=dt.UTC)
# What differs between two players' games of one deal, whatever path their moves took.
OWN = {"id", "player"}
EXAMPLES = itertools.count()


def moves_url(game_id: str) -> str:
    return f"/api/games/{game_id}/moves/"


def a_legal_move(game_id: str) -> dict[str, Any]:
    state = services.engine_state(Game.objects.get(pk=game_id))  # also warms the position cache
    return next(m.to_json() for m in legal_moves(state) if m.to_json()["type"] != "undo")


def shared(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in OWN}


def row_of(game_id: str) -> dict[str, Any]:
    values = Game.objects.filter(pk=game_id).values().get()
    return {k: v for k, v in values.items() if k not in {"id", "player_id", "started_at"}}


def log_of(game_id: str) -> list[tuple[int, Any, dt.datetime]]:
    rows = Move.objects.filter(game_id=game_id).order_by("ply").values_list("ply", "move", "at")
    return list(rows)


def seals_hold(game_id: str) -> bool:
    rows = Move.objects.filter(game_id=game_id).values_list("ply", "move", "at", "seal")
    return all(
        seal == move_seal(game_id=game_id, ply=ply, move=move, at=at)
        for ply, move, at, seal in rows
    )


@pytest.fixture
def fast_moves(monkeypatch) -> list[tuple[str, bool]]:
    """Record, for every move, its game and whether the one-statement path applied it."""
    taken: list[tuple[str, bool]] = []
    real = game_services.move_append

    def spy(**kwargs: Any) -> Game | None:
        game = real(**kwargs)
        taken.append((kwargs["game_id"], game is not None))
        return game

    monkeypatch.setattr(game_services, "move_append", spy)
    return taken


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(st.integers(min_value=0, max_value=10_000), max_size=24),
    resign=st.booleans(),
)
def test_the_fast_path_and_the_locking_path_agree(
    join, monkeypatch, fast_moves, picks: list[int], resign: bool
) -> None:
    if not moves.fast_path_applies():
        pytest.skip("the one-statement move is PostgreSQL's")
    with clock.frozen(NOON):
        # given one daily deal, started by two new players
        number = next(EXAMPLES)
        fast, locking = join(f"Fast{number}"), join(f"Locking{number}")
        fast_game = fast.post("/api/games/", DAILY, "json").json()
        locking_game = locking.post("/api/games/", DAILY, "json").json()
        state = services.engine_state(Game.objects.get(pk=fast_game["id"]))
        fast_moves.clear()

        # when both play the same random moves (undo included), one with the one-statement path,
        # the other on a database without it
        for ply, pick in enumerate(picks):
            options = legal_moves(state)
            if not options or state.won:
                break
            move = options[pick % len(options)].to_json()
            state = apply_move(state, parse_move(move))
            with clock.frozen(NOON + dt.timedelta(seconds=ply + 1)):
                answer = fast.post(moves_url(fast_game["id"]), {"ply": ply, "move": move}, "json")
            with (
                clock.frozen(NOON + dt.timedelta(seconds=ply + 1)),
                monkeypatch.context() as patched,
            ):
                patched.setattr(moves, "fast_path_applies", lambda: False)
                other = locking.post(
                    moves_url(locking_game["id"]), {"ply": ply, "move": move}, "json"
                )

            # then they answer the same
            assert (answer.status_code, shared(answer.json())) == (
                other.status_code,
                shared(other.json()),
            )
            assert answer.status_code == 200
        if resign and not state.won:
            for client, game in ((fast, fast_game), (locking, locking_game)):
                assert client.post(f"/api/games/{game['id']}/resign/").status_code == 200

    # and every move of the first player but a winning one took the fast path
    taken = [applied for game_id, applied in fast_moves if game_id == fast_game["id"]]
    assert taken == [True] * (len(taken) - state.won) + [False] * state.won
    # and the two games are the same rows, the same log, every seal holds
    assert row_of(fast_game["id"]) == row_of(locking_game["id"])
    assert log_of(fast_game["id"]) == log_of(locking_game["id"])
    assert seals_hold(fast_game["id"]) and seals_hold(locking_game["id"])
    # and a finished game's sealed result is the same: verification accepted the fast log
    results = Result.objects.filter(game_id__in=[fast_game["id"], locking_game["id"]])
    figures = {r.game_id: (r.status, r.foundation_cards, r.moves, r.duration_ms) for r in results}
    if resign or state.won:
        assert figures[fast_game["id"]] == figures[locking_game["id"]]
        assert Game.objects.get(pk=fast_game["id"]).verified
    else:
        assert figures == {}


@pytest.mark.django_db(transaction=True)
def test_the_same_move_sent_at_once_from_four_tabs_applies_once(join) -> None:
    # given a game at ply 1 with a cached position, and four tabs of its player
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    alice.post(moves_url(game["id"]), {"ply": 0, "move": a_legal_move(game["id"])}, "json")
    move = a_legal_move(game["id"])
    token = alice._credentials["HTTP_AUTHORIZATION"]
    start = threading.Barrier(4)
    answers: list[tuple[int, Any]] = []

    def tab() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=token)
        try:
            start.wait(timeout=10)
            answer = client.post(moves_url(game["id"]), {"ply": 1, "move": move}, "json")
            answers.append((answer.status_code, answer.json()))
        finally:
            connections.close_all()

    # when they all send the move at ply 1 at once
    tabs = [threading.Thread(target=tab) for _ in range(4)]
    for thread in tabs:
        thread.start()
    for thread in tabs:
        thread.join(timeout=30)

    # then one applies it, the others are told the game is at ply 2
    codes = sorted(code for code, _ in answers)
    assert codes == [200, 409, 409, 409]
    for code, body in answers:
        if code == 409:
            assert (body["error"], body["ply"]) == ("stale_ply", 2)
        else:
            assert body["ply"] == 2
    assert list(
        Move.objects.filter(game_id=game["id"]).order_by("ply").values_list("ply", flat=True)
    ) == [0, 1]
    assert Game.objects.get(pk=game["id"]).ply == 2


def _played_elsewhere(alice: Any, game_id: str, move: dict[str, Any]) -> None:
    """Another worker plays ``move`` at ply 1; this process still holds ply 1's position."""
    before = positions.cache.get(game_id, 1)
    assert alice.post(moves_url(game_id), {"ply": 1, "move": move}, "json").status_code == 200
    positions.cache.put(game_id, 1, before)


def _resigned_elsewhere(alice: Any, game_id: str, move: dict[str, Any]) -> None:
    assert alice.post(f"/api/games/{game_id}/resign/").status_code == 200


def _banned(alice: Any, game_id: str, move: dict[str, Any]) -> None:
    moderator = Player.objects.create_user("Moderator", "a-long-password-1", is_staff=True)
    player = Player.objects.get(pk=alice.player["id"])
    moderation.player_ban(player=player, reason="Bot", by=moderator)


@pytest.mark.parametrize(
    ("change", "code", "error", "ply"),
    [
        (_played_elsewhere, 409, "stale_ply", 2),
        (_resigned_elsewhere, 409, "game_over", None),
        (_banned, 403, "forbidden", None),
    ],
    ids=["stale-ply", "resigned", "banned"],
)
@pytest.mark.django_db(transaction=True)
def test_a_move_the_statement_matches_no_row_for_gets_the_locking_paths_refusal(
    join, change: Any, code: int, error: str, ply: int | None
) -> None:
    if not moves.fast_path_applies():
        pytest.skip("the one-statement move is PostgreSQL's")
    # given a game at ply 1 whose position at ply 1 this process holds, then changed elsewhere
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    alice.post(moves_url(game["id"]), {"ply": 0, "move": a_legal_move(game["id"])}, "json")
    move = a_legal_move(game["id"])
    change(alice, game["id"], move)
    log = log_of(game["id"])

    # when the move at ply 1 comes
    with CaptureQueriesContext(connection) as context:
        answer = alice.post(moves_url(game["id"]), {"ply": 1, "move": move}, "json")

    # then the one statement was tried and wrote nothing, and the refusal is the locking path's
    assert any(q["sql"].lstrip().startswith("WITH moved AS") for q in context.captured_queries)
    assert answer.status_code == code
    assert answer.json()["error"] == error
    assert answer.json().get("ply") == ply
    assert log_of(game["id"]) == log


@pytest.mark.django_db(transaction=True)
def test_a_move_on_another_players_game_is_forbidden_and_writes_nothing(join) -> None:
    # given Alice's game at ply 1, its position cached, and Bob
    alice, bob = join("Alice"), join("Bob")
    game = alice.post("/api/games/", DAILY, "json").json()
    move = a_legal_move(game["id"])

    # when Bob sends Alice's next move
    answer = bob.post(moves_url(game["id"]), {"ply": 0, "move": move}, "json")

    # then it is refused, and Alice's game is untouched
    assert answer.status_code == 403
    assert answer.json()["error"] == "forbidden"
    assert log_of(game["id"]) == []
    assert Game.objects.get(pk=game["id"]).ply == 0


@pytest.mark.django_db(transaction=True)
def test_a_move_after_the_day_closes_the_game_as_before(join) -> None:
    # given a daily game of yesterday, still in play, its position cached
    with clock.frozen(NOON):
        alice = join("Alice")
        game = alice.post("/api/games/", DAILY, "json").json()
        move = a_legal_move(game["id"])

    # when a move comes the next day
    with clock.frozen(NOON + dt.timedelta(days=1)):
        answer = alice.post(moves_url(game["id"]), {"ply": 0, "move": move}, "json")

    # then the game is closed (resigned at the end of its day) and the move refused
    assert answer.status_code == 409
    assert answer.json()["error"] == "game_over"
    closed = Game.objects.get(pk=game["id"])
    assert (closed.status, closed.ply, log_of(game["id"])) == ("resigned", 0, [])


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def _ready_move(join: Any) -> tuple[str, Any, Player]:
    """Return a new game in play with its position cached, a legal move, and its player."""
    if not moves.fast_path_applies():
        pytest.skip("the one-statement move is PostgreSQL's")
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    move = parse_move(a_legal_move(game["id"]))
    return game["id"], move, Player.objects.get(pk=alice.player["id"])


@pytest.mark.parametrize(("durable", "expected"), [(False, "off"), (True, "on")])
@pytest.mark.django_db(transaction=True)
def test_an_ordinary_move_waits_for_the_flush_unless_told_not_to(
    join, durable: bool, expected: str
) -> None:
    # given a game in play with a cached position, in autocommit
    game_id, move, player = _ready_move(join)

    # when the one statement applies a move
    executed: list[tuple[str, Any]] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append((sql, params))
        return execute(sql, params, many, context)

    with override_settings(MOVES_SYNCHRONOUS_COMMIT=durable), connection.execute_wrapper(record):
        moved = moves.move_append(game_id=game_id, player=player, ply=0, move=move)

    # then it sets its own transaction's commit to wait for the WAL flush (or, told not to, not)
    assert moved is not None and moved.ply == 1
    ((statement, params),) = executed
    assert "set_config('synchronous_commit', %(synchronous_commit)s, true)" in statement
    assert params["synchronous_commit"] == expected


def test_the_statement_applies_the_setting_to_its_transaction(join) -> None:
    # given a game in play, and a statement told it may skip the flush, run inside the test's
    # transaction so that the setting can be read back before that transaction ends
    game_id, move, player = _ready_move(join)
    assert _synchronous_commit() == "on"  # PostgreSQL's own default

    # when the one statement applies a move
    with mock.patch.object(moves, "_may_skip_flush", lambda: True):
        moved = moves.move_append(game_id=game_id, player=player, ply=0, move=move)

    # then its transaction commits without waiting for the flush
    assert moved is not None
    assert _synchronous_commit() == "off"


def _prepared_moves() -> int:
    """How many statements PostgreSQL holds prepared for this connection that are the move's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%WITH moved AS%"],
        )
        return cursor.fetchone()[0]


def test_the_statement_is_prepared_once_per_connection(join) -> None:
    # given a game in play with a cached position
    game_id, move, player = _ready_move(join)
    assert _prepared_moves() == 0

    # when the one statement applies two moves on this connection
    first = moves.move_append(game_id=game_id, player=player, ply=0, move=move)
    assert first is not None
    positions.remember(first, first.position)  # done on commit, which the test's transaction holds
    second_move = next(m for m in legal_moves(first.position) if m.to_json()["type"] != "undo")
    second = moves.move_append(game_id=game_id, player=player, ply=1, move=second_move)

    # then PostgreSQL parsed and planned it once, and both moves are written
    assert second is not None and second.ply == 2
    assert _prepared_moves() == 1
    assert Move.objects.filter(game_id=game_id).count() == 2


def test_a_database_fault_in_the_prepared_statement_is_djangos_operational_error(join) -> None:
    # given a game in play with a cached position, and a connection that fails mid-statement
    game_id, move, player = _ready_move(join)

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    # when the one statement runs, then the fault is Django's (answered 503 / closed 1011)
    with mock.patch.object(moves._PreparedCursor, "execute", fail), pytest.raises(OperationalError):
        moves.move_append(game_id=game_id, player=player, ply=0, move=move)


def test_a_move_inside_a_callers_transaction_leaves_its_commit_waiting(join) -> None:
    # given a game in play, and a caller's transaction (the test's) that might write more
    game_id, move, player = _ready_move(join)

    # when the one statement applies a move inside it
    moved = moves.move_append(game_id=game_id, player=player, ply=0, move=move)

    # then the caller's commit still waits for the flush
    assert moved is not None and moved.ply == 1
    assert _synchronous_commit() == "on"


@pytest.mark.django_db(transaction=True)
def test_a_finish_waits_for_the_flush_after_ordinary_moves(join) -> None:
    # given a game whose moves took the one statement
    if not moves.fast_path_applies():
        pytest.skip("the one-statement move is PostgreSQL's")
    alice = join("Alice")
    game = alice.post("/api/games/", DAILY, "json").json()
    for ply in range(2):
        move = a_legal_move(game["id"])
        answer = alice.post(moves_url(game["id"]), {"ply": ply, "move": move}, "json")
        assert answer.status_code == 200

    # when the game ends by the locking path, then that transaction waits for the flush
    seen: list[str] = []
    with transaction.atomic():
        services.game_resign(game_id=game["id"], player=Player.objects.get(pk=alice.player["id"]))
        seen.append(_synchronous_commit())
    assert seen == ["on"]
