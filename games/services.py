"""Writes of the games app: players, deals, games and moves.

Every function takes keyword arguments, validates untrusted input (``check_*``), writes inside
a transaction and sends its notifications only after the commit. REST views and WebSocket
consumers call the same functions.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import secrets
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from games import clock, events, selectors
from games.engine import (
    IllegalMove,
    MalformedMove,
    State,
    apply_move,
    catalogue,
    commitment,
    daily_seed,
    deal,
    is_stuck,
    parse_move,
    parse_seed,
    practice_seed,
    replay,
    state_to_json,
)
from games.engine.replay import ReplayError
from games.errors import ErrorCode, ServiceError
from games.models import Deal, Game, Player, Variant
from games.rulesets import compiled

logger = logging.getLogger(__name__)

NICKNAME = re.compile(r"^[A-Za-z0-9_-]{3,24}$")
SEED_TEXT_LIMIT = 200


# --- players --------------------------------------------------------------------------------


def check_nickname(nickname: Any) -> str:
    """Return a valid, free nickname; raise ``invalid`` otherwise."""
    if not isinstance(nickname, str) or not NICKNAME.match(nickname):
        raise ServiceError(
            ErrorCode.INVALID,
            "A nickname is 3 to 24 letters, digits, '_' or '-'.",
            field="nickname",
        )
    if Player.objects.filter(nickname__iexact=nickname).exists():
        raise ServiceError(
            ErrorCode.INVALID, f"The nickname {nickname!r} is taken.", field="nickname"
        )
    return nickname


def _create_player(nickname: Any, password: str | None, *, guest: bool) -> Player:
    nickname = check_nickname(nickname)
    try:
        with transaction.atomic():
            return Player.objects.create_user(nickname, password, is_guest=guest)
    except IntegrityError:  # taken between the check and the insert
        raise ServiceError(
            ErrorCode.INVALID, f"The nickname {nickname!r} is taken.", field="nickname"
        ) from None


def player_create_guest(*, nickname: Any) -> Player:
    """Create a guest player: a nickname, no password."""
    return _create_player(nickname, None, guest=True)


def player_register(*, nickname: Any, password: Any) -> Player:
    """Create a player with a password (checked by Django's password validators)."""
    if not isinstance(password, str) or not password:
        raise ServiceError(ErrorCode.INVALID, "A password is required.", field="password")
    try:
        validate_password(password)
    except ValidationError as error:
        raise ServiceError(ErrorCode.INVALID, " ".join(error.messages), field="password") from None
    return _create_player(nickname, password, guest=False)


def player_login(*, request: Any, nickname: Any, password: Any) -> Player:
    """Return the player these credentials name; raise ``not_authenticated`` otherwise."""
    if not isinstance(nickname, str) or not isinstance(password, str):
        raise ServiceError(ErrorCode.INVALID, "Give a nickname and a password.")
    if not NICKNAME.match(nickname):  # also keeps NUL and overlong text away from the database
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, "Wrong nickname or password.")
    player = authenticate(request, nickname=nickname, password=password)
    if player is None:
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, "Wrong nickname or password.")
    return player  # type: ignore[return-value]


def player_token(*, player: Player) -> str:
    """Return the API token of a player, creating it on first use."""
    token, _ = Token.objects.get_or_create(user=player)
    return token.key


# --- deals ----------------------------------------------------------------------------------


def _deal_secret() -> str:
    secret = getattr(settings, "DEAL_SECRET", "")
    if not secret:
        raise RuntimeError("DEAL_SECRET is not configured")
    return secret


def deal_get_or_create(*, variant: Variant, date: dt.date) -> Deal:
    """Return the variant's deal of ``date``, making it (seed, commitment, frozen rules) once."""
    existing = Deal.objects.filter(variant=variant, date=date).select_related("variant").first()
    if existing is not None:
        return existing
    seed = daily_seed(_deal_secret(), variant.slug, date.isoformat(), 0)
    try:
        with transaction.atomic():
            return Deal.objects.create(
                variant=variant,
                date=date,
                attempt=0,
                seed=seed.hex(),
                commitment=commitment(seed),
                rules=variant.rules,
            )
    except IntegrityError:  # made by a concurrent request
        return Deal.objects.select_related("variant").get(variant=variant, date=date)


def daily_deals(*, date: dt.date | None = None) -> list[tuple[Deal, Deal]]:
    """Return, per enabled daily variant, its deal of ``date`` (default today) and of the next
    day, making them on demand: the next day's commitment is published a day ahead."""
    day = date or clock.today()
    return [
        (
            deal_get_or_create(variant=variant, date=day),
            deal_get_or_create(variant=variant, date=day + dt.timedelta(days=1)),
        )
        for variant in Variant.objects.filter(enabled=True, daily=True)
    ]


def deal_of_day(*, slug: str, date_text: str) -> Deal:
    """Return a daily deal for reading: today's is made on demand, a past one gets its games
    left playing closed first. Raise ``not_found`` for an unknown variant, a bad or future date
    and a past day that was never dealt."""
    date = selectors.check_date(date_text)
    found = selectors.access_past_or_present_deal(slug, date)
    if found is None:
        if date != clock.today():
            raise ServiceError(ErrorCode.NOT_FOUND, "No deal was made that day.")
        return deal_get_or_create(variant=selectors.access_variant(slug), date=date)
    if date < clock.today():
        games_close_expired(deal=found)
    return found


def deals_prepare(*, days: int, start: dt.date | None = None) -> list[Deal]:
    """Make the deals of every daily variant for ``days`` days from ``start`` (default today)."""
    first = start or clock.today()
    made = []
    for variant in Variant.objects.filter(enabled=True, daily=True):
        for offset in range(days):
            made.append(deal_get_or_create(variant=variant, date=first + dt.timedelta(days=offset)))
    return made


# --- games ----------------------------------------------------------------------------------

_STATES: OrderedDict[tuple[str, int], State] = OrderedDict()
_STATES_LIMIT = 256


def _remember(game: Game, state: State) -> None:
    _STATES[(game.id, game.ply)] = state
    _STATES.move_to_end((game.id, game.ply))
    while len(_STATES) > _STATES_LIMIT:
        _STATES.popitem(last=False)


def engine_state(game: Game) -> State:
    """Return the engine position of a game (with its undo chain), replaying its log if needed."""
    cached = _STATES.get((game.id, game.ply))
    if cached is not None:
        return cached
    state = replay(compiled(game.rules), parse_seed(game.seed), game.moves).state
    _remember(game, state)
    return state


def _new_game_id() -> str:
    return secrets.token_urlsafe(12)


def _enabled_variant(slug: Any) -> Variant:
    if not isinstance(slug, str) or "\x00" in slug:  # PostgreSQL refuses NUL in a query
        raise ServiceError(ErrorCode.INVALID, "Name the variant by its slug.", field="variant")
    variant = Variant.objects.filter(slug=slug, enabled=True).first()
    if variant is None:
        raise ServiceError(ErrorCode.INVALID, f"No variant {slug!r} is offered.", field="variant")
    return variant


def _new_game(
    *, player: Player, variant: Variant, rules: dict[str, Any], seed: bytes, **fields: Any
) -> Game:
    state = deal(compiled(rules), seed)
    game = Game(
        id=_new_game_id(),
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
    transaction.on_commit(lambda: _remember(game, state))
    return game


def game_start(*, player: Player, variant: Any, mode: Any, seed: Any = None) -> tuple[Game, bool]:
    """Start (or, for today's daily deal, find) a game; return it and whether it is new."""
    chosen = _enabled_variant(variant)
    if mode == Game.Mode.DAILY:
        if seed is not None:
            raise ServiceError(ErrorCode.INVALID, "A daily game takes no seed.", field="seed")
        if not chosen.daily:
            raise ServiceError(
                ErrorCode.INVALID, f"{chosen.name} has no daily deal.", field="variant"
            )
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
        transaction.on_commit(lambda: events.game_changed(game))
        return game, True
    if mode == Game.Mode.PRACTICE:
        if seed is None:
            seed = secrets.token_hex(8)
        if not isinstance(seed, str) or len(seed) > SEED_TEXT_LIMIT or "\x00" in seed:
            raise ServiceError(
                ErrorCode.INVALID,
                f"A practice seed is a text of at most {SEED_TEXT_LIMIT} characters (no NUL).",
                field="seed",
            )
        game = _new_game(
            player=player,
            variant=chosen,
            rules=chosen.rules,
            seed=practice_seed(seed),
            mode=Game.Mode.PRACTICE,
            seed_text=seed,
        )
        return game, True
    raise ServiceError(ErrorCode.INVALID, "The mode is 'daily' or 'practice'.", field="mode")


def _lock(game_id: Any) -> Game | None:
    """Return the game ``game_id`` with its row locked until the transaction ends, or None."""
    return (
        Game.objects.select_for_update(of=("self",))
        .select_related("variant", "deal", "player")
        .filter(pk=str(game_id))
        .first()
    )


def _close_expired(game_id: Any) -> tuple[Game | None, bool]:
    """Lock a game and close it if its day is over; return it and whether it closed now."""
    with transaction.atomic():
        game = _lock(game_id)
        if game is None or not _close_if_day_over(game):
            return game, False
        transaction.on_commit(lambda: events.game_changed(game))
    return game, True


def _locked_game(game_id: Any, player: Player) -> Game:
    game = _lock(game_id)
    if game is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such game.")
    if game.player_id != player.pk:
        raise ServiceError(ErrorCode.FORBIDDEN, "Only the game's player may play it.")
    return game


def _day_end(date: dt.date) -> dt.datetime:
    return dt.datetime.combine(date + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)


def _finish(game: Game, status: str, at: dt.datetime) -> None:
    """Close ``game`` with ``status`` and verify it by replaying its whole log from the seed."""
    game.status = status
    game.finished_at = at
    game.stuck = False
    try:
        result = replay(compiled(game.rules), parse_seed(game.seed), game.moves)
        game.verified = state_to_json(result.state) == game.state
    except ReplayError as error:
        logger.error("game %s failed its replay: %s", game.id, error)
        game.verified = False
    if not game.verified:
        logger.error("game %s did not verify: kept off the leaderboard", game.id)


def _close_if_day_over(game: Game) -> bool:
    """Close a daily game left playing after its day; return whether it was closed now."""
    if game.mode != Game.Mode.DAILY or game.status != Game.Status.PLAYING:
        return False
    assert game.deal is not None
    if game.deal.date >= clock.today():
        return False
    _finish(game, Game.Status.RESIGNED, _day_end(game.deal.date))
    game.save()
    return True


def check_ply(value: Any) -> int:
    """Return a ply from untrusted input."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ServiceError(ErrorCode.INVALID, "'ply' must be a non-negative integer.", field="ply")
    return value


def check_move(value: Any) -> Any:
    """Return the engine move of a MOVE object; raise ``invalid`` if it is malformed."""
    try:
        return parse_move(value)
    except MalformedMove as error:
        raise ServiceError(ErrorCode.INVALID, f"Bad move: {error}.", field="move") from None


def game_move(*, game_id: Any, player: Player, ply: Any, move: Any) -> Game:
    """Apply one move at ``ply``; the same ply never applies twice. Return the updated game."""
    expected = check_ply(ply)
    parsed = check_move(move)
    closed = False
    with transaction.atomic():
        game = _locked_game(game_id, player)
        closed = _close_if_day_over(game)
        if game.is_over:
            error = ServiceError(ErrorCode.GAME_OVER, f"This game is over ({game.status}).")
        elif expected != game.ply:
            error = ServiceError(
                ErrorCode.STALE_PLY,
                f"The game is at ply {game.ply}, not {expected}.",
                ply=game.ply,
            )
        else:
            error = None
        if error is None:
            state = engine_state(game)
            try:
                state = apply_move(state, parsed)
            except IllegalMove as illegal:
                error = ServiceError(
                    ErrorCode.ILLEGAL_MOVE, illegal.detail, reason=illegal.code.value, ply=game.ply
                )
        if error is None:
            now = clock.now()
            game.moves = [*game.moves, parsed.to_json()]
            game.ply += 1
            game.state = state_to_json(state)
            game.foundation_cards = state.foundation_cards()
            game.first_move_at = game.first_move_at or now
            game.last_move_at = now
            if state.won:
                _finish(game, Game.Status.WON, now)
            else:
                game.stuck = is_stuck(state)
            game.save()
            transaction.on_commit(lambda: _remember(game, state))
        if error is None or closed:
            transaction.on_commit(lambda: events.game_changed(game))
    if error is not None:
        raise error
    return game


def game_resign(*, game_id: Any, player: Player) -> Game:
    """Resign a game in play; its result stands on what it reached."""
    with transaction.atomic():
        game = _locked_game(game_id, player)
        if _close_if_day_over(game):
            transaction.on_commit(lambda: events.game_changed(game))
        if game.is_over:
            error = ServiceError(ErrorCode.GAME_OVER, f"This game is over ({game.status}).")
        else:
            _finish(game, Game.Status.RESIGNED, clock.now())
            game.save()
            transaction.on_commit(lambda: events.game_changed(game))
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
    return locked or game


def games_close_expired(*, deal: Deal | None = None) -> int:
    """Close every daily game (of ``deal``, or of any deal) still playing after its day.

    Return how many were closed. The leaderboard of a finished day calls it for its deal, so no
    cron is needed; ``manage.py closedays`` runs it for every deal.
    """
    closed = 0
    games = Game.objects.filter(
        mode=Game.Mode.DAILY, status=Game.Status.PLAYING, deal__date__lt=clock.today()
    )
    if deal is not None:
        games = games.filter(deal=deal)
    ids = games.values_list("pk", flat=True)
    for game_id in list(ids):
        closed += _close_expired(game_id)[1]
    return closed


# --- catalogue ------------------------------------------------------------------------------


def variants_load(*, include_extras: bool = False, update: bool = False) -> dict[str, str]:
    """Put the engine's shipped variants in the catalogue; return what happened to each.

    Launch variants are enabled and daily; the further ones (``include_extras``) arrive
    disabled, for admins to offer when they choose. Existing rows keep admins' edits unless
    ``update``.
    """
    report = {}
    for entry in catalogue():
        if not entry["launch"] and not include_extras:
            continue
        fields = {
            "name": entry["name"],
            "description": entry["description"],
            "rules": entry["rules"],
        }
        variant = Variant.objects.filter(slug=entry["slug"]).first()
        if variant is None:
            Variant.objects.create(
                slug=entry["slug"],
                display_order=entry["order"],
                enabled=entry["launch"],
                daily=entry["launch"],
                **fields,
            )
            report[entry["slug"]] = "added"
        elif update:
            Variant.objects.filter(pk=variant.pk).update(**fields)
            report[entry["slug"]] = "updated"
        else:
            report[entry["slug"]] = "kept"
    return report
