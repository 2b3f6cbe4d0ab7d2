"""WebSocket URL patterns.

``config.asgi`` routes every WebSocket connection through this list. The apps add their consumers
here (for example ``re_path(r"^ws/games/(?P<game_id>[^/]+)/$", GameConsumer.as_asgi())``); it
starts empty.
"""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
