"""Configuration of the games app."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Players, variants, daily deals and the games played on them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from core import admission
        from games import checks  # noqa: F401  (registers the system checks)
        from games.services import batches
        from games.signals import game_changed
        from games.ws.pushes import push_game

        game_changed.connect(push_game, dispatch_uid="games.ws.pushes.push_game")
        # A worker whose moves wait for the database takes no newcomers (core.admission).
        admission.watch("moves waiting for the database", batches.backlog_over_limit)
