"""Top-level URL routes: each app's REST routes mount under ``/api/``.

The leaderboards' and leagues' routes come first: the games' end with the API's catch-all JSON 404.
"""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.health import livez, readyz
from config.metrics import metrics_view
from config.views import front_page, switch_language
from config.webapp import manifest, offline_page, service_worker
from games.views import rules_index, rules_page

urlpatterns = [
    path("", front_page, name="front-page"),
    path("sw.js", service_worker, name="service-worker"),
    path("manifest.webmanifest", manifest, name="manifest"),
    path("offline/", offline_page, name="offline"),
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("healthz", readyz, name="healthz"),  # readyz's older name, for existing probes
    path("metrics", metrics_view, name="metrics"),  # internal: config/metrics.py
    path("i18n/setlang/", switch_language, name="set_language"),
    path("admin/", admin.site.urls),
    path("rules/", rules_index, name="rules-index"),
    path("rules/<str:slug>/", rules_page, name="rules-page"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include("leaderboards.urls")),
    path("api/", include("leagues.urls")),
    path("api/", include("games.urls")),
]

# Errors raised outside a view are answered in JSON too (core/responses.py).
handler400 = "core.responses.bad_request"
handler404 = "core.responses.not_found"
handler500 = "core.responses.server_error"
