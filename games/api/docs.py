"""OpenAPI shapes of the API (documentation only: the services validate, the payloads build)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from games.errors import ErrorCode


class ErrorBody(serializers.Serializer):
    error = serializers.ChoiceField(choices=[code.value for code in ErrorCode])
    detail = serializers.CharField(help_text="A sentence for people.")
    ply = serializers.IntegerField(
        required=False, help_text="stale_ply, illegal_move: the game's current ply."
    )
    reason = serializers.CharField(required=False, help_text="illegal_move: the engine's code.")
    field = serializers.CharField(required=False, help_text="invalid: the field at fault.")
    retry_after = serializers.IntegerField(
        required=False, help_text="rate_limited: seconds to wait (also in Retry-After)."
    )


_ERRORS = {
    ErrorCode.INVALID: "Malformed body or field (a body that is not a JSON object included).",
    ErrorCode.NOT_AUTHENTICATED: "No valid session or token (or wrong credentials).",
    ErrorCode.FORBIDDEN: "Not allowed (CSRF failure of a session request included).",
    ErrorCode.NOT_FOUND: "No such resource.",
    ErrorCode.ILLEGAL_MOVE: "The move breaks the rules; nothing changed.",
    ErrorCode.STALE_PLY: "'ply' is not the game's current ply (given in the body's 'ply').",
    ErrorCode.GAME_OVER: "The game is over.",
    ErrorCode.RATE_LIMITED: "Too many requests; retry after 'retry_after' seconds.",
    ErrorCode.METHOD_NOT_ALLOWED: "The path does not take this method.",
}


def errors(*codes: ErrorCode) -> dict[int, OpenApiResponse]:
    """Return the documented error responses of ``codes``, grouped by status."""
    by_status: dict[int, list[ErrorCode]] = {}
    for code in (*codes, ErrorCode.METHOD_NOT_ALLOWED):
        by_status.setdefault(code.status, []).append(code)
    return {
        status: OpenApiResponse(
            ErrorBody,
            description=" ".join(f"`{code.value}`: {_ERRORS[code]}" for code in group),
            examples=[
                OpenApiExample(code.value, value={"error": code.value, "detail": _ERRORS[code]})
                for code in group
            ],
        )
        for status, group in by_status.items()
    }


def responses(ok: dict[int, Any], *codes: ErrorCode) -> dict[int, Any]:
    return {**ok, **errors(*codes)}


class PlayerBody(serializers.Serializer):
    id = serializers.IntegerField()
    nickname = serializers.CharField()
    guest = serializers.BooleanField()


class TokenBody(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as `Authorization: Token <token>`.")
    player = PlayerBody()


class NicknameBody(serializers.Serializer):
    nickname = serializers.CharField(help_text="3–24 letters, digits, `_` or `-`; unique.")


class CredentialsBody(serializers.Serializer):
    nickname = serializers.CharField()
    password = serializers.CharField()


class CsrfBody(serializers.Serializer):
    csrf_token = serializers.CharField(help_text="Send it back as the X-CSRFToken header.")


class VariantBody(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    description = serializers.CharField()
    decks = serializers.IntegerField()
    daily = serializers.BooleanField()


class VariantDetailBody(VariantBody):
    rules = serializers.JSONField(help_text="The variant's rules document.")


class DealBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    commitment = serializers.CharField(help_text="SHA-256 (hex) of the seed.")
    seed = serializers.CharField(allow_null=True, help_text="Hex; null until the day has ended.")
    players = serializers.IntegerField()
    finished = serializers.IntegerField()


class NextDealBody(serializers.Serializer):
    date = serializers.DateField()
    commitment = serializers.CharField()


class DailyBody(DealBody):
    next = NextDealBody(help_text="Tomorrow's deal: its commitment is published a day ahead.")


class PileBody(serializers.Serializer):
    id = serializers.CharField()
    cards = serializers.ListField(
        child=serializers.CharField(allow_null=True),
        help_text="Bottom to top; null for a face-down card and for every card of a stock.",
    )


class StateBody(serializers.Serializer):
    piles = PileBody(many=True)
    redeals_left = serializers.IntegerField(allow_null=True)


class GameBody(serializers.Serializer):
    id = serializers.CharField()
    variant = serializers.SlugField()
    mode = serializers.ChoiceField(choices=["daily", "practice"])
    date = serializers.DateField(allow_null=True)
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"])
    stuck = serializers.BooleanField()
    ply = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    state = StateBody()
    verified = serializers.BooleanField()
    foundation_cards = serializers.IntegerField()
    seed_text = serializers.CharField(allow_null=True)


class NewGameBody(serializers.Serializer):
    variant = serializers.SlugField()
    mode = serializers.ChoiceField(choices=["daily", "practice"])
    seed = serializers.CharField(
        required=False, help_text="Practice only: the seed text (omitted: a random one)."
    )


# "from" is a keyword, so the MOVE serializer is built from a dict of its fields.
MoveBody = type(
    "MoveBody",
    (serializers.Serializer,),
    {
        "type": serializers.ChoiceField(choices=["move", "deal", "redeal", "undo"]),
        "from": serializers.CharField(required=False, help_text="type 'move': e.g. 'tableau-3'."),
        "to": serializers.CharField(required=False, help_text="type 'move': e.g. 'foundation-5'."),
        "count": serializers.IntegerField(required=False, min_value=1, help_text="default 1"),
    },
)


class PlyMoveBody(serializers.Serializer):
    ply = serializers.IntegerField(min_value=0, help_text="The game's current ply.")
    move = MoveBody()


class ReplayBody(serializers.Serializer):
    seed = serializers.CharField(help_text="Hex.")
    moves = MoveBody(many=True)
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"])
    seed_text = serializers.CharField(required=False, help_text="Practice games only.")


class EntryBody(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["won", "resigned"])
    foundation_cards = serializers.IntegerField()
    moves = serializers.IntegerField()
    duration_ms = serializers.IntegerField()
    game = serializers.CharField()
    finished_at = serializers.DateTimeField()


class LeaderboardBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    entries = EntryBody(many=True, help_text="Best first; the top 100 (plus ?player='s entry).")
    player_entry = EntryBody(
        required=False, allow_null=True, help_text="With ?player=: that player's entry or null."
    )


GAME_ID = OpenApiParameter("game_id", str, OpenApiParameter.PATH, description="The game's id.")
SLUG = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="A variant's slug.")
DATE = OpenApiParameter("date", str, OpenApiParameter.PATH, description="YYYY-MM-DD (UTC).")
