"""Hints searched in the worker's process pool: off the event loop, bounded, and self-healing."""

from __future__ import annotations

import asyncio
import functools
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.db import connections
from rest_framework.test import APIClient

from games import hintworker, services
from games.engine import SolveResult, parse_move
from games.models import Game, Player
from games.services import hints
from tests.games import hint_workers
from tests.games.sockets import a_legal_move, receive


@pytest.fixture
def pool(settings):
    """A fresh one-process pool for the test, stopped after it."""
    settings.HINT_PROCESSES = 1
    settings.HINT_SECONDS = 5
    hints.hint_pool()  # drop a pool of another size
    if hints._pool is not None:
        hints._pool.shutdown()
    hints._pool = None
    yield
    if hints._pool is not None:
        hints._pool.shutdown()
    hints._pool = None


@pytest.fixture
def in_thread_is_an_error(monkeypatch):
    """Fail any search in the request's thread."""

    def solve(state, **budget):
        raise AssertionError("the hint was searched in the request's thread")

    monkeypatch.setattr(hints, "solve", solve)


def practice(client, seed: str = "bench-1") -> dict:
    body = {"variant": "castile", "mode": "practice", "seed": seed}
    return client.post("/api/games/", body, "json").json()


def test_a_hint_comes_from_the_pool(join, pool, in_thread_is_an_error) -> None:
    # given Alice's practice game of a deal the solver wins quickly
    alice = join("Alice")
    game = practice(alice)

    # when she asks for a hint, with the request's thread forbidden to search
    answer = alice.get(f"/api/games/{game['id']}/hint/")

    # then a child found a move of a winning line, and the game is assisted
    assert answer.status_code == 200, answer.json()
    assert answer.json()["move"] is not None
    assert Game.objects.get(pk=game["id"]).assisted is True


def test_a_killed_child_is_answered_503_and_the_next_hint_gets_a_new_pool(
    join, pool, monkeypatch
) -> None:
    # given the child dies while searching Alice's hint
    alice = join("Alice")
    game = practice(alice)
    monkeypatch.setattr(hintworker, "search", hint_workers.die)

    # when she asks, then asks again once children work again
    broken = alice.get(f"/api/games/{game['id']}/hint/")
    monkeypatch.setattr(hintworker, "search", hint_workers.deal_hint)
    again = alice.get(f"/api/games/{game['id']}/hint/")

    # then the first is a clear, retryable refusal that assists nothing; the second is served
    assert broken.status_code == 503
    assert broken.json()["error"] == "unavailable"
    assert broken.headers["Retry-After"] == "1"
    assert (again.status_code, again.json()["move"]) == (200, hint_workers.DEAL)
    assert Game.objects.get(pk=game["id"]).assisted is True


def test_a_search_past_the_wait_goes_on_and_answers_the_next_ask(
    join, pool, settings, monkeypatch, tmp_path
) -> None:
    # given a child that answers only once released, and a tiny wait for the request
    settings.HINT_SECONDS = 0.01
    alice = join("Alice")
    game = practice(alice)
    wait = functools.partial(hint_workers.wait_for_release, str(tmp_path))
    monkeypatch.setattr(hintworker, "search", wait)

    # when she asks, the search is released, and she asks again (waiting long enough)
    try:
        first = alice.get(f"/api/games/{game['id']}/hint/")
        assisted = Game.objects.get(pk=game["id"]).assisted
    finally:
        (tmp_path / "release").touch()
    settings.HINT_SECONDS = 5
    second = alice.get(f"/api/games/{game['id']}/hint/")

    # then she is first told the search goes on, unassisted; then given its answer, which
    # came from that one search
    assert first.status_code == 200
    assert first.json() == {
        "move": None,
        "detail": "The search for a winning line goes on: ask again in a moment for its answer.",
    }
    assert assisted is False
    assert (second.status_code, second.json()["move"]) == (200, hint_workers.DEAL)
    assert len((tmp_path / "searches").read_text().split()) == 1
    assert Game.objects.get(pk=game["id"]).assisted is True


def test_without_processes_the_hint_is_searched_in_the_thread(join, pool, monkeypatch) -> None:
    # given a machine where no child process can be started
    def cannot_start(self):
        raise OSError("no processes here")

    monkeypatch.setattr(hints.HintPool, "_current", cannot_start)
    monkeypatch.setattr(hints, "_processes_unavailable", False)
    monkeypatch.setattr(
        hints,
        "solve",
        lambda state, **budget: SolveResult("won", [parse_move(hint_workers.DEAL)], 1, 0.0),
    )
    alice = join("Alice")
    game = practice(alice)

    # when she asks, twice
    first = alice.get(f"/api/games/{game['id']}/hint/")
    second = alice.get(f"/api/games/{game['id']}/hint/")

    # then both are searched in the thread, the pool not tried again
    assert [first.json()["move"], second.json()["move"]] == [hint_workers.DEAL] * 2
    assert hints._processes_unavailable is True


# --- the event loop while a child searches ---------------------------------------------------


def _ask_hint(game_id: str, token: str) -> Any:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    try:
        return client.get(f"/api/games/{game_id}/hint/")
    finally:
        connections.close_all()  # this thread's, before it goes back to the executor


def ask_hint(game_id: str, token: str) -> asyncio.Future:
    """Start a hint request in a thread of its own, as the server runs a request's view."""
    return asyncio.ensure_future(sync_to_async(_ask_hint, thread_sensitive=False)(game_id, token))


async def until_started(folder: Path) -> None:
    """Return once the child has begun the search (it writes ``started``)."""
    for _ in range(2000):
        if (folder / "started").exists():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the child never started the search")


@pytest.fixture
def held_search(pool, monkeypatch, tmp_path):
    """Make every search wait in the child until ``tmp_path / "release"`` exists."""
    wait = functools.partial(hint_workers.wait_for_release, str(tmp_path))
    monkeypatch.setattr(hintworker, "search", wait)
    yield tmp_path
    (tmp_path / "release").touch()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_is_answered_while_a_hint_is_searched(
    ws_connect: Any, game: Game, alice: tuple[Player, str], held_search: Path
) -> None:
    # given Alice's socket on her game, and her hint being searched by a child
    socket = await ws_connect(f"/ws/games/{game.pk}/?token={alice[1]}")
    await receive(socket)
    hint = ask_hint(game.pk, alice[1])
    await until_started(held_search)

    # when she plays a move on the socket
    await socket.send_json_to({"ply": 0, "move": await a_legal_move(game.pk)})
    played = await receive(socket)

    # then the move is answered while the hint is still being searched
    assert played["type"] == "game" and played["game"]["ply"] == 1
    assert not hint.done()
    (held_search / "release").touch()
    assert (await hint).status_code == 200
    assert (await database_sync_to_async(Game.objects.get)(pk=game.pk)).assisted is True


@pytest.mark.django_db(transaction=True)
async def test_a_saturated_pool_answers_429_at_once(
    ws_connect: Any, game: Game, alice: tuple[Player, str], held_search: Path
) -> None:
    # given the pool's only child busy with Alice's first hint
    other = await database_sync_to_async(services.game_start)(
        player=alice[0], variant="castile", mode="practice"
    )
    first = ask_hint(game.pk, alice[1])
    await until_started(held_search)

    # when she asks for a hint in another game (in this one she would wait for that search)
    second = await ask_hint(other[0].pk, alice[1])

    # then the second is refused as busy, with when to retry, while the first is still searched
    assert (second.status_code, second.json()["error"]) == (429, "rate_limited")
    assert second.headers["Retry-After"] == "5"
    assert not first.done()
    (held_search / "release").touch()
    assert (await first).status_code == 200
    assert os.getpid() != int((held_search / "started").read_text())


def test_a_pool_that_broke_between_two_hints_is_replaced_before_the_search(
    join, pool, monkeypatch
) -> None:
    # given the pool's child died while it was idle: the next submission finds the pool broken
    real_submit = ProcessPoolExecutor.submit
    refused: list[int] = []

    def broken_once(self, *args, **kwargs):
        if not refused:
            refused.append(1)
            raise BrokenProcessPool("a child process terminated abruptly")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", broken_once)
    monkeypatch.setattr(hintworker, "search", hint_workers.deal_hint)
    alice = join("Alice")
    game = practice(alice)

    # when she asks for a hint
    answer = alice.get(f"/api/games/{game['id']}/hint/")

    # then a new pool searched it
    assert refused == [1]
    assert (answer.status_code, answer.json()["move"]) == (200, hint_workers.DEAL)


def test_a_worker_starts_its_hint_processes_as_it_loads() -> None:
    # given a fresh interpreter, as a worker starts
    probe = (
        "import config.asgi; from games.services import hints; "
        "print(len(hints._pool._executor._processes))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "HINT_PROCESSES": "2"}

    # when it loads the application
    started = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )

    # then both hint processes are started, before any hint
    assert started.returncode == 0, started.stderr
    assert started.stdout.split() == ["2"]


def test_the_first_hint_of_a_warm_pool_is_found_within_its_budget(join, pool, settings) -> None:
    # given a pool started with the worker, its child ready
    settings.HINT_SECONDS = 1
    hints.warm_hint_pool()
    executor = hints._pool._executor
    assert executor is not None and len(executor._processes) == 1
    assert hints._pool.run(hintworker.ready, wait_seconds=30) is True
    alice = join("Alice")
    game = practice(alice)

    # when Alice asks her first hint
    answer = alice.get(f"/api/games/{game['id']}/hint/")

    # then the started child found it within the second a hint may take
    assert answer.json()["move"] is not None
    assert hints._pool._executor is executor and len(executor._processes) == 1
