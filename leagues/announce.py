"""What a league's sockets are told when its members change, sent after the commit.

Group ``league.<id>`` holds the league's sockets (``leagues.consumers``). ``members_changed``
sends ``{"type": "league.members", "removed": player id or None, "closed": bool}``: a socket of
the removed player (or every socket, when the league is closed) loses access; the others read
their board again. A channel-layer failure is logged and never fails the write.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from core import metrics

logger = logging.getLogger(__name__)


def league_group(league_id: int) -> str:
    return f"league.{league_id}"


def _send(league_id: int, message: dict[str, object]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(league_group(league_id), message)
    except Exception:  # the write is committed; a lost notice must not undo it
        metrics.CHANNEL_LAYER_FAILURES.labels(what="league_members").inc()
        logger.exception("could not tell league %s its members changed", league_id)


def members_changed(*, league_id: int, removed: int | None = None, closed: bool = False) -> None:
    """Tell the league's sockets, once the current transaction commits, that its members changed
    (``removed``: the player who left or was removed; ``closed``: the league was closed)."""
    message = {"type": "league.members", "removed": removed, "closed": closed}
    transaction.on_commit(lambda: _send(league_id, message))
