"""Writes of games: start, move, resign, finish (with verification) and close after the day.

An ordinary move is one statement (``games.services.moves``). Any other locks the game row
(reading only the columns a move needs), applies the move with the engine to the cached
position, appends one sealed move row and updates the few columns that change. A finished
daily game is verified from first principles (``games.verification.seals``): only then is its sealed
``Result`` written, and ``signals.result_verified`` is sent after the commit.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext, gettext_noop, pgettext_lazy

from core import metrics
from core.errors import ErrorCode, ServiceError
from core.text import is_text
from games import clock, positions, selectors, signals
from games.documents import compiled
from games.engine import (
    IllegalMove,
    MalformedMove,
    ReplayError,
    apply_move,
    deal,
    is_stuck,
    parse_move,
    parse_seed,
    practice_seed,
    replay,
    state_to_json,
)
from games.models import Deal, Game, Move, Player, Result, Variant, VerificationFailure
from games.services.deals import deal_get_or_create
from games.services.moves import MOVE_COLUMNS, move_append
from games.verification.daily import Claim, LoggedMove, Mismatch, verify_daily
from games.verification.figures import Figures
from games.verification.seals import move_seal, seal_of
from games.words.refusals import say_refusal

logger = logging.getLogger(__name__)

SEED_TEXT_LIMIT = 200
MAX_PLY = 2**31 - 1

DAMAGED_DETAIL = gettext_noop("This game's record is damaged: it cannot be played on.")
BANNED_DETAIL = gettext_noop(
    "This account is banned from the daily challenges; practice games are still open to it."
)

# What verification reads of the game row, fresh (the locked row holds only MOVE_COLUMNS).
VERIFY_COLUMNS = (
    "id",
    "mode",
    "deal_id",
    "variant_id",
    "player_id",
    "seed",
    "rules",
    "state",
    "assisted",
)


# --- untrusted input ------------------------------------------------------------------------


def check_ply(value: Any) -> int:
    """Return a ply from untrusted input."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PLY:
        raise ServiceError(
            ErrorCode.INVALID, gettext("'ply' must be a non-negative integer."), field="ply"
        )
    return value


def check_move(value: Any) -> Any:
    """Return the engine move of a MOVE object; raise ``invalid`` if it is malformed."""
    try:
        return parse_move(value)
    except MalformedMove as error:
        detail = gettext("Bad move: {error}.").format(error=say_refusal(error.reason))
        raise ServiceError(ErrorCode.INVALID, detail, field="move") from None


def _enabled_variant(slug: Any) -> Variant:
    if not isinstance(slug, str) or "\x00" in slug or len(slug) > 40:
        raise ServiceError(
            ErrorCode.INVALID, gettext("Name the variant by its slug."), field="variant"
        )
    variant = Variant.objects.filter(slug=slug, enabled=True).first()
    if variant is None:
        raise ServiceError(
            ErrorCode.INVALID,
            gettext("No variant {slug!r} is offered.").format(slug=slug),
            field="variant",
        )
    return variant


# --- starting -------------------------------------------------------------------------------


def _new_game(
    *, player: Player, variant: Variant, rules: dict[str, Any], seed: bytes, **fields: Any
) -> Game:
    state = deal(compiled(rules), seed)
    game = Game(
        id=secrets.token_urlsafe(12),
        player=player,
        variant=variant,
        rules=rules,
        seed=seed.hex(),
        state=state_to_json(state),
        foundation_cards=state.foundation_cards(),
        stuck=is_stuck(state),
        started_at=clock.now(),
        **fields,
    )
    game.save(force_insert=True)
    transaction.on_commit(lambda: positions.remember(game, state))
    return game


def _counter_of_start(variant: Variant, game: Game) -> Any:
    return metrics.GAMES_STARTED.labels(variant=variant.slug, mode=game.mode)


def game_start(*, player: Player, variant: Any, mode: Any, seed: Any = None) -> tuple[Game, bool]:
    """Start (or, for today's daily deal, find) a game; return it and whether it is new."""
    chosen = _enabled_variant(variant)
    if mode == Game.Mode.DAILY:
        if seed is not None:
            raise ServiceError(
                ErrorCode.INVALID, gettext("A daily game takes no seed."), field="seed"
            )
        if not chosen.daily:
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("{variant} has no daily deal.").format(variant=chosen.translated("name")),
                field="variant",
            )
        if Player.objects.filter(pk=player.pk, banned_at__isnull=False).exists():
            raise ServiceError(ErrorCode.FORBIDDEN, gettext(BANNED_DETAIL))
        today_deal = deal_get_or_create(variant=chosen, date=clock.today())
        existing = Game.objects.filter(player=player, deal=today_deal).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                game = _new_game(
                    player=player,
                    variant=chosen,
                    rules=today_deal.rules,
                    seed=bytes.fromhex(today_deal.seed),
                    mode=Game.Mode.DAILY,
                    deal=today_deal,
                )
        except IntegrityError:  # the same player started it concurrently
            return Game.objects.get(player=player, deal=today_deal), False
        transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
        transaction.on_commit(_counter_of_start(chosen, game).inc)
        return game, True
    if mode == Game.Mode.PRACTICE:
        chosen_seed = seed is not None
        if seed is None:
            seed = secrets.token_hex(8)
        if not is_text(seed, limit=SEED_TEXT_LIMIT):
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("A practice seed is a text of at most {limit} characters (no NUL).").format(
                    limit=SEED_TEXT_LIMIT
                ),
                field="seed",
            )
        game = _new_game(
            player=player,
            variant=chosen,
            rules=chosen.rules,
            seed=practice_seed(seed),
            mode=Game.Mode.PRACTICE,
            seed_text=seed,
            seed_chosen=chosen_seed,
        )
        transaction.on_commit(_counter_of_start(chosen, game).inc)
        return game, True
    raise ServiceError(
        ErrorCode.INVALID, gettext("The mode is 'daily' or 'practice'."), field="mode"
    )


# --- locking --------------------------------------------------------------------------------


def _lock(game_id: Any) -> Game | None:
    """Return the game ``game_id`` (the columns a move needs) locked until the transaction ends."""
    return (
        Game.objects.select_for_update(of=("self",))
        .select_related("variant", "deal", "player")
        .only(*MOVE_COLUMNS, "player__banned_at")
        .filter(pk=selectors.check_game_id(game_id))
        .first()
    )


def _locked_game(game_id: Any, player: Player) -> Game:
    game = _lock(game_id)
    if game is None:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
    if game.player_id != player.pk:
        raise ServiceError(ErrorCode.FORBIDDEN, gettext("Only the game's player may play it."))
    if game.mode == Game.Mode.DAILY and game.player.banned_at is not None:
        raise ServiceError(ErrorCode.FORBIDDEN, gettext(BANNED_DETAIL))
    game.player = player  # the payload names the player: no query for it
    return game


# --- finishing ------------------------------------------------------------------------------


def _day_end(date: dt.date) -> dt.datetime:
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


def _logged_moves(game: Game) -> list[LoggedMove]:
    rows = (
        Move.objects.filter(game_id=game.pk)
        .order_by("ply")
        .values_list("ply", "move", "at", "seal")
    )
    return [LoggedMove(*row) for row in rows]


def _record_failure(game: Game, reason: str, detail: str) -> None:
    logger.error(
        "game %s failed verification (%s): %s; kept off the leaderboard", game.pk, reason, detail
    )
    VerificationFailure.objects.create(
        game_id=game.pk, reason=reason, detail=detail, at=clock.now()
    )


def _seal_result(game: Game, status: str, at: dt.datetime) -> Result | None:
    """Verify a finished daily game against its deal and write its sealed result, or None."""
    deal_ = Deal.objects.only("id", "variant_id", "seed", "commitment", "rules").get(
        pk=game.deal_id
    )
    stored = Game.objects.only(*VERIFY_COLUMNS).get(pk=game.pk)
    # The position a winning move just reached, else the stored one.
    state = stored.state if "state" in game.get_deferred_fields() else game.state
    claimed = Claim(
        status=status, state=state, foundation_cards=game.foundation_cards, ply=game.ply
    )
    try:
        figures = verify_daily(
            game=stored, deal=deal_, rows=_logged_moves(game), claimed=claimed, finished_at=at
        )
    except Mismatch as mismatch:
        _record_failure(game, mismatch.reason, mismatch.detail)
        return None
    result = result_write(
        game_id=game.pk, deal_id=deal_.pk, player_id=stored.player_id, figures=figures
    )
    transaction.on_commit(lambda: signals.send(signals.result_verified, result=result))
    return result


def result_write(*, game_id: str, deal_id: int, player_id: int, figures: Figures) -> Result:
    """Write the sealed result of verified ``figures`` and count it on its deal."""
    result = Result(
        game_id=game_id,
        deal_id=deal_id,
        player_id=player_id,
        status=figures.status,
        foundation_cards=figures.foundation_cards,
        moves=figures.moves,
        duration_ms=figures.duration_ms,
        finished_at=figures.finished_at,
        assisted=figures.assisted,
        verified_at=clock.now(),
    )
    result.seal = seal_of(result)
    result.save(force_insert=True)
    # A banned player's result ranks nowhere: it counts as a withdrawal too (the player's row
    # is locked, so a ban being made now counts it either here or there, never twice).
    banned = (
        Player.objects.select_for_update().filter(pk=player_id, banned_at__isnull=False).exists()
    )
    Deal.objects.filter(pk=deal_id).update(
        results_count=F("results_count") + 1, withdrawals=F("withdrawals") + int(banned)
    )
    return result


def _verify_practice(game: Game) -> bool:
    """Tell whether a practice game's log replays from its own seed to its position."""
    seed, rules, stored = (
        Game.objects.filter(pk=game.pk).values_list("seed", "rules", "state").get()
    )
    state = stored if "state" in game.get_deferred_fields() else game.state
    try:
        outcome = replay(compiled(rules), parse_seed(seed), [r.move for r in _logged_moves(game)])
    except ReplayError as error:
        logger.error("practice game %s failed its replay: %s", game.pk, error)
        return False
    return state_to_json(outcome.state) == state


FINISH_COLUMNS = [
    "status",
    "finished_at",
    "stuck",
    "can_undo",
    "verified",
    "foundation_cards",
    "ply",
]


def _finish(game: Game, status: str, at: dt.datetime) -> list[str]:
    """Close ``game`` with ``status`` and verify it; return the columns that changed."""
    game.status = status
    game.finished_at = at
    game.stuck = False
    game.can_undo = False
    if game.mode == Game.Mode.DAILY:
        game.verified = _seal_result(game, status, at) is not None
    else:
        game.verified = _verify_practice(game)
    labels = {"mode": game.mode}
    checked = metrics.RESULTS_VERIFIED if game.verified else metrics.VERIFICATION_FAILURES
    transaction.on_commit(checked.labels(**labels).inc)
    finished = metrics.GAMES_FINISHED.labels(variant=game.variant.slug, status=status, **labels)
    transaction.on_commit(finished.inc)
    return FINISH_COLUMNS


def _close_if_day_over(game: Game) -> bool:
    """Close a daily game left playing after its day; return whether it was closed now."""
    if game.mode != Game.Mode.DAILY or game.status != Game.Status.PLAYING:
        return False
    assert game.deal is not None
    if game.deal.date >= clock.today():
        return False
    game.save(update_fields=_finish(game, Game.Status.RESIGNED, _day_end(game.deal.date)))
    return True


def _close_expired(game_id: Any) -> tuple[Game | None, bool]:
    """Lock a game and close it if its day is over; return it and whether it closed now."""
    with transaction.atomic():
        game = _lock(game_id)
        if game is None or not _close_if_day_over(game):
            return game, False
        transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
    return game, True


# --- playing --------------------------------------------------------------------------------

STATUS_WORDS = {
    Game.Status.PLAYING: pgettext_lazy("game status", "playing"),
    Game.Status.WON: pgettext_lazy("game status", "won"),
    Game.Status.RESIGNED: pgettext_lazy("game status", "resigned"),
}


def game_over_error(game: Game) -> ServiceError:
    """Return the ``game_over`` refusal of a finished game, naming how it ended."""
    status = STATUS_WORDS.get(game.status, game.status)
    return ServiceError(
        ErrorCode.GAME_OVER, gettext("This game is over ({status}).").format(status=status)
    )


def _refusal(game: Game, expected: int) -> ServiceError | None:
    if game.is_over:
        return game_over_error(game)
    if expected != game.ply:
        return ServiceError(
            ErrorCode.STALE_PLY,
            gettext("The game is at ply {ply}, not {expected}.").format(
                ply=game.ply, expected=expected
            ),
            ply=game.ply,
        )
    return None


def _position(game: Game) -> Any:
    try:
        return positions.position(game)
    except positions.DamagedGame as damage:
        logger.error("%s", damage)
        raise ServiceError(ErrorCode.GAME_OVER, gettext(DAMAGED_DETAIL)) from None


def game_move(*, game_id: Any, player: Player, ply: Any, move: Any) -> Game:
    """Apply one move at ``ply``; the same ply never applies twice. Return the updated game.

    An ordinary move (cached position, game in play at that ply, not a finish) takes the
    one-statement path of ``games.services.moves``; anything else, and anything that path
    declines, takes the locking path below. The returned game carries its new engine position
    as ``game.position``.
    """
    expected = check_ply(ply)
    parsed = check_move(move)
    appended = move_append(
        game_id=selectors.check_game_id(game_id), player=player, ply=expected, move=parsed
    )
    if appended is not None:
        metrics.MOVES.labels(path="statement").inc()
        return appended
    with transaction.atomic():
        game = _locked_game(game_id, player)
        closed = _close_if_day_over(game)
        error = _refusal(game, expected)
        if error is None:
            try:
                state = apply_move(_position(game), parsed)
            except IllegalMove as illegal:
                error = ServiceError(
                    ErrorCode.ILLEGAL_MOVE,
                    say_refusal(illegal.reason),
                    reason=illegal.code.value,
                    ply=game.ply,
                )
        if error is None:
            now = clock.now()
            logged = parsed.to_json()
            Move.objects.create(
                game_id=game.pk,
                ply=game.ply,
                move=logged,
                at=now,
                seal=move_seal(game_id=game.pk, ply=game.ply, move=logged, at=now),
            )
            game.ply += 1
            game.state = state_to_json(state)
            game.foundation_cards = state.foundation_cards()
            game.first_move_at = game.first_move_at or now
            game.last_move_at = now
            game.can_undo = state.previous is not None
            changed = [
                "ply",
                "state",
                "foundation_cards",
                "first_move_at",
                "last_move_at",
                "stuck",
                "can_undo",
            ]
            if state.won:
                changed += _finish(game, Game.Status.WON, now)
            else:
                game.stuck = is_stuck(state)
            game.save(update_fields=sorted(set(changed)))
            game.position = state
            transaction.on_commit(lambda: positions.remember(game, state))
            transaction.on_commit(metrics.MOVES.labels(path="locking").inc)
        if error is None or closed:
            transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
    if error is not None:
        raise error
    return game


def game_resign(*, game_id: Any, player: Player) -> Game:
    """Resign a game in play; its result stands on what it reached."""
    with transaction.atomic():
        game = _locked_game(game_id, player)
        if _close_if_day_over(game):
            transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
        if game.is_over:
            error = game_over_error(game)
        else:
            game.save(update_fields=_finish(game, Game.Status.RESIGNED, clock.now()))
            transaction.on_commit(lambda: signals.send(signals.game_changed, game=game))
            error = None
    if error is not None:
        raise error
    return game


def game_close_if_expired(*, game: Game) -> Game:
    """Return ``game``, first closing it as ``resigned`` if it is a daily game still playing
    after its day (so a read never shows a game that can no longer be played)."""
    if game.mode != Game.Mode.DAILY or game.is_over or game.date >= clock.today():
        return game
    locked, _ = _close_expired(game.pk)
    if locked is None:
        return game
    return Game.objects.select_related("variant", "deal", "player").get(pk=locked.pk)


def games_close_expired(*, deal: Deal | None = None) -> int:
    """Close every daily game (of ``deal``, or of any deal) still playing after its day.

    Return how many were closed. The leaderboard of a finished day calls it for its deal, so no
    cron is needed; ``manage.py closedays`` runs it for every deal.
    """
    games = Game.objects.filter(
        mode=Game.Mode.DAILY, status=Game.Status.PLAYING, deal__date__lt=clock.today()
    )
    if deal is not None:
        games = games.filter(deal=deal)
    return sum(_close_expired(game_id)[1] for game_id in list(games.values_list("pk", flat=True)))
