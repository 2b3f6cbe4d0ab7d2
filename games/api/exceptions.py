"""The API's exception handler: every refusal becomes ``{"error": code, "detail": sentence}``."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core import breaker
from core.errors import ErrorCode, ServiceError
from core.responses import (
    RETRY_AFTER_SECONDS,
    SERVER_ERROR_DETAIL,
    UNAVAILABLE_DETAIL,
    is_database_unavailable,
)

logger = logging.getLogger(__name__)

_CODES: list[tuple[type[exceptions.APIException], ErrorCode]] = [
    (exceptions.ValidationError, ErrorCode.INVALID),
    (exceptions.ParseError, ErrorCode.INVALID),
    (exceptions.NotAuthenticated, ErrorCode.NOT_AUTHENTICATED),
    (exceptions.AuthenticationFailed, ErrorCode.NOT_AUTHENTICATED),
    (exceptions.PermissionDenied, ErrorCode.FORBIDDEN),
    (exceptions.NotFound, ErrorCode.NOT_FOUND),
    (exceptions.MethodNotAllowed, ErrorCode.METHOD_NOT_ALLOWED),
    (exceptions.NotAcceptable, ErrorCode.NOT_ACCEPTABLE),
    (exceptions.UnsupportedMediaType, ErrorCode.UNSUPPORTED_MEDIA_TYPE),
    (exceptions.Throttled, ErrorCode.RATE_LIMITED),
]


def _sentence(detail: Any) -> str:
    """Flatten DRF's detail (a string, a list or a dict of them) into one sentence."""
    if isinstance(detail, dict):
        return " ".join(f"{key}: {_sentence(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_sentence(item) for item in detail)
    return str(detail)


def _code(exc: exceptions.APIException) -> ErrorCode:
    for kind, code in _CODES:
        if isinstance(exc, kind):
            return code
    return ErrorCode.INVALID if exc.status_code < 500 else ErrorCode.SERVER_ERROR


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """Answer ``exc`` with the error body of docs/api.md and the status its code carries."""
    set_rollback()
    headers: dict[str, str] = {}
    if isinstance(exc, ServiceError):
        body, code = exc.payload(), exc.code
        if "retry_after" in exc.extra:
            headers["Retry-After"] = str(exc.extra["retry_after"])
    else:
        if isinstance(exc, Http404):
            exc = exceptions.NotFound()
        elif isinstance(exc, DjangoPermissionDenied):
            exc = exceptions.PermissionDenied()
        if is_database_unavailable(exc):
            breaker.report(exc)  # logs the outage once; the answer is not logged again
            logger.debug("database unavailable: %s", exc)
            code = ErrorCode.UNAVAILABLE
            body = {"error": code.value, "detail": str(UNAVAILABLE_DETAIL)}
            answer = Response(
                body, status=code.status, headers={"Retry-After": str(RETRY_AFTER_SECONDS)}
            )
            answer._has_been_logged = True  # type: ignore[attr-defined]
            return answer
        if not isinstance(exc, exceptions.APIException):
            logger.error("unexpected error in the API", exc_info=exc)
            code = ErrorCode.SERVER_ERROR
            body = {"error": code.value, "detail": str(SERVER_ERROR_DETAIL)}
            return Response(body, status=code.status)
        code = _code(exc)
        body = {"error": code.value, "detail": _sentence(exc.detail)}
        if isinstance(exc, exceptions.Throttled):
            body["retry_after"] = max(1, math.ceil(exc.wait or 1))
            headers["Retry-After"] = str(body["retry_after"])
    if code is ErrorCode.NOT_AUTHENTICATED:
        headers["WWW-Authenticate"] = 'Token realm="api"'
    status = code.status if code is not ErrorCode.INVALID else getattr(exc, "status_code", 400)
    return Response(body, status=status, headers=headers)
