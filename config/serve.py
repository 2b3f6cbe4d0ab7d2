"""Serve the application with uvicorn, each worker process listening on its own socket.

Run it as uvicorn itself, with the same options: ``python -m config.serve
config.asgi:application --host 0.0.0.0 --port 8000 --workers 4``. With one worker, or a
Unix socket or a file descriptor to listen on, it is uvicorn unchanged.

Why: uvicorn's supervisor binds one socket and every worker accepts from it. Linux wakes the
waiters of one accept queue last in, first out, so the worker that accepted last accepts
again: in the load benchmark one of two workers took 72 % of the game sockets, ran near its one
core (the interpreter lock), and the other idled. A WebSocket stays where it was accepted for
hours, so that skew does not even out. Here each worker binds its own socket to the same
address with ``SO_REUSEPORT``, and the kernel spreads new connections over the workers by a
hash of their addresses (docs/scaling.md, "One listening socket per worker").

The supervisor is uvicorn's own (worker restarts, ``SIGHUP``, ``SIGTTIN``/``SIGTTOU``, health
pings); only the socket each worker listens on changes. The supervisor still binds the address
first, without ``SO_REUSEPORT``, so a port in use fails at start as with uvicorn (a second copy
of the service too: its workers' sockets hold the port); it then releases it for the workers.

Before anything starts, the folder of the workers' metrics is made ready
(``config.metrics_folder``: ``PROMETHEUS_MULTIPROC_DIR``); a worker that ends has its live
gauges dropped there.
"""

from __future__ import annotations

import importlib
import logging
import socket
import sys
from typing import Any

from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.supervisors import multiprocess

from config import metrics_folder

# The module, not the command of the same name that the ``uvicorn`` package exports.
uvicorn_main = importlib.import_module("uvicorn.main")
logger = logging.getLogger("uvicorn.error")


def balancing_applies(config: Config) -> bool:
    """Whether the workers can listen on sockets of their own: a TCP host and port on a system
    whose kernel spreads connections over ``SO_REUSEPORT`` sockets (Linux)."""
    return sys.platform.startswith("linux") and config.uds is None and config.fd is None


def worker_socket(config: Config) -> socket.socket:
    """Return a socket of this worker bound to the service's address with ``SO_REUSEPORT``."""
    family = socket.AF_INET6 if config.host and ":" in config.host else socket.AF_INET
    sock = socket.socket(family=family)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((config.host, config.port))
    except OSError:
        sock.close()
        raise
    return sock


class WorkerProcess(multiprocess.Process):
    """A worker of uvicorn's supervisor that listens on a socket of its own."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover
        # Runs in the worker. Given no socket (``supervise``), it binds its own; a bind that
        # fails ends it as a failed start, which stops the supervisor rather than looping.
        if not sockets and balancing_applies(self.config):
            try:
                sockets = [worker_socket(self.config)]
            except OSError as error:
                logger.error(
                    "cannot listen on %s:%s: %s", self.config.host, self.config.port, error
                )
                sys.exit(STARTUP_FAILURE)
        super().target(sockets)

    def join(self) -> None:
        # Every worker that ends is joined (died, stopped, replaced): its live gauges go.
        super().join()
        if self.pid is not None:
            metrics_folder.forget_process(self.pid)


def supervise(config: Config, sockets: list[socket.socket]) -> multiprocess.Multiprocess:
    """Stand in for uvicorn's ``Multiprocess``: release the supervisor's socket, whose bind
    checked the address, and start workers that each bind their own."""
    if not balancing_applies(config):
        return multiprocess.Multiprocess(config, sockets=sockets)
    for sock in sockets:
        config.port = sock.getsockname()[1]  # the port chosen, were the option 0
        sock.close()
    return multiprocess.Multiprocess(config, sockets=[])


def main(argv: list[str] | None = None) -> Any:
    """uvicorn's command line, with workers that listen on sockets of their own and count
    their metrics in one folder (``config.metrics_folder``)."""
    metrics_folder.prepare()
    uvicorn_main.Multiprocess = supervise  # type: ignore[attr-defined]
    multiprocess.Process = WorkerProcess  # type: ignore[misc]
    return uvicorn_main.main(args=argv, prog_name="python -m config.serve")


if __name__ == "__main__":
    main()
