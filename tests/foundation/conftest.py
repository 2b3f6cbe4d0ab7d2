"""Fixtures of the foundation tests: a Redis server of their own to pause and to kill."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    """Return a TCP port of 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
