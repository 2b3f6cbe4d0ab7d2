"""Fixtures of the foundation tests: a Redis server of their own to pause and to kill."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from tests.net import free_port

REDIS_SERVER = shutil.which("redis-server")


def wait_for_port(port: int, seconds: float = 10.0) -> None:
    """Wait until something accepts connections on ``port`` of 127.0.0.1."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class ThrowawayRedis:
    """A ``redis-server`` without persistence that a test may pause (SIGSTOP) or kill."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(port)

    def pause(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)

    def kill(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def throwaway_redis() -> Iterator[ThrowawayRedis]:
    """Start a Redis of the test's own (port ``THROWAWAY_REDIS_PORT``, else a free one)."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    port = int(os.environ.get("THROWAWAY_REDIS_PORT") or free_port())
    server = ThrowawayRedis(port)
    yield server
    server.kill()


def database_url(settings_dict: dict) -> str:
    """Return a ``DATABASE_URL`` naming the database Django's connection is using."""
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    user = settings_dict.get("USER") or "postgres"
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings_dict['NAME']}"


class Uvicorn:
    """The service under uvicorn in a subprocess, its output kept in a file."""

    def __init__(self, env: dict[str, str], workers: int, log_path) -> None:
        from django.conf import settings

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "w")  # noqa: SIM115  (closed in stop())
        command = [
            sys.executable,
            "-m",
            "config.serve",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--workers",
            str(workers),
        ]
        self.process = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.wait_ready()

    def wait_ready(self, seconds: float = 30.0) -> None:
        import urllib.request

        deadline = time.monotonic() + seconds
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"uvicorn did not start:\n{self.output()[-3000:]}")
            time.sleep(0.1)

    def output(self) -> str:
        if not self._log.closed:
            self._log.flush()
        with open(self.log_path) as handle:
            return handle.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._log.close()


def service_env(**extra: str) -> dict[str, str]:
    """Return the environment of a service subprocess on the test database."""
    from django.db import connection

    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("THROTTLE_", "DATABASE_", "PYTEST"))
    }
    env.pop("DAILY_PATIENCE_REQUIRE_SERVICES", None)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url(connection.settings_dict),
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECRET_KEY="a-test-secret-key",
        DEAL_SECRET="a-test-deal-secret",
        # A loaded test machine must not make these servers refuse newcomers: admission control
        # has its own tests (tests/games/test_admission.py).
        ADMISSION="false",
    )
    env.update(extra)
    return env


@pytest.fixture
def uvicorn(tmp_path) -> Iterator[Callable[..., Uvicorn]]:
    """Return ``start(env, workers=1)``: the service under uvicorn, stopped at teardown."""
    started: list[Uvicorn] = []

    def start(env: dict[str, str], workers: int = 1) -> Uvicorn:
        server = Uvicorn(env, workers, tmp_path / f"uvicorn-{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
