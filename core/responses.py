"""JSON error answers of the whole site: the body of docs/api.md, ``{"error": code, "detail":
sentence}``, with its status, for refusals raised anywhere (a view, a middleware, a path no view
serves); ``config.middleware`` and the API's exception handler answer through these.

- the database (or its connection pool) unreachable: 503 ``unavailable`` with ``Retry-After``,
  the error handed to the breaker (``core.breaker``), which logs an outage once; the answer
  itself is not logged again by Django;
- a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``: 413 ``invalid``;
- Django's own refusals (``Http404``, ``PermissionDenied``, ``SuspiciousOperation``): 404, 403
  and 400 with the codes of docs/api.md;
- any other unhandled exception: 500 ``server_error``.

Every sentence is in the request's language (docs/languages.md).
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
)
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext, gettext_lazy

from core import breaker
from core.errors import ErrorCode

logger = logging.getLogger(__name__)

# The exceptions that mean "the database cannot serve this request now" (psycopg-pool's
# PoolTimeout reaches Django code as an OperationalError).
DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5
UNAVAILABLE_DETAIL = gettext_lazy(
    "The service is temporarily unavailable; try again in a few seconds."
)
SERVER_ERROR_DETAIL = gettext_lazy("Something went wrong on the server.")


def is_database_unavailable(error: BaseException | None) -> bool:
    """Tell whether ``error`` says the database is unreachable or its pool is exhausted."""
    return isinstance(error, DATABASE_UNAVAILABLE)


def error_response(code: ErrorCode, detail: str, status: int | None = None) -> JsonResponse:
    """Return the error body of docs/api.md with the status of ``code`` (or ``status``)."""
    body = {"error": code.value, "detail": str(detail)}
    response = JsonResponse(body, status=status or code.status)
    if code is ErrorCode.UNAVAILABLE:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def unavailable_response(retry_after: int = RETRY_AFTER_SECONDS) -> JsonResponse:
    """Answer 503 ``unavailable``: the database cannot serve the request now.

    Django does not log the answer: the outage is logged once, by the breaker.
    """
    response = error_response(ErrorCode.UNAVAILABLE, UNAVAILABLE_DETAIL)
    response["Retry-After"] = str(retry_after)
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def too_large_response() -> JsonResponse:
    """Answer 413 ``invalid``: the body is larger than the service accepts."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return error_response(
        ErrorCode.INVALID,
        gettext("The request body is larger than {limit} bytes.").format(limit=limit),
        status=413,
    )


def response_for_error(error: BaseException) -> JsonResponse:
    """Answer an exception nothing else handled: 503, 413, Django's own refusals (404, 403,
    400) in JSON, or a logged 500."""
    if is_database_unavailable(error):
        breaker.report(error)
        logger.debug("database unavailable: %s", error)
        return unavailable_response()
    if isinstance(error, RequestDataTooBig):
        return too_large_response()
    if isinstance(error, Http404):
        return error_response(ErrorCode.NOT_FOUND, gettext("Nothing is here."))
    if isinstance(error, PermissionDenied):
        return error_response(ErrorCode.FORBIDDEN, gettext("You may not do this."))
    if isinstance(error, SuspiciousOperation | BadRequest):
        return error_response(ErrorCode.INVALID, gettext("The request is malformed."))
    logger.error("unexpected error", exc_info=error)
    return error_response(ErrorCode.SERVER_ERROR, SERVER_ERROR_DETAIL)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: a refused request (too large a body included) as a JSON error."""
    if isinstance(exception, RequestDataTooBig):
        return too_large_response()
    return error_response(ErrorCode.INVALID, gettext("The request is malformed."))


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: a path nothing serves, as a JSON error in the request's language."""
    return error_response(ErrorCode.NOT_FOUND, gettext("Nothing is here."))


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: the unhandled exception as 503 (database away) or 500, in JSON."""
    error = sys.exc_info()[1]
    if is_database_unavailable(error):
        breaker.report(error)
        return unavailable_response()
    return error_response(ErrorCode.SERVER_ERROR, SERVER_ERROR_DETAIL)
