"""Logging set-up: Django's ``LOGGING``, plus a filter that keeps credentials out of every log.

Socket clients pass their API token as ``?token=...``, and uvicorn's access log prints each path
with its query string. :class:`RedactCredentials` replaces the value of ``token=`` (and of an
``Authorization`` header, should one be logged) with ``[redacted]``.

Django calls :func:`configure` (``LOGGING_CONFIG``) while it sets up. Uvicorn has configured its
own loggers before that, with handlers of its own that a ``dictConfig`` entry would replace; so
the filter is added to those loggers as they are, and to every handler of the root logger (which
covers whatever propagates to it).
"""

from __future__ import annotations

import logging
import logging.config
import re
from typing import Any

REDACTED = "[redacted]"
# The loggers that print request lines or request details and do not all propagate to the root.
REQUEST_LOGGERS = (
    "uvicorn.access",
    "uvicorn.error",
    "django.request",
    "django.server",
    "django.channels.server",
    "daphne",
)

_QUERY_TOKEN = re.compile(
    r"(?P<name>(?:^|(?<=[?&;\s/\"']))(?:token|access_token|auth_token|api_key)=)[^&\s\"'#]*",
    re.IGNORECASE,
)
_AUTHORIZATION = re.compile(
    r"(?P<name>(?<![a-z])authorization[\"']?\s*[:=]\s*[\"']?(?:(?:token|bearer|basic)\s+)?)[^\s\"',;}]+",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """Return ``text`` with the values of ``token=`` and ``Authorization`` replaced."""
    if "=" not in text and ":" not in text:
        return text
    text = _QUERY_TOKEN.sub(rf"\g<name>{REDACTED}", text)
    return _AUTHORIZATION.sub(rf"\g<name>{REDACTED}", text)


def _redact_value(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactCredentials(logging.Filter):
    """Redact credentials in a record's message and its arguments; never drop a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_redact_value(value) for value in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _redact_value(value) for key, value in record.args.items()}
        return True


_FILTER = RedactCredentials()


def install_redaction() -> None:
    """Add the filter to the request loggers and to the root logger's handlers (idempotent)."""
    for name in REQUEST_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)
        for handler in logger.handlers:
            if _FILTER not in handler.filters:
                handler.addFilter(_FILTER)
    for handler in logging.getLogger().handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)


def configure(config: dict[str, Any] | None) -> None:
    """``LOGGING_CONFIG``: apply ``LOGGING`` as Django would, then install the redaction."""
    if config:
        logging.config.dictConfig(config)
    install_redaction()
