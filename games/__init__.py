"""Daily Patience games: players, variants, daily deals and games.

This module imports nothing from Django, so that ``games.engine`` stays importable on its own.
"""
