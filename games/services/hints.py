"""Hints: the next move of a winning line from a player's position, found by the solver.

The solver sees the whole position (face-down cards included), but a hint names only a move
the player can send. The first hint given marks the game ``assisted`` for good: assisted
results rank after every unassisted one.

A game keeps one winning line (``Game.hint_line`` from ``Game.hint_ply``): while the moves
played since are that line's first moves, the next hint is the line's next move, given at once
without a search, so hints followed one after another win. A daily game starts from the line
that certified its deal (``Deal.solution``). A search is made only when the player has left the
line (or there is none yet); it never takes the last move back nor comes back to a position the
game has been in (``solve``'s ``avoid`` and ``after``), and its line becomes the game's.

The search runs in a small pool of child processes (``HINT_PROCESSES`` in each worker, started
with ``spawn`` with the worker: :func:`warm_hint_pool`), so a hint's CPU never holds the
worker's interpreter while its sockets and requests wait. The request's thread waits at most
``HINT_SECONDS`` plus :data:`DEADLINE_MARGIN_SECONDS`; the search itself may go on up to
``HINT_SEARCH_SECONDS``, and the player who asks again at that position meanwhile waits for the
same search, never a new one. A pool with every process busy answers 429 ``rate_limited`` with
``Retry-After`` at once rather than queueing; a child that dies is replaced by a new pool and
its request answered 503 ``unavailable``. ``HINT_PROCESSES=0``, or a machine where no process
can be started, searches in the request's thread instead (within ``HINT_SECONDS``), one hint at
a time per process.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from core import metrics
from core.errors import ErrorCode, ServiceError
from games import hintworker, positions, selectors
from games.documents import canonical
from games.engine import (
    AnyMove,
    IllegalMove,
    MalformedMove,
    ReplayError,
    State,
    apply_move,
    parse_move,
    solve,
)
from games.models import Game, Move, Player
from games.services.games import (
    BANNED_DETAIL,
    DAMAGED_DETAIL,
    game_close_if_expired,
    game_over_error,
)

logger = logging.getLogger(__name__)

# What the request waits beyond ``HINT_SECONDS``: the answer's way back.
DEADLINE_MARGIN_SECONDS = 0.5
# Searches this process keeps for the player to ask again about, finished or not.
KEPT_SEARCHES = 64

# Marked for the catalogue here, translated where they are raised.
BUSY_DETAIL = gettext_noop("Hints are busy; ask again in a moment.")
BROKEN_DETAIL = gettext_noop("The hint search stopped unexpectedly; ask again in a moment.")
LINE_DETAIL = gettext_noop("The next move of a winning line.")
GOES_ON_DETAIL = gettext_noop(
    "The search for a winning line goes on: ask again in a moment for its answer."
)
NOT_FOUND_DETAIL = gettext_noop("No winning line was found in the time a hint may take.")
LOST_DETAIL = gettext_noop("No winning line is left from this position.")
NO_WAY_ON_DETAIL = gettext_noop(
    "No winning line goes on from here without taking back a move or coming back to a "
    "position of this game."
)

_one_at_a_time = threading.Semaphore(1)


class PoolBusy(Exception):
    """Every process of the pool is searching."""


class PoolUnavailable(Exception):
    """No child process can be started on this machine."""


class HintPool:
    """A process pool of ``processes`` children that takes at most one search per child."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(processes)
        self._executor: ProcessPoolExecutor | None = None

    def _current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=hintworker.watch_parent,
                )
            return self._executor

    def _discard(self, executor: ProcessPoolExecutor) -> None:
        """Drop ``executor`` if it is still the current one; the next search starts a new pool."""
        with self._lock:
            if self._executor is executor:
                self._executor = None
        executor.shutdown(wait=False, cancel_futures=True)

    def _submit(self, task: Any, *args: Any) -> tuple[ProcessPoolExecutor, Future[Any]]:
        """Submit ``task`` to the current pool, to a new one if that one is broken or shut."""
        for attempt in range(2):
            try:
                executor = self._current()
            except (OSError, NotImplementedError, ImportError) as error:  # no semaphores
                raise PoolUnavailable(str(error)) from error
            try:
                return executor, executor.submit(task, *args)
            except BrokenProcessPool:  # a child died between two hints
                self._discard(executor)
                if attempt:
                    raise
            except (OSError, NotImplementedError) as error:  # no process can be started
                self._discard(executor)
                raise PoolUnavailable(str(error)) from error
            except RuntimeError:  # shut down by another thread since _current returned it
                self._discard(executor)
                if attempt:
                    raise BrokenProcessPool("the hint pool was shut down") from None
        raise AssertionError("unreachable")

    def submit(self, task: Any, *args: Any) -> Future[Any]:
        """Start ``task(*args)`` in a child and return its future.

        Raise :class:`PoolBusy` when every child is searching, :class:`PoolUnavailable` when no
        child can be started, and ``BrokenProcessPool`` when the pool cannot take it.
        """
        if not self._slots.acquire(blocking=False):
            raise PoolBusy
        try:
            executor, future = self._submit(task, *args)
        except BaseException:
            self._slots.release()
            raise
        # The slot is held until the child is done, even if the request stops waiting first.
        future.add_done_callback(lambda _: self._slots.release())
        future.add_done_callback(lambda done: self._discard_if_broken(executor, done))
        return future

    def _discard_if_broken(self, executor: ProcessPoolExecutor, future: Future[Any]) -> None:
        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            self._discard(executor)

    def run(self, task: Any, *args: Any, wait_seconds: float) -> Any:
        """Return ``task(*args)`` computed in a child, or None if it takes over ``wait_seconds``;
        raise as :meth:`submit` does, and ``BrokenProcessPool`` when the child died (the pool
        is then replaced for the next search)."""
        future = self.submit(task, *args)
        try:
            return future.result(timeout=wait_seconds)
        except FutureTimeout:
            return None

    def warm(self) -> None:
        """Start every child now, so that the first hint finds them ready."""
        executor = self._current()
        for _ in range(self.processes):
            executor.submit(hintworker.ready)

    def shutdown(self) -> None:
        """Stop the children (used when the settings change the pool's size)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


_pool: HintPool | None = None
_pool_lock = threading.Lock()
_processes_unavailable = False

# The searches of this process by (game, ply): a ply names the whole log before it (moves are
# only appended), so a player asking again at one position gets the search already made.
_searches: OrderedDict[tuple[str, int], Future[Any]] = OrderedDict()
_searches_lock = threading.Lock()


def hint_pool() -> HintPool | None:
    """Return this process's hint pool, made on first use; None to search in the thread."""
    global _pool
    processes = int(getattr(settings, "HINT_PROCESSES", 1))
    if processes <= 0 or _processes_unavailable:
        return None
    with _pool_lock:
        if _pool is None or _pool.processes != processes or _pool.pid != os.getpid():
            if _pool is not None and _pool.pid == os.getpid():
                _pool.shutdown()
            _pool = HintPool(processes)
        return _pool


def warm_hint_pool() -> None:
    """Start this process's hint children now (a worker calls it as it starts), so that no
    player's first hint waits for a child to start and import the engine."""
    global _processes_unavailable
    pool = hint_pool()
    if pool is None:
        return
    try:
        pool.warm()
    except (OSError, NotImplementedError, ImportError, RuntimeError) as error:
        logger.warning("hint processes cannot be started (%s); searching in-thread", error)
        _processes_unavailable = True


def search_seconds() -> float:
    """Return how long a search in the pool may go on: ``HINT_SEARCH_SECONDS``, at least the
    request's own wait."""
    return max(settings.HINT_SECONDS, getattr(settings, "HINT_SEARCH_SECONDS", 0))


def _search_in_thread(payload: dict[str, Any]) -> dict[str, Any]:
    if not _one_at_a_time.acquire(timeout=settings.HINT_SECONDS):
        raise _busy()
    metrics.HINT_SEARCHES.labels(outcome="ran").inc()
    try:
        played, last = hintworker.history(payload)
        # A wall clock: the player waits, and CPU time would count every thread of the server.
        result = solve(
            played[-1],
            budget_seconds=settings.HINT_SECONDS,
            clock=time.monotonic,
            avoid=played,
            after=last,
        )
    finally:
        _one_at_a_time.release()
    return hintworker.answer(result)


def _busy() -> ServiceError:
    metrics.HINT_SEARCHES.labels(outcome="refused").inc()
    return ServiceError(
        ErrorCode.RATE_LIMITED,
        gettext(BUSY_DETAIL),
        retry_after=max(1, math.ceil(settings.HINT_SECONDS)),
    )


def _search_started(key: tuple[str, int], pool: HintPool, payload: dict[str, Any]) -> Future[Any]:
    """Return the search of ``key`` this process has made or is making, else start it."""
    with _searches_lock:
        future = _searches.get(key)
        if future is None:
            future = _searches[key] = pool.submit(hintworker.search, payload, search_seconds())
            metrics.HINT_SEARCHES.labels(outcome="ran").inc()
            while len(_searches) > KEPT_SEARCHES:
                _searches.popitem(last=False)
        return future


def _forget(key: tuple[str, int], future: Future[Any]) -> None:
    with _searches_lock:
        if _searches.get(key) is future:
            del _searches[key]


def _search(game: Game, log: list[Any], state: State) -> dict[str, Any]:
    """Return ``{"outcome", "line"}`` for ``game`` at its ply, searched in the pool when there
    is one; ``outcome`` is ``"searching"`` while the pool's search goes on."""
    global _processes_unavailable
    payload = hintworker.game_payload(canonical(state.variant.document), game.seed, log)
    pool = hint_pool()
    if pool is None:
        return _search_in_thread(payload)
    key = (game.pk, game.ply)
    try:
        future = _search_started(key, pool, payload)
    except PoolBusy:
        raise _busy() from None
    except PoolUnavailable as error:
        logger.warning("hint processes cannot be started (%s); searching in-thread", error)
        _processes_unavailable = True
        return _search_in_thread(payload)
    except BrokenProcessPool:
        logger.error("the hint pool cannot take a search; it is replaced")
        raise ServiceError(ErrorCode.UNAVAILABLE, gettext(BROKEN_DETAIL), retry_after=1) from None
    try:
        answer: dict[str, Any] = future.result(
            timeout=settings.HINT_SECONDS + DEADLINE_MARGIN_SECONDS
        )
    except FutureTimeout:
        return {"outcome": "searching", "line": None}
    except BrokenProcessPool:
        _forget(key, future)
        logger.error("a hint process died; the pool is replaced")
        raise ServiceError(ErrorCode.UNAVAILABLE, gettext(BROKEN_DETAIL), retry_after=1) from None
    _forget(key, future)
    return answer


def _moves(raw: Any) -> list[AnyMove] | None:
    """Return a stored list of MOVE objects as moves, or None if it is not one."""
    if not isinstance(raw, list):
        return None
    try:
        return [parse_move(move) for move in raw]
    except MalformedMove:
        return None


def _line_move(game: Game, played: list[AnyMove], state: State) -> AnyMove | None:
    """Return the next move of the game's winning line if the player has kept to it since it
    was found (for a daily, else of the line that certified its deal), and it is legal here."""
    lines = [(game.hint_line, game.hint_ply)]
    if game.deal is not None and game.deal.certified:
        lines.append((game.deal.solution, 0))
    for raw, start in lines:
        line = _moves(raw)
        if line is None or start is None or start > game.ply:
            continue
        since = played[start:]
        if len(since) < len(line) and since == line[: len(since)]:
            move = line[len(since)]
            try:
                apply_move(state, move)
            except IllegalMove:
                continue
            return move
    return None


def _assist(game: Game, line: list[Any] | None = None) -> None:
    """Mark the game assisted if it is still in play; keep ``line`` as its winning line from
    its ply, if it is still at that ply."""
    in_play = Game.objects.filter(pk=game.pk, status=Game.Status.PLAYING)
    if line is None or not in_play.filter(ply=game.ply).update(
        assisted=True, hint_line=line, hint_ply=game.ply
    ):
        in_play.update(assisted=True)


def _damaged(game: Game, why: str) -> ServiceError:
    logger.error("game %s: %s", game.pk, why)
    return ServiceError(ErrorCode.GAME_OVER, gettext(DAMAGED_DETAIL))


def game_hint(*, game_id: Any, player: Player) -> dict[str, Any]:
    """Return ``{"move": MOVE | None, "detail": sentence}`` for the player's game in play."""
    game = selectors.access_game(game_id, player)
    if game.player_id != player.pk:
        raise ServiceError(
            ErrorCode.FORBIDDEN, gettext("Only the game's player may ask for a hint.")
        )
    if game.mode == Game.Mode.DAILY and (
        Player.objects.filter(pk=player.pk, banned_at__isnull=False).exists()
    ):
        raise ServiceError(ErrorCode.FORBIDDEN, gettext(BANNED_DETAIL))
    game = game_close_if_expired(game=game)
    if game.is_over:
        raise game_over_error(game)
    try:
        state = positions.position(game)
    except positions.DamagedGame as damage:
        raise _damaged(game, str(damage)) from None
    log = list(Move.objects.filter(game_id=game.pk).order_by("ply").values_list("move", flat=True))
    played = _moves(log)
    if played is None or len(played) != game.ply:
        raise _damaged(game, f"its log of {len(log)} moves does not read at ply {game.ply}")
    move = _line_move(game, played, state)
    if move is not None:
        _assist(game)
        return {"move": move.to_json(), "detail": gettext(LINE_DETAIL)}
    try:
        answer = _search(game, log, state)
    except ReplayError as error:
        raise _damaged(game, f"its log does not replay: {error}") from None
    if not answer["line"] and answer["outcome"] != "lost":
        metrics.HINT_SEARCHES.labels(outcome="timed_out").inc()
    if answer["line"]:
        _assist(game, answer["line"])
        return {"move": answer["line"][0], "detail": gettext(LINE_DETAIL)}
    if answer["outcome"] == "searching":
        return {"move": None, "detail": gettext(GOES_ON_DETAIL)}
    if answer["outcome"] == "lost":
        # From the deal, the search kept to nothing: its end proves that no line wins.
        lost = LOST_DETAIL if game.ply == 0 else NO_WAY_ON_DETAIL
        return {"move": None, "detail": gettext(lost)}
    return {"move": None, "detail": gettext(NOT_FOUND_DETAIL)}
