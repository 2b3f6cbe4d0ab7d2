"""Writes of moderators: void a result, ban or unban a player, re-verify a game.

Each write commits, then announces itself through ``games.signals`` (the leaderboards listen:
a voided result leaves its board and its player's stats, a banned player's results leave every
board). The admin calls these functions and records each in its log.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from core.text import is_text
from games import clock, signals
from games.documents import compiled
from games.engine import ReplayError, parse_seed, replay, state_to_json
from games.models import Deal, Game, Player, Result, VerificationFailure
from games.services.games import VERIFY_COLUMNS, _logged_moves
from games.verification.daily import Claim, Mismatch, verify_daily
from games.verification.figures import Figures
from games.verification.seals import seal_is_valid, seal_of

logger = logging.getLogger(__name__)

REASON_LIMIT = 500


def check_reason(value: object) -> str:
    """Return a moderator's reason from untrusted input: 1 to 500 characters, no NUL."""
    text = value.strip() if isinstance(value, str) else value
    if not is_text(text, limit=REASON_LIMIT) or not text:
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("Give a reason of 1 to %(limit)d characters.") % {"limit": REASON_LIMIT},
            field="reason",
        )
    assert isinstance(text, str)
    return text


# --- voids ------------------------------------------------------------------------------------


def result_void(*, result: Result, reason: str, by: Player) -> Result:
    """Void a result: it leaves its deal's board and its player's stats; the game shows why.

    The void is sealed with the result's figures and counted in ``Deal.withdrawals`` (so a
    board built before it reads as stale). Raise ``invalid`` for a result already voided
    or one whose seal no longer holds (edited in the database: it ranks nowhere already).
    """
    reason = check_reason(reason)
    with transaction.atomic():
        locked = Result.objects.select_for_update().get(pk=result.pk)
        if locked.voided_at is not None:
            raise ServiceError(ErrorCode.INVALID, gettext("This result is already voided."))
        if not seal_is_valid(locked):
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("This result does not carry its seal: it ranks nowhere already."),
            )
        locked.voided_at = clock.now()
        locked.void_reason = reason
        locked.voided_by = by
        locked.seal = seal_of(locked)
        locked.save(update_fields=["voided_at", "void_reason", "voided_by", "seal"])
        Game.objects.filter(pk=locked.game_id).update(void_reason=reason)
        Deal.objects.filter(pk=locked.deal_id).update(withdrawals=F("withdrawals") + 1)
        transaction.on_commit(lambda: signals.send(signals.result_voided, result=locked))
    return locked


# --- bans -------------------------------------------------------------------------------------


def _their_deals(player: Player) -> QuerySet[Deal]:
    """Return the deals the player has a result on (one result per deal: one daily game)."""
    return Deal.objects.filter(pk__in=Result.objects.filter(player=player).values("deal_id"))


def player_ban(*, player: Player, reason: str, by: Player) -> Player:
    """Ban a player from the daily challenges: their results leave every board, and they can no
    longer start or play a daily game (they may still log in and practise)."""
    reason = check_reason(reason)
    if player.pk == by.pk:
        raise ServiceError(ErrorCode.INVALID, gettext("A moderator cannot ban their own account."))
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        if locked.banned_at is not None:
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("%(nickname)s is already banned.") % {"nickname": locked.nickname},
            )
        locked.banned_at = clock.now()
        locked.ban_reason = reason
        locked.save(update_fields=["banned_at", "ban_reason"])
        _their_deals(locked).update(withdrawals=F("withdrawals") + 1)
        transaction.on_commit(lambda: signals.send(signals.player_banned, player=locked))
    return locked


def player_unban(*, player: Player) -> Player:
    """Lift a player's ban: their sealed results rank again and they may play dailies."""
    with transaction.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        if locked.banned_at is None:
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("%(nickname)s is not banned.") % {"nickname": locked.nickname},
            )
        locked.banned_at = None
        locked.ban_reason = ""
        locked.save(update_fields=["banned_at", "ban_reason"])
        _their_deals(locked).update(withdrawals=F("withdrawals") - 1)
        transaction.on_commit(lambda: signals.send(signals.player_unbanned, player=locked))
    return locked


# --- re-verification --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reverification:
    """The outcome of replaying a game again: ``ok``, else a reason code and a sentence."""

    ok: bool
    reason: str = ""
    detail: str = ""
    still_ranks: bool = False  # failed, yet its result holds its seal: only a void removes it


def _replay_daily(game: Game) -> Figures:
    """Return what replaying a daily game on its deal proves; raise ``Mismatch``."""
    deal = Deal.objects.only("id", "variant_id", "seed", "commitment", "rules").get(pk=game.deal_id)
    claimed = Claim(
        status=game.status, state=game.state, foundation_cards=game.foundation_cards, ply=game.ply
    )
    return verify_daily(
        game=game,
        deal=deal,
        rows=_logged_moves(game),
        claimed=claimed,
        finished_at=game.finished_at or clock.now(),
    )


def _check_result(game: Game, figures: Figures) -> None:
    """Raise ``Mismatch`` unless the game's result (if finished) holds what the replay proves."""
    if game.status == Game.Status.PLAYING:
        return
    result = Result.objects.filter(pk=game.pk).first()
    if result is None:
        raise Mismatch("no_result", "the game replays but has no result (it failed before)")
    if not seal_is_valid(result):
        raise Mismatch("result_seal", "the result does not carry the server's seal")
    if Figures.of(result) != figures:
        raise Mismatch(
            "result_figures",
            f"the result says {result.foundation_cards} cards in {result.moves} moves "
            f"({result.status}); the log proves {figures.foundation_cards} in {figures.moves} "
            f"({figures.status})",
        )


def _replay_practice(game: Game) -> None:
    """Raise ``Mismatch`` unless a practice game's log replays from its seed to its position."""
    try:
        outcome = replay(
            compiled(game.rules), parse_seed(game.seed), [r.move for r in _logged_moves(game)]
        )
    except (ReplayError, ValueError) as error:
        raise Mismatch("replay", f"the log does not replay: {error}") from None
    if state_to_json(outcome.state) != game.state:
        raise Mismatch("state", "the stored position is not the one the log reaches")


def game_reverify(*, game: Game) -> Reverification:
    """Replay a game's sealed log again from its seed, as verification did when it finished.

    A daily game is checked against its deal (seed, commitment, rules, move seals) and, once
    finished, against its sealed result, figure by figure. A failure is kept as a
    ``VerificationFailure``; nothing else changes (a result that fails stays off the boards by
    its seal, or is voided by a moderator).
    """
    fresh = Game.objects.only(
        *VERIFY_COLUMNS, "status", "foundation_cards", "ply", "finished_at"
    ).get(pk=game.pk)
    try:
        if fresh.mode == Game.Mode.DAILY:
            _check_result(fresh, _replay_daily(fresh))
        else:
            _replay_practice(fresh)
    except Mismatch as mismatch:
        logger.error(
            "game %s failed re-verification (%s): %s", game.pk, mismatch.reason, mismatch.detail
        )
        VerificationFailure.objects.create(
            game_id=fresh.pk, reason=mismatch.reason, detail=mismatch.detail, at=clock.now()
        )
        result = Result.objects.filter(pk=fresh.pk, voided_at__isnull=True).first()
        ranks = result is not None and seal_is_valid(result)
        return Reverification(False, mismatch.reason, mismatch.detail, still_ranks=ranks)
    return Reverification(True)
