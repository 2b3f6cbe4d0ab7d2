"""Make the daily deals of the coming days ahead of time."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.management.budget import add_seconds_option, checked_seconds
from games.services import deals_prepare


class Command(BaseCommand):
    help = (
        "Make the deals (secret seed, public commitment, frozen rules) of every daily variant "
        "for the next N days, starting today: each day's deal is the first attempt the solver "
        "proves winnable. Run it daily, ahead of the days it prepares (cron, or the compose "
        "scheduler): without it, today's deal is made on first request, uncertified."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("days", type=int, nargs="?", default=3, help="how many days (3)")
        add_seconds_option(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 1 or days > 366:
            self.stderr.write("days must be between 1 and 366")
            raise SystemExit(2)
        seconds = checked_seconds(options, self.stderr)
        for deal in deals_prepare(days=days, seconds=seconds):
            state = f"certified, difficulty {deal.difficulty}" if deal.certified else "uncertified"
            self.stdout.write(
                f"{deal.date.isoformat()} {deal.variant.slug:<22} attempt {deal.attempt} "
                f"{state:<24} {deal.commitment}"
            )
            self.stdout.flush()
