"""OpenAPI shapes of the leagues API (documentation only: the services validate)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from games.api import docs as games_docs
from leaderboards import docs as board_docs
from leagues.models import DESCRIPTION_LIMIT
from leagues.points import POINTS

CODE_PATTERN = r"^[A-Za-z0-9]{8}$"


class LeagueRequest(serializers.Serializer):
    name = serializers.RegexField(
        games_docs.NICKNAME_PATTERN,
        min_length=3,
        max_length=24,
        help_text="The nickname rule: 3–24 letters, digits, `_` or `-`.",
    )
    description = serializers.CharField(
        required=False, allow_blank=True, max_length=DESCRIPTION_LIMIT
    )


class LeagueChangeRequest(serializers.Serializer):
    name = serializers.RegexField(
        games_docs.NICKNAME_PATTERN, min_length=3, max_length=24, required=False
    )
    description = serializers.CharField(
        required=False, allow_blank=True, max_length=DESCRIPTION_LIMIT
    )


class JoinRequest(serializers.Serializer):
    code = serializers.RegexField(
        CODE_PATTERN, help_text="The invite code (any case; 8 letters and digits)."
    )


class LeagueBody(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    owner = serializers.CharField(help_text="The owner's nickname.")
    code = serializers.CharField(help_text="The invite code.")
    invite_path = serializers.CharField(help_text="The invite link's path on this site.")
    members = serializers.IntegerField(help_text="How many members (the owner included).")
    created_at = serializers.DateTimeField()


class MemberBody(serializers.Serializer):
    player = serializers.CharField()
    joined_at = serializers.DateTimeField()


class LeagueDetailBody(LeagueBody):
    member_list = MemberBody(many=True, help_text="Oldest member first (members only).")


class LeagueBoardBody(serializers.Serializer):
    league = serializers.IntegerField()
    variant = serializers.SlugField()
    date = serializers.DateField()
    total = serializers.IntegerField()
    entries = board_docs.EntryBody(
        many=True, help_text="The members' verified results, best first, ranks from 1."
    )


class StandingBody(serializers.Serializer):
    rank = serializers.IntegerField(help_text="Equal points share a rank.")
    player = serializers.CharField()
    points = serializers.IntegerField()
    days = serializers.IntegerField(help_text="Days with a ranked result.")
    wins = serializers.IntegerField(help_text="Days ranked first in the league.")


class StandingsBody(serializers.Serializer):
    league = serializers.IntegerField()
    variant = serializers.SlugField()
    period = serializers.ChoiceField(choices=["week", "month"])
    # "from" is a Python keyword: declared below.
    to = serializers.DateField(help_text="The period's last day.")
    points = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=f"Points of ranks 1, 2, …; every lower rank earns the last: {list(POINTS)}.",
    )
    standings = StandingBody(many=True, help_text="Every member, most points first.")


StandingsBody._declared_fields["from"] = serializers.DateField(
    help_text="The period's first day (a Monday for a week)."
)


class RankBody(serializers.Serializer):
    league = serializers.IntegerField()
    name = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True, help_text="Null until verified.")
    total = serializers.IntegerField()


LEAGUE = OpenApiParameter("league", str, OpenApiParameter.PATH, description="A league's id.")
MEMBER = OpenApiParameter(
    "nickname", str, OpenApiParameter.PATH, description="A member's nickname, any case."
)
PERIOD = OpenApiParameter("period", str, enum=["week", "month"], description="Default week.")
DAY = OpenApiParameter(
    "date",
    str,
    description="A day of the period (YYYY-MM-DD, not later than today); default today.",
)
