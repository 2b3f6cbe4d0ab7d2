"""Error codes of the public API and the exception that carries them out of the services."""

from __future__ import annotations

import enum
from typing import Any


class ErrorCode(enum.StrEnum):
    """The stable machine codes of docs/api.md, each with its HTTP status."""

    NOT_AUTHENTICATED = "not_authenticated"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    INVALID = "invalid"
    ILLEGAL_MOVE = "illegal_move"
    STALE_PLY = "stale_ply"
    GAME_OVER = "game_over"
    RATE_LIMITED = "rate_limited"
    # Leagues (docs/api.md, "Leagues").
    NOT_MEMBER = "not_member"
    NOT_OWNER = "not_owner"
    BAD_CODE = "bad_code"
    ALREADY_MEMBER = "already_member"
    LEAGUE_FULL = "league_full"
    TOO_MANY_LEAGUES = "too_many_leagues"
    OWNER_CANNOT_LEAVE = "owner_cannot_leave"
    LEAGUE_CLOSED = "league_closed"
    # Not used by docs/api.md; the REST API answers them for requests outside the contract.
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    SERVER_ERROR = "server_error"
    # The database (or its connection pool) cannot serve the request now; try again shortly.
    UNAVAILABLE = "unavailable"

    @property
    def status(self) -> int:
        return _STATUS[self]


_STATUS = {
    ErrorCode.NOT_AUTHENTICATED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.INVALID: 400,
    ErrorCode.ILLEGAL_MOVE: 422,
    ErrorCode.STALE_PLY: 409,
    ErrorCode.GAME_OVER: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.NOT_MEMBER: 403,
    ErrorCode.NOT_OWNER: 403,
    ErrorCode.BAD_CODE: 404,
    ErrorCode.ALREADY_MEMBER: 409,
    ErrorCode.LEAGUE_FULL: 409,
    ErrorCode.TOO_MANY_LEAGUES: 409,
    ErrorCode.OWNER_CANNOT_LEAVE: 409,
    ErrorCode.LEAGUE_CLOSED: 410,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.NOT_ACCEPTABLE: 406,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: 415,
    ErrorCode.SERVER_ERROR: 500,
    ErrorCode.UNAVAILABLE: 503,
}


class ServiceError(Exception):
    """A refusal with a code of docs/api.md, a sentence for people and optional extra fields."""

    def __init__(self, code: ErrorCode, detail: str, **extra: Any) -> None:
        # A lazy translation is said now, in the language of the request being answered.
        detail = str(detail)
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra

    def payload(self) -> dict[str, Any]:
        """Return the error body of docs/api.md: ``{"error", "detail", ...extra}``."""
        return {"error": self.code.value, "detail": self.detail, **self.extra}
