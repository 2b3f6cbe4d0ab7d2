"""What every API view shares: JSON in and out whatever the headers say, and the body check."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework.exceptions import APIException, ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from core.errors import ErrorCode, ServiceError


class RequestTooLarge(APIException):
    """A body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``: 413, answered as ``invalid``."""

    status_code = 413
    default_code = "invalid"


class StrictJSONParser(JSONParser):
    """Parse JSON, refusing nesting too deep for Python's parser as malformed (not a 500) and a
    body beyond ``DATA_UPLOAD_MAX_MEMORY_SIZE`` as too large (DRF reads the stream past
    Django's own check)."""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if limit is not None and stream is not None:
            body = stream.read(limit + 1)
            if len(body) > limit:
                raise RequestTooLarge(
                    gettext("The request body is larger than {limit} bytes.").format(limit=limit)
                )
            stream = io.BytesIO(body)
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply.") from None


class AnyTypeJSONParser(StrictJSONParser):
    """Read any body as JSON: all bodies are JSON, so a wrong Content-Type is not an excuse for a
    415 and a body that is not JSON is 400 ``invalid`` whatever its declared type."""

    media_type = "*/*"


class JSONOnly(DefaultContentNegotiation):
    """Answer JSON whatever ``Accept`` or ``?format=`` asks for."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: Any = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type


class ApiView(APIView):
    """Base of the API views."""

    parser_classes = [StrictJSONParser, AnyTypeJSONParser]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JSONOnly


def json_object(request: Request) -> dict[str, Any]:
    """Return the request body, which must be a JSON object (an empty body counts as ``{}``)."""
    data = request.data
    if not isinstance(data, dict):
        raise ServiceError(ErrorCode.INVALID, gettext("The body must be a JSON object."))
    return data


def check_same_origin(request: Request) -> None:
    """Refuse a browser request sent by another site (login CSRF); raise ``forbidden``.

    Browsers name the page's origin on cross-site POSTs; clients that send no ``Origin`` (scripts,
    apps using tokens) are not browsers and pass.
    """
    origin = request.META.get("HTTP_ORIGIN")
    if origin is None:
        return
    host = request.get_host()
    allowed = {f"http://{host}", f"https://{host}", *settings.CSRF_TRUSTED_ORIGINS}
    if origin not in allowed:
        raise ServiceError(
            ErrorCode.FORBIDDEN, gettext("Sign-in requests from another site are refused.")
        )
