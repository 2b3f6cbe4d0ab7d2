"""Middleware of the whole site: the log context, bounded concurrency, JSON errors, and
security headers.

Every error the service answers, on API paths and others alike, is the JSON body of docs/api.md,
never an HTML page (``core.responses`` builds them). ``handler400``, ``handler404`` and
``handler500`` of the URL configuration point at ``core.responses``' ``bad_request``,
``not_found`` and ``server_error``, so an error raised outside a view (in another middleware, or
a path no view serves) is answered the same way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from core import breaker, logcontext
from core.responses import response_for_error, too_large_response, unavailable_response

logger = logging.getLogger(__name__)


_GAME_PATH = re.compile(r"^/api/games/([A-Za-z0-9_-]{1,64})/")
REQUEST_ID_HEADER = "X-Request-ID"


def game_of_path(path: str) -> str | None:
    """Return the game id an API path names (``/api/games/<id>/...``), or None."""
    found = _GAME_PATH.match(path)
    return found.group(1) if found else None


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class BothModes:
    """A middleware that runs as Django calls it: synchronously in a synchronous chain (ours,
    ``config.handler``), on the event loop in an asynchronous one (Django's own handler, the
    test client's). A subclass answers ``__call__`` and ``__acall__``, calling
    ``self.get_response``, and checks ``self.is_async``."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)


class RequestContext:
    """ASGI middleware of the HTTP stack: give the request its log context on the event loop
    (``core.logcontext``), in the task that will also write uvicorn's access line for it.

    Django runs the middleware chain in this task (and the view on a thread, in a copy of this
    context): what is set here is seen there, and the request that ``RequestContextMiddleware``
    attaches to the shared state is seen back here (the player of the access line).
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope.get("type") == "http":
            identifier = logcontext.check_given_id(_header(scope, b"x-request-id"))
            state = logcontext.HttpRequestState(identifier, game_of_path(scope.get("path", "")))
            logcontext.http_request.set(state)
            scope = dict(scope, request_id=identifier)
        return await self.inner(scope, receive, send)


class RequestContextMiddleware(BothModes):
    """Attach the request to its log context (made by ``RequestContext`` under ASGI; made here
    under WSGI and the test client) and send its id back in ``X-Request-ID``.

    The id is a proxy's plain ``X-Request-ID``, else a new one; every line logged while the
    request is served carries it, and the game its path names, and its player once
    authentication has said who that is.
    """

    @staticmethod
    def enter(request: HttpRequest) -> tuple[logcontext.HttpRequestState, Any]:
        state = logcontext.http_request.get()
        token = None
        if state is None or state.request is not None:  # no ASGI wrapper, or a stale one
            identifier = logcontext.check_given_id(request.headers.get(REQUEST_ID_HEADER))
            state = logcontext.HttpRequestState(identifier, game_of_path(request.path))
            token = logcontext.http_request.set(state)
        state.request = request
        return state, token

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        state, token = self.enter(request)
        try:
            response = self.get_response(request)
        finally:
            if token is not None:  # a thread serves one request after another
                logcontext.http_request.reset(token)
        response[REQUEST_ID_HEADER] = state.request_id
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        state, token = self.enter(request)
        try:
            response = await self.get_response(request)
        finally:
            if token is not None:
                logcontext.http_request.reset(token)
        response[REQUEST_ID_HEADER] = state.request_id
        return response


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ErrorMiddleware(BothModes):
    """Refuse oversized bodies up front and answer a view's unhandled exception in JSON.

    Django checks ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when ``request.body`` or ``request.POST``
    is read; DRF's parsers read the stream past it. The declared ``Content-Length`` is checked
    here, before any view, for every path (uploads excepted: the service takes none).
    """

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


# Paths answered while PostgreSQL is down: the probes (which report it), the metrics, and the
# files WhiteNoise serves from disk.
BREAKER_EXEMPT = ("/livez", "/readyz", "/healthz", "/metrics", "/static/", "/favicon.ico")


class DatabaseBreakerMiddleware(BothModes):
    """While PostgreSQL is known down (``core.breaker``), answer 503 ``unavailable`` with
    ``Retry-After`` at once, before any thread or connection is taken (the probes, the metrics
    and static files excepted)."""

    @staticmethod
    def refusal(request: HttpRequest) -> HttpResponse | None:
        if not breaker.is_open() or request.path.startswith(BREAKER_EXEMPT):
            return None
        with translation.override(translation.get_language_from_request(request)):
            return unavailable_response(retry_after=breaker.RETRY_AFTER_SECONDS)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return self.refusal(request) or self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return self.refusal(request) or await self.get_response(request)


class SecurityHeadersMiddleware(BothModes):
    """Add ``Content-Security-Policy`` (the one for the path's prefix) and ``Permissions-Policy``.

    ``CONTENT_SECURITY_POLICY`` maps path prefixes to policies; the longest matching prefix wins
    and an empty policy sends none. A response that already carries a policy keeps it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        super().__init__(get_response)
        policies: dict[str, str] = getattr(settings, "CONTENT_SECURITY_POLICY", {})
        self.policies = sorted(policies.items(), key=lambda item: len(item[0]), reverse=True)
        self.permissions = getattr(settings, "PERMISSIONS_POLICY", "")

    def policy_for(self, path: str) -> str:
        for prefix, policy in self.policies:
            if path.startswith(prefix):
                return policy
        return ""

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return self.add_headers(request, self.get_response(request))

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        return self.add_headers(request, await self.get_response(request))

    def add_headers(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        policy = self.policy_for(request.path)
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        if self.permissions and "Permissions-Policy" not in response:
            response["Permissions-Policy"] = self.permissions
        return response
