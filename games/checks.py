"""System checks of the games app: misconfiguration reported by ``manage.py check``.

- ``games.E001``: ``DEAL_SECRET`` is missing (no daily deal could be dealt or verified).
- ``games.E002``: a throttle of the API names a scope that has no rate, or a rate that does
  not read as ``<number>/<second|minute|hour|day>``.
- ``games.E003``: a rules document shipped with the engine does not compile.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core import checks

RATE = re.compile(r"[1-9][0-9]*/(s|sec|seconds?|m|min|minutes?|h|hour|hours|d|day|days)")


@checks.register(checks.Tags.security)
def check_deal_secret(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report a missing ``DEAL_SECRET``."""
    if getattr(settings, "DEAL_SECRET", ""):
        return []
    return [
        checks.Error(
            "DEAL_SECRET is not set: no daily deal can be dealt or verified.",
            hint="Set DEAL_SECRET in the environment (and never change it once deals are out).",
            id="games.E001",
        )
    ]


def _throttle_scopes() -> set[str]:
    from games.api import throttles

    return {
        value.scope
        for value in vars(throttles).values()
        if isinstance(value, type)
        and isinstance(getattr(value, "scope", None), str)
        and value.scope
    }


@checks.register()
def check_throttle_rates(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report throttle scopes without a well-formed rate."""
    rates = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
    errors = []
    for scope in sorted(_throttle_scopes()):
        rate = rates.get(scope)
        if rate is None or not RATE.fullmatch(str(rate)):
            errors.append(
                checks.Error(
                    f"The throttle scope {scope!r} has no usable rate (got {rate!r}).",
                    hint=f"Set THROTTLE_{scope.upper()} to a rate such as 600/min.",
                    id="games.E002",
                )
            )
    return errors


@checks.register()
def check_shipped_variants(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report a shipped rules document the engine cannot compile."""
    from games.engine import RulesError, catalogue, compile_rules

    errors = []
    for entry in catalogue():
        try:
            compile_rules(entry["rules"])
        except RulesError as error:
            errors.append(
                checks.Error(
                    f"The shipped variant {entry['slug']!r} does not compile: {error}",
                    id="games.E003",
                )
            )
    return errors
