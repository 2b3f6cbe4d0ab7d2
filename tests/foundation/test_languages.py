"""The page in English, French and Spanish: its language, its catalogue, and the language
switch."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from core.languages import client_catalogue

pytestmark = pytest.mark.django_db

FRENCH = {"HTTP_ACCEPT_LANGUAGE": "fr-FR,fr;q=0.9,en;q=0.5"}
SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es-MX,es;q=0.9,en;q=0.5"}


def embedded_catalogue(page: str) -> dict[str, str]:
    found = re.search(r'<script id="i18n-catalogue" type="application/json">(.*?)</script>', page)
    assert found is not None, "the page embeds no catalogue"
    return json.loads(found.group(1))


def test_the_page_is_english_by_default_with_an_empty_catalogue(client: Client) -> None:
    page = client.get("/").content.decode()

    assert '<html lang="en">' in page
    assert "Today&#x27;s deals" in page or "Today's deals" in page
    assert embedded_catalogue(page) == {}


def test_a_french_browser_gets_the_page_in_french_with_its_catalogue(client: Client) -> None:
    # when
    response = client.get("/", **FRENCH)

    # then
    page = response.content.decode()
    assert response["Content-Language"] == "fr"
    assert '<html lang="fr">' in page
    assert "Les donnes du jour" in page
    assert "Chaque jour, chaque joueur reçoit la même donne" in page
    assert "Documentation de l’API" in page
    assert embedded_catalogue(page) == client_catalogue("fr")
    assert embedded_catalogue(page)["Play as guest"] == "Jouer en invité"


def test_a_spanish_browser_gets_the_page_in_spanish_with_its_catalogue(client: Client) -> None:
    # when: a Mexican browser asks (es-MX falls back to es)
    response = client.get("/", **SPANISH)

    # then
    page = response.content.decode()
    assert response["Content-Language"] == "es"
    assert '<html lang="es">' in page
    assert "Repartos de hoy" in page
    assert "Cada día, todos los jugadores reciben el mismo reparto" in page
    assert embedded_catalogue(page) == client_catalogue("es")
    assert embedded_catalogue(page)["Play as guest"] == "Jugar como invitado"


def test_the_switch_offers_every_language_and_marks_the_current_one(client: Client) -> None:
    page = client.get("/", **SPANISH).content.decode()

    buttons = re.findall(r'<button type="submit" name="language" value="(\w+)"[^>]*>([^<]+)<', page)
    assert buttons == [("en", "English"), ("fr", "Français"), ("es", "Español")]
    assert re.search(r'value="es" lang="es"\s+class="link-button" aria-current="true"', page)
    assert 'action="/i18n/setlang/"' in page


def test_switching_language_sets_the_cookie_and_goes_back_to_the_page(client: Client) -> None:
    # given: a French browser on the page (which sets the CSRF cookie)
    client.get("/", **FRENCH)
    token = client.cookies["csrftoken"].value

    # when
    answer = client.post(
        "/i18n/setlang/",
        {"language": "en", "next": "/#/play/abc", "csrfmiddlewaretoken": token},
        **FRENCH,
    )

    # then
    assert answer.status_code == 302
    assert answer["Location"] == "/#/play/abc"
    cookie = answer.cookies["django_language"]
    assert cookie.value == "en"
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) >= 300 * 24 * 60 * 60
    assert '<html lang="en">' in client.get("/", **FRENCH).content.decode()


@pytest.mark.parametrize(
    "body",
    [
        {"language": "de", "next": "/"},
        {"language": "fr\x00", "next": "/"},
        {"language": "x" * 1000, "next": "/"},
        {"next": "/"},
    ],
)
def test_a_language_the_service_does_not_speak_is_refused(client: Client, body) -> None:
    client.get("/")
    body["csrfmiddlewaretoken"] = client.cookies["csrftoken"].value

    answer = client.post("/i18n/setlang/", body, **FRENCH)

    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid", "detail": "La langue est l’une de : en, fr, es."}
    assert "django_language" not in answer.cookies


def test_switching_never_sends_the_browser_to_another_site(client: Client) -> None:
    client.get("/")
    token = client.cookies["csrftoken"].value

    answer = client.post(
        "/i18n/setlang/",
        {"language": "fr", "next": "https://evil.example/", "csrfmiddlewaretoken": token},
    )

    assert answer.status_code == 302
    assert answer["Location"] == "/"
    assert answer.cookies["django_language"].value == "fr"


def test_switching_without_the_csrf_token_is_refused(client: Client) -> None:
    csrf_client = Client(enforce_csrf_checks=True)

    answer = csrf_client.post("/i18n/setlang/", {"language": "fr", "next": "/"})

    assert answer.status_code == 403
    assert "django_language" not in answer.cookies


def test_a_refusal_outside_the_api_is_french_too(client: Client) -> None:
    answer = client.get("/no-such-page/", **FRENCH)

    assert answer.status_code == 404
    assert answer.json() == {"error": "not_found", "detail": "Il n’y a rien ici."}


def test_a_body_too_large_is_refused_in_french_too(client: Client, settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10

    answer = client.post("/api/auth/guest/", "x" * 100, content_type="application/json", **FRENCH)

    assert answer.status_code == 413
    assert answer.json() == {
        "error": "invalid",
        "detail": "Le corps de la requête dépasse 10 octets.",
    }


def test_static_files_do_not_vary_by_language(client: Client) -> None:
    answer = client.get("/static/frontend/i18n.js", **FRENCH)

    assert answer.status_code == 200
    assert "Accept-Language" not in answer.get("Vary", "")
