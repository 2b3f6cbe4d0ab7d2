"""Players and authentication through the REST API: guest, register, login, logout, me, CSRF."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.usefixtures("variants")


def test_a_guest_gets_a_token_and_a_logged_in_session() -> None:
    # given
    client = APIClient()

    # when
    answer = client.post("/api/auth/guest/", {"nickname": "Alice"}, format="json")

    # then
    assert answer.status_code == 201
    body = answer.json()
    assert body == {
        "token": body["token"],
        "player": {"id": body["player"]["id"], "nickname": "Alice", "guest": True},
    }
    assert len(body["token"]) == 40
    assert client.get("/api/me/").json() == body["player"]  # by the session cookie
    by_token = APIClient()
    by_token.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert by_token.get("/api/me/").json() == body["player"]


@pytest.mark.parametrize(
    "nickname", ["Al", "x" * 25, "Bad name", "émile", "a/b", 42, None, ["Alice"], "nul\x00l"]
)
def test_a_bad_nickname_is_invalid(nickname: object) -> None:
    # when
    answer = APIClient().post("/api/auth/guest/", {"nickname": nickname}, format="json")

    # then
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "invalid",
        "detail": "A nickname is 3 to 24 letters, digits, '_' or '-'.",
        "field": "nickname",
    }


def test_a_taken_nickname_is_invalid_whatever_its_case(join) -> None:
    # given
    join("Alice")

    # when
    answer = APIClient().post("/api/auth/guest/", {"nickname": "aLICE"}, format="json")

    # then
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "invalid",
        "detail": "The nickname 'aLICE' is taken by a guest account. A guest account has no "
        "password, so only the browser that made it plays as it: choose another nickname.",
        "field": "nickname",
    }


def test_register_then_log_in_by_password() -> None:
    # given
    client = APIClient()
    registered = client.post(
        "/api/auth/register/", {"nickname": "Bob_1", "password": "a long pass phrase"}, "json"
    )

    # when
    answer = APIClient().post(
        "/api/auth/login/", {"nickname": "bob_1", "password": "a long pass phrase"}, "json"
    )

    # then
    assert registered.status_code == 201
    assert answer.status_code == 200
    player = {"id": registered.json()["player"]["id"], "nickname": "Bob_1", "guest": False}
    # a new token for each sign-in: a stored token is a hash, its secret shown only once
    assert answer.json() == {"token": answer.json()["token"], "player": player}
    assert answer.json()["token"] != registered.json()["token"]


def test_a_weak_password_is_invalid() -> None:
    answer = APIClient().post("/api/auth/register/", {"nickname": "Bob", "password": "123"}, "json")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"
    assert answer.json()["field"] == "password"


@pytest.mark.parametrize("nickname", ["Bob", "nobody", "x\x00y", "x" * 500])
def test_wrong_credentials_are_not_authenticated(nickname: str) -> None:
    # given
    APIClient().post(
        "/api/auth/register/", {"nickname": "Bob", "password": "pass phrase 1"}, "json"
    )

    # when
    answer = APIClient().post(
        "/api/auth/login/", {"nickname": nickname, "password": "wrong pass"}, "json"
    )

    # then
    assert answer.status_code == 401
    assert answer.json() == {"error": "not_authenticated", "detail": "Wrong nickname or password."}


def test_me_is_401_when_anonymous_or_with_a_bad_token() -> None:
    # given
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)

    # when
    anonymous = APIClient().get("/api/me/")
    refused = bad_token.get("/api/me/")

    # then
    assert anonymous.status_code == 401
    assert anonymous.json() == {
        "error": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }
    assert refused.status_code == 401
    assert refused.json() == {"error": "not_authenticated", "detail": "Invalid token."}


def test_logout_ends_the_session_but_not_the_token() -> None:
    # given
    client = APIClient()
    token = client.post("/api/auth/guest/", {"nickname": "Alice"}, "json").json()["token"]

    # when
    answer = client.post("/api/auth/logout/")

    # then
    assert answer.status_code == 204
    assert client.get("/api/me/").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/me/").json()["nickname"] == "Alice"


def test_a_session_post_needs_the_csrf_token() -> None:
    # given a browser, which checks CSRF, logged in as a guest
    browser = APIClient(enforce_csrf_checks=True)
    csrf = browser.get("/api/auth/csrf/")
    token = csrf.json()["csrf_token"]
    browser.post("/api/auth/guest/", {"nickname": "Alice"}, "json", HTTP_X_CSRFTOKEN=token)
    token = browser.get("/api/auth/csrf/").json()["csrf_token"]  # login rotates it
    practice = {"variant": "caprice", "mode": "practice", "seed": "s"}

    # when
    without = browser.post("/api/games/", practice, "json")
    with_token = browser.post("/api/games/", practice, "json", HTTP_X_CSRFTOKEN=token)

    # then
    assert csrf.status_code == 200
    assert "csrftoken" in csrf.cookies
    assert without.status_code == 403
    assert without.json()["error"] == "forbidden"
    assert without.json()["detail"].startswith("CSRF Failed")
    assert with_token.status_code == 201


@pytest.mark.parametrize("path", ["/api/auth/guest/", "/api/auth/register/", "/api/auth/login/"])
def test_a_sign_in_posted_by_another_site_is_refused(path: str) -> None:
    # given a browser on another site posting a sign-in form (login CSRF)
    client = APIClient()
    body = {"nickname": "Mallory", "password": "a-long-enough-password-1"}

    # when
    answer = client.post(path, body, format="json", HTTP_ORIGIN="https://evil.example")

    # then nobody is signed in and the refusal says why
    assert answer.status_code == 403
    assert answer.json() == {
        "error": "forbidden",
        "detail": "Sign-in requests from another site are refused.",
    }
    assert client.get("/api/me/").status_code == 401


def test_a_sign_in_from_the_service_s_own_pages_is_accepted() -> None:
    answer = APIClient().post(
        "/api/auth/guest/", {"nickname": "Alice"}, format="json", HTTP_ORIGIN="http://testserver"
    )
    assert answer.status_code == 201
