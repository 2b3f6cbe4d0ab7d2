"""Reads of the games app, each with the permission check it needs (``access_*``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db.models import Count, Q, Sum
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock
from games.documents import compiled
from games.engine import apply_move, deal, parse_move, parse_seed, player_view
from games.engine.difficulty import blend, players_step
from games.models import ApiToken, Deal, Game, Move, Player, Result, Variant
from games.payloads import day_is_over, deal_payload, iso


def variant_list() -> list[Variant]:
    """Return the enabled variants in display order."""
    return list(Variant.objects.filter(enabled=True))


def access_variant(slug: str) -> Variant:
    """Return the enabled variant ``slug``; raise ``not_found`` otherwise."""
    variant = Variant.objects.filter(slug=slug, enabled=True).first()
    if variant is None:
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("No variant {slug!r} is offered.").format(slug=slug)
        )
    return variant


DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def check_date(text: str) -> dt.date:
    """Return the date written ``YYYY-MM-DD``; raise ``not_found`` for anything else.

    Only that form: ``fromisoformat`` alone would also take ``20261201`` or ``2026-W48-1``.
    """
    try:
        if not DATE.match(text):
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("{text!r} is not a date (YYYY-MM-DD).").format(text=text)
        ) from None


# A game that finished and may stand on the board: voided results and the games of banned
# players are over, yet the board leaves them out, and so does its count of finished games.
FINISHED = ~Q(status=Game.Status.PLAYING) & Q(void_reason="") & Q(player__banned_at__isnull=True)


_FINISHED_GAMES = (
    ~Q(games__status=Game.Status.PLAYING)
    & Q(games__void_reason="")
    & Q(games__player__banned_at__isnull=True)
)


def deal_counts(deal: Deal) -> dict[str, int]:
    """Return how many players started the deal, how many finished it (voided results and
    banned players' games left out of the finished, as on the board), how many of those won
    and their cards home in all."""
    counts = Game.objects.filter(deal=deal).aggregate(
        players=Count("pk"),
        finished=Count("pk", filter=FINISHED),
        won=Count("pk", filter=FINISHED & Q(status=Game.Status.WON)),
        cards=Sum("foundation_cards", filter=FINISHED, default=0),
    )
    return {name: counts[name] for name in ("players", "finished", "won", "cards")}


def daily_entry(deal: Deal, *, with_rules: bool = False) -> dict[str, Any]:
    """Return the daily deal object of docs/api.md (with the deal's frozen rules document when
    asked: what a third party needs to replay its games)."""
    counts = deal_counts(deal)
    data = deal_payload(deal, players=counts["players"], finished=counts["finished"])
    data.update(difficulty_payload(deal, counts))
    if with_rules:
        data["rules"] = deal.rules
    return data


def difficulty_payload(deal: Deal, counts: dict[str, int]) -> dict[str, int | None]:
    """Return a deal's difficulty fields: ``difficulty_solver``, the step its variant's
    calibration gives the solver's effort (published with the deal); ``difficulty_players``, the
    step the day's finished games give it (``null`` until the day is over, or with fewer than
    ``PLAYERS_AT_LEAST``); and ``difficulty``, the solver's step, blended with the players' once
    the day is over (``games.engine.difficulty.blend``)."""
    solver = deal.difficulty
    if not day_is_over(deal.date):
        return {"difficulty": solver, "difficulty_solver": solver, "difficulty_players": None}
    finished = counts["finished"]
    total_cards = compiled(deal.rules).goal_cards
    share = counts["cards"] / (finished * total_cards) if finished else 0.0
    players = players_step(finished=finished, won=counts["won"], cards_share=share)
    return {
        "difficulty": blend(solver, players, finished=finished),
        "difficulty_solver": solver,
        "difficulty_players": players,
    }


def access_past_or_present_deal(slug: str, date: dt.date) -> Deal | None:
    """Return the deal of ``slug`` on ``date`` if it exists; raise ``not_found`` for the future."""
    variant = access_variant(slug)
    if not variant.daily:
        raise ServiceError(
            ErrorCode.NOT_FOUND,
            gettext("{variant} has no daily deal.").format(variant=variant.translated("name")),
        )
    if date > clock.today():
        raise ServiceError(
            ErrorCode.NOT_FOUND, gettext("That day has not begun: its deal is secret.")
        )
    return Deal.objects.filter(variant=variant, date=date).select_related("variant").first()


def check_game_id(game_id: Any) -> str:
    """Return a game id from untrusted input; raise ``not_found`` for what cannot be one."""
    text = str(game_id)
    if not text or len(text) > 32 or "\x00" in text:  # PostgreSQL refuses NUL in a query
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
    return text


def access_game(game_id: str, player: Player | None) -> Game:
    """Return a game its player may read, or anyone once its daily deal's day is over."""
    game = (
        Game.objects.select_related("variant", "deal", "player")
        .filter(pk=check_game_id(game_id))
        .first()
    )
    if game is None:
        raise ServiceError(ErrorCode.NOT_FOUND, gettext("No such game."))
    if player is not None and game.player_id == player.pk:
        return game
    if game.deal is not None and day_is_over(game.deal.date):
        return game
    if player is None:
        raise ServiceError(ErrorCode.NOT_AUTHENTICATED, gettext("Log in to see your games."))
    raise ServiceError(
        ErrorCode.FORBIDDEN, gettext("Only its player may see a game before its day ends.")
    )


def access_replay(game_id: str, player: Player | None) -> Game:
    """Return a game whose replay may be read: by its player once it is over, by anyone once
    its daily deal's day has ended."""
    game = access_game(game_id, player)
    if game.deal is not None and day_is_over(game.deal.date):
        return game
    if game.is_over:
        return game
    raise ServiceError(ErrorCode.FORBIDDEN, gettext("The replay opens when the game is over."))


PAGE_LIMIT = 100


def check_page(offset: Any, limit: Any, *, default: int = PAGE_LIMIT) -> tuple[int, int]:
    """Return ``(offset, limit)`` from query parameters (default 0 and ``default``; limit from
    1 to 100); raise ``invalid`` for anything else."""

    def number(value: Any, name: str, default: int, low: int, top: int) -> int:
        if value is None:
            return default
        text = str(value)
        if not text.isascii() or not text.isdigit() or len(text) > 9 or not low <= int(text) <= top:
            raise ServiceError(
                ErrorCode.INVALID,
                gettext("'{name}' is an integer from {low} to {top}.").format(
                    name=name, low=low, top=top
                ),
                field=name,
            )
        return int(text)

    return (
        number(offset, "offset", 0, 0, 10**9),
        number(limit, "limit", default, 1, PAGE_LIMIT),
    )


GAME_STATUSES = {"playing": [Game.Status.PLAYING], "over": [Game.Status.WON, Game.Status.RESIGNED]}


def player_games(
    player: Player, *, status: Any = None, offset: int = 0, limit: int = PAGE_LIMIT
) -> tuple[int, list[Game]]:
    """Return how many games of ``player`` match ``status`` (``playing``, ``over`` or None for
    all) and that page of them, newest first."""
    games = Game.objects.filter(player=player)
    if status is not None:
        if status not in GAME_STATUSES:
            raise ServiceError(
                ErrorCode.INVALID, gettext("'status' is 'playing' or 'over'."), field="status"
            )
        games = games.filter(status__in=GAME_STATUSES[status])
    page = games.select_related("variant", "deal", "player").order_by("-started_at", "-id")
    return games.count(), list(page[offset : offset + limit])


PAST_DEALS_LIMIT = 31


def check_before(text: Any) -> dt.date | None:
    """Return the ``before`` date of a query (``YYYY-MM-DD``), None when absent; raise
    ``invalid`` for anything else."""
    if text is None:
        return None
    try:
        return check_date(str(text))
    except ServiceError:
        raise ServiceError(
            ErrorCode.INVALID, "'before' is a date (YYYY-MM-DD).", field="before"
        ) from None


def past_deals(slug: str, *, before: dt.date | None, limit: int) -> dict[str, Any]:
    """Return the deals of the daily variant ``slug`` made up to today, newest first, dated
    before ``before`` when given, at most ``limit`` of them.

    A deal made ahead of its day (``preparedeals``) is never listed; today's deal is, with its
    seed withheld as everywhere. A past day's games left playing count as finished: its day is
    over, so they are closed as resigned when next read.
    """
    variant = access_variant(slug)
    if not variant.daily:
        raise ServiceError(ErrorCode.NOT_FOUND, f"{variant.name} has no daily deal.")
    today = clock.today()
    deals = Deal.objects.filter(variant=variant, date__lte=today)
    first = deals.order_by("date").values_list("date", flat=True).first()
    if before is not None:
        deals = deals.filter(date__lt=before)
    rows = list(
        deals.select_related("variant")
        .annotate(
            players=Count("games"),
            finished=Count("games", filter=_FINISHED_GAMES),
            won=Count("games", filter=_FINISHED_GAMES & Q(games__status=Game.Status.WON)),
            cards=Sum("games__foundation_cards", filter=_FINISHED_GAMES, default=0),
        )
        .order_by("-date")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "variant": variant.slug,
        "first": first.isoformat() if first else None,
        "today": today.isoformat(),
        "deals": [
            {
                **deal_payload(
                    deal,
                    players=deal.players,
                    finished=deal.players if deal.date < today else deal.finished,
                ),
                **difficulty_payload(
                    deal, {"finished": deal.finished, "won": deal.won, "cards": deal.cards}
                ),
            }
            for deal in rows
        ],
        "next_before": rows[-1].date.isoformat() if more and rows else None,
    }


POSITIONS_LIMIT = 100


def replay_positions(game: Game, *, offset: int, limit: int) -> dict[str, Any]:
    """Return the positions of ``game`` from ply ``offset`` on, at most ``limit`` of them, each
    as its player saw it (face-down and stock cards as None), with the move that led to it.

    Position 0 is the deal; position n follows the n-th move of the log (undo included). The
    caller checks access (``access_replay``): the positions show no more than the game object
    did at each ply, so they need no seed and reveal none.
    """
    log = list(Move.objects.filter(game_id=game.pk).order_by("ply").values_list("move", flat=True))
    state = deal(compiled(game.rules), parse_seed(game.seed))
    end = min(len(log), offset + limit - 1)
    entries: list[dict[str, Any]] = []

    def keep(ply: int, move: dict[str, Any] | None) -> None:
        entries.append(
            {
                "ply": ply,
                "move": move,
                "state": player_view(state),
                "foundation_cards": state.foundation_cards(),
            }
        )

    if offset == 0:
        keep(0, None)
    for index, raw in enumerate(log[:end]):
        state = apply_move(state, parse_move(raw))
        if index + 1 >= offset:
            keep(index + 1, raw)
    return {
        "game": game.pk,
        "status": game.status,
        "total": len(log) + 1,
        "offset": offset,
        "limit": limit,
        "positions": entries,
    }


def deals_checking() -> bool:
    """Whether a deal made on demand waits for the solver's check."""
    return Deal.objects.filter(checking=True).exists()


def regenerations_pending() -> bool:
    """Whether an admin has asked for a deal to be regenerated that is not done yet."""
    return Deal.objects.filter(regeneration_requested_at__isnull=False).exists()


# --- a player's own account -------------------------------------------------------------------


def player_tokens(player: Player, *, current: Any = None) -> dict[str, Any]:
    """Return the player's live API tokens, newest first, never their secrets; ``current`` is
    the token the request came with (marked ``"current": true``)."""
    current_id = getattr(current, "pk", None)
    live = ApiToken.objects.filter(player=player, expires_at__gt=clock.now())
    return {
        "tokens": [
            {
                "id": token.pk,
                "created_at": iso(token.created_at),
                "expires_at": iso(token.expires_at),
                "last_used_at": iso(token.last_used_at),
                "current": token.pk == current_id,
            }
            for token in live
        ]
    }


def _exported_game(game: Game, moves: list[dict[str, Any]]) -> dict[str, Any]:
    daily = game.mode == Game.Mode.DAILY
    # A daily deal's seed stays secret until its day is over, even in one's own export.
    seed_shown = not daily or day_is_over(game.deal.date)
    return {
        "id": game.pk,
        "variant": game.variant.slug,
        "mode": game.mode,
        "date": game.deal.date.isoformat() if daily else None,
        "status": game.status,
        "ply": game.ply,
        "foundation_cards": game.foundation_cards,
        "assisted": game.assisted,
        "seed": game.seed if seed_shown else None,
        "seed_text": game.seed_text if not daily and game.seed_chosen else None,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "moves": moves,
    }


def player_export(player: Player) -> dict[str, Any]:
    """Return everything the service keeps about ``player`` that is theirs to read, as JSON:
    the account, its tokens (no secrets), every game with its move log, every daily result.
    Four queries, whatever the number of games."""
    games = list(
        Game.objects.filter(player=player)
        .select_related("variant", "deal")
        .defer("state", "rules", "hint_line")
        .order_by("started_at", "id")
    )
    logs: dict[str, list[dict[str, Any]]] = {game.pk: [] for game in games}
    rows = Move.objects.filter(game__player=player).order_by("game_id", "ply")
    for game_id, ply, move, at in rows.values_list("game_id", "ply", "move", "at").iterator(
        chunk_size=2000
    ):
        logs[game_id].append({"ply": ply, "move": move, "at": iso(at)})
    results = Result.objects.filter(player=player).select_related("deal__variant")
    return {
        "exported_at": iso(clock.now()),
        "player": {
            "id": player.pk,
            "nickname": player.nickname,
            "guest": player.is_guest,
            "joined": iso(player.date_joined),
            "last_login": iso(player.last_login),
            "banned": player.banned_at is not None,
        },
        **player_tokens(player),
        "games": [_exported_game(game, logs[game.pk]) for game in games],
        "results": [
            {
                "game": result.game_id,
                "variant": result.deal.variant.slug,
                "date": result.deal.date.isoformat(),
                "status": result.status,
                "foundation_cards": result.foundation_cards,
                "moves": result.moves,
                "duration_ms": result.duration_ms,
                "assisted": result.assisted,
                "finished_at": iso(result.finished_at),
                "voided": result.voided_at is not None,
                "void_reason": result.void_reason,
            }
            for result in results.order_by("finished_at")
        ],
    }
