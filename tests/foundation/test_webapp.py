"""The installable app: its manifest, its service worker at a stable URL, its offline page."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.templatetags.static import static
from django.test import Client

pytestmark = pytest.mark.django_db

FRENCH = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def worker_head(source: str) -> tuple[str, list[str]]:
    version = re.search(r'^const VERSION = "([0-9a-f]+)";$', source, re.M)
    shell = re.search(r"^const SHELL = (\[.*\]);$", source, re.M)
    assert version and shell, source[:300]
    return version.group(1), json.loads(shell.group(1))


def test_the_service_worker_is_served_at_a_stable_url_for_the_whole_site(client: Client) -> None:
    # when a browser asks for the worker
    response = client.get("/sw.js")

    # then it is JavaScript for the whole site, asked again at every check
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in response["Content-Security-Policy"]

    # and it keeps the page, the offline page and the static files, and no API answer
    version, shell = worker_head(response.content.decode())
    assert len(version) == 16
    assert {"/", "/offline/", static("frontend/app.js"), static("frontend/site.css")} <= set(shell)
    assert static("frontend/icons/icon-192.png") in shell
    assert not [url for url in shell if url.startswith(("/api/", "/ws/", "/admin/"))]


def test_the_worker_changes_with_the_files_it_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the worker of a release's static files
    from config import webapp

    (tmp_path / "frontend").mkdir()
    style = tmp_path / "frontend" / "site.css"
    style.write_text("body { color: black; }")
    monkeypatch.setattr(webapp, "STATIC", tmp_path)
    before, shell = worker_head(webapp._worker_source())
    assert shell == ["/", "/offline/", static("frontend/site.css")]

    # when a static file changes
    style.write_text("body { color: white; }")
    after, _ = worker_head(webapp._worker_source())

    # then the worker's version changes, so a browser installs it and drops the old cache
    assert after != before


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_the_app_files_refuse_writes(client: Client, method: str) -> None:
    for path in ("/sw.js", "/manifest.webmanifest", "/offline/"):
        response = getattr(client, method)(path)
        assert response.status_code == 405
        assert response.json()["error"] == "method_not_allowed"
        assert response["Allow"] == "GET, HEAD"


def test_the_manifest_names_the_app_its_icons_and_its_start_in_the_page_language(
    client: Client,
) -> None:
    # when a French browser asks for the manifest
    response = client.get("/manifest.webmanifest", **FRENCH)

    # then it describes an app that starts at the home page, standalone, in French
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["name"] == "Daily Patience"
    assert manifest["start_url"] == manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["lang"] == "fr"
    assert manifest["description"].startswith("Les mêmes donnes")

    # and its icons are our PNGs, a 192 px and a 512 px one, and a maskable one
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    collected = Path(settings.STATIC_ROOT)
    for icon in manifest["icons"]:
        png = (collected / icon["src"].removeprefix(settings.STATIC_URL)).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]


def test_the_offline_page_says_what_works_in_the_page_language(client: Client) -> None:
    english = client.get("/offline/").content.decode()
    french = client.get("/offline/", **FRENCH).content.decode()

    assert "You are offline" in english
    assert "rules pages you have opened" in english
    assert "Vous êtes hors ligne" in french
    assert "pages de règles déjà ouvertes" in french


def test_the_front_page_links_the_manifest_and_the_home_screen_icon(client: Client) -> None:
    page = client.get("/").content.decode()

    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    icon = static("frontend/icons/apple-touch-icon.png")
    assert f'rel="apple-touch-icon" href="{icon}"' in page
    assert '<meta name="theme-color"' in page
