"""Make the daily deals of the coming days ahead of time."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.services import deals_prepare


class Command(BaseCommand):
    help = (
        "Make the deals (secret seed, public commitment, frozen rules) of every daily variant "
        "for the next N days, starting today. Deals are otherwise made on first request."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("days", type=int, nargs="?", default=2, help="how many days (2)")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days < 1 or days > 366:
            self.stderr.write("days must be between 1 and 366")
            raise SystemExit(2)
        for deal in deals_prepare(days=days):
            self.stdout.write(f"{deal.date.isoformat()} {deal.variant.slug:<22} {deal.commitment}")
