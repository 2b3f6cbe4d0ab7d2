"""Error reports (``SENTRY_DSN``): an error reaches the endpoint, with no token, cookie or seed."""

from __future__ import annotations

import gzip
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings

from config.errorreports import FILTERED, scrub, scrub_text
from tests.net import free_port

TOKEN = "0123456789abcdef0123456789abcdef01234567"
SEED = "fe" * 32
SESSION = "sessionvalue" + "x" * 20
CSRF = "csrfvalue" + "y" * 20


def test_scrub_filters_named_fields_and_redacts_texts() -> None:
    event = {
        "message": f"deal seed={SEED} for /api/?token={TOKEN}",
        "request": {
            "headers": {"Authorization": f"Token {TOKEN}", "Cookie": f"sessionid={SESSION}"},
            "cookies": {"sessionid": SESSION},
            "query_string": f"token={TOKEN}&seed={SEED}",
        },
        "extra": {"seed": SEED, "nested": [["X-CSRFToken", CSRF], f"plain {SEED}"]},
    }

    scrubbed = scrub(event, None)

    text = repr(scrubbed)
    for secret in (TOKEN, SEED, SESSION, CSRF):
        assert secret not in text
    assert scrubbed["request"]["headers"]["Authorization"] == FILTERED
    assert "cookies" not in scrubbed["request"]
    assert scrubbed["extra"]["seed"] == FILTERED
    assert scrub_text("request 0123456789abcdef0123456789abcdef") == (
        "request 0123456789abcdef0123456789abcdef"  # a request id (32 digits) stays
    )


class Recorder(http.server.BaseHTTPRequestHandler):
    """Sentry's endpoint, as far as a test needs: record every envelope it is sent."""

    received: list[bytes] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        elif self.headers.get("Content-Encoding") == "br":
            import brotli  # type: ignore[import-not-found]

            body = brotli.decompress(body)
        Recorder.received.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[tuple[int, list[bytes]]]:
    Recorder.received = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], Recorder.received
    server.shutdown()
    server.server_close()


FAILING_SERVICE = f"""
import django
django.setup()
import logging
from django.urls import clear_url_caches, path
import config.urls

def deal(request):
    seed, token = {SEED!r}, {TOKEN!r}
    raise RuntimeError(f"cannot deal seed={{seed}} for {{token}}")

config.urls.urlpatterns.insert(0, path("boom/", deal))
clear_url_caches()
from django.test import Client
client = Client(raise_request_exception=False)
answer = client.get(
    "/boom/?token={TOKEN}&seed={SEED}",
    HTTP_AUTHORIZATION="Token {TOKEN}",
    HTTP_COOKIE="sessionid={SESSION}; csrftoken={CSRF}",
    HTTP_X_CSRFTOKEN="{CSRF}",
)
logging.getLogger("games.scheduler").error("preparedeals failed for seed {SEED}")
import sentry_sdk
sentry_sdk.flush(timeout=10)
print(answer.status_code)
"""


def test_an_error_reaches_sentry_with_no_token_cookie_or_seed(endpoint) -> None:
    # given: the service configured with a DSN of the local endpoint
    port, received = endpoint
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SENTRY_DSN": f"http://publickey@127.0.0.1:{port}/1",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "testserver",
        "SECRET_KEY": "a-test-secret-key",
        "DEAL_SECRET": "a-test-deal-secret",
    }

    # when a view fails and the scheduler logs an error
    result = subprocess.run(
        [sys.executable, "-c", FAILING_SERVICE],
        cwd=django_settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    # then both reached the endpoint, and nothing secret did
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "500"
    sent = b"\n".join(received).decode("utf-8", "replace")
    assert "RuntimeError" in sent and "/boom/" in sent
    assert "preparedeals failed for seed" in sent
    for secret in (TOKEN, SEED, SESSION, CSRF):
        assert secret not in sent
    assert FILTERED in sent
