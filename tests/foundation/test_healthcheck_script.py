"""``deploy/healthcheck.py``, the web container's health check: 0 on a 200, 1 otherwise."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings

from tests.net import free_port

SCRIPT = Path(settings.BASE_DIR) / "deploy" / "healthcheck.py"


class Health(BaseHTTPRequestHandler):
    """Answer ``/ok`` 200 and anything else 503, remembering each request's ``Host``."""

    hosts: list[str] = []

    def do_GET(self) -> None:
        Health.hosts.append(self.headers["Host"])
        status = 200 if self.path == "/ok" else 503
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def run(url: str, allowed_hosts: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), url],
        env={"ALLOWED_HOSTS": allowed_hosts},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("allowed_hosts", "host"),
    [
        ("play.example,localhost", "play.example"),
        (".example.org", "example.org"),
        ("*", "localhost"),
    ],
)
def test_a_200_is_healthy_and_names_an_allowed_host(server, allowed_hosts, host) -> None:
    result = run(f"{server}/ok", allowed_hosts)

    assert result.returncode == 0, result.stdout
    assert Health.hosts[-1] == host


def test_a_503_is_unhealthy(server) -> None:
    result = run(f"{server}/healthz", "play.example")

    assert result.returncode == 1
    assert result.stdout.startswith("503")


def test_nothing_listening_is_unhealthy() -> None:
    result = run(f"http://127.0.0.1:{free_port()}/healthz", "play.example")

    assert result.returncode == 1
    assert "ConnectionRefusedError" in result.stdout
