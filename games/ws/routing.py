"""WebSocket routes of the games app, and the catch-all that ends every route list.

Path parameters match only the characters their ids may hold, so junk in a path (a NUL, a
non-ASCII byte, an empty id) never reaches a query: it falls through to ``not_found``.
"""

from django.urls import URLPattern, re_path

from games.ws.base import NotFoundConsumer
from games.ws.consumers import GameConsumer

SLUG = r"[-a-zA-Z0-9_]{1,64}"

websocket_urlpatterns: list[URLPattern] = [
    re_path(rf"^ws/games/(?P<game_id>{SLUG})/$", GameConsumer.as_asgi()),
]

# Last in any route list: accept, say ``not_found`` and close 4404.
catch_all_urlpatterns: list[URLPattern] = [re_path(r"", NotFoundConsumer.as_asgi())]
