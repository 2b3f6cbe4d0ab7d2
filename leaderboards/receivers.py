"""Receivers of the games app's signals (connected in ``LeaderboardsConfig.ready()``)."""

from __future__ import annotations

import logging
from typing import Any

from games.signals import (
    player_banned,
    player_deleted,
    player_unbanned,
    result_verified,
    result_voided,
)
from leaderboards import services

logger = logging.getLogger(__name__)


def on_result_verified(sender: Any, *, result: Any, **kwargs: Any) -> None:
    """Rank a new verified result and count it in its player's stats."""
    try:
        services.result_record(result=result)
    except Exception:  # the result is committed: a failure here must not fail the request
        logger.exception("could not record the result of game %s", result.game_id)


def on_result_voided(sender: Any, *, result: Any, **kwargs: Any) -> None:
    """Take a voided result off its board and out of its player's stats."""
    try:
        services.result_withdraw(result=result)
    except Exception:  # the void is committed; boards read from PostgreSQL leave it out
        logger.exception("could not withdraw the voided result of game %s", result.game_id)


def on_player_banned(sender: Any, *, player: Any, **kwargs: Any) -> None:
    """Take a banned player's results off every board."""
    try:
        services.player_withdraw(player=player)
    except Exception:  # the ban is committed; boards read from PostgreSQL leave them out
        logger.exception("could not withdraw the results of banned player %s", player.pk)


def on_player_unbanned(sender: Any, *, player: Any, **kwargs: Any) -> None:
    """Rank an unbanned player's results again."""
    try:
        services.player_restore(player=player)
    except Exception:  # the boards' counts no longer match: their next reads rebuild them
        logger.exception("could not restore the results of player %s", player.pk)


def on_player_deleted(sender: Any, *, player: Any, deal_ids: list[int], **kwargs: Any) -> None:
    """Show a deleted player's results under their anonymous nickname on every board."""
    try:
        services.player_renamed(deal_ids=deal_ids)
    except Exception:  # the deletion is committed; a board left in Redis expires
        logger.exception("could not rename the results of deleted player %s", player.pk)


def connect() -> None:
    """Connect the receivers of this module."""
    result_verified.connect(on_result_verified, dispatch_uid="leaderboards.result_verified")
    result_voided.connect(on_result_voided, dispatch_uid="leaderboards.result_voided")
    player_banned.connect(on_player_banned, dispatch_uid="leaderboards.player_banned")
    player_unbanned.connect(on_player_unbanned, dispatch_uid="leaderboards.player_unbanned")
    player_deleted.connect(on_player_deleted, dispatch_uid="leaderboards.player_deleted")
