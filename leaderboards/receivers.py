"""Receivers of the games app's signals (connected in ``LeaderboardsConfig.ready()``)."""

from __future__ import annotations

import logging
from typing import Any

from leaderboards import services

logger = logging.getLogger(__name__)


def on_result_verified(sender: Any, *, result: Any, **kwargs: Any) -> None:
    """Rank a new verified result and count it in its player's stats."""
    try:
        services.result_record(result=result)
    except Exception:  # the result is committed: a failure here must not fail the request
        logger.exception("could not record the result of game %s", result.game_id)


def connect() -> None:
    """Connect the receivers of this module."""
    from games.signals import result_verified

    result_verified.connect(on_result_verified, dispatch_uid="leaderboards.result_verified")
