"""A daily game verified from first principles before its result is written.

A daily result is computed, never read: ``verify_daily`` checks that the game belongs to its
deal (mode, deal, variant, seed and rules all agree with the deal, and the deal's seed matches
its published commitment), that every move row carries the server's seal, then replays the log
from the **deal's** seed under the deal's frozen rules. Status, foundation cards and moves come
from that replay; the duration from the sealed move times. The game row's own columns are a
cache for display and are never trusted.
"""

from __future__ import annotations

import datetime as dt
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.documents import canonical, compiled
from games.engine import ReplayError, commitment, parse_seed, replay, state_to_json
from games.verification.figures import Figures
from games.verification.seals import move_seal


@dataclass(frozen=True, slots=True)
class Claim:
    """What a finished game's row says it reached (checked, never trusted)."""

    status: str
    state: Any
    foundation_cards: int
    ply: int


class Mismatch(Exception):
    """A game that cannot be verified: ``reason`` is a short code, ``detail`` a sentence."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """A move row as verification reads it."""

    ply: int
    move: dict[str, Any]
    at: dt.datetime
    seal: str


def check_log(game_id: str, rows: Sequence[LoggedMove]) -> None:
    """Raise ``Mismatch`` unless the rows are plies 0..n-1, each with a valid seal."""
    for index, row in enumerate(rows):
        if row.ply != index:
            raise Mismatch("log_gap", f"the log has ply {row.ply} where {index} belongs")
        expected = move_seal(game_id=game_id, ply=row.ply, move=row.move, at=row.at)
        if not hmac.compare_digest(expected, row.seal or ""):
            raise Mismatch("move_seal", f"move {row.ply} does not carry the server's seal")


def verify_daily(
    *,
    game: Any,
    deal: Any,
    rows: Sequence[LoggedMove],
    claimed: Claim,
    finished_at: dt.datetime,
) -> Figures:
    """Return the figures that replaying ``rows`` on ``deal`` proves; raise ``Mismatch``.

    ``claimed`` is what the game's row says it reached: a row that disagrees with the replay
    (its position, cards, plies or a win) never ranks, whatever the replay proves.
    """
    if game.mode != "daily" or game.deal_id != deal.pk:
        raise Mismatch("not_daily", "the game is not a daily game of this deal")
    if game.variant_id != deal.variant_id:
        raise Mismatch("variant", "the game's variant is not the deal's")
    if game.player_id is None:
        raise Mismatch("player", "the game has no player")
    try:
        seed = parse_seed(deal.seed)
    except ValueError:
        raise Mismatch("seed", "the deal's seed is not a seed") from None
    if not hmac.compare_digest(commitment(seed), deal.commitment):
        raise Mismatch("commitment", "the deal's seed does not match its published commitment")
    if game.seed != deal.seed:
        raise Mismatch("seed", "the game was not dealt from the deal's seed")
    if canonical(game.rules) != canonical(deal.rules):
        raise Mismatch("rules", "the game's rules are not the deal's frozen rules")
    check_log(game.pk, rows)
    try:
        outcome = replay(compiled(deal.rules), seed, [row.move for row in rows])
    except ReplayError as error:
        raise Mismatch("replay", f"the log does not replay: {error}") from None
    won = outcome.state.won
    if claimed.status == "won" and not won:
        raise Mismatch("not_won", "the game claims a win that its log does not reach")
    if state_to_json(outcome.state) != claimed.state:
        raise Mismatch("state", "the stored position is not the one the log reaches")
    proved = (outcome.state.foundation_cards(), outcome.plies)
    if proved != (claimed.foundation_cards, claimed.ply):
        raise Mismatch(
            "figures",
            f"the row says {claimed.foundation_cards} cards in {claimed.ply} moves; "
            f"the log proves {proved[0]} in {proved[1]}",
        )
    duration = 0
    if rows:
        duration = int((rows[-1].at - rows[0].at).total_seconds() * 1000)
    return Figures(
        status="won" if won else "resigned",
        foundation_cards=outcome.state.foundation_cards(),
        moves=outcome.plies,
        duration_ms=max(duration, 0),
        finished_at=finished_at,
        assisted=bool(game.assisted),
    )
