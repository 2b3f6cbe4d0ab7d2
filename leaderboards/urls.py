"""Leaderboard and player routes, mounted at ``/api/`` by ``config.urls``."""

from django.urls import path

from leaderboards import views

urlpatterns = [
    # Before the dated board: "all-time" would otherwise be read as a date (and 404).
    path(
        "leaderboards/<slug:slug>/all-time/",
        views.AllTimeView.as_view(),
        name="api-leaderboard-all-time",
    ),
    path(
        "leaderboards/<slug:slug>/<str:date>/story/",
        views.StoryView.as_view(),
        name="api-leaderboard-story",
    ),
    path(
        "leaderboards/<slug:slug>/<str:date>/",
        views.LeaderboardView.as_view(),
        name="api-leaderboard",
    ),
    path("players/<str:nickname>/", views.PlayerView.as_view(), name="api-player"),
    path(
        "players/<str:nickname>/results/",
        views.PlayerResultsView.as_view(),
        name="api-player-results",
    ),
]
