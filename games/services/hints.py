"""Hints: the next move of a winning line from a player's position, found by the solver.

The solver sees the whole position (face-down cards included), but a hint names only a move
the player can send. The first hint given marks the game ``assisted`` for good: assisted
results rank after every unassisted one.

The search runs in a small pool of child processes (``HINT_PROCESSES``, started lazily in each
worker with ``spawn``), so a hint's second of CPU never holds the worker's interpreter while
its sockets and requests wait. The request's thread only waits, at most ``HINT_SECONDS`` plus
:data:`DEADLINE_MARGIN_SECONDS`. A pool with every process busy answers 429 ``rate_limited``
with ``Retry-After`` at once rather than queueing; a child that dies is replaced by a new pool
and its request answered 503 ``unavailable``. ``HINT_PROCESSES=0``, or a machine where no process
can be started, searches in the request's thread instead, one hint at a time per process.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_noop

from core.errors import ErrorCode, ServiceError
from games import hintworker, positions, selectors
from games.documents import canonical
from games.engine import State, solve
from games.models import Game, Player
from games.services.games import BANNED_DETAIL, game_close_if_expired, game_over_error

logger = logging.getLogger(__name__)

# What the request waits beyond the search's own budget: a child's start (the first hint of a
# pool) and the answer's way back.
DEADLINE_MARGIN_SECONDS = 0.5

# Marked for the catalogue here, translated where they are raised.
BUSY_DETAIL = gettext_noop("Hints are busy; ask again in a moment.")
BROKEN_DETAIL = gettext_noop("The hint search stopped unexpectedly; ask again in a moment.")

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
                    max_workers=self.processes, mp_context=multiprocessing.get_context("spawn")
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

    def run(self, task: Any, *args: Any, wait_seconds: float) -> Any:
        """Return ``task(*args)`` computed in a child, or None if it takes over ``wait_seconds``.

        Raise :class:`PoolBusy` when every child is searching, :class:`PoolUnavailable` when no
        child can be started, and ``BrokenProcessPool`` when the child died (the pool is then
        replaced for the next search).
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
        try:
            return future.result(timeout=wait_seconds)
        except FutureTimeout:
            return None
        except BrokenProcessPool:
            self._discard(executor)
            raise

    def shutdown(self) -> None:
        """Stop the children (used when the settings change the pool's size)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


_pool: HintPool | None = None
_pool_lock = threading.Lock()
_processes_unavailable = False


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


def _search_in_thread(state: State) -> dict[str, Any]:
    if not _one_at_a_time.acquire(timeout=settings.HINT_SECONDS):
        raise _busy()
    try:
        # A wall clock: the player waits, and CPU time would count every thread of the server.
        result = solve(state, budget_seconds=settings.HINT_SECONDS, clock=time.monotonic)
    finally:
        _one_at_a_time.release()
    move = result.line[0].to_json() if result.outcome == "won" and result.line else None
    return {"outcome": result.outcome, "move": move}


def _busy() -> ServiceError:
    return ServiceError(
        ErrorCode.RATE_LIMITED,
        gettext(BUSY_DETAIL),
        retry_after=max(1, math.ceil(settings.HINT_SECONDS)),
    )


def _search(state: State) -> dict[str, Any]:
    """Return ``{"outcome", "move"}`` for ``state``, searched in the pool when there is one."""
    global _processes_unavailable
    pool = hint_pool()
    if pool is None:
        return _search_in_thread(state)
    payload = hintworker.position_payload(state, canonical(state.variant.document))
    try:
        answer = pool.run(
            hintworker.search,
            payload,
            settings.HINT_SECONDS,
            wait_seconds=settings.HINT_SECONDS + DEADLINE_MARGIN_SECONDS,
        )
    except PoolBusy:
        raise _busy() from None
    except PoolUnavailable as error:
        logger.warning("hint processes cannot be started (%s); searching in-thread", error)
        _processes_unavailable = True
        return _search_in_thread(state)
    except BrokenProcessPool:
        logger.error("a hint process died; the pool is replaced")
        raise ServiceError(ErrorCode.UNAVAILABLE, gettext(BROKEN_DETAIL), retry_after=1) from None
    return answer if answer is not None else {"outcome": "unknown", "move": None}


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
    answer = _search(positions.position(game))
    if answer["move"] is not None:
        # Only a game still in play becomes assisted; a hint is given once it is marked.
        Game.objects.filter(pk=game.pk, status=Game.Status.PLAYING).update(assisted=True)
        return {"move": answer["move"], "detail": gettext("The next move of a winning line.")}
    if answer["outcome"] == "lost":
        return {"move": None, "detail": gettext("No winning line is left from this position.")}
    return {
        "move": None,
        "detail": gettext("No winning line was found in the time a hint may take."),
    }
