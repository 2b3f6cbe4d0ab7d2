"""Run the daily jobs, ``preparedeals`` then ``closedays``, at start and daily after 00:00 UTC;
between them, every ``--poll`` seconds, check the deals a request made on demand
(``deals_check``) and regenerate the deals admins asked for (``regeneratedeals``)."""

from __future__ import annotations

import datetime as dt
import io
import logging
import time
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from core import heartbeats
from games import clock, selectors, services

logger = logging.getLogger("games.scheduler")


class LogLines(io.TextIOBase):
    """A text stream whose every line is logged (``games.scheduler``) at ``level``: what the
    jobs write reaches the log as lines of the service's shape, not bare text on stdout."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if line.strip():
                logger.log(self.level, "%s", line.rstrip())
        return len(text)

    def flush(self) -> None:
        if self.pending.strip():
            logger.log(self.level, "%s", self.pending.rstrip())
        self.pending = ""


def check_time_of_day(text: str) -> dt.time:
    """Parse ``HH:MM`` (UTC) or raise ``CommandError``."""
    try:
        return dt.datetime.strptime(text, "%H:%M").time()
    except ValueError:
        raise CommandError(f"--at must be a time of day as HH:MM, not {text!r}") from None


def next_run(*, after: dt.datetime, at: dt.time) -> dt.datetime:
    """Return the first moment strictly after ``after`` whose UTC time of day is ``at``."""
    moment = after.astimezone(dt.UTC)
    candidate = dt.datetime.combine(moment.date(), at, tzinfo=dt.UTC)
    if candidate <= moment:
        candidate += dt.timedelta(days=1)
    return candidate


class Command(BaseCommand):
    help = (
        "Run preparedeals then closedays now, then every day at --at (UTC), for ever; a failed "
        "run is tried again after --retry seconds. Both commands do nothing when there is "
        "nothing to do, so a run more is harmless. Every --poll seconds it also certifies the "
        "deals a request made before preparedeals did, as they stand, and looks for deals "
        "an admin asked to regenerate and runs regeneratedeals if there are any. It logs "
        "through the service's logging (LOG_FORMAT), one line a step and one a line the jobs "
        "print, failures with their traceback."
    )
    requires_system_checks = []  # the jobs run the checks they need; a loop must not die of one

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--at", default="00:05", help="time of day of the run, UTC (00:05)")
        parser.add_argument("--days", type=int, default=3, help="days preparedeals makes (3)")
        parser.add_argument(
            "--retry", type=int, default=600, help="seconds before a failed run is retried (600)"
        )
        parser.add_argument(
            "--poll",
            type=int,
            default=30,
            help="seconds between looks for deals an admin asked to regenerate (30)",
        )
        parser.add_argument(
            "--heartbeat",
            type=Path,
            default=None,
            help="file touched after every successful run (for a health check)",
        )
        parser.add_argument(
            "--once", action="store_true", help="run once and exit (1 if it failed)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        # What the jobs print is logged, a record a line (LOG_FORMAT), as the loop's own steps.
        self.out, self.err = LogLines(logging.INFO), LogLines(logging.WARNING)
        at = check_time_of_day(options["at"])
        days, retry = options["days"], options["retry"]
        if not 1 <= days <= 366:
            raise CommandError("--days must be between 1 and 366")
        if not 1 <= retry <= 86400:
            raise CommandError("--retry must be between 1 and 86400 seconds")
        poll = options["poll"]
        if not 1 <= poll <= 3600:
            raise CommandError("--poll must be between 1 and 3600 seconds")
        heartbeat: Path | None = options["heartbeat"]
        wake: dt.datetime | None = None  # the daily jobs run at once
        while True:
            heartbeats.beat(heartbeats.SCHEDULER)
            if wake is None or clock.now() >= wake:
                succeeded = self.run_jobs(days=days)
                if succeeded:
                    heartbeats.beat(heartbeats.SCHEDULER_RUN)
                if succeeded and heartbeat is not None:
                    heartbeat.touch()
                if options["once"]:
                    self.run_checks()
                    self.run_regenerations()
                    if not succeeded:
                        raise SystemExit(1)
                    return
                if succeeded:
                    wake = next_run(after=clock.now(), at=at)
                else:
                    wake = clock.now() + dt.timedelta(seconds=retry)
                self.say(f"next run at {wake:%Y-%m-%dT%H:%M:%SZ}")
            self.run_checks()
            self.run_regenerations()
            time.sleep(max(1.0, min(poll, (wake - clock.now()).total_seconds())))

    def run_jobs(self, *, days: int) -> bool:
        """Run the two jobs one after the other; tell whether both succeeded.

        The database connections are closed afterwards: a day's sleep holds none, and one that a
        PostgreSQL restart broke is not reused.
        """
        try:
            return self._run_jobs(days=days)
        finally:
            connections.close_all()

    def _run_jobs(self, *, days: int) -> bool:
        for name, arguments in (("preparedeals", [str(days)]), ("closedays", [])):
            self.say(f"{name} starts")
            try:
                call_command(name, *arguments, stdout=self.out, stderr=self.err)
            except (Exception, SystemExit) as error:
                logger.error("%s failed: %s: %s", name, type(error).__name__, error, exc_info=True)
                return False
            self.say(f"{name} done")
        return True

    def run_checks(self) -> None:
        """Certify the deals a request made on demand, as they stand, if the solver proves
        them winnable. A failure is logged; the deals stay to check at the next look."""
        try:
            if not selectors.deals_checking():
                return
            for deal in services.deals_check():
                verdict = "certified" if deal.certified else "not proved winnable"
                self.say(f"{deal.variant.slug} {deal.date.isoformat()} checked: {verdict}")
        except Exception as error:
            logger.error(
                "checking deals failed: %s: %s", type(error).__name__, error, exc_info=True
            )
        finally:
            connections.close_all()

    def run_regenerations(self) -> None:
        """Run ``regeneratedeals`` if an admin asked for a deal to be regenerated. A failure is
        logged; the request stays, so the next look tries it again."""
        try:
            if not selectors.regenerations_pending():
                return
            self.say("regeneratedeals starts")
            call_command("regeneratedeals", stdout=self.out, stderr=self.err)
            self.say("regeneratedeals done")
        except (Exception, SystemExit) as error:
            logger.error(
                "regeneratedeals failed: %s: %s", type(error).__name__, error, exc_info=True
            )
        finally:
            connections.close_all()

    def say(self, text: str) -> None:
        """Log one step of the scheduler (``games.scheduler``, INFO)."""
        logger.info("%s", text)
