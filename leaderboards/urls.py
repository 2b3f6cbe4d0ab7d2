"""Leaderboard routes, included by the API URLconf (``games.urls``)."""

from django.urls import path

from leaderboards.views import LeaderboardView

urlpatterns = [
    path("leaderboards/<slug:slug>/<str:date>/", LeaderboardView.as_view(), name="api-leaderboard"),
]
