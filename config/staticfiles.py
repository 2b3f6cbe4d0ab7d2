"""Where collectstatic puts the static files, and under which names.

Every file is stored under a name carrying a hash of its content (``app.3f1c9a0b2e4d.js``), and
``{% static %}`` names that file, so a name never changes content: browsers and nginx keep it for a
year (``Cache-Control: immutable``) and a release never mixes an old module with a new one. The
browser client's ES modules import one another by relative name (``import { h } from
"./dom.js"``): Django rewrites those imports (and ``export … from``) to the hashed names too, so
the whole graph of modules a page loads belongs to one release. WhiteNoise then compresses each
file (gzip, and Brotli when installed) beside it.

In ``DEBUG`` Django names the plain files, which WhiteNoise serves from the source folders.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from django.http import HttpRequest
from whitenoise.middleware import WhiteNoiseMiddleware
from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, rewriting ES module imports."""

    support_js_module_import_aggregation = True


class HashedNamesStorage(ManifestStaticFilesStorage):
    """The same names and manifest without the compressed copies: what the tests collect at
    their start (compressing every file would cost them seconds)."""

    support_js_module_import_aggregation = True


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise, keeping a hashed name for a year (``immutable``), as nginx does
    (deploy/nginx.conf); other static files for ``WHITENOISE_MAX_AGE``.

    Unlike WhiteNoise's own, it also runs on the event loop under ASGI, so that the whole
    middleware chain does: a middleware that can only run synchronously puts every request,
    and every middleware outside it, on a thread, with two more hops between the loop and that
    thread (``tests/foundation/test_middleware_modes.py``).
    """

    FOREVER = 365 * 24 * 60 * 60
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any = None) -> None:
        super().__init__(get_response)
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return super().__call__(request)

    async def __acall__(self, request: HttpRequest) -> Any:
        # The lookup is in memory (the files are indexed at start) unless WHITENOISE_AUTOREFRESH.
        if self.autorefresh:
            static_file = self.find_file(request.path_info)
        else:
            static_file = self.files.get(request.path_info)
        if static_file is not None:
            return self.serve(static_file, request)
        return await self.get_response(request)
