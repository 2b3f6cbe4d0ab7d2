"""Logs are one JSON object a line, saying which request or socket, player and game they are
about; API tokens never reach them: ``token=...`` is redacted, uvicorn's access log included."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import urllib.error
import urllib.request

import pytest
from uvicorn.logging import AccessFormatter

from config.logging import JsonFormatter, RedactCredentials, TextFormatter, redact
from core import logcontext
from tests.foundation.conftest import service_env

TOKEN = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"/ws/games/7/?token={TOKEN}", "/ws/games/7/?token=[redacted]"),
        (f"/api/me/?a=1&token={TOKEN}&b=2", "/api/me/?a=1&token=[redacted]&b=2"),
        (f"/x?TOKEN={TOKEN}#frag", "/x?TOKEN=[redacted]#frag"),
        (f"Authorization: Token {TOKEN}", "Authorization: Token [redacted]"),
        (f"'HTTP_AUTHORIZATION': 'Bearer {TOKEN}'", "'HTTP_AUTHORIZATION': 'Bearer [redacted]'"),
        ("/api/games/?tokens_left=3", "/api/games/?tokens_left=3"),
        ("/api/variants/", "/api/variants/"),
    ],
)
def test_redact_replaces_token_values_only(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_uvicorns_formatted_access_record_shows_the_token_redacted() -> None:
    # given: uvicorn's access logger as uvicorn configures it, with its own handler
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s'))
    logger = logging.getLogger("uvicorn.access")
    logger.addHandler(handler)
    level, logger.level = logger.level, logging.INFO

    # when
    try:
        logger.info(
            '%s - "%s %s HTTP/%s" %d',
            "127.0.0.1:5555",
            "GET",
            f"/ws/games/x/?token={TOKEN}",
            "1.1",
            101,
        )
    finally:
        logger.removeHandler(handler)
        logger.level = level

    # then
    line = stream.getvalue()
    assert "/ws/games/x/?token=[redacted]" in line
    assert TOKEN not in line


def test_the_filter_is_installed_on_uvicorns_and_djangos_loggers() -> None:
    for name in ("uvicorn.access", "uvicorn.error", "django.request", "django.server"):
        assert any(isinstance(f, RedactCredentials) for f in logging.getLogger(name).filters)


def a_record(name: str = "games.test", **extra: object) -> logging.LogRecord:
    record = logging.LogRecord(name, logging.WARNING, __file__, 1, "moved %s", ("x",), None)
    record.__dict__.update(extra)
    return record


def test_a_json_line_says_when_what_and_about_which_socket_player_and_game() -> None:
    # given a socket's context
    def log() -> str:
        logcontext.socket_id.set("s" * 32)
        logcontext.player_id.set(42)
        logcontext.game_id.set("g1")
        return JsonFormatter().format(a_record(extra_field=f"token={TOKEN}"))

    # when
    import contextvars

    line = contextvars.copy_context().run(log)

    # then
    fields = json.loads(line)
    assert fields.pop("time").endswith("Z")
    assert fields == {
        "level": "WARNING",
        "logger": "games.test",
        "message": "moved x",
        "socket_id": "s" * 32,
        "player_id": 42,
        "game_id": "g1",
        "extra_field": "token=[redacted]",
    }


def test_a_json_line_carries_the_traceback_redacted() -> None:
    try:
        raise ValueError(f"/api/?token={TOKEN}")
    except ValueError:
        import sys

        record = a_record(exc_info=sys.exc_info())

    fields = json.loads(JsonFormatter().format(record))

    assert "ValueError" in fields["exception"]
    assert TOKEN not in fields["exception"]


def test_the_text_line_is_for_a_person() -> None:
    line = TextFormatter().format(a_record())

    assert line.split(" ", 1)[1] == "WARNING games.test moved x"


def test_log_format_is_json_or_text() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from config.env import log_format

    assert log_format({}) == "json"
    assert log_format({"LOG_FORMAT": "Text"}) == "text"
    with pytest.raises(ImproperlyConfigured):
        log_format({"LOG_FORMAT": "xml"})


@pytest.mark.django_db
def test_the_request_id_is_sent_back_and_a_proxys_plain_one_kept(client) -> None:
    kept = client.get("/livez", HTTP_X_REQUEST_ID="edge-0123456789")
    replaced = client.get("/livez", HTTP_X_REQUEST_ID="bad id\n{}")

    assert kept["X-Request-ID"] == "edge-0123456789"
    assert len(replaced["X-Request-ID"]) == 32 and replaced["X-Request-ID"].isalnum()


@pytest.mark.django_db(transaction=True)
def test_a_real_uvicorn_logs_json_lines_and_never_the_tokens_it_is_sent(uvicorn) -> None:
    # given a player with a token and the service's own log
    from rest_framework.authtoken.models import Token

    from games import services

    player = services.player_create_guest(nickname="logged")
    key = Token.objects.create(user=player).key
    server = uvicorn(service_env(LOG_LEVEL="INFO", LOG_FORMAT="json"))
    secret = "secret" + TOKEN[:20]
    paths = [f"/api/me/?token={secret}", f"/ws/games/x/?token={TOKEN}"]

    # when
    for path in paths:
        request = urllib.request.Request(
            server.base + path, headers={"Authorization": f"Token {TOKEN}"}
        )
        with contextlib.suppress(urllib.error.HTTPError):
            urllib.request.urlopen(request, timeout=10).close()
    mine = urllib.request.Request(
        server.base + "/api/games/unknown-game/",
        headers={"Authorization": f"Token {key}", "X-Request-ID": "probe-000001"},
    )
    with contextlib.suppress(urllib.error.HTTPError):
        urllib.request.urlopen(mine, timeout=10).close()
    websocket_handshake(server.port, f"/ws/games/x/?token={TOKEN}")
    server.stop()

    # then every line is a JSON object with its time, level, logger and message
    output = server.output()
    lines = [json.loads(line) for line in output.splitlines() if line.strip()]
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    # the access line of the player's request says which request, player and game
    access = [line for line in lines if line.get("request_id") == "probe-000001"]
    assert {line["logger"] for line in access} >= {"uvicorn.access"}
    entry = next(line for line in access if line["logger"] == "uvicorn.access")
    assert (entry["method"], entry["path"], entry["status"]) == (
        "GET",
        "/api/games/unknown-game/",
        404,
    )
    assert (entry["player_id"], entry["game_id"]) == (player.pk, "unknown-game")
    # a socket's lines name the socket and its game
    assert any("socket_id" in line and line.get("game_id") == "x" for line in lines)
    assert "token=[redacted]" in output  # the access log did print the paths
    assert TOKEN not in output
    assert secret not in output


def websocket_handshake(port: int, path: str) -> None:
    """Open (and close) a WebSocket, whatever the service answers."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    try:
        with connect(f"ws://127.0.0.1:{port}{path}", open_timeout=5, close_timeout=1):
            pass
    except (OSError, WebSocketException):
        pass
