"""The batched move (``games.services.batches``) and the locking path agree, game by game, when
many games' moves share one statement; the writer keeps each game's moves in order."""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import database, redis_client
from games import clock, positions, services
from games.engine import apply_move, legal_moves, parse_move
from games.models import Game, Result
from games.payloads import game_payload
from games.services import batches, moves
from tests.games.test_move_fast_path import DAILY, NOON, log_of, row_of, seals_hold, shared

GAMES = 3
EXAMPLES = itertools.count()


async def ending(coroutine: Any) -> Any:
    """Run ``coroutine``, then close what the loop opened (its pool, its Redis window)."""
    try:
        return await coroutine
    finally:
        await batches.drain()
        await database.close()
        await redis_client.close_window()


def locking_move(game_id: str, player: Any, ply: int, move: dict[str, Any]) -> dict[str, Any]:
    """Play a move the way a database without the batch would: the locking path only."""
    real = moves.fast_path_applies
    moves.fast_path_applies = lambda: False
    try:
        return game_payload(services.game_move(game_id=game_id, player=player, ply=ply, move=move))
    finally:
        moves.fast_path_applies = real


async def batched_moves(plays: list[tuple[str, Any, int, dict[str, Any]]]) -> list[Any]:
    """Play every move at once on one loop, as many sockets would; a move the batch declines
    goes the locking path, as the socket does. Return (payload, whether batched) per move."""

    async def one(game_id: str, player: Any, ply: int, move: dict[str, Any]) -> Any:
        game = await services.move_play(game_id=game_id, player=player, ply=ply, move=move)
        if game is not None:
            return game_payload(game), True
        answer = await database_sync_to_async(locking_move)(game_id, player, ply, move)
        return answer, False

    return await asyncio.gather(*(one(*play) for play in plays))


@pytest.fixture
def statements(monkeypatch: Any) -> list[int]:
    """Record the number of moves of every statement the writer sends."""
    sizes: list[int] = []
    real = batches.Writer._execute

    async def execute(self: Any, batch: Any) -> Any:
        sizes.append(len(batch))
        return await real(self, batch)

    monkeypatch.setattr(batches.Writer, "_execute", execute)
    return sizes


@pytest.mark.django_db(transaction=True)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(
        st.lists(st.integers(min_value=0, max_value=10_000), min_size=GAMES, max_size=GAMES),
        max_size=14,
    ),
    resign=st.booleans(),
)
def test_batched_moves_and_the_locking_path_agree(
    join: Any, statements: list[int], picks: list[list[int]], resign: bool
) -> None:
    if not batches.applies():
        pytest.skip("the batched move is PostgreSQL's")
    # given one daily deal and 2 × GAMES new players on it: a batched game and its twin each
    number = next(EXAMPLES)
    with clock.frozen(NOON):
        clients = [join(f"Batch{number}x{i}") for i in range(GAMES)]
        clients += [join(f"Lock{number}x{i}") for i in range(GAMES)]
        ids = [client.post("/api/games/", DAILY, "json").json()["id"] for client in clients]
    batched, twins = ids[:GAMES], ids[GAMES:]
    players = {game_id: Game.objects.get(pk=game_id).player for game_id in ids}
    start = services.engine_state(Game.objects.get(pk=batched[0]))
    for game_id in batched:
        positions.remember(Game.objects.get(pk=game_id), start)
    states = dict.fromkeys(batched, start)
    statements.clear()
    took_batch: dict[str, list[bool]] = {game_id: [] for game_id in batched}
    per_ply: list[int] = []

    # when at each ply every batched game's move is sent at once, and its twin plays the same
    for ply, row in enumerate(picks):
        plays = []
        for game_id, pick in zip(batched, row, strict=True):
            options = legal_moves(states[game_id])
            if states[game_id].won or not options:
                continue
            move = options[pick % len(options)].to_json()
            states[game_id] = apply_move(states[game_id], parse_move(move))
            plays.append((game_id, players[game_id], ply, move))
        if not plays:
            break
        with clock.frozen(NOON + dt.timedelta(seconds=ply + 1)):
            answers = asyncio.run(ending(batched_moves(plays)))
            per_ply.append(sum(batch for _, batch in answers))
            for (game_id, _, _, move), (answer, batch) in zip(plays, answers, strict=True):
                twin = twins[batched.index(game_id)]
                other = locking_move(twin, players[twin], ply, move)
                # then each batched move answers as its twin's
                assert shared(answer) == shared(other)
                took_batch[game_id].append(batch)
    if resign:
        with clock.frozen(NOON + dt.timedelta(seconds=len(picks) + 1)):
            for game_id in ids:
                if not Game.objects.get(pk=game_id).is_over:
                    services.game_resign(game_id=game_id, player=players[game_id])

    # and every move but a winning one was batched, the moves of a ply in one statement
    for game_id, taken in took_batch.items():
        won = states[game_id].won
        assert taken == [True] * (len(taken) - won) + [False] * won
    assert statements == [count for count in per_ply if count]
    # and each pair is the same row, the same log, every seal holds, the same result
    for game_id, twin in zip(batched, twins, strict=True):
        assert row_of(game_id) == row_of(twin)
        assert log_of(game_id) == log_of(twin)
        assert seals_hold(game_id) and seals_hold(twin)
        results = {
            r.game_id: (r.status, r.foundation_cards, r.moves, r.duration_ms)
            for r in Result.objects.filter(game_id__in=[game_id, twin])
        }
        assert results.get(game_id) == results.get(twin)


@pytest.mark.django_db(transaction=True)
def test_moves_sent_together_share_one_statement(join: Any, statements: list[int]) -> None:
    if not batches.applies():
        pytest.skip("the batched move is PostgreSQL's")
    # given four games in play with cached positions
    with clock.frozen(NOON):
        clients = [join(f"Together{i}") for i in range(4)]
        ids = [client.post("/api/games/", DAILY, "json").json()["id"] for client in clients]
    plays = []
    for game_id in ids:
        game = Game.objects.get(pk=game_id)
        state = services.engine_state(game)
        move = next(m for m in legal_moves(state) if m.to_json()["type"] != "undo").to_json()
        plays.append((game_id, game.player, 0, move))
    statements.clear()

    # when their moves are sent at once on one loop
    with clock.frozen(NOON + dt.timedelta(seconds=1)):
        answers = asyncio.run(ending(batched_moves(plays)))

    # then one statement wrote them all, each game at ply 1 with one sealed move
    assert [batch for _, batch in answers] == [True] * 4
    assert statements == [4]
    for game_id in ids:
        assert Game.objects.get(pk=game_id).ply == 1
        assert [ply for ply, _, _ in log_of(game_id)] == [0]
        assert seals_hold(game_id)


@pytest.mark.django_db(transaction=True)
def test_a_games_later_move_waits_for_the_statement_of_its_earlier_one(
    join: Any, statements: list[int]
) -> None:
    if not batches.applies():
        pytest.skip("the batched move is PostgreSQL's")
    # given a game in play and its next two moves, made into rows ahead of the writer
    with clock.frozen(NOON):
        client = join("Orderly")
        game_id = client.post("/api/games/", DAILY, "json").json()["id"]
    game = Game.objects.get(pk=game_id)
    state = services.engine_state(game)
    rows = []
    with clock.frozen(NOON + dt.timedelta(seconds=1)):
        for ply in (0, 1):
            move = next(m for m in legal_moves(state) if m.to_json()["type"] != "undo")
            state = apply_move(state, move)
            row = batches.move_row(
                game_id=game_id, player=game.player, ply=ply, move=move, state=state
            )
            rows.append(row)
    statements.clear()

    # when both are handed to the writer in the same turn of the loop
    async def both() -> list[Any]:
        writer = batches.writer()
        first, second = writer.submit(game_id, rows[0]), writer.submit(game_id, rows[1])
        return [await first, await second]

    with clock.frozen(NOON + dt.timedelta(seconds=1)):
        written = asyncio.run(ending(both()))

    # then two statements ran, one after the other, and both moves hold
    assert all(row is not None for row in written)
    assert statements == [1, 1]
    assert Game.objects.get(pk=game_id).ply == 2
    assert [ply for ply, _, _ in log_of(game_id)] == [0, 1]


@pytest.mark.django_db(transaction=True)
def test_the_same_ply_sent_twice_at_once_applies_once(join: Any) -> None:
    if not batches.applies():
        pytest.skip("the batched move is PostgreSQL's")
    # given a game in play with its position cached
    with clock.frozen(NOON):
        client = join("Twice")
        game_id = client.post("/api/games/", DAILY, "json").json()["id"]
    game = Game.objects.get(pk=game_id)
    state = services.engine_state(game)
    move = next(m for m in legal_moves(state) if m.to_json()["type"] != "undo").to_json()
    player = game.player

    # when two tabs send the same move at the same ply at once
    async def twice() -> list[Any]:
        return list(
            await asyncio.gather(
                *(
                    services.move_play(game_id=game_id, player=player, ply=0, move=move)
                    for _ in range(2)
                )
            )
        )

    with clock.frozen(NOON + dt.timedelta(seconds=1)):
        answers = asyncio.run(ending(twice()))

    # then one is written, the other matched no row (the socket then takes the locking path)
    assert sorted(answer is None for answer in answers) == [False, True]
    assert Game.objects.get(pk=game_id).ply == 1
    assert len(log_of(game_id)) == 1


def test_a_move_is_durable_by_default(settings: Any) -> None:
    from django.conf import settings as live

    assert live.MOVES_SYNCHRONOUS_COMMIT is True
