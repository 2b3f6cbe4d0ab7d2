"""Engine positions of games in play, kept in a bounded, thread-safe cache.

A move needs the game's position with its undo chain, which the stored state (the position
alone) does not hold. So each process keeps the latest positions by (game, ply); a miss (a new
process, an evicted game) replays the game's log once; a game's socket fills it when it opens
(``warm``). ``settings.GAME_POSITION_CACHE`` sets how many positions a process keeps (default
2048).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import Any

from django.conf import settings

from games.documents import compiled
from games.engine import State, parse_seed, replay
from games.models import Game, Move

DEFAULT_LIMIT = 2048


class PositionCache:
    """A least-recently-used map of (game id, ply) to engine positions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._states: OrderedDict[tuple[str, int], State] = OrderedDict()

    def get(self, game_id: str, ply: int) -> State | None:
        key = (game_id, ply)
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, game_id: str, ply: int, state: State) -> None:
        limit = getattr(settings, "GAME_POSITION_CACHE", DEFAULT_LIMIT)
        with self._lock:
            self._states.pop((game_id, ply - 1), None)  # a game's older position is done with
            self._states[(game_id, ply)] = state
            self._states.move_to_end((game_id, ply))
            while len(self._states) > limit:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


cache = PositionCache()


class DamagedGame(Exception):
    """The game's stored log does not give the position its row claims."""


def position(game: Game) -> State:
    """Return the engine position of ``game`` at its ply, replaying its log on a cache miss."""
    state = cache.get(game.pk, game.ply)
    if state is not None:
        return state
    seed, rules = Game.objects.filter(pk=game.pk).values_list("seed", "rules").get()
    log = list(Move.objects.filter(game_id=game.pk).order_by("ply").values_list("move", flat=True))
    if len(log) != game.ply:
        raise DamagedGame(f"game {game.pk} is at ply {game.ply} but its log has {len(log)} moves")
    try:
        state = replay(compiled(rules), parse_seed(seed), log).state
    except Exception as error:  # a log that does not replay: the record is damaged
        raise DamagedGame(f"game {game.pk} does not replay: {error}") from error
    cache.put(game.pk, game.ply, state)
    return state


def warm(game: Game) -> None:
    """Cache the position of ``game`` now if it is in play, so that its next move here takes
    the one-statement path (``games.services.moves``) instead of replaying the log first.

    A game's socket calls it on opening: the socket may open in another process than the one
    that created the game or played its last move. A damaged record is left for the move to
    report.
    """
    if game.is_over:
        return
    with contextlib.suppress(DamagedGame):
        position(game)


def remember(game: Game, state: Any) -> None:
    """Keep ``state`` as the position of ``game`` at its current ply."""
    cache.put(game.pk, game.ply, state)
