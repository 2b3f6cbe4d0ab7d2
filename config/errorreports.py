"""Error reports to Sentry, when ``SENTRY_DSN`` is set (the ``sentry`` extra installs its SDK).

What is reported: every record logged at ERROR or above (a view's unhandled exception, a
socket's failure, a failed scheduler run, each with its traceback), and the exceptions that
escape Django or the socket stack (the SDK's Django and ASGI integrations). Nothing else: no
performance traces, no request bodies, no local variables of the frames, no personal data.

Before an event leaves the process, :func:`scrub` walks all of it: any field whose name speaks
of a token, an authorization, a cookie, a session, a CSRF token, a password, a secret or a
seed is replaced with ``[Filtered]``; in every text, ``token=`` values and ``Authorization``
values are redacted as in the logs (``config.logging``), ``seed=`` values too, and any run of
40 or more hexadecimal digits (an API token is 40, a deal's seed 64) is filtered.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from config.logging import redact
from core import logcontext

FILTERED = "[Filtered]"
_SENSITIVE_NAME = re.compile(
    r"token|authori[sz]ation|cookie|session|csrf|passw|secret|seed|api[-_]?key|dsn",
    re.IGNORECASE,
)
_SEED_VALUE = re.compile(r"(?P<name>seed[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]+", re.IGNORECASE)
_LONG_HEX = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{40,}(?![0-9A-Fa-f])")
_MAX_DEPTH = 20


def scrub_text(text: str) -> str:
    """Return ``text`` with credentials and seeds filtered out."""
    text = redact(text)
    text = _SEED_VALUE.sub(rf"\g<name>{FILTERED}", text)
    return _LONG_HEX.sub(FILTERED, text)


def _scrub(value: Any, depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        return FILTERED
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return {
            key: (
                FILTERED
                if isinstance(key, str) and _SENSITIVE_NAME.search(key)
                else _scrub(item, depth + 1)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        # Headers and cookies may come as [name, value] pairs.
        if (
            len(value) == 2
            and isinstance(value[0], str)
            and _SENSITIVE_NAME.search(value[0])
            and not isinstance(value[1], Mapping | list | tuple)
        ):
            return [value[0], FILTERED]
        return [_scrub(item, depth + 1) for item in value]
    return value


def scrub(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    """``before_send``: return the event with no credential, cookie or seed left in it, and
    the ids of the request or socket it happened in (``core.logcontext``) as tags."""
    scrubbed: dict[str, Any] = _scrub(event)
    request = scrubbed.get("request")
    if isinstance(request, dict):
        request.pop("cookies", None)
        request.pop("data", None)
    tags = scrubbed.setdefault("tags", {})
    if isinstance(tags, dict):
        for key, value in logcontext.current().items():
            tags.setdefault(key, str(value))
    return scrubbed


def configure(env: Mapping[str, str]) -> bool:
    """Start the SDK when ``SENTRY_DSN`` is set; return whether it was."""
    dsn = (env.get("SENTRY_DSN") or "").strip()
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.integrations.logging import LoggingIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=env.get("SENTRY_ENVIRONMENT") or "production",
        release=env.get("SENTRY_RELEASE") or None,
        integrations=[
            DjangoIntegration(),
            LoggingIntegration(level=logging.INFO, event_level=logging.ERROR),
        ],
        send_default_pii=False,
        include_local_variables=False,
        max_request_body_size="never",
        traces_sample_rate=0.0,
        before_send=scrub,
    )
    return True


def wrap_asgi(application: Any) -> Any:
    """Return ``application`` inside the SDK's ASGI middleware when reports are on (the socket
    stack: Django's own requests are covered by the Django integration)."""
    try:
        import sentry_sdk
        from sentry_sdk.integrations.asgi import SentryAsgiMiddleware
    except ImportError:
        return application
    if sentry_sdk.get_client().is_active():
        return SentryAsgiMiddleware(application)
    return application
