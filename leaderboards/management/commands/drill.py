"""``manage.py drill``: prove that a backup restores into a service that holds the same boards.

It dumps the database with ``pg_dump`` (PostgreSQL's custom format, as the backups of
docs/operations.md are made), restores the dump with ``pg_restore`` into a fresh database beside
it, and there counts the rows of every table, re-verifies every result of every closed day
(``games.services.game_reverify``: the sealed move log replayed from the deal's seed, the
result's seal and figures checked) and reads every board of those days from PostgreSQL, to
compare each with the original's. It prints its figures (rows, seconds, mismatches) and fails
(exit status 1) on any mismatch. The restored database is dropped at the end, unless ``--keep``.

The original is only read, by ``pg_dump``'s one consistent snapshot and a count of its rows and
boards: the drill can run beside a live service, which may add rows between the two (then the
counts of the tables that grew differ, and the drill says which; run it again, or at a quiet
hour).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from games import clock
from games.models import Deal, Result
from games.services.moderation import game_reverify
from leaderboards.selectors import board_from_database

# PostgreSQL's limit on a database's name.
NAME_LENGTH = 63


def _client_env(settings_dict: dict[str, Any]) -> dict[str, str]:
    """Return the environment of PostgreSQL's client tools for the database Django uses."""
    env = dict(os.environ)
    for key, variable in (
        ("HOST", "PGHOST"),
        ("PORT", "PGPORT"),
        ("USER", "PGUSER"),
        ("PASSWORD", "PGPASSWORD"),
    ):
        if settings_dict.get(key):
            env[variable] = str(settings_dict[key])
    return env


def _run(command: list[str], env: dict[str, str]) -> float:
    """Run a client tool; return its seconds; raise ``CommandError`` with its output on failure."""
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CommandError(f"{command[0]} failed: {done.stderr.strip() or done.stdout.strip()}")
    return time.monotonic() - started


@contextmanager
def _using(name: str) -> Iterator[None]:
    """Point the default connection at the database ``name`` for the block (as Django's test
    runner points it at the test database)."""
    original = connection.settings_dict["NAME"]

    def reconnect(to: str) -> None:
        connection.close()
        if hasattr(connection, "close_pool"):
            connection.close_pool()
        connection.settings_dict["NAME"] = to

    reconnect(name)
    try:
        yield
    finally:
        reconnect(original)


def _rows() -> dict[str, int]:
    """Return the number of rows of every model's table."""
    return {
        model._meta.db_table: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }


def _boards(deals: list[Deal]) -> dict[str, list[dict[str, Any]]]:
    return {str(deal): board_from_database(deal) for deal in deals}


def _closed_deals() -> list[Deal]:
    return list(
        Deal.objects.filter(date__lt=clock.today()).select_related("variant").order_by("pk")
    )


class Command(BaseCommand):
    help = (
        "Dump the database (pg_dump), restore it into a fresh database, re-verify every result "
        "of every closed day there and compare each board with the original's."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--keep", action="store_true", help="Keep the restored database (named in the output)."
        )
        parser.add_argument(
            "--dump", metavar="PATH", help="Keep the dump at PATH (a custom-format pg_dump)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("The drill needs PostgreSQL: set DATABASE_URL.")
        for tool in ("pg_dump", "pg_restore"):
            if shutil.which(tool) is None:
                raise CommandError(f"The drill needs {tool} (PostgreSQL's client tools).")
        started = time.monotonic()
        source = str(connection.settings_dict["NAME"])
        target = f"{source}_drill"[:NAME_LENGTH]
        env = _client_env(connection.settings_dict)

        # The original: its rows and its closed days' boards, read before the dump.
        deals = _closed_deals()
        rows, boards = _rows(), _boards(deals)

        with tempfile.TemporaryDirectory(prefix="drill-") as folder:
            dump = Path(options["dump"] or Path(folder) / "drill.dump")
            dump_seconds = _run(["pg_dump", "-Fc", "-d", source, "-f", str(dump)], env)
            size = dump.stat().st_size
            self._create(target)
            try:
                restore_seconds = _run(
                    [
                        "pg_restore",
                        "--no-owner",
                        "--no-privileges",
                        "--exit-on-error",
                        "--single-transaction",
                        f"--dbname={target}",
                        str(dump),
                    ],
                    env,
                )
                with _using(target):
                    found = self._check(rows, boards, deals)
            finally:
                if not options["keep"]:
                    self._drop(target)

        restored_rows, differ_rows, verified, failed, verify_seconds, differ_boards = found
        mismatches = len(differ_rows) + len(failed) + len(differ_boards)
        say = self.stdout.write
        say(f"Dump: {size:,} bytes in {dump_seconds:.2f} s (pg_dump -Fc of {source})")
        kept = " (kept)" if options["keep"] else " (dropped)"
        say(f"Restore: into {target} in {restore_seconds:.2f} s{kept}")
        say(
            f"Rows: {restored_rows:,} restored of {sum(rows.values()):,} in {len(rows)} tables, "
            f"{len(differ_rows)} tables differ"
        )
        for table in differ_rows:
            say(f"  {table}: {rows[table]:,} in the original, {differ_rows[table]:,} restored")
        say(
            f"Results re-verified: {verified:,} of {len(deals)} closed deals in "
            f"{verify_seconds:.2f} s, {len(failed)} failed"
        )
        for line in failed:
            say(f"  {line}")
        say(f"Boards compared: {len(boards)}, {len(differ_boards)} differ")
        for name in differ_boards:
            say(f"  {name}")
        say(f"Mismatches: {mismatches}")
        say(f"Seconds: {time.monotonic() - started:.2f}")
        if mismatches:
            raise CommandError(f"The restored database differs from the original: {mismatches}.")

    def _create(self, name: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}"')
            cursor.execute(f'CREATE DATABASE "{name}"')

    def _drop(self, name: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _check(
        self, rows: dict[str, int], boards: dict[str, list[dict[str, Any]]], deals: list[Deal]
    ) -> tuple[int, dict[str, int], int, list[str], float, list[str]]:
        """In the restored database: count, re-verify, read the boards; return what differs."""
        restored = _rows()  # before re-verification, which records any failure as a row
        differ_rows = {
            table: restored.get(table, 0) for table in rows if rows[table] != restored.get(table, 0)
        }
        started = time.monotonic()
        failed = []
        results = Result.objects.filter(deal__in=[deal.pk for deal in deals]).select_related(
            "game", "deal__variant"
        )
        verified = 0
        for result in results.order_by("pk"):
            verified += 1
            outcome = game_reverify(game=result.game)
            if not outcome.ok:
                failed.append(f"{result.deal} game {result.game_id}: {outcome.reason}")
        verify_seconds = time.monotonic() - started
        again = _boards(_closed_deals())
        differ_boards = sorted(set(boards) ^ set(again))
        differ_boards += sorted(
            name for name in set(boards) & set(again) if boards[name] != again[name]
        )
        return sum(restored.values()), differ_rows, verified, failed, verify_seconds, differ_boards
