"""Rate the coming daily deals again by the current difficulty calibration."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.management.budget import add_seconds_option, checked_seconds
from games.services import deals_rate


class Command(BaseCommand):
    help = (
        "Rate every certified deal of today and later again by its variant's difficulty "
        "calibration (games/engine/difficulty.json): run after a new calibration. A deal made "
        "before its solver effort was kept is solved again for it; its deal never changes."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_seconds_option(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        seconds = checked_seconds(options, self.stderr)
        for deal in deals_rate(seconds=seconds):
            self.stdout.write(
                f"{deal.date.isoformat()} {deal.variant.slug:<22} difficulty {deal.difficulty} "
                f"({deal.effort if deal.effort is not None else 'effort unknown'} positions)"
            )
            self.stdout.flush()
