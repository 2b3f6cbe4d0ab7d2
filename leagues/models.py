"""A league: players who share boards of their own, and who belongs to it."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from games.models import Player

NAME_LIMIT = 24
DESCRIPTION_LIMIT = 280
CODE_LENGTH = 8
NAME_PATTERN = r"\A[A-Za-z0-9_-]{3,24}\Z"  # the nickname rule (games.services.players)
NAME_RULE = gettext_lazy("A league's name is 3 to 24 letters, digits, '_' or '-'.")


class League(models.Model):
    """A group of players made by one of them (its owner), joined by an invite code."""

    name = models.CharField(
        max_length=NAME_LIMIT,
        validators=[RegexValidator(NAME_PATTERN, NAME_RULE)],
        help_text="The nickname rule: 3 to 24 letters, digits, '_' or '-'.",
    )
    description = models.CharField(
        max_length=DESCRIPTION_LIMIT, blank=True, default="", db_default=""
    )
    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="owned_leagues")
    code = models.CharField(
        max_length=CODE_LENGTH, unique=True, help_text="The invite code (a new one voids the old)."
    )
    created_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="Closed: no one joins, its boards are gone."
    )

    class Meta:
        ordering = ("name", "pk")

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.closed_at is None


class Membership(models.Model):
    """A player in a league (its owner included)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="league_memberships")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("joined_at", "pk")
        constraints = [
            models.UniqueConstraint(fields=("league", "player"), name="one_membership_per_league"),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.league}"
