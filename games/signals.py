"""Signals of the games app.

``game_changed`` is sent, with ``game=``, after the commit of every new state of a game (a
start, a move, a resignation, a close at the end of its day). Apps that keep something fresh from
games (the live side of ``leaderboards``) connect to it in their ``AppConfig.ready()``; ``games``
never imports them. Receivers run in the thread that committed: keep them cheap and let them never
raise (the signal is sent with ``send_robust``).
"""

from django.dispatch import Signal

game_changed = Signal()
