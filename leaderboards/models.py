"""Database models of the leaderboards app: per-player statistics and results left unranked."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from leaderboards import stats


class PlayerVariantStats(models.Model):
    """A player's counts and streak runs in one variant, kept up to date as results arrive.

    The fields are those of ``leaderboards.stats.Runs``; ``manage.py rebuildstats`` computes them
    again from the results.
    """

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="variant_stats"
    )
    variant = models.ForeignKey("games.Variant", on_delete=models.CASCADE, related_name="+")
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    moves_total = models.PositiveBigIntegerField(default=0)
    last_date = models.DateField(null=True, blank=True)
    play_run = models.PositiveIntegerField(default=0)
    best_play_run = models.PositiveIntegerField(default=0)
    win_run = models.PositiveIntegerField(default=0)
    win_run_end = models.DateField(null=True, blank=True)
    best_win_run = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "player variant stats"
        constraints = [
            models.UniqueConstraint(fields=("player", "variant"), name="one_stats_per_variant"),
        ]
        indexes = [
            models.Index("variant", models.F("won").desc(), "player", name="stats_most_wins"),
            models.Index(
                "variant", models.F("best_win_run").desc(), "player", name="stats_best_streaks"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.variant_id}"

    @property
    def runs(self) -> stats.Runs:
        return stats.Runs(**{name: getattr(self, name) for name in RUNS_FIELDS})


RUNS_FIELDS = tuple(stats.Runs.__dataclass_fields__)


class UnrankedResult(models.Model):
    """A result whose seal did not match its figures (edited in the database): never ranked.

    Boards read from PostgreSQL leave these out of their counts and pages.
    """

    game_id = models.CharField(primary_key=True, max_length=32)
    deal_id = models.BigIntegerField(db_index=True)
    noticed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"unranked result of game {self.game_id}"
