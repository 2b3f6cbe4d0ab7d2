"""Live notifications over the channel layer, sent after the database commit.

Group ``game.<id>`` gets every new state of a game (for its player's other tabs); group
``daily.<slug>.<date>`` gets players' progress and the leaderboard when it changes. A channel
layer failure is logged and never undoes or fails the write that caused it.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.models import Game

logger = logging.getLogger(__name__)


def game_group(game_id: str) -> str:
    return f"game.{game_id}"


def daily_group(slug: str, date_iso: str) -> str:
    return f"daily.{slug}.{date_iso}"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the write is committed; a lost notification must not undo it
        logger.exception("could not notify %s", group)


def game_changed(game: Game) -> None:
    """Tell the game's sockets its new state, and the deal's watchers the player's progress."""
    from games.payloads import game_payload
    from leaderboards import selectors

    _send(game_group(game.pk), {"type": "game.update", "game": game_payload(game)})
    if game.deal_id is None:
        return
    assert game.deal is not None
    group = daily_group(game.variant.slug, game.deal.date.isoformat())
    progress = {
        "type": "progress",
        "player": game.player.nickname,
        "foundation_cards": game.foundation_cards,
        "ply": game.ply,
        "status": game.status,
    }
    _send(group, {"type": "daily.progress", "event": progress})
    if game.is_over:
        selectors.forget(game.deal_id)
        entries = selectors.ranked_entries(game.deal)[: selectors.LIVE_ENTRIES]
        _send(group, {"type": "daily.leaderboard", "entries": entries})
