"""WebSocket URL patterns: each app's routes, then the catch-all (``not_found``, 4404)."""

from django.urls import URLPattern

from games.ws import routing as games_routing
from leaderboards import routing as leaderboards_routing
from leagues import routing as leagues_routing

websocket_urlpatterns: list[URLPattern] = [
    *games_routing.websocket_urlpatterns,
    *leaderboards_routing.websocket_urlpatterns,
    *leagues_routing.websocket_urlpatterns,
    *games_routing.catch_all_urlpatterns,
]
