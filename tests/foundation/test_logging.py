"""API tokens never reach the logs: ``token=...`` is redacted, uvicorn's access log included."""

from __future__ import annotations

import contextlib
import io
import logging
import urllib.error
import urllib.request

import pytest
from uvicorn.logging import AccessFormatter

from config.logging import RedactCredentials, redact
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


@pytest.mark.django_db(transaction=True)
def test_a_real_uvicorn_never_prints_the_tokens_it_is_sent(uvicorn) -> None:
    # given
    server = uvicorn(service_env(LOG_LEVEL="INFO"))
    secret = "secret" + TOKEN[:20]
    paths = [f"/api/me/?token={secret}", f"/ws/games/x/?token={TOKEN}"]

    # when
    for path in paths:
        request = urllib.request.Request(
            server.base + path, headers={"Authorization": f"Token {TOKEN}"}
        )
        with contextlib.suppress(urllib.error.HTTPError):
            urllib.request.urlopen(request, timeout=10).close()
    websocket_handshake(server.port, f"/ws/games/x/?token={TOKEN}")
    server.stop()

    # then
    output = server.output()
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
