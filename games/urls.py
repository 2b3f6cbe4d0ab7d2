"""The games' REST routes of docs/api.md, mounted at ``/api/`` (``config.urls``) after the
leaderboards' own; unknown paths below ``/api/`` answer a JSON 404 here."""

from django.urls import path, re_path

from games.api import views

GAME = r"^games/(?P<game_id>[A-Za-z0-9_-]{1,64})/"

urlpatterns = [
    path("auth/csrf/", views.CsrfView.as_view(), name="api-csrf"),
    path("auth/guest/", views.GuestView.as_view(), name="api-guest"),
    path("auth/register/", views.RegisterView.as_view(), name="api-register"),
    path("auth/login/", views.LoginView.as_view(), name="api-login"),
    path("auth/logout/", views.LogoutView.as_view(), name="api-logout"),
    path("me/", views.MeView.as_view(), name="api-me"),
    path("me/games/", views.MyGamesView.as_view(), name="api-me-games"),
    path("me/password/", views.MePasswordView.as_view(), name="api-me-password"),
    path("me/tokens/", views.MeTokensView.as_view(), name="api-me-tokens"),
    path("me/tokens/<int:token_id>/", views.MeTokenView.as_view(), name="api-me-token"),
    path("me/export/", views.MeExportView.as_view(), name="api-me-export"),
    path("variants/", views.VariantListView.as_view(), name="api-variants"),
    path("variants/<slug:slug>/", views.VariantDetailView.as_view(), name="api-variant"),
    path("daily/", views.DailyListView.as_view(), name="api-daily"),
    path("daily/<slug:slug>/", views.DailyHistoryView.as_view(), name="api-daily-history"),
    path("daily/<slug:slug>/<str:date>/", views.DailyDetailView.as_view(), name="api-daily-day"),
    path("games/", views.GameListView.as_view(), name="api-games"),
    re_path(GAME + r"$", views.GameDetailView.as_view(), name="api-game"),
    re_path(GAME + r"moves/$", views.GameMoveView.as_view(), name="api-game-moves"),
    re_path(GAME + r"resign/$", views.GameResignView.as_view(), name="api-game-resign"),
    re_path(GAME + r"replay/$", views.GameReplayView.as_view(), name="api-game-replay"),
    re_path(
        GAME + r"replay/positions/$",
        views.GameReplayPositionsView.as_view(),
        name="api-game-replay-positions",
    ),
    re_path(GAME + r"hint/$", views.GameHintView.as_view(), name="api-game-hint"),
    re_path(r"", views.NotFoundView.as_view(), name="api-not-found"),
]
