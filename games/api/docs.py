"""OpenAPI shapes of the API (documentation only: the services validate, the payloads build)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema_field,
)
from rest_framework import serializers

from core.errors import ErrorCode
from games.engine.families import FAMILIES

# What the server enforces, so that the schema says exactly what it accepts.
NICKNAME_PATTERN = r"^[A-Za-z0-9_-]{3,24}$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
GAME_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$"
NO_NUL_PATTERN = "^[^\u0000]*$"
SEED_TEXT_LIMIT = 200
MAX_COUNT = 1000
PAGE_LIMIT = 100


def json_only(serializer: type[serializers.Serializer]) -> dict[str, Any]:
    """Return a request body documented as JSON only (the API reads every body as JSON)."""
    return {"application/json": serializer}


class ErrorBody(serializers.Serializer):
    error = serializers.ChoiceField(choices=[code.value for code in ErrorCode])
    detail = serializers.CharField(help_text="A sentence for people.")
    ply = serializers.IntegerField(
        required=False, help_text="stale_ply, illegal_move: the game's current ply."
    )
    reason = serializers.CharField(required=False, help_text="illegal_move: the engine's code.")
    field = serializers.CharField(required=False, help_text="invalid: the field at fault.")
    league = serializers.IntegerField(required=False, help_text="already_member: the league's id.")
    retry_after = serializers.IntegerField(
        required=False, help_text="rate_limited: seconds to wait (also in Retry-After)."
    )


_ERRORS = {
    ErrorCode.INVALID: "Malformed body or field (a body that is not a JSON object included).",
    ErrorCode.NOT_AUTHENTICATED: "No valid session or token (or wrong credentials).",
    ErrorCode.FORBIDDEN: "Not allowed (CSRF failure of a session request included, and a daily "
    "game started or played by a player banned from the daily challenges).",
    ErrorCode.NOT_FOUND: "No such resource.",
    ErrorCode.ILLEGAL_MOVE: "The move breaks the rules; nothing changed.",
    ErrorCode.STALE_PLY: "'ply' is not the game's current ply (given in the body's 'ply').",
    ErrorCode.GAME_OVER: "The game is over.",
    ErrorCode.RATE_LIMITED: "Too many requests; retry after 'retry_after' seconds.",
    ErrorCode.METHOD_NOT_ALLOWED: "The path does not take this method.",
    ErrorCode.NOT_MEMBER: "Only the league's members may do this (or the player named is none).",
    ErrorCode.NOT_OWNER: "Only the league's owner may do this.",
    ErrorCode.BAD_CODE: "No open league has this invite code.",
    ErrorCode.ALREADY_MEMBER: "The player is already in this league.",
    ErrorCode.LEAGUE_FULL: "The league has as many members as a league may have.",
    ErrorCode.TOO_MANY_LEAGUES: "The player is in as many leagues as a player may be.",
    ErrorCode.OWNER_CANNOT_LEAVE: "The owner cannot leave the league: close it instead.",
    ErrorCode.LEAGUE_CLOSED: "The league is closed.",
    ErrorCode.UNAVAILABLE: "The service cannot answer this now (its database, or the process "
    "that searched a hint); retry after 'Retry-After' seconds.",
}


_ERROR_BODIES: dict[tuple[str, ...], type[serializers.Serializer]] = {}


def error_body(codes: tuple[ErrorCode, ...]) -> type[serializers.Serializer]:
    """Return the error body whose ``error`` is one of ``codes`` (one component per set)."""
    values = tuple(sorted(code.value for code in codes))
    if values not in _ERROR_BODIES:
        name = "".join(part.title() for value in values for part in value.split("_"))
        _ERROR_BODIES[values] = type(
            f"{name}Error",
            (ErrorBody,),
            {"error": serializers.ChoiceField(choices=list(values))},
        )
    return _ERROR_BODIES[values]


def errors(*codes: ErrorCode) -> dict[int, OpenApiResponse]:
    """Return the documented error responses of ``codes``, grouped by status."""
    by_status: dict[int, list[ErrorCode]] = {}
    for code in (*codes, ErrorCode.METHOD_NOT_ALLOWED):
        by_status.setdefault(code.status, []).append(code)
    return {
        status: OpenApiResponse(
            error_body(tuple(group)),
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


class NicknameField(serializers.RegexField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NICKNAME_PATTERN, min_length=3, max_length=24, **kwargs)


class NicknameRequest(serializers.Serializer):
    nickname = NicknameField(
        help_text="3–24 letters, digits, `_` or `-`; unique (case-insensitive)."
    )


class CredentialsRequest(serializers.Serializer):
    nickname = NicknameField(help_text="3–24 letters, digits, `_` or `-`.")
    password = serializers.CharField(
        min_length=8,
        help_text="Register: at least 8 characters, not all digits, not a common password, "
        "not like the nickname (else 400 `invalid`). Login: a wrong one is 401.",
    )


NicknameBody = json_only(NicknameRequest)
CredentialsBody = json_only(CredentialsRequest)


class LogoutRequest(serializers.Serializer):
    everywhere = serializers.BooleanField(
        required=False,
        help_text="true: end every session and every token of the player (401 when anonymous).",
    )


class PasswordRequest(serializers.Serializer):
    password = serializers.CharField(
        min_length=8, max_length=128, help_text="The new password (the usual checks)."
    )
    current_password = serializers.CharField(
        required=False, max_length=128, help_text="Required when the player has a password."
    )


class DeleteRequest(serializers.Serializer):
    confirm = serializers.CharField(help_text="The player's nickname, exactly.")
    password = serializers.CharField(
        required=False, max_length=128, help_text="Required when the player has a password."
    )


LogoutBody = json_only(LogoutRequest)
PasswordBody = json_only(PasswordRequest)
DeleteBody = json_only(DeleteRequest)


class TokenInfo(serializers.Serializer):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    current = serializers.BooleanField(help_text="The token this request came with.")


class TokenListBody(serializers.Serializer):
    tokens = TokenInfo(many=True)


class NewTokenBody(serializers.Serializer):
    token = serializers.CharField(help_text="The secret: shown this once, never again.")
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()


class ExportBody(serializers.Serializer):
    exported_at = serializers.DateTimeField()
    player = serializers.DictField()
    tokens = TokenInfo(many=True)
    games = serializers.ListField(child=serializers.DictField())
    results = serializers.ListField(child=serializers.DictField())


class CsrfBody(serializers.Serializer):
    csrf_token = serializers.CharField(help_text="Send it back as the X-CSRFToken header.")


class VariantBody(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField(
        help_text="In the request's language (see Accept-Language); English where the variant "
        "has no translation."
    )
    description = serializers.CharField(help_text="In the request's language, like name.")
    decks = serializers.IntegerField()
    daily = serializers.BooleanField()
    family = serializers.ChoiceField(
        choices=list(FAMILIES),
        help_text="The classic its rules are built like, read from its rules document "
        "(games/engine/families.py); what the home page filters by.",
    )


class VariantDetailBody(VariantBody):
    rules = serializers.JSONField(help_text="The variant's rules document.")


class DealBody(serializers.Serializer):
    variant = serializers.SlugField()
    date = serializers.DateField()
    commitment = serializers.CharField(help_text="SHA-256 (hex) of the seed.")
    seed = serializers.CharField(allow_null=True, help_text="Hex; null until the day has ended.")
    players = serializers.IntegerField()
    finished = serializers.IntegerField(
        help_text="Games over, voided results and banned players' games left out (as on the board)."
    )
    attempt = serializers.IntegerField(
        help_text="The attempt of docs/deals.md the day's deal uses."
    )
    certified = serializers.BooleanField(help_text="The solver proved the deal winnable.")
    checking = serializers.BooleanField(
        help_text="Made on demand and not certified yet: the solver is checking it (the deal "
        "itself never changes; it is certified where it stands if proved winnable)."
    )
    difficulty = serializers.IntegerField(
        allow_null=True,
        min_value=1,
        max_value=5,
        help_text="1 (easy) to 5 (hard): the solver's effort against a sample of the variant's "
        "deals; once the day is over, blended with how the day's players did.",
    )
    difficulty_solver = serializers.IntegerField(
        allow_null=True, min_value=1, max_value=5, help_text="The solver's step alone."
    )
    difficulty_players = serializers.IntegerField(
        allow_null=True,
        min_value=1,
        max_value=5,
        help_text="The step the day's finished games give (null until the day is over, or with "
        "fewer than 5).",
    )
    par = serializers.IntegerField(
        allow_null=True, help_text="The solver's winning line's length; null until the day ends."
    )


class DealDetailBody(DealBody):
    rules = serializers.JSONField(help_text="The rules document frozen when the deal was made.")


class NextDealBody(serializers.Serializer):
    date = serializers.DateField()
    commitment = serializers.CharField()


class DailyBody(DealBody):
    next = NextDealBody(
        allow_null=True,
        help_text="Tomorrow's deal: its commitment is published a day ahead, once "
        "preparedeals has made (and certified) it.",
    )


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
    duration_ms = serializers.IntegerField(
        help_text="The server-measured time from the first move to the last (0 before two moves).",
    )
    state = StateBody()
    verified = serializers.BooleanField(help_text="Shown to the player; ranking reads results.")
    assisted = serializers.BooleanField(help_text="A hint was taken: ranks after unassisted.")
    can_undo = serializers.BooleanField(help_text="The server would accept an undo now.")
    foundation_cards = serializers.IntegerField()
    seed_text = serializers.CharField(
        allow_null=True,
        help_text="A practice seed text; a server-chosen one once the game is over.",
    )
    voided = serializers.BooleanField(
        help_text="A moderator voided the game's result: it ranks nowhere and counts in no stats."
    )
    void_reason = serializers.CharField(
        allow_null=True, help_text="The moderator's reason for the void (null unless voided)."
    )


class NewGameRequest(serializers.Serializer):
    variant = serializers.RegexField(SLUG_PATTERN, help_text="An enabled variant's slug.")
    mode = serializers.ChoiceField(choices=["daily", "practice"])
    seed = serializers.RegexField(
        NO_NUL_PATTERN,
        max_length=SEED_TEXT_LIMIT,
        required=False,
        help_text=f"Practice only (a daily game with a seed is 400): the seed text, at most "
        f"{SEED_TEXT_LIMIT} characters, no NUL (omitted: a random one).",
    )


NewGameBody = json_only(NewGameRequest)


def _simple_move(kind: str, summary: str) -> dict[str, Any]:
    return {
        "type": "object",
        "title": kind,
        "description": summary,
        "properties": {"type": {"type": "string", "enum": [kind]}},
        "required": ["type"],
        "additionalProperties": False,
    }


MOVE_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "title": "move",
            "description": "Move the top `count` cards of `from` onto `to`.",
            "properties": {
                "type": {"type": "string", "enum": ["move"]},
                "from": {"type": "string", "description": "A pile id, e.g. 'tableau-3'."},
                "to": {"type": "string", "description": "A pile id, e.g. 'foundation-5'."},
                "count": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT, "default": 1},
            },
            "required": ["type", "from", "to"],
            "additionalProperties": False,
        },
        _simple_move("deal", "Use the stock (or turn the waste back over)."),
        _simple_move("redeal", "Gather and redeal the tableau (Capricieuse)."),
        _simple_move("undo", "Take back the last move, where undo can reach it."),
    ],
}


@extend_schema_field(MOVE_SCHEMA)
class MoveField(serializers.JSONField):
    """A MOVE object of docs/api.md: one of the four move types."""


class PlyMoveRequest(serializers.Serializer):
    ply = serializers.IntegerField(min_value=0, help_text="The game's current ply.")
    move = MoveField()


PlyMoveBody = json_only(PlyMoveRequest)


class ReplayBody(serializers.Serializer):
    seed = serializers.CharField(
        allow_null=True, help_text="Hex; a daily deal's seed is null until its day has ended."
    )
    moves = serializers.ListField(child=MoveField())
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"])
    seed_text = serializers.CharField(required=False, help_text="Practice games only.")


GAME_ID = OpenApiParameter(
    "game_id",
    {"type": "string", "pattern": GAME_ID_PATTERN},
    OpenApiParameter.PATH,
    description="The game's id.",
)
LANGUAGE = OpenApiParameter(
    "Accept-Language",
    str,
    OpenApiParameter.HEADER,
    description="The language of names, descriptions and error details: `en` or `fr`. The "
    "`django_language` cookie (set by `POST /i18n/setlang/`) wins over it; without either, "
    "English. The answer's `Content-Language` names the language used. Error codes never "
    "change with the language.",
)
SLUG = OpenApiParameter(
    "slug",
    {"type": "string", "pattern": SLUG_PATTERN},
    OpenApiParameter.PATH,
    description="A variant's slug.",
)
DATE = OpenApiParameter(
    "date",
    {"type": "string", "pattern": DATE_PATTERN},
    OpenApiParameter.PATH,
    description="YYYY-MM-DD (UTC); not a real date, or a future one, is 404.",
)
OFFSET = OpenApiParameter(
    "offset",
    {"type": "integer", "minimum": 0, "default": 0},
    description="How many entries to skip.",
)
LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": PAGE_LIMIT, "default": PAGE_LIMIT},
    description=f"How many entries to answer (at most {PAGE_LIMIT}).",
)
BEFORE = OpenApiParameter(
    "before",
    {"type": "string", "pattern": DATE_PATTERN},
    description="YYYY-MM-DD: only deals of earlier days (the previous page's `next_before`).",
)
DEALS_LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": PAGE_LIMIT, "default": 31},
    description=f"How many deals to answer (at most {PAGE_LIMIT}).",
)
POSITIONS_LIMIT = OpenApiParameter(
    "limit",
    {"type": "integer", "minimum": 1, "maximum": PAGE_LIMIT, "default": PAGE_LIMIT},
    description=f"How many positions to answer (at most {PAGE_LIMIT}).",
)


class DealHistoryBody(serializers.Serializer):
    variant = serializers.SlugField()
    first = serializers.DateField(allow_null=True, help_text="The variant's first deal's day.")
    today = serializers.DateField(help_text="Today (UTC), the last day that can be listed.")
    deals = DealBody(many=True, help_text="Newest first; a seed only once its day has ended.")
    next_before = serializers.DateField(
        allow_null=True, help_text="Pass as `before` for the next page; null on the last."
    )


class PositionBody(serializers.Serializer):
    ply = serializers.IntegerField(help_text="0 is the deal; n follows the n-th move.")
    move = serializers.JSONField(
        allow_null=True, help_text="The MOVE that led here (as in the replay); null at ply 0."
    )
    state = StateBody(help_text="As the player saw it: face-down and stock cards null.")
    foundation_cards = serializers.IntegerField()


class PositionsBody(serializers.Serializer):
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"])
    total = serializers.IntegerField(help_text="Positions of the whole game: moves + 1.")
    offset = serializers.IntegerField()
    limit = serializers.IntegerField()
    positions = PositionBody(many=True)
