"""System checks of the leagues app (``manage.py check``).

- ``leagues.E001``: ``LEAGUES_PER_PLAYER`` or ``LEAGUE_MEMBERS`` is not a whole number of at
  least 1 (no one could make or join a league).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

LIMITS = ("LEAGUES_PER_PLAYER", "LEAGUE_MEMBERS")


@checks.register()
def check_league_limits(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report a league limit that is not a whole number of at least 1."""
    errors = []
    for name in LIMITS:
        value = getattr(settings, name, None)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            errors.append(
                checks.Error(
                    f"{name} is {value!r}: it must be a whole number of at least 1.",
                    hint=f"Set {name} in the environment (docs/configuration.md), or leave it "
                    "unset for its default.",
                    id="leagues.E001",
                )
            )
    return errors
