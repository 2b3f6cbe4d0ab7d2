"""The installable web app: its manifest, its service worker and its offline page.

The service worker is served at a stable URL, ``/sw.js`` (never a hashed static name), so that
its scope is the whole site and a browser finds it again after every release; its first line
names the files it keeps (``static()`` URLs, hashed or not as the storage makes them) and a digest
of their content, so that a release with any changed file installs a new worker that drops the
old cache. What it keeps and what it never keeps: ``frontend/sw.js``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache, wraps
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils import translation
from django.utils.translation import gettext

from core.errors import ErrorCode
from core.responses import error_response

FRONTEND = Path(settings.BASE_DIR) / "frontend"
STATIC = FRONTEND / "static"
WORKER = FRONTEND / "sw.js"
# The static files the shell needs, kept at install: the client's modules, its style sheets, its
# pictures. The client catalogue is in the page itself.
SHELL_SUFFIXES = {".js", ".css", ".svg", ".png"}
THEME_COLOR = "#0b5d3b"
ICONS = [
    ("frontend/icons/icon-192.png", "192x192", "any"),
    ("frontend/icons/icon-512.png", "512x512", "any"),
    ("frontend/icons/icon-maskable-512.png", "512x512", "maskable"),
]


def _read_only(view: Callable[[HttpRequest], HttpResponse]) -> Callable[..., HttpResponse]:
    """Answer GET and HEAD with ``view``; any other method 405 ``method_not_allowed``."""

    @wraps(view)
    def wrapper(request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            detail = gettext("This address only answers GET.")
            response = error_response(ErrorCode.METHOD_NOT_ALLOWED, detail)
            response["Allow"] = "GET, HEAD"
            return response
        return view(request)

    return wrapper


def _static_url(name: str) -> str:
    try:
        return static(name)
    except ValueError:  # a manifest storage that has not collected this file: its plain URL
        return settings.STATIC_URL + name


def _shell_files() -> list[Path]:
    return sorted(p for p in STATIC.rglob("*") if p.is_file() and p.suffix in SHELL_SUFFIXES)


def _worker_source() -> str:
    files = _shell_files()
    urls = ["/", "/offline/", *(_static_url(p.relative_to(STATIC).as_posix()) for p in files)]
    digest = hashlib.sha256()
    for path in [WORKER, *files]:
        digest.update(path.read_bytes())
    digest.update("\n".join(urls).encode())
    version = digest.hexdigest()[:16]
    head = f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(urls)};\n"
    return head + WORKER.read_text()


_cached_worker_source = cache(_worker_source)


@_read_only
def service_worker(request: HttpRequest) -> HttpResponse:
    """Serve the service worker at ``/sw.js``, for the whole site, asked again on every check."""
    source = _worker_source() if settings.DEBUG else _cached_worker_source()
    response = HttpResponse(source, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response


@_read_only
def manifest(request: HttpRequest) -> JsonResponse:
    """Serve the web app manifest (``/manifest.webmanifest``) in the request's language."""
    body = {
        "name": "Daily Patience",
        "short_name": gettext("Patience"),
        "description": gettext("The same patience deals for every player, every day."),
        "lang": translation.get_language(),
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "background_color": THEME_COLOR,
        "theme_color": THEME_COLOR,
        "categories": ["games"],
        "icons": [
            {"src": _static_url(name), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for name, sizes, purpose in ICONS
        ],
    }
    response = JsonResponse(body, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    response["Cache-Control"] = "no-cache"
    return response


@_read_only
def offline_page(request: HttpRequest) -> HttpResponse:
    """Serve the page the service worker shows for a page it cannot reach offline."""
    return render(request, "offline.html", {"theme_color": THEME_COLOR})
