"""The front page, its static files, the API docs and the ASGI routing answer."""

import re
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def test_front_page_names_the_product_and_links_docs_and_admin(client: Client) -> None:
    response = client.get("/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Daily Patience</h1>" in page
    assert 'href="/api/docs/"' in page
    assert 'href="/admin/"' in page
    assert re.search(r'href="/static/frontend/site\.[0-9a-f]{12}\.css"', page)  # hashed


def test_front_page_says_whether_its_session_is_signed_in(client: Client) -> None:
    # given an anonymous visitor, and a guest signed in by a session
    guest = Client()
    joined = guest.post("/api/auth/guest/", {"nickname": "Sam"}, "application/json")
    assert joined.status_code == 201

    # when both open the front page
    anonymous = client.get("/").content.decode()
    signed_in = guest.get("/").content.decode()

    # then the page tells its script, so an anonymous visit never asks /api/me/ for a 401
    assert '<meta name="signed-in" content="no">' in anonymous
    assert '<meta name="signed-in" content="yes">' in signed_in


def test_static_files_are_served_by_the_app(client: Client) -> None:
    response = client.get("/static/frontend/site.css")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")


def test_api_schema_and_docs_answer(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    docs = client.get("/api/docs/")

    assert schema.status_code == 200
    assert schema.json()["info"]["title"] == "Daily Patience API"
    assert docs.status_code == 200
    page = docs.content.decode()
    # Swagger UI is served by the service itself: the docs work without internet access.
    bundle = re.search(
        r"/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle\.[0-9a-f]{12}\.js",
        page,
    )
    assert bundle
    assert "cdn" not in page.lower()
    assert client.get(bundle[0]).status_code == 200


def test_admin_login_page_answers(client: Client) -> None:
    assert client.get("/admin/login/").status_code == 200


def test_asgi_routes_http_and_websocket() -> None:
    from config.asgi import application

    assert set(application.application_mapping) == {"http", "websocket"}
    assert settings.ASGI_APPLICATION == "config.asgi.application"


def test_games_package_imports_without_django() -> None:
    code = "import sys, games; assert 'django' not in sys.modules, 'games imports Django'"

    result = subprocess.run(
        [sys.executable, "-c", code], cwd=settings.BASE_DIR, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stderr
