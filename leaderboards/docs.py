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


# "from" is a Python keyword: the bar's fields are declared by name.
CardBarBody = type(
    "CardBarBody",
    (serializers.Serializer,),
    {
        "from": serializers.IntegerField(help_text="From this many (cards home or moves)."),
        "to": serializers.IntegerField(help_text="Up to this many, inclusive."),
        "count": serializers.IntegerField(),
    },
)


class MoveBarBody(CardBarBody):  # type: ignore[valid-type,misc]
    won = serializers.IntegerField(help_text="Of ``count``, the games won.")


class StoryPlayerBody(serializers.Serializer):
    rank = serializers.IntegerField()
    top_percent = serializers.IntegerField(
        help_text="rank / total, in whole percent rounded up: 'top 12%'."
    )
    status = serializers.ChoiceField(choices=["won", "resigned"])
    foundation_cards = serializers.IntegerField()
    moves = serializers.IntegerField()


class ParBody(serializers.Serializer):
    date = serializers.DateField()
    winners = serializers.IntegerField()
    winners_median_moves = serializers.FloatField(
        allow_null=True, help_text="The players' par: the median moves of the day's winners."
    )
    best_line = serializers.IntegerField(
        allow_null=True, help_text="The length of the solver's certified line (the deal's par)."
    )


class StoryBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    over = serializers.BooleanField(help_text="The day has ended.")
    total = serializers.IntegerField(help_text="Ranked results, as on the board.")
    won = serializers.IntegerField()
    total_cards = serializers.IntegerField()
    cards = CardBarBody(many=True, help_text="Results by cards home; the last bar is all home.")
    moves = MoveBarBody(many=True, help_text="Results by moves, in ranges of a round width.")
    player = StoryPlayerBody(allow_null=True, help_text="The caller's ranked result, if any.")
    day = ParBody(allow_null=True, help_text="This day's par figures, once it is over.")
    yesterday = ParBody(allow_null=True, help_text="The day before's par figures.")


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
