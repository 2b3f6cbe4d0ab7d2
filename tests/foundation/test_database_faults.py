"""PostgreSQL down and back, behind a TCP proxy the test cuts: once the outage is known,
requests and sockets are refused in milliseconds (503 with ``Retry-After``, ``unavailable``);
once it is back, the pools' dead connections are replaced and the next requests succeed; the
log has one line for the outage and one for its end."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.db import connection

from tests.foundation.conftest import database_url, service_env
from tests.net import free_port

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the breaker is PostgreSQL's"
)


class CuttableProxy:
    """A TCP proxy on a port of its own in front of PostgreSQL; ``cut()`` drops every
    connection and refuses new ones (as a stopped server does), ``restore()`` listens again."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.listening = False
        self.restore()

    def restore(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.05)
        self.listening = True
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        with listener:
            while self.listening:
                try:
                    client, _ = listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                client.settimeout(None)
                try:
                    server = socket.create_connection(self.upstream, timeout=5)
                except OSError:
                    client.close()
                    continue
                server.settimeout(None)
                with self.lock:
                    self.sockets += [client, server]
                for source, target in ((client, server), (server, client)):
                    threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        for end in (source, target):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.listening = False
        time.sleep(0.1)  # the listener closes
        with self.lock:
            cut, self.sockets = self.sockets, []
        for end in cut:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


def get(base: str, path: str, token: str | None = None) -> tuple[int, Any, Any, float]:
    """Return the status, headers (any case), JSON body and seconds of ``GET path``."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    started = time.monotonic()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(base + path, headers=headers), timeout=15
        ) as answer:
            status, head, body = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        status, head, body = error.code, error.headers, error.read()
    return status, head, json.loads(body), time.monotonic() - started


@pytest.mark.django_db(transaction=True)
def test_postgresql_down_fails_fast_and_its_return_is_served_at_once(uvicorn) -> None:
    # given the service on PostgreSQL through a proxy, and a player's token
    from rest_framework.authtoken.models import Token

    from games import services

    token = Token.objects.create(user=services.player_create_guest(nickname="breaker")).key
    settings_dict = connection.settings_dict
    proxy = CuttableProxy((settings_dict.get("HOST") or "127.0.0.1", int(settings_dict["PORT"])))
    url = database_url({**settings_dict, "PORT": proxy.port})
    server = uvicorn(
        service_env(
            DATABASE_URL=url,
            DATABASE_POOL_TIMEOUT="1",
            HINT_PROCESSES="0",
            DATABASE_CONNECT_TIMEOUT="1",
            LOG_FORMAT="json",
        )
    )
    assert get(server.base, "/api/me/", token)[0] == 200

    # when PostgreSQL goes away, the first requests wait for the pool, until the outage is known
    proxy.cut()
    deadline = time.monotonic() + 10
    while True:
        status, _headers, body, seconds = get(server.base, "/api/me/", token)
        assert status == 503 and body["error"] == "unavailable"
        if seconds < 0.2 or time.monotonic() > deadline:
            break

    # then every request is refused at once, saying when to come back
    answers = [get(server.base, "/api/me/", token) for _ in range(10)]
    assert {status for status, *_ in answers} == {503}
    assert all(int(headers["Retry-After"]) > 0 for _, headers, _, _ in answers)
    assert max(seconds for *_, seconds in answers) < 0.25
    ready = get(server.base, "/readyz")
    assert (ready[0], ready[2]["database"]["ok"], ready[2]["status"]) == (503, False, "unavailable")
    assert ready[3] < 0.5
    assert set(ready[2]["database"]) <= {"ok", "vendor", "pool"}  # no exception text
    assert get(server.base, "/livez")[0] == 200
    socket_answer, socket_seconds = open_game_socket(server.port, token)
    assert socket_answer == ("unavailable", 1011) and socket_seconds < 0.5

    # when it is back, the next requests are served, none waiting on a dead connection
    proxy.restore()
    back = time.monotonic()
    while get(server.base, "/api/me/", token)[0] != 200:
        assert time.monotonic() - back < 5, "still refused 5 s after PostgreSQL came back"
        time.sleep(0.05)
    recovered = time.monotonic() - back
    after = [get(server.base, "/api/me/", token) for _ in range(5)]
    assert [status for status, *_ in after] == [200] * 5
    assert max(seconds for *_, seconds in after) < 0.5
    server.stop()
    proxy.cut()

    # and the log says it once each way, with no traceback
    lines = [json.loads(line) for line in server.output().splitlines() if line.strip()]
    said = [line["message"] for line in lines if line["logger"] == "core.breaker"]
    assert [message.split(" (")[0].split(" after")[0] for message in said] == [
        "PostgreSQL unreachable",
        "PostgreSQL answers again",
    ], said
    assert not [line for line in lines if "exception" in line]
    assert recovered < 3


def open_game_socket(port: int, token: str) -> tuple[tuple[str, int], float]:
    """Open a game socket by token; return its error code and close code, and the seconds."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    started = time.monotonic()
    with connect(f"ws://127.0.0.1:{port}/ws/games/g1/?token={token}", open_timeout=5) as ws:
        message = json.loads(ws.recv(timeout=5))
        with contextlib.suppress(ConnectionClosed):
            ws.recv(timeout=5)
        code = ws.close_code
    return (message["error"], code), time.monotonic() - started


def wait_for(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_busy_pool_opens_nothing_and_an_outage_opens_the_breaker_until_it_ends(
    monkeypatch,
) -> None:
    from django.db import OperationalError

    from core import breaker, metrics

    refreshed: list[bool] = []
    monkeypatch.setattr(breaker, "refresh_pools", lambda: refreshed.append(True))
    monkeypatch.setattr(breaker, "PROBE_SECONDS", 0.01)

    # a pool timeout while PostgreSQL answers: nothing opens
    breaker.report(OperationalError("couldn't get a connection after 5.00 sec"))
    wait_for(lambda: not breaker._checking)
    assert not breaker.is_open()

    # PostgreSQL unreachable: the breaker opens, and closes once it answers again
    reachable = [False]
    monkeypatch.setattr(breaker, "_reachable", lambda: reachable[0])
    breaker.report(OperationalError("connection refused"))
    wait_for(breaker.is_open)
    assert metrics.DATABASE_BREAKER_OPEN._value.get() == 1
    with pytest.raises(breaker.DatabaseDown):
        breaker.check()
    reachable[0] = True
    wait_for(lambda: not breaker.is_open())
    assert refreshed == [True]
    assert metrics.DATABASE_BREAKER_OPEN._value.get() == 0


def test_a_full_server_is_up_for_the_breaker(monkeypatch) -> None:
    import psycopg

    from core import breaker

    def full(*args: Any, **kwargs: Any) -> Any:
        raise psycopg.OperationalError("FATAL:  sorry, too many clients already")

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(psycopg, "connect", full)
    assert breaker._reachable()
    monkeypatch.setattr(psycopg, "connect", refused)
    assert not breaker._reachable()
