"""Serve the application with uvicorn, each worker process listening on its own socket.

Run it as uvicorn itself, with the same options: ``python -m config.serve
config.asgi:application --host 0.0.0.0 --port 8000 --workers 4`` (``WEB_CONCURRENCY`` stands in
for ``--workers``, as with uvicorn). With one worker, ``--reload``, or a Unix socket or a file
descriptor to listen on, it is uvicorn's own command line, unchanged.

Why: uvicorn's supervisor binds one socket and every worker accepts from it. Linux wakes the
waiters of one accept queue last in, first out, so the worker that accepted last accepts
again: in the load benchmark one of two workers took 72 % of the game sockets, ran near its one
core (the interpreter lock), and the other idled. A WebSocket stays where it was accepted for
hours, so that skew does not even out. Here each worker binds its own socket to the same
address with ``SO_REUSEPORT``, and the kernel spreads new connections over the workers by a
hash of their addresses (docs/scaling.md, "One listening socket per worker").

Only uvicorn's public interface is used: its command line (``uvicorn.main``) parses the options,
``uvicorn.Config`` takes them, and each worker runs one ``uvicorn.Server`` on the socket it
bound. The supervisor is ours (:class:`Supervisor`): it first binds the address itself, without
``SO_REUSEPORT``, so that a port in use fails at start as with uvicorn (a second copy of the
service too: its workers' sockets hold the port), releases it, starts the workers, replaces a
worker that dies, stops them all gracefully on ``SIGTERM`` or ``SIGINT``, replaces them one by
one on ``SIGHUP`` (each replacement serving before the worker it replaces stops), and adds or
removes one on ``SIGTTIN`` or ``SIGTTOU``. A worker that fails to start (the application does not
load, the address cannot be bound) stops the service with uvicorn's start-failure status, 3,
rather than restarting in a loop. An option of uvicorn's command line that ``uvicorn.Config``
does not take stops the service at start with a message saying so (a uvicorn release that
changed its interface).

Before anything starts, the folder of the workers' metrics is made ready
(``config.metrics_folder``: ``PROMETHEUS_MULTIPROC_DIR``); a worker that ends has its live
gauges dropped there.
"""

from __future__ import annotations

import inspect
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
from multiprocessing.synchronize import Event
from typing import Any

import click
import uvicorn

from config import metrics_folder

PROG = "python -m config.serve"
# uvicorn's exit status for a service that could not start.
STARTUP_FAILURE = 3
# How long a replacement started by SIGHUP may take to serve before the restart is abandoned.
READY_SECONDS = 60.0

logger = logging.getLogger("uvicorn.error")


def parse_options(argv: list[str]) -> dict[str, Any]:
    """Return uvicorn's command-line options, parsed by uvicorn's own command, by name."""
    with uvicorn.main.make_context(PROG, list(argv)) as context:
        return dict(context.params)


def config_options(options: dict[str, Any]) -> dict[str, Any]:
    """Return the keyword arguments of ``uvicorn.Config`` that the command-line ``options``
    stand for (as ``uvicorn.run`` maps them); raise ``click.UsageError`` naming any option
    that ``uvicorn.Config`` does not take."""
    taken = dict(options)
    taken.pop("app_dir", None)
    if taken.get("log_config") is None:
        taken.pop("log_config", None)  # uvicorn's own logging configuration
    for name in ("reload_dirs", "reload_includes", "reload_excludes"):
        if name in taken:
            taken[name] = taken[name] or None
    accepted = set(inspect.signature(uvicorn.Config).parameters)
    unknown = sorted(set(taken) - accepted)
    if unknown:
        raise click.UsageError(
            f"uvicorn {uvicorn.__version__}'s command line has options that uvicorn.Config does "
            f"not take ({', '.join(unknown)}): config/serve.py must learn them"
        )
    return taken


def balancing_applies(config: uvicorn.Config) -> bool:
    """Whether the workers can listen on sockets of their own: several workers on a TCP host
    and port, without reloading, on a system whose kernel spreads connections over
    ``SO_REUSEPORT`` sockets (Linux)."""
    return (
        sys.platform.startswith("linux")
        and config.workers > 1
        and not config.reload
        and config.uds is None
        and config.fd is None
    )


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if host and ":" in host else socket.AF_INET


def check_address(host: str, port: int) -> int:
    """Bind the service's address without ``SO_REUSEPORT`` and release it: return the port
    (the one chosen, were ``port`` 0); raise ``OSError`` when something else holds it."""
    with socket.socket(family=_family(host)) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        return int(probe.getsockname()[1])


def worker_socket(config: uvicorn.Config) -> socket.socket:
    """Return a socket of this worker bound to the service's address with ``SO_REUSEPORT``."""
    sock = socket.socket(family=_family(config.host))
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((config.host, config.port))
    except OSError:
        sock.close()
        raise
    return sock


def run_worker(options: dict[str, Any], app_dir: str | None, ready: Event) -> None:
    """Serve in this worker process: one ``uvicorn.Server`` on a socket of its own; set
    ``ready`` once it serves. Exit with ``STARTUP_FAILURE`` when it cannot start."""
    if app_dir is not None:
        sys.path.insert(0, app_dir)
    config = uvicorn.Config(**options)  # configures uvicorn's logging in this process
    try:
        sock = worker_socket(config)
    except OSError as error:
        logger.error("cannot listen on %s:%s: %s", config.host, config.port, error)
        sys.exit(STARTUP_FAILURE)
    server = uvicorn.Server(config)

    def announce() -> None:
        while not (server.started or server.should_exit):
            threading.Event().wait(0.05)
        if server.started:
            ready.set()

    threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[sock])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


class Worker:
    """One worker process (spawned, as uvicorn spawns its own) and the event it sets once it
    serves."""

    def __init__(self, options: dict[str, Any], app_dir: str | None) -> None:
        context = multiprocessing.get_context("spawn")
        self.ready = context.Event()
        self.process = context.Process(
            target=run_worker, args=(options, app_dir, self.ready), name="uvicorn-worker"
        )
        self.process.start()

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def stop(self) -> None:
        """Ask the worker to finish its requests and stop (uvicorn's graceful shutdown)."""
        if self.process.exitcode is None:
            os.kill(self.pid, signal.SIGTERM)

    def reap(self) -> int | None:
        """Wait for the worker's end; drop its live gauges; return its exit status."""
        self.process.join()
        metrics_folder.forget_process(self.pid)
        return self.process.exitcode


class Supervisor:
    """Keep ``workers`` worker processes serving until told to stop."""

    SIGNALS = ("INT", "TERM", "HUP", "TTIN", "TTOU")

    def __init__(self, options: dict[str, Any], app_dir: str | None, workers: int) -> None:
        self.options = options
        self.app_dir = app_dir
        self.wanted = workers
        self.workers: list[Worker] = []
        self.should_exit = threading.Event()
        self.status = 0
        self.received: list[str] = []
        for name in self.SIGNALS:
            signal.signal(getattr(signal, f"SIG{name}"), self._receive)

    def _receive(self, number: int, _frame: Any) -> None:
        self.received.append(signal.Signals(number).name[3:])
        if number in (signal.SIGINT, signal.SIGTERM):
            self.should_exit.set()

    def start_worker(self) -> Worker:
        return Worker(self.options, self.app_dir)

    def run(self) -> int:
        """Serve until ``SIGTERM`` or ``SIGINT``; return the exit status."""
        logger.info("Started parent process [%d]", os.getpid())
        self.workers = [self.start_worker() for _ in range(self.wanted)]
        while not self.should_exit.wait(0.5):
            self.handle_signals()
            self.keep_workers()
        for worker in self.workers:
            worker.stop()  # after a terminal's Ctrl-C, which reached them too: still graceful
        for worker in self.workers:
            worker.reap()
        logger.info("Stopping parent process [%d]", os.getpid())
        return self.status

    def handle_signals(self) -> None:
        while self.received:
            name = self.received.pop(0)
            if name == "HUP":
                logger.info("Received SIGHUP, restarting processes.")
                self.restart_all()
            elif name == "TTIN":
                logger.info("Received SIGTTIN, increasing the number of processes.")
                self.wanted += 1
                self.workers.append(self.start_worker())
            elif name == "TTOU" and self.wanted > 1:
                logger.info("Received SIGTTOU, decreasing the number of processes.")
                self.wanted -= 1
                worker = self.workers.pop()
                worker.stop()
                worker.reap()

    def keep_workers(self) -> None:
        """Replace each worker that ended; stop the service when one failed to start."""
        for index, worker in enumerate(self.workers):
            if worker.process.is_alive():
                continue
            status = worker.reap()
            if self.should_exit.is_set():
                return
            if status == STARTUP_FAILURE:
                logger.error("Child process [%d] failed to start, stopping.", worker.pid)
                self.status = STARTUP_FAILURE
                self.should_exit.set()
                return
            logger.warning("Child process [%d] died (status %s), replacing it.", worker.pid, status)
            self.workers[index] = self.start_worker()

    def restart_all(self) -> None:
        """Replace each worker in turn, its replacement serving before it stops."""
        for index, old in enumerate(list(self.workers)):
            new = self.start_worker()
            while not new.ready.wait(0.1):
                if self.should_exit.is_set() or not new.process.is_alive():
                    break
            if not new.ready.is_set():
                new.stop()
                new.reap()
                if not self.should_exit.is_set():
                    logger.error("Child process [%d] did not start; restart abandoned.", new.pid)
                return
            old.stop()
            old.reap()
            self.workers[index] = new


def serve(options: dict[str, Any]) -> int:
    """Run the supervisor over the parsed command-line ``options``; return the exit status."""
    app_dir = options.get("app_dir")
    config_kwargs = config_options(options)
    config = uvicorn.Config(**config_kwargs)  # uvicorn's logging, in the supervisor too
    try:
        config_kwargs["port"] = check_address(config.host, config.port)
    except OSError as error:
        logger.error("cannot listen on %s:%s: %s", config.host, config.port, error)
        return STARTUP_FAILURE
    return Supervisor(config_kwargs, app_dir, config.workers).run()


def main(argv: list[str] | None = None) -> Any:
    """uvicorn's command line, with workers that listen on sockets of their own and count
    their metrics in one folder (``config.metrics_folder``)."""
    argv = sys.argv[1:] if argv is None else argv
    metrics_folder.prepare()
    try:
        options = parse_options(argv)
        config = uvicorn.Config(**config_options(options))
    except click.exceptions.Exit as done:  # --help, --version
        sys.exit(done.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    if not balancing_applies(config):
        return uvicorn.main.main(args=argv, prog_name=PROG)
    sys.exit(serve(options))


if __name__ == "__main__":
    main()
