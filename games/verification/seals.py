"""The seals that make verification stick: of every move row and of every result.

Seals are HMAC-SHA256 keyed by a key derived from ``settings.DEAL_SECRET`` (which is not in the
database). A move's seal covers its game, ply, move and time; a result's seal covers every figure
a leaderboard shows, and a moderator's void of it. So a row edited in the database fails its seal
and can at worst hide itself: a void written or erased in the database is noticed as an edit.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings

from games.verification.figures import Figures

SEAL_VERSION = "v1"


@lru_cache(maxsize=4)
def _key(secret: str) -> bytes:
    return hmac.new(
        secret.encode(), b"daily-patience seal key " + SEAL_VERSION.encode(), "sha256"
    ).digest()


def _seal(*parts: object) -> str:
    secret = getattr(settings, "DEAL_SECRET", "")
    if not secret:
        raise RuntimeError("DEAL_SECRET is not configured")
    message = "|".join([SEAL_VERSION, *(str(part) for part in parts)]).encode()
    return hmac.new(_key(secret), message, hashlib.sha256).hexdigest()


def _moment(at: dt.datetime) -> str:
    return at.astimezone(dt.UTC).isoformat(timespec="microseconds")


def move_seal(*, game_id: str, ply: int, move: dict[str, Any], at: dt.datetime) -> str:
    """Return the seal of one move row."""
    text = json.dumps(move, sort_keys=True, separators=(",", ":"))
    return _seal("move", game_id, ply, text, _moment(at))


@dataclass(frozen=True, slots=True)
class Void:
    """A moderator's void of a result: when, and why (sealed with the result's figures)."""

    at: dt.datetime
    reason: str


def result_seal(
    *, game_id: str, deal_id: int, player_id: int, figures: Figures, void: Void | None = None
) -> str:
    """Return the seal over a result's identity, figures and void (if voided).

    A result that was never voided is sealed over exactly what it was sealed over before voids
    existed, so its seal still holds; a voided one adds the void's time and reason.
    """
    extra: tuple[object, ...] = () if void is None else ("void", _moment(void.at), void.reason)
    return _seal(
        "result",
        game_id,
        deal_id,
        player_id,
        figures.status,
        figures.foundation_cards,
        figures.moves,
        figures.duration_ms,
        _moment(figures.finished_at),
        int(figures.assisted),
        *extra,
    )


def void_of(result: Any) -> Void | None:
    """Return the void a ``Result`` row records (None when it was not voided)."""
    voided_at = getattr(result, "voided_at", None)
    if voided_at is None:
        return None
    return Void(at=voided_at, reason=result.void_reason or "")


def seal_of(result: Any) -> str:
    """Return the seal a ``Result`` row's identity, figures and void call for."""
    return result_seal(
        game_id=result.game_id,
        deal_id=result.deal_id,
        player_id=result.player_id,
        figures=Figures.of(result),
        void=void_of(result),
    )


def seal_is_valid(result: Any) -> bool:
    """Tell whether a ``Result`` row still carries the seal of its own figures."""
    return hmac.compare_digest(seal_of(result), result.seal or "")
