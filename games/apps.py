"""Configuration of the games app."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Players, variants, daily deals and the games played on them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"
