"""``manage.py rebuildstats``: compute every player's stats and streaks again from results."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from leaderboards.services import stats_rebuild_all


class Command(BaseCommand):
    help = "Compute every player's per-variant stats and streaks again from the verified results."

    def handle(self, *args: Any, **options: Any) -> None:
        count = stats_rebuild_all()
        self.stdout.write(f"Rebuilt the stats of {count} player-variant pairs.")
