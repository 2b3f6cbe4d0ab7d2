"""Admin pages of the games app, one module a concern; importing them registers them."""

from games.admin import catalogue, deals, games, login, players

__all__ = ["catalogue", "deals", "games", "login", "players"]
