"""WebSocket URL patterns.

``config.asgi`` routes every WebSocket connection through this list (see ``games.consumers`` for
the messages and close codes).
"""

from django.urls import URLPattern, re_path

from games.consumers import DailyConsumer, GameConsumer

websocket_urlpatterns: list[URLPattern] = [
    re_path(r"^ws/games/(?P<game_id>[^/]+)/$", GameConsumer.as_asgi()),
    re_path(r"^ws/daily/(?P<slug>[^/]+)/(?P<date>[^/]+)/$", DailyConsumer.as_asgi()),
]
