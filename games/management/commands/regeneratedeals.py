"""Regenerate the deals an admin asked for (the admin's *Regenerate* action only asks)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.management.budget import add_seconds_option, checked_seconds
from games.services import deals_regenerate_requested


class Command(BaseCommand):
    help = (
        "Regenerate, by their variants' current rules, the deals of future days an admin asked "
        "to regenerate, oldest request first, certifying each as preparedeals does; a deal that "
        "got games or whose day began meanwhile is kept, and its request dropped. The scheduler "
        "(runscheduler) runs it within --poll seconds of a request; run it by hand without one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_seconds_option(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        seconds = checked_seconds(options, self.stderr)
        for deal, refusal in deals_regenerate_requested(seconds=seconds):
            if refusal is not None:
                self.stdout.write(f"{deal} kept: {refusal.detail}")
            else:
                state = "certified" if deal.certified else "uncertified"
                self.stdout.write(f"{deal} regenerated: attempt {deal.attempt}, {state}")
            self.stdout.flush()
