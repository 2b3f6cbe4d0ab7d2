"""Every error is the JSON body of docs/api.md, on API paths and others: 503, 413 and 500.

- The database unreachable (or its pool exhausted): 503 ``unavailable`` with ``Retry-After``.
- A body beyond ``DATA_UPLOAD_MAX_MEMORY_SIZE``: 413 ``invalid``, never a 500 or an HTML page.
- Any other unhandled exception: a JSON 500 ``server_error``, never an HTML page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import OperationalError, connections
from django.test import Client
from rest_framework.test import APIClient

from tests.net import free_port

TEN_MB = 10 * 1024 * 1024


def refuse(*args: Any, **kwargs: Any) -> None:
    raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


def assert_unavailable(answer) -> None:
    assert answer.status_code == 503
    assert answer["Content-Type"] == "application/json"
    assert answer["Retry-After"] == "5"
    assert answer.json() == {
        "error": "unavailable",
        "detail": "The service is temporarily unavailable; try again in a few seconds.",
    }


@pytest.mark.django_db
def test_an_api_request_while_the_database_is_down_is_503(monkeypatch) -> None:
    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)

    assert_unavailable(APIClient().get("/api/variants/"))


@pytest.mark.django_db
def test_a_page_request_while_the_database_is_down_is_503(monkeypatch) -> None:
    client = Client()
    client.cookies["sessionid"] = "a-session-to-load"  # the admin reads it from the database
    monkeypatch.setattr(type(connections["default"]), "cursor", refuse)

    assert_unavailable(client.get("/admin/"))


DEAD_DATABASE_SCRIPT = """
import json, django
django.setup()
from django.test import Client
from rest_framework.test import APIClient
client = Client(raise_request_exception=False)
client.cookies["sessionid"] = "a-session-to-load"
answers = [
    APIClient(raise_request_exception=False).get("/api/variants/"),
    client.get("/admin/"),
]
print(json.dumps([
    {"status": a.status_code, "retry": a.get("Retry-After"), "body": a.json()} for a in answers
]))
"""


@pytest.mark.skipif(
    not django_settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="the connection pool is PostgreSQL's",
)
def test_a_database_nobody_answers_is_503_after_the_pool_timeout() -> None:
    # given: the service configured with a PostgreSQL that is not there
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{free_port()}/nowhere",
        "DATABASE_POOL_TIMEOUT": "1",
        "DATABASE_CONNECT_TIMEOUT": "1",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "testserver",
    }

    # when
    result = subprocess.run(
        [sys.executable, "-c", DEAD_DATABASE_SCRIPT],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    # then
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert [answer["status"] for answer in answers] == [503, 503]
    # the first waited the pool's timeout; the breaker may have opened (core/breaker.py) and
    # answered the second at once, asking for a shorter wait
    assert {answer["retry"] for answer in answers} <= {"5", "2"}
    assert {answer["body"]["error"] for answer in answers} == {"unavailable"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/api/auth/guest/", "application/json"),
        ("/api/auth/login/", "text/plain"),
        ("/admin/login/", "application/x-www-form-urlencoded"),
    ],
)
def test_a_10_mb_body_is_413_in_the_error_shape(path: str, content_type: str) -> None:
    body = b'{"nickname": "' + b"A" * TEN_MB + b'"}'

    answer = Client().post(path, body, content_type=content_type)

    assert answer.status_code == 413
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {
        "error": "invalid",
        "detail": "The request body is larger than 65536 bytes.",
    }


@pytest.mark.django_db
def test_a_body_within_the_limit_is_read() -> None:
    answer = APIClient().post("/api/auth/guest/", {"nickname": "A" * 40_000}, format="json")

    assert answer.status_code == 400  # too long a nickname: read and refused, not too large
    assert answer.json()["error"] == "invalid"


@pytest.mark.django_db
def test_an_unhandled_exception_on_a_page_is_a_json_500(monkeypatch) -> None:
    def explode(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("config.views.render", explode)

    answer = Client(raise_request_exception=False).get("/")

    assert answer.status_code == 500
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == {
        "error": "server_error",
        "detail": "Something went wrong on the server.",
    }


def test_the_error_handlers_answer_json() -> None:
    from django.core.exceptions import RequestDataTooBig
    from django.test import RequestFactory

    from core import responses

    request = RequestFactory().get("/")
    too_big = responses.bad_request(request, RequestDataTooBig("too big"))
    bad = responses.bad_request(request, ValueError("bad"))
    try:
        raise OperationalError("down")
    except OperationalError:
        down = responses.server_error(request)
    broken = responses.server_error(request)

    assert (too_big.status_code, json.loads(too_big.content)["error"]) == (413, "invalid")
    assert (bad.status_code, json.loads(bad.content)["error"]) == (400, "invalid")
    assert (down.status_code, down["Retry-After"]) == (503, "5")
    assert (broken.status_code, json.loads(broken.content)["error"]) == (500, "server_error")


def test_django_refusals_outside_the_api_keep_their_status(admin_client, client) -> None:
    # given a staff member and an anonymous visitor
    # when they ask for a page that does not exist, or an action the admin forbids
    missing = admin_client.get("/admin/games/game/no-such-game/change/")
    forbidden = admin_client.post("/admin/games/deal/add/")

    # then Django's status stands: never a 500
    assert missing.status_code in (302, 404)
    assert forbidden.status_code == 403
    assert forbidden.json()["error"] == "forbidden"


def test_the_json_parser_stops_reading_at_the_limit(settings) -> None:
    import io

    from games.api.base import RequestTooLarge, StrictJSONParser

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = io.BytesIO(b"[" + b"1," * 1000 + b"1]")  # a stream of no declared length

    with pytest.raises(RequestTooLarge):
        StrictJSONParser().parse(body)
    assert StrictJSONParser().parse(io.BytesIO(b'{"ok": true}')) == {"ok": True}
