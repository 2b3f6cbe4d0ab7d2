"""Configuration of the leagues app."""

from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Private groups of players who compare their daily results on their own boards."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues"
    verbose_name = "Leagues"

    def ready(self) -> None:
        from leagues import checks  # noqa: F401  (registers the system checks)
