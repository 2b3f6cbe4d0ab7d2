"""Hints: the next move of a winning line from a player's position, found by the solver.

The solver sees the whole position (face-down cards included), but a hint names only a move
the player can send. The first hint given marks the game ``assisted`` for good: assisted
results rank after every unassisted one. One hint is searched at a time per process, within
``HINT_SECONDS``, so hints never crowd out play.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from games import positions, selectors
from games.engine import solve
from games.errors import ErrorCode, ServiceError
from games.models import Game, Player
from games.services.games import BANNED_DETAIL, game_close_if_expired, game_over_error

_one_at_a_time = threading.Semaphore(1)


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
    state = positions.position(game)
    if not _one_at_a_time.acquire(timeout=settings.HINT_SECONDS):
        raise ServiceError(
            ErrorCode.RATE_LIMITED, gettext("Hints are busy; ask again in a moment."), retry_after=1
        )
    try:
        # A wall clock: the player waits, and CPU time would count every thread of the server.
        result = solve(state, budget_seconds=settings.HINT_SECONDS, clock=time.monotonic)
    finally:
        _one_at_a_time.release()
    if result.outcome == "won" and result.line:
        # Only a game still in play becomes assisted; a hint is given once it is marked.
        Game.objects.filter(pk=game.pk, status=Game.Status.PLAYING).update(assisted=True)
        return {
            "move": result.line[0].to_json(),
            "detail": gettext("The next move of a winning line."),
        }
    if result.outcome == "lost":
        return {"move": None, "detail": gettext("No winning line is left from this position.")}
    return {
        "move": None,
        "detail": gettext("No winning line was found in the time a hint may take."),
    }
