"""System checks of the games app: misconfiguration reported by ``manage.py check``.

- ``games.E001``: ``DEAL_SECRET`` is missing, or is a placeholder (the Docker build's throwaway
  value): no daily deal could be dealt or verified, or anyone could compute them.
- ``games.W001``: with ``DEBUG`` off, ``DEAL_SECRET`` is shorter than 32 characters.
- ``games.E002``: a throttle of the API names a scope that has no rate, or a rate that does
  not read as ``<number>/<second|minute|hour|day>``; or a rate (``THROTTLE_<SCOPE>`` in the
  environment included) names a scope no throttle has, which would be ignored.
- ``games.E003``: a rules document shipped with the engine does not compile.
"""

from __future__ import annotations

import os
import re
from typing import Any

from django.conf import settings
from django.core import checks
from django.urls import get_resolver

from games import engine
from games.api import throttles

RATE = re.compile(r"[1-9][0-9]*/(s|sec|seconds?|m|min|minutes?|h|hour|hours|d|day|days)")
# Values that are known, not secret: the Dockerfile's build-time throwaway, sample placeholders.
PLACEHOLDER_SECRETS = frozenset({"collectstatic", "change-me", "changeme"})
MIN_DEAL_SECRET_LENGTH = 32
DEAL_SECRET_HINT = (
    "Set DEAL_SECRET in the environment to a long random value, e.g. "
    "python -c 'import secrets; print(secrets.token_urlsafe(50))'; "
    "never change it once deals are published (docs/operations.md)."
)


@checks.register(checks.Tags.security)
def check_deal_secret(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report a missing, placeholder or (in production) short ``DEAL_SECRET``."""
    secret = getattr(settings, "DEAL_SECRET", "") or ""
    if not secret:
        return [
            checks.Error(
                "DEAL_SECRET is not set: no daily deal can be dealt or verified.",
                hint=DEAL_SECRET_HINT,
                id="games.E001",
            )
        ]
    if secret.strip().lower() in PLACEHOLDER_SECRETS:
        return [
            checks.Error(
                f"DEAL_SECRET is the placeholder {secret!r}: anyone could compute the daily "
                "deals' seeds and forge the seals of moves and results.",
                hint=DEAL_SECRET_HINT,
                id="games.E001",
            )
        ]
    if not settings.DEBUG and len(secret) < MIN_DEAL_SECRET_LENGTH:
        return [
            checks.Warning(
                f"DEAL_SECRET has {len(secret)} characters, fewer than "
                f"{MIN_DEAL_SECRET_LENGTH}: the daily deals' seeds and the seals derive from it.",
                hint="Choose a long random DEAL_SECRET before the first deal is published; "
                "once deals are out it can no longer change (docs/operations.md).",
                id="games.W001",
            )
        ]
    return []


def _throttle_scopes() -> set[str]:
    """Return the scopes of the service's throttles, in whichever module they are defined.

    The URLconf is loaded first, so that every view (and the throttles it uses) is imported.
    """
    get_resolver().url_patterns  # noqa: B018  (imports the views)
    scopes: set[str] = set()
    pending = [throttles._Throttle]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__dict__.get("scope"):
            scopes.add(cls.scope)
    return scopes


@checks.register()
def check_throttle_rates(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Report throttle scopes without a well-formed rate."""
    rates = getattr(settings, "REST_FRAMEWORK", {}).get("DEFAULT_THROTTLE_RATES", {})
    scopes = _throttle_scopes()
    errors = []
    for scope in sorted(set(rates) - scopes):
        errors.append(
            checks.Error(
                f"The throttle rate of {scope!r} names a scope no throttle of the API has.",
                hint=f"Known scopes: {', '.join(sorted(scopes))}.",
                id="games.E002",
            )
        )
    for name in sorted(os.environ):
        if name.startswith("THROTTLE_") and name[len("THROTTLE_") :].lower() not in scopes:
            errors.append(
                checks.Error(
                    f"{name} is set in the environment but names no throttle scope: it is ignored.",
                    hint="Known variables: "
                    + ", ".join(f"THROTTLE_{scope.upper()}" for scope in sorted(scopes))
                    + ".",
                    id="games.E002",
                )
            )
    for scope in sorted(scopes):
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
    errors = []
    for entry in engine.catalogue():
        try:
            engine.compile_rules(entry["rules"])
        except engine.RulesError as error:
            errors.append(
                checks.Error(
                    f"The shipped variant {entry['slug']!r} does not compile: {error}",
                    id="games.E003",
                )
            )
    return errors
