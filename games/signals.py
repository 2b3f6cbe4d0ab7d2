"""The signals the games app sends. It does not know who listens (``leaderboards`` does).

Each is sent only after the transaction that caused them has committed, in the thread that
committed: receivers (connected in their app's ``AppConfig.ready()``) must be cheap and never
raise. ``games`` never imports the apps that listen.

- ``game_changed``: a game has a new state (a start, a move, a resignation, a close at the end
  of its day); sent with ``game=<Game>`` (with ``send_robust``).
- ``move_played``: an ordinary move of a game socket was written on the event loop
  (``games.services.batches``): no result, no finish. Sent with ``game=<Game>`` by ``asend``
  on the loop, once the move is durable; its receivers are coroutines that must not block.
  Such a move does not send ``game_changed``.
- ``result_verified``: a daily game has finished and verification has sealed its result; sent
  with ``result=<Result>``.
- ``result_voided``: a moderator voided a result; sent with ``result=<Result>`` (its void
  columns set). It must leave its deal's board and its player's stats.
- ``player_banned``: a moderator banned a player from the daily challenges; sent with
  ``player=<Player>``. Every result of theirs must leave every board.
- ``player_unbanned``: the ban was lifted; sent with ``player=<Player>``. Their sealed results
  rank again.
- ``player_deleted``: a player deleted their account; sent with ``player=<Player>`` (already
  anonymised) and ``deal_ids``, the deals they have results on. Those results stay, ranked as
  before, under the anonymous nickname: every board that shows them must show it.
"""

import logging
from typing import Any

from django.dispatch import Signal

logger = logging.getLogger(__name__)

game_changed = Signal()
move_played = Signal()
result_verified = Signal()
result_voided = Signal()
player_banned = Signal()
player_unbanned = Signal()
player_deleted = Signal()


def send(signal: Signal, **named: Any) -> None:
    """Send ``signal`` to every receiver; log (never raise) what one of them raised."""
    for receiver, outcome in signal.send_robust(sender=None, **named):
        if isinstance(outcome, Exception):
            logger.error("a receiver of a signal failed: %r", receiver, exc_info=outcome)


async def asend(signal: Signal, **named: Any) -> None:
    """Send ``signal`` to its coroutine receivers on the running loop; log what one raised."""
    for receiver, outcome in await signal.asend_robust(sender=None, **named):
        if isinstance(outcome, Exception):
            logger.error("a receiver of a signal failed: %r", receiver, exc_info=outcome)
