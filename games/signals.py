"""The signals the games app sends. It does not know who listens (``leaderboards`` does).

Both are sent only after the transaction that caused them has committed.

- ``game_changed``: a game has a new state (a move, a resign, a close at the end of its day);
  sent with ``game=<Game>``.
- ``result_verified``: a daily game has finished and verification has sealed its result; sent
  with ``result=<Result>``.
"""

from django.dispatch import Signal

game_changed = Signal()
result_verified = Signal()
