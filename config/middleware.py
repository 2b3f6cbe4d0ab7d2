"""Middleware of the whole site: bounded concurrency, JSON errors, and security headers.

Every error the service answers, on API paths and others alike, is the JSON body of docs/api.md,
``{"error": code, "detail": sentence}``, never an HTML page:

- the database (or its connection pool) unreachable: 503 ``unavailable`` with ``Retry-After``;
- a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``: 413 ``invalid``;
- Django's own refusals (``Http404``, ``PermissionDenied``, ``SuspiciousOperation``): 404, 403
  and 400 with the codes of docs/api.md;
- any other unhandled exception: 500 ``server_error``.

``handler400``, ``handler404`` and ``handler500`` of the URL configuration point at
:func:`bad_request`, :func:`not_found` and :func:`server_error`, so an error raised outside a
view (in another middleware, or a path no view serves) is answered the same way. Every sentence
is in the request's language (docs/languages.md).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
)
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy

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


def unavailable_response() -> JsonResponse:
    """Answer 503 ``unavailable``: the database cannot serve the request now."""
    return error_response(ErrorCode.UNAVAILABLE, UNAVAILABLE_DETAIL)


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
        logger.warning("database unavailable: %s", error)
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
        return unavailable_response()
    return error_response(ErrorCode.SERVER_ERROR, SERVER_ERROR_DETAIL)


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ErrorMiddleware:
    """Refuse oversized bodies up front and answer a view's unhandled exception in JSON.

    Django checks ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when ``request.body`` or ``request.POST``
    is read; DRF's parsers read the stream past it. The declared ``Content-Length`` is checked
    here, before any view, for every path (uploads excepted: the service takes none).
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and _declared_length(request) > limit:
            # Before LocaleMiddleware: say it in the request's language all the same.
            with translation.override(translation.get_language_from_request(request)):
                return too_large_response()
        return None

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return self._refusal(request) or self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return self._refusal(request) or await self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse:
        return response_for_error(exception)


class ConcurrencyLimitMiddleware:
    """Let at most ``ASGI_THREADS`` requests of one worker process run at once; the rest queue.

    Under ASGI, Django runs each request's synchronous code on a thread of its own (asgiref's
    ``ThreadSensitiveContext`` gives every request a one-thread executor, and the installed
    asgiref reads no ``ASGI_THREADS``), so a burst would start as many threads as there are
    requests, all asking the connection pool at once. This semaphore, taken on the event loop
    before any thread starts, bounds them. Under WSGI (and Django's test client) it does nothing.
    """

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        self.limit = int(getattr(settings, "ASGI_THREADS", 0) or 0)
        self._semaphore: asyncio.Semaphore | None = None
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        get_response: Callable[[HttpRequest], Awaitable[HttpResponse]] = self.get_response
        if self.limit <= 0:
            return await get_response(request)
        if self._semaphore is None:  # made on first use, on the loop that serves requests
            self._semaphore = asyncio.Semaphore(self.limit)
        async with self._semaphore:
            return await get_response(request)


class SecurityHeadersMiddleware:
    """Add ``Content-Security-Policy`` (the one for the path's prefix) and ``Permissions-Policy``.

    ``CONTENT_SECURITY_POLICY`` maps path prefixes to policies; the longest matching prefix wins
    and an empty policy sends none. A response that already carries a policy keeps it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        policies: dict[str, str] = getattr(settings, "CONTENT_SECURITY_POLICY", {})
        self.policies = sorted(policies.items(), key=lambda item: len(item[0]), reverse=True)
        self.permissions = getattr(settings, "PERMISSIONS_POLICY", "")

    def policy_for(self, path: str) -> str:
        for prefix, policy in self.policies:
            if path.startswith(prefix):
                return policy
        return ""

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = self.policy_for(request.path)
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        if self.permissions and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = self.permissions
        return response
