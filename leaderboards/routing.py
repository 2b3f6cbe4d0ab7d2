"""WebSocket routes of the leaderboards app: the daily deal's watchers."""

from django.urls import URLPattern, re_path

from games.ws.routing import SLUG
from leaderboards.consumers import DailyConsumer

websocket_urlpatterns: list[URLPattern] = [
    re_path(
        rf"^ws/daily/(?P<slug>{SLUG})/(?P<date>[-0-9a-zA-Z]{{1,16}})/$", DailyConsumer.as_asgi()
    ),
]
