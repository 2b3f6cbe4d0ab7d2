"""Browser-test fixtures: a uvicorn server with WebSockets on its own database, and Chromium.

The browser tests run as their own pytest invocation
(``pytest -m browser tests/e2e -p no:asyncio``): sync Playwright and pytest-asyncio cannot share
one run. pytest-django's ``live_server`` serves no WebSockets, so the server is a uvicorn
subprocess. Its database is a fresh SQLite file, or, when ``DATABASE_URL`` points at PostgreSQL
(CI), a dedicated database created and dropped here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.net import free_port

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every browser test, saying why, when Chromium or Playwright is missing."""
    reason = None
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "Playwright for Python is missing: install the dev extra"
    if reason:
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def postgres_admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as connection:
        connection.execute(sql)


def manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


# The environment of the running server (its database, its Redis): what ``server_shell`` runs in.
SERVER_ENV: dict[str, str] = {}
# The running server's log (removed with the server at the end of the session).
SERVER_LOG: list[Path] = []
LOG_LINES = 80


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Add the server log's warnings and errors, and its last lines, to the report of a failed
    test that used the server (a Redis call that timed out, say, tells why a page waited in
    vain)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.when == "call" and report.failed and SERVER_LOG and "server" in item.fixturenames:
        lines = SERVER_LOG[0].read_text(errors="replace").splitlines()
        # Its warnings and errors (JSON lines), and whatever is not a log line (a traceback).
        notable = [
            line for line in lines if not line.startswith("{") or '"level": "INFO"' not in line[:80]
        ]
        report.sections.append(
            ("e2e server log: warnings and errors", "\n".join(notable[-LOG_LINES:]))
        )
        report.sections.append(("e2e server log: last lines", "\n".join(lines[-20:])))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start uvicorn on a free port against a fresh database with the launch variants."""
    tmp = tmp_path_factory.mktemp("e2e-server")
    env = dict(os.environ)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    env.update(
        {
            "SECRET_KEY": "e2e-secret-key-not-for-production",
            "DEAL_SECRET": "e2e-deal-secret",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
            # A game won by following the hints asks one for every move.
            "THROTTLE_HINTS_PLAYER": "1000/min",
            # The server shares its cores with Chromium: a loop late under that load must not
            # refuse the tests' games (test_busy.py plays a busy server's answers itself).
            "ADMISSION": "false",
        }
    )
    base_url = os.environ.get("DATABASE_URL", "")
    postgres = base_url.startswith(("postgres://", "postgresql://"))
    if postgres:
        # Named after the configured database, so two checkouts' runs never drop each other's.
        # (and after the pytest-xdist worker, when the browser tests run in several)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        name = f"{urlsplit(base_url).path.lstrip('/') or 'daily_patience'}_e2e{worker}"
        postgres_admin(base_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        postgres_admin(base_url, f'CREATE DATABASE "{name}"')
        env["DATABASE_URL"] = with_database(base_url, name)
    else:
        env["DATABASE_URL"] = f"sqlite:///{tmp / 'e2e.sqlite3'}"
        env.setdefault("DEBUG", "true")
    if env.get("REDIS_URL"):
        # A fresh database numbers its deals from 1 again: no board, count or live record that
        # an earlier run left in this Redis database may stand for one of them.
        import redis

        redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    SERVER_ENV.clear()
    SERVER_ENV.update(env)
    manage(env, "migrate", "--noinput")
    manage(env, "loadvariants")
    port = free_port()
    log = (tmp / "server.log").open("w")
    SERVER_LOG[:] = [tmp / "server.log"]
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/variants/", timeout=2):
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise RuntimeError(
                        "the e2e server did not start:\n" + (tmp / "server.log").read_text()
                    ) from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        SERVER_LOG.clear()
        if postgres:
            postgres_admin(base_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def server_shell(server: str) -> Callable[[str], str]:
    """Return a function that runs Python code in ``manage.py shell`` against the server's
    database and Redis (what a moderator does in the admin, say), and returns what it printed."""

    def run(code: str) -> str:
        try:
            return manage(SERVER_ENV, "shell", "-c", code)
        except subprocess.CalledProcessError as error:
            raise AssertionError(f"the shell failed:\n{error.stderr}") from None

    return run


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any, server: str) -> Iterator[Any]:
    """Return a factory of pages, each in its own context (its own cookies), at 1280×800 or
    ``viewport`` (width, height), with any other option of a Playwright context (``has_touch``,
    ``color_scheme``: dark unless given);
    a JavaScript error or a console error fails the test, but for the console errors that match
    one of ``expected_console`` (the browser's own log of an answer the test provoked, such as
    "Failed to load resource: … 503")."""
    contexts = []
    errors: list[str] = []

    def make(
        viewport: tuple[int, int] = (1280, 800),
        expected_console: tuple[str, ...] = (),
        **options: Any,
    ) -> Any:
        width, height = viewport
        size = {"width": width, "height": height}
        # The page follows the system's theme, and Playwright's system is light: the pages are
        # seen in the dark felt theme unless a test asks for another ``color_scheme``.
        options.setdefault("color_scheme", "dark")
        context = browser.new_context(viewport=size, base_url=server, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()

        def on_console(message: Any) -> None:
            if message.type != "error":
                return
            if not any(re.search(pattern, message.text) for pattern in expected_console):
                errors.append(f"console: {message.text}")

        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", on_console)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
