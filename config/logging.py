"""Logging set-up: Django's ``LOGGING``, one line per record, and no credentials in any log.

Each record is one line: a JSON object (``LOG_FORMAT=json``, the default) or plain text
(``LOG_FORMAT=text``, for development). Both carry the time (UTC), the level, the logger, the
message and what ``core.logcontext`` knows of the request or socket being served (its id, the
player's, the game's); the JSON of uvicorn's access log adds the client, method, path and
status as fields of their own. Uvicorn's own handlers get the same formatter, so the access log
has the same shape as the rest.

Socket clients pass their API token as ``?token=...``, and uvicorn's access log prints each path
with its query string. :class:`RedactCredentials` replaces the value of ``token=`` (and of an
``Authorization`` header, should one be logged) with ``[redacted]``.

Django calls :func:`configure` (``LOGGING_CONFIG``) while it sets up. Uvicorn has configured its
own loggers before that, with handlers of its own that a ``dictConfig`` entry would replace; so
the filter is added to those loggers as they are, and to every handler of the root logger (which
covers whatever propagates to it).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import logging.config
import re
from typing import Any

from core import logcontext

REDACTED = "[redacted]"
# The loggers that print request lines or request details and do not all propagate to the root.
REQUEST_LOGGERS = (
    "uvicorn",  # its handler prints uvicorn.error's records
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


class RedisOutageOnce(logging.Filter):
    """django-redis logs every cache call that failed, with its traceback. Hand the error to
    the Redis breaker instead (``core.redis_client``: one line when an outage starts, one when
    it ends) and drop the record; a record without an exception passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None:
            return True
        from core import redis_client

        redis_client.report(error, what="the cache misses", layer=False)
        return False


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


# The attributes every LogRecord has; any other was passed with ``extra=`` and is kept.
_RECORD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}
# uvicorn's access log: '%s - "%s %s HTTP/%s" %d' with these arguments.
# Django passes the request object itself: its id is in the line already (and its repr would
# print the query string).
_SKIPPED = frozenset({"request", "color_message"})
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


def _time(record: logging.LogRecord) -> str:
    moment = dt.datetime.fromtimestamp(record.created, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """Return what a line says of ``record``: time, level, logger, message, the context's ids,
    the access log's fields and whatever was passed with ``extra=``; credentials redacted."""
    fields: dict[str, Any] = {
        "time": _time(record),
        "level": record.levelname,
        "logger": record.name,
        "message": redact(record.getMessage()),
    }
    fields.update(logcontext.current())
    args = record.args
    if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
        fields.update(zip(_ACCESS_FIELDS, args, strict=True))
        fields["path"] = redact(str(fields["path"]))
    for key, value in vars(record).items():
        if key in _RECORD_FIELDS or key in fields or key.startswith("_") or key in _SKIPPED:
            continue
        if not isinstance(value, bool | int | float | type(None)):
            value = redact(str(value))
        fields[key] = value
    return fields


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object on one line (``record_fields``, plus ``exception``)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record_fields(record)
        if record.exc_info:
            fields["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            fields["exception"] = redact(record.exc_text)
        if record.stack_info:
            fields["stack"] = self.formatStack(record.stack_info)
        return json.dumps(fields, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """Format a record as a line for a person: time, level, logger, message, then the ids."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record_fields(record)
        head = " ".join(str(fields.pop(key)) for key in ("time", "level", "logger"))
        message = fields.pop("message")
        tail = " ".join(f"{key}={value}" for key, value in fields.items())
        line = f"{head} {message}" + (f" [{tail}]" if tail else "")
        if record.exc_info:
            line += "\n" + redact(self.formatException(record.exc_info))
        return line


FORMATTERS: dict[str, type[logging.Formatter]] = {"json": JsonFormatter, "text": TextFormatter}


def install_formatter() -> None:
    """Give the request loggers' own handlers (uvicorn's) the root handler's formatter."""
    ours = next(
        (
            handler.formatter
            for handler in logging.getLogger().handlers
            if isinstance(handler.formatter, JsonFormatter | TextFormatter)
        ),
        None,
    )
    if ours is None:
        return
    for name in REQUEST_LOGGERS:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(ours)


def configure(config: dict[str, Any] | None) -> None:
    """``LOGGING_CONFIG``: apply ``LOGGING`` as Django would, then install the redaction and
    the line format on uvicorn's handlers."""
    if config:
        logging.config.dictConfig(config)
    logging.captureWarnings(True)  # a Python warning is a line of the same shape
    install_redaction()
    install_formatter()
