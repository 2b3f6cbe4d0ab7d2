"""Close the daily games left playing after their day."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.services import games_close_expired


class Command(BaseCommand):
    help = (
        "Close, as resigned, every daily game still playing after its UTC day, verify it and "
        "rank it. Reads do this lazily too; run it from cron to settle every day at once."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        closed = games_close_expired()
        self.stdout.write(f"closed {closed} game(s)")
