"""``deploy/nginx.conf``: what it says, that nginx accepts it, and what it does in front of a
recording upstream (skipped without nginx; ``.ci/run`` installs it).

The running copy differs from the shipped file only by its addresses and paths: the port it
listens on, the upstream (a recording HTTP server instead of ``web:8000``), the static folder,
the pid and temporary files.
"""

from __future__ import annotations

import grp
import http.client
import json
import os
import pwd
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.conf import settings

from tests.foundation.conftest import wait_for_port
from tests.net import free_port

NGINX = shutil.which("nginx") or next(
    (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
)
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
CONFIG = Path(settings.BASE_DIR) / "deploy" / "nginx.conf"


def config_text() -> str:
    """Return the configuration without its comments."""
    return re.sub(r"#.*$", "", CONFIG.read_text(), flags=re.MULTILINE)


def block(text: str, opening: str) -> str:
    """Return the body of the ``{ ... }`` block that starts with ``opening``."""
    start = text.index(opening)
    depth, index = 0, text.index("{", start)
    for index in range(text.index("{", start), len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            break
    return text[text.index("{", start) + 1 : index]


def size_in_bytes(value: str) -> int:
    units = {"": 1, "k": 1024, "m": 1024 * 1024}
    number, unit = re.fullmatch(r"(\d+)([kKmM]?)", value).groups()  # type: ignore[union-attr]
    return int(number) * units[unit.lower()]


# --- the file itself -------------------------------------------------------------------------


def test_websockets_are_proxied_with_the_upgrade_headers_and_a_long_read_timeout() -> None:
    text = config_text()
    server = block(text, "server {")
    sockets = block(server, "location /ws/")

    assert "proxy_http_version 1.1;" in server
    assert "proxy_set_header Upgrade $http_upgrade;" in server
    assert "proxy_set_header Connection $connection_upgrade;" in server
    assert "proxy_pass $web;" in sockets
    assert "proxy_set_header" not in sockets  # it would drop the server's headers
    assert "proxy_read_timeout 1h;" in sockets


def test_static_files_are_served_from_the_volume_with_cache_headers() -> None:
    server = block(config_text(), "server {")
    static = block(server, "location /static/")

    assert "alias /srv/static/;" in static
    assert "gzip_static on;" in static
    assert "max-age=31536000, immutable" in server  # the hashed names


def test_text_is_gzipped() -> None:
    http_block = block(config_text(), "http {")

    assert re.search(r"^\s*gzip on;", http_block, re.MULTILINE)
    types = re.search(r"gzip_types([^;]+);", http_block).group(1).split()  # type: ignore[union-attr]
    assert {"text/css", "application/javascript", "application/json"} <= set(types)


def test_the_body_limit_is_the_services() -> None:
    text = config_text()
    limit = re.search(r"client_max_body_size (\S+);", text).group(1)  # type: ignore[union-attr]

    assert size_in_bytes(limit) == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    assert f"larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes" in text


def test_the_proxy_forwards_the_scheme_host_and_client_address() -> None:
    server = block(config_text(), "server {")

    assert "proxy_set_header X-Forwarded-Proto $forwarded_proto;" in server
    assert "proxy_set_header Host $forwarded_host;" in server
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in server


@needs_nginx
def test_nginx_accepts_the_configuration(tmp_path) -> None:
    # given the shipped file, with a user this machine has (Debian has no "nginx")
    text = CONFIG.read_text()
    assert text.count("user nginx;") == 1
    conf = tmp_path / "nginx.conf"
    me = f"user {pwd.getpwuid(os.geteuid()).pw_name} {grp.getgrgid(os.getegid()).gr_name};"
    conf.write_text(text.replace("user nginx;", me))

    # when
    result = subprocess.run(
        [NGINX, "-t", "-e", "stderr", "-c", str(conf)],
        capture_output=True,
        text=True,
        timeout=30,
    )

    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


# --- nginx running in front of a recording upstream -----------------------------------------


class Recorder(BaseHTTPRequestHandler):
    """Answer every request with the path and headers it arrived with, in JSON."""

    def answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        seen = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}}
        body = json.dumps({**seen, "padding": "x" * (4000 if "big" in self.path else 0)})
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def running_copy(upstream_port: int, port: int, root: Path) -> str:
    """Return the shipped configuration with this machine's addresses and paths."""
    text = CONFIG.read_text()
    # Run the workers as root only when the test runs as root: as nobody they could not read
    # pytest's private folders.
    user = "user root;" if os.geteuid() == 0 else ""
    replacements = {
        "user nginx;": user,
        "listen 80 default_server;": f"listen 127.0.0.1:{port} default_server;",
        "set $web http://web:8000;": f"set $web http://127.0.0.1:{upstream_port};",
        "pid /tmp/nginx.pid;": f"pid {root}/nginx.pid;",
        "http {": "http {\n"
        + "".join(
            f"    {kind}_temp_path {root}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        ),
    }
    for old, new in replacements.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    assert text.count("/srv/static/") == 2
    return text.replace("/srv/static/", f"{root}/static/")


@pytest.fixture(scope="module")
def start_nginx(tmp_path_factory) -> Iterator[Callable[[int], str]]:
    """Return ``start(upstream_port)``: an nginx on the running copy, its base address."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(upstream_port: int) -> str:
        root = tmp_path_factory.mktemp("nginx")
        static = root / "static" / "frontend"
        static.mkdir(parents=True)
        (static / "app.js").write_text("export const app = 1;\n")
        (static / "app.0123456789ab.js").write_text("export const app = 2;\n")
        port = free_port()
        conf = root / "nginx.conf"
        conf.write_text(running_copy(upstream_port, port, root))
        command = [NGINX, "-e", "stderr", "-c", str(conf), "-g", "daemon off;"]
        processes.append(
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        )
        wait_for_port(port)
        return f"127.0.0.1:{port}"

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def nginx(start_nginx, upstream) -> str:
    return start_nginx(upstream)


def request(
    address: str, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(address, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def seen_upstream(address: str, path: str, headers: dict[str, str]) -> dict[str, str]:
    status, _, body = request(address, "GET", path, headers)
    assert status == 200, body
    return json.loads(body)["headers"]


@needs_nginx
def test_the_tls_proxys_scheme_and_the_host_reach_the_service(nginx) -> None:
    # when the TLS proxy in front says the client used https
    seen = seen_upstream(
        nginx,
        "/api/variants/",
        {"Host": "play.example", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"},
    )

    # then
    assert seen["x-forwarded-proto"] == "https"
    assert seen["host"] == "play.example"
    assert seen["x-forwarded-for"] == "203.0.113.9, 127.0.0.1"  # the client, then the proxy


@needs_nginx
def test_without_a_proxy_in_front_nginx_forwards_its_own_scheme(nginx) -> None:
    seen = seen_upstream(nginx, "/", {"Host": "play.example:8080", "X-Forwarded-Proto": "gopher"})

    assert seen["x-forwarded-proto"] == "http"
    assert seen["host"] == "play.example:8080"  # the port too: browsers' Origin carries it


@needs_nginx
def test_a_websocket_handshake_reaches_the_service_with_its_upgrade(nginx) -> None:
    seen = seen_upstream(
        nginx,
        "/ws/games/1/",
        {
            "Host": "play.example",
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
    )

    assert seen["upgrade"] == "websocket"
    assert seen["connection"].lower() == "upgrade"
    assert seen["x-forwarded-proto"] == "http"


@needs_nginx
def test_json_answers_are_gzipped_for_clients_that_accept_it(nginx) -> None:
    status, headers, _ = request(nginx, "GET", "/big", {"Accept-Encoding": "gzip"})

    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert "accept-encoding" in headers["vary"].lower()


@needs_nginx
def test_static_files_come_from_the_volume_hashed_names_cached_for_a_year(nginx) -> None:
    status, plain, body = request(nginx, "GET", "/static/frontend/app.js", {})
    hashed_status, hashed, _ = request(nginx, "GET", "/static/frontend/app.0123456789ab.js", {})
    missing, _, _ = request(nginx, "GET", "/static/frontend/nothing.js", {})

    assert (status, body) == (200, b"export const app = 1;\n")
    assert plain["cache-control"] == "public, max-age=300, must-revalidate"
    assert plain["x-content-type-options"] == "nosniff"
    assert hashed_status == 200
    assert hashed["cache-control"] == "public, max-age=31536000, immutable"
    assert missing == 404  # never passed on to the service


@needs_nginx
def test_a_body_over_the_limit_is_refused_in_the_services_error_shape(nginx) -> None:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    status, headers, body = request(
        nginx, "POST", "/api/games/", {"Content-Type": "application/json"}, b"x" * (limit + 1)
    )
    fits, _, _ = request(nginx, "POST", "/api/games/", {}, b"x" * limit)

    assert status == 413
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {
        "error": "invalid",
        "detail": f"The request body is larger than {limit} bytes.",
    }
    assert fits == 200


@needs_nginx
def test_a_service_that_does_not_answer_is_a_json_503(start_nginx) -> None:
    address = start_nginx(free_port())  # nothing listens there

    status, headers, body = request(address, "GET", "/api/daily/", {})

    assert status == 503
    assert headers["retry-after"] == "5"
    assert json.loads(body)["error"] == "unavailable"


# --- nginx in front of the service itself ---------------------------------------------------


@needs_nginx
@pytest.mark.django_db(transaction=True)
def test_in_front_of_the_service_https_is_enforced_and_sockets_connect(
    ws_variants, uvicorn, start_nginx
) -> None:
    # given the service configured as docker-compose.yml does, behind nginx
    from websockets.sync.client import connect

    from games import clock
    from tests.foundation.conftest import service_env

    env = service_env(
        ALLOWED_HOSTS="play.example,127.0.0.1",
        DEAL_SECRET="a-deal-secret-for-the-proxy-test-of-some-length",
        SECURE_SSL_REDIRECT="true",
        TRUST_X_FORWARDED_PROTO="true",
        NUM_PROXIES="2",
    )
    address = start_nginx(uvicorn(env).port)

    # when
    health = request(address, "GET", "/readyz", {"Host": "play.example"})
    plain = request(address, "GET", "/api/variants/", {"Host": "play.example"})
    secure = request(
        address, "GET", "/api/variants/", {"Host": "play.example", "X-Forwarded-Proto": "https"}
    )
    with connect(f"ws://{address}/ws/daily/caprice/{clock.today()}/", open_timeout=10) as socket:
        first = json.loads(socket.recv(timeout=10))

    # then
    assert health[0] == 404  # the probes are internal: never passed on, never redirected
    assert plain[0] == 301
    assert plain[1]["location"] == "https://play.example/api/variants/"
    assert secure[0] == 200
    assert {variant["slug"] for variant in json.loads(secure[2])} >= {"caprice"}
    assert first["type"] == "leaderboard"


def test_the_metrics_are_not_passed_on_to_the_service() -> None:
    metrics = block(config_text(), "location = /metrics")
    assert "return 404" in metrics
    assert "proxy_pass" not in metrics


def test_the_probes_are_not_passed_on_to_the_service() -> None:
    probes = block(config_text(), 'location ~ "^/(livez|readyz|healthz)$"')
    assert "return 404" in probes
    assert "proxy_pass" not in probes


@needs_nginx
@pytest.mark.parametrize("path", ["/livez", "/readyz?x=1", "/healthz"])
def test_a_public_client_asking_for_a_probe_gets_the_services_404(nginx, path) -> None:
    status, _headers, body = request(nginx, "GET", path, {"Host": "play.example"})

    assert status == 404
    assert json.loads(body)["error"] == "not_found"


@needs_nginx
def test_a_public_client_asking_for_the_metrics_gets_the_services_404(nginx) -> None:
    # when: the recording upstream would answer 200 to anything passed on
    status, headers, body = request(nginx, "GET", "/metrics?x=1", {"Host": "play.example"})

    assert status == 404
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["error"] == "not_found"
