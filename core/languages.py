"""The languages of the service: the client's catalogues, and the language of a socket.

HTTP requests get their language from Django's ``LocaleMiddleware`` (the ``django_language``
cookie, else ``Accept-Language``, else English). A WebSocket has no middleware of Django's: its
consumers take the language from the same cookie and header of the handshake
(:func:`scope_language`).

The browser client's sentences live in ``frontend/i18n/<language>.json``, a map of the English
text to its translation (English itself needs none); the page embeds the catalogue of its
language (``config.views.front_page``). ``python -m config.catalogues`` checks the catalogues.
"""

from __future__ import annotations

import json
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.utils import translation

CLIENT_CATALOGUES = Path(__file__).resolve().parent.parent / "frontend" / "i18n"


@cache
def client_catalogue(language: str) -> dict[str, str]:
    """Return the client's catalogue of ``language`` (English text → translation).

    English, and a language without a catalogue file, read as the empty catalogue: the client
    then shows its English text.
    """
    path = CLIENT_CATALOGUES / f"{language}.json"
    if language == "en" or not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} must hold a JSON object of English text to translation")
    return {str(key): str(value) for key, value in data.items()}


def _header(scope: dict[str, Any], name: bytes) -> str:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def scope_language(scope: dict[str, Any]) -> str:
    """Return the language of a socket's handshake, chosen as Django chooses a request's."""
    cookies = scope.get("cookies")
    if not isinstance(cookies, dict):
        parsed = SimpleCookie()
        try:
            parsed.load(_header(scope, b"cookie"))
        except Exception:  # a malformed Cookie header reads as none
            parsed = SimpleCookie()
        cookies = {key: morsel.value for key, morsel in parsed.items()}
    request = SimpleNamespace(
        COOKIES=cookies,
        META={"HTTP_ACCEPT_LANGUAGE": _header(scope, b"accept-language")},
        path_info=scope.get("path", "/"),
    )
    try:
        return translation.get_language_from_request(request)  # type: ignore[arg-type]
    except (LookupError, ValueError):
        return settings.LANGUAGE_CODE
