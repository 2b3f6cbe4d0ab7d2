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

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
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
    (deploy/nginx.conf); other static files for ``WHITENOISE_MAX_AGE``."""

    FOREVER = 365 * 24 * 60 * 60
