"""Configuration of the leaderboards app."""

from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    """Rankings of verified games on each daily deal."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "leaderboards"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from games.signals import game_changed, move_played
        from leaderboards import changes, live, receivers  # noqa: F401  (live listens to changes)

        game_changed.connect(changes.record_game, dispatch_uid="leaderboards.changes.record_game")
        move_played.connect(changes.arecord_move, dispatch_uid="leaderboards.changes.arecord_move")
        receivers.connect()
