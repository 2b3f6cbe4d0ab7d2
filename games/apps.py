"""Configuration of the games app."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Players, variants, daily deals and the games played on them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import checks  # noqa: F401  (registers the system checks)
