"""OpenAPI shapes of the leaderboards and players API (documentation only)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from games.api import docs as games_docs


class EntryBody(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["won", "resigned"])
    foundation_cards = serializers.IntegerField()
    moves = serializers.IntegerField(help_text="Plies, undo included.")
    duration_ms = serializers.IntegerField(help_text="First move to last move, server-measured.")
    game = serializers.CharField()
    assisted = serializers.BooleanField(help_text="A hint was taken: ranks after unassisted.")
    finished_at = serializers.DateTimeField()


class LeaderboardBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    total = serializers.IntegerField(help_text="The number of ranked entries.")
    entries = EntryBody(
        many=True, help_text="Best first, ranks from offset + 1 (plus ?player='s entry below)."
    )
    player_entry = EntryBody(
        required=False, allow_null=True, help_text="With ?player=: that player's entry or null."
    )


class StatsBody(serializers.Serializer):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="won / played, 0 when nothing was played.")
    current_streak = serializers.IntegerField(help_text="Consecutive UTC days won, up to now.")
    best_streak = serializers.IntegerField()
    played_streak = serializers.IntegerField(help_text="Consecutive UTC days finished, up to now.")
    best_played_streak = serializers.IntegerField()
    average_moves = serializers.FloatField(allow_null=True)


class ProfileBody(serializers.Serializer):
    nickname = serializers.CharField()
    joined = serializers.DateTimeField()
    stats = serializers.DictField(child=StatsBody(), help_text="Per variant slug.")


class ResultBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    status = serializers.ChoiceField(choices=["won", "resigned"])
    foundation_cards = serializers.IntegerField()
    moves = serializers.IntegerField()
    duration_ms = serializers.IntegerField()
    assisted = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True)
    game = serializers.CharField()


class ResultsBody(serializers.Serializer):
    total = serializers.IntegerField()
    results = ResultBody(many=True, help_text="Newest first.")


class WinsBody(serializers.Serializer):
    player = serializers.CharField()
    wins = serializers.IntegerField()


class StreakBody(serializers.Serializer):
    player = serializers.CharField()
    best_streak = serializers.IntegerField()


class AllTimeBody(serializers.Serializer):
    variant = serializers.SlugField()
    wins = WinsBody(many=True, help_text="Top 20 by daily wins.")
    streaks = StreakBody(many=True, help_text="Top 20 by best win streak.")


NICKNAME = OpenApiParameter(
    "nickname", str, OpenApiParameter.PATH, description="A nickname, any case."
)
OFFSET = games_docs.OFFSET
LIMIT = games_docs.LIMIT
PLAYER = OpenApiParameter("player", str, description="A nickname: add its entry and rank.")
VARIANT = OpenApiParameter("variant", str, description="Only this variant's results (a slug).")
