"""League routes, mounted at ``/api/`` by ``config.urls``."""

from django.urls import path

from leagues import views

urlpatterns = [
    path("leagues/", views.LeagueListView.as_view(), name="api-leagues"),
    path("leagues/join/", views.LeagueJoinView.as_view(), name="api-league-join"),
    path(
        "leagues/ranks/<slug:slug>/<str:date>/",
        views.MyLeagueRanksView.as_view(),
        name="api-league-ranks",
    ),
    path("leagues/<str:league>/", views.LeagueDetailView.as_view(), name="api-league"),
    path("leagues/<str:league>/leave/", views.LeagueLeaveView.as_view(), name="api-league-leave"),
    path("leagues/<str:league>/code/", views.LeagueCodeView.as_view(), name="api-league-code"),
    path(
        "leagues/<str:league>/members/<str:nickname>/",
        views.LeagueMemberView.as_view(),
        name="api-league-member",
    ),
    path(
        "leagues/<str:league>/boards/<slug:slug>/<str:date>/",
        views.LeagueBoardView.as_view(),
        name="api-league-board",
    ),
    path(
        "leagues/<str:league>/standings/<slug:slug>/",
        views.LeagueStandingsView.as_view(),
        name="api-league-standings",
    ),
]
