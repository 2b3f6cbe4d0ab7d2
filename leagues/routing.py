"""WebSocket routes of the leagues app: a league's board of a deal."""

from django.urls import URLPattern, re_path

from games.ws.routing import SLUG
from leagues.consumers import LeagueConsumer

websocket_urlpatterns: list[URLPattern] = [
    re_path(
        rf"^ws/leagues/(?P<league>[0-9]{{1,18}})/(?P<slug>{SLUG})/(?P<date>[-0-9a-zA-Z]{{1,16}})/$",
        LeagueConsumer.as_asgi(),
    ),
]
