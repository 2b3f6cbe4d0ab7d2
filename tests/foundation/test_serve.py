"""``python -m config.serve``: a supervisor of ours over ``uvicorn.Server`` workers, each with a
listening socket of its own so that the kernel spreads connections over them (config/serve.py)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from uvicorn import Config

from config import serve
from config.serve import STARTUP_FAILURE
from tests.net import free_port

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
APP = "tests.foundation.serve_probe:app"


def serve_command(port: int, *options: str, app: str = APP) -> list[str]:
    return [
        sys.executable,
        "-m",
        "config.serve",
        app,
        "--host",
        HOST,
        "--port",
        str(port),
        *options,
    ]


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT: Linux")


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def listening_inodes(port: int) -> set[str]:
    """The inodes of the TCP sockets listening on ``port`` (state 0A in /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            found.add(fields[9])
    return found


def sockets_of(pid: int) -> set[str]:
    """The inodes of the sockets process ``pid`` holds open."""
    held = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            held.add(target[len("socket:[") : -1])
    return held


def listeners(supervisor: int, port: int) -> dict[int, set[str]]:
    """Each process of the tree (the supervisor and its workers) → the listening sockets of
    ``port`` it holds."""
    listening = listening_inodes(port)
    found = {}
    for pid in [supervisor, *children(supervisor)]:
        try:
            found[pid] = sockets_of(pid) & listening
        except OSError:
            continue
    return found


def answer_pid(port: int) -> int:
    """One request on a new connection; return the pid of the worker that answered it."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/", timeout=5) as answer:
        return int(answer.read())


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    process = subprocess.Popen(
        serve_command(port, "--workers", "2", "--log-level", "warning"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: len(worker_listeners(process.pid, port)) == 2)
        yield process, port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def worker_listeners(supervisor: int, port: int) -> dict[int, set[str]]:
    return {pid: held for pid, held in listeners(supervisor, port).items() if held}


def wait_for(condition, timeout: float = 30) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("the condition did not hold in time")


def test_each_worker_listens_on_a_socket_of_its_own(served) -> None:  # type: ignore[no-untyped-def]
    process, port = served
    held = worker_listeners(process.pid, port)
    assert process.pid not in held  # the supervisor released its socket
    assert set(held) <= set(children(process.pid))
    first, second = held.values()
    assert len(first) == len(second) == 1 and first != second

    process.send_signal(signal.SIGTERM)  # the supervisor stops its workers gracefully
    assert process.wait(timeout=20) == 0
    assert not listening_inodes(port)


def test_new_connections_are_spread_over_both_workers(served) -> None:  # type: ignore[no-untyped-def]
    process, port = served
    answered = [answer_pid(port) for _ in range(40)]
    workers = set(worker_listeners(process.pid, port))
    assert set(answered) == workers  # one shared queue gave nearly all of them to one worker
    assert min(answered.count(pid) for pid in workers) >= 5


def test_a_worker_that_dies_is_replaced_by_one_with_its_own_socket(served) -> None:  # type: ignore[no-untyped-def]
    process, port = served
    dead = min(worker_listeners(process.pid, port))
    os.kill(dead, signal.SIGKILL)
    wait_for(lambda: dead not in worker_listeners(process.pid, port))
    wait_for(lambda: len(worker_listeners(process.pid, port)) == 2)
    assert {answer_pid(port) for _ in range(40)} == set(worker_listeners(process.pid, port))


def test_a_port_in_use_fails_at_start() -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            serve_command(port, "--workers", "2"),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == STARTUP_FAILURE
    assert "address already in use" in result.stderr.lower()


def test_a_second_copy_on_the_same_port_fails_at_start(served) -> None:  # type: ignore[no-untyped-def]
    _, port = served
    result = subprocess.run(
        serve_command(port, "--workers", "2"), cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == STARTUP_FAILURE  # it does not share the first copy's port
    assert "address already in use" in result.stderr.lower()


def test_sighup_replaces_every_worker_each_with_its_own_socket(served) -> None:  # type: ignore[no-untyped-def]
    process, port = served
    before = set(worker_listeners(process.pid, port))
    process.send_signal(signal.SIGHUP)
    wait_for(lambda: not before & set(worker_listeners(process.pid, port)))
    wait_for(lambda: len(worker_listeners(process.pid, port)) == 2)
    assert {answer_pid(port) for _ in range(40)} == set(worker_listeners(process.pid, port))


def test_an_application_that_does_not_load_fails_at_start() -> None:
    result = subprocess.run(
        serve_command(free_port(), "--workers", "2", app="tests.foundation.nowhere:app"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == STARTUP_FAILURE  # not a loop of restarts
    assert "failed to start" in result.stderr


def test_the_address_is_checked_then_each_worker_binds_it_with_so_reuseport() -> None:
    chosen = serve.check_address(HOST, 0)  # released: the workers bind the port 0 chose
    config = Config(APP, host=HOST, port=chosen, workers=2)
    first, second = serve.worker_socket(config), serve.worker_socket(config)
    try:
        first.listen()
        second.listen()  # both listen on one address: the kernel balances between them
        assert first.getsockname() == second.getsockname() == (HOST, chosen)
        with pytest.raises(OSError):
            serve.check_address(HOST, chosen)  # what the workers hold fails a second copy
    finally:
        first.close()
        second.close()


def test_every_command_line_option_of_uvicorn_is_an_argument_of_its_config() -> None:
    # the start-up check that a uvicorn release with another interface fails loudly
    options = serve.parse_options([APP, "--workers", "2", "--ws-max-size", "131072"])
    assert serve.config_options(options)["ws_max_size"] == 131072
    with pytest.raises(click.UsageError, match="must learn them"):
        serve.config_options({**options, "a_new_option": 1})


def test_one_worker_a_unix_socket_or_a_descriptor_is_served_as_uvicorn_does() -> None:
    assert serve.balancing_applies(Config(APP, host=HOST, port=8000, workers=2))
    assert not serve.balancing_applies(Config(APP, host=HOST, port=8000, workers=1))
    assert not serve.balancing_applies(Config(APP, uds="/tmp/patience.sock", workers=2))
    assert not serve.balancing_applies(Config(APP, fd=3, workers=2))
