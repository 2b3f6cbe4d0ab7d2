"""The JSON shapes of docs/api.md, built from models. Nothing here reads what a player can't see."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import clock, positions
from games.documents import compiled
from games.engine import player_view, state_from_json
from games.engine.families import family
from games.models import Deal, Game, Player, Variant


def iso(moment: dt.datetime | None) -> str | None:
    """Return an ISO 8601 UTC time with a ``Z``, or None."""
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def player_payload(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "nickname": player.nickname, "guest": player.is_guest}


def variant_payload(variant: Variant, *, with_rules: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "slug": variant.slug,
        "name": variant.translated("name"),
        "description": variant.translated("description"),
        "decks": variant.decks,
        "daily": variant.daily,
        "family": family(variant.rules) if isinstance(variant.rules, dict) else "other",
    }
    if with_rules:
        data["rules"] = variant.rules
    return data


def day_is_over(date: dt.date) -> bool:
    """Return whether the UTC day ``date`` has ended."""
    return date < clock.today()


def deal_payload(deal: Deal, *, players: int, finished: int) -> dict[str, Any]:
    return {
        "variant": deal.variant.slug,
        "date": deal.date.isoformat(),
        "commitment": deal.commitment,
        # A daily seed never leaves the server before its day has ended.
        "seed": deal.seed if day_is_over(deal.date) else None,
        "players": players,
        "finished": finished,
        "attempt": deal.attempt,
        "certified": deal.certified,
        # Made on demand: the solver is yet to decide it (certified where it stands if it can).
        "checking": deal.checking,
        "difficulty": deal.difficulty,
        # The winning line's length tells something of the deal: published once the day is over.
        "par": deal.par if day_is_over(deal.date) else None,
    }


def next_deal_payload(deal: Deal | None) -> dict[str, Any] | None:
    """Return the next day's deal as published a day ahead: its date and commitment only."""
    if deal is None:
        return None
    return {"date": deal.date.isoformat(), "commitment": deal.commitment}


def game_view(game: Game) -> dict[str, Any]:
    """Return the player's view of the game's position: the one a move just made, or the
    stored one (hidden cards as None)."""
    state = getattr(game, "position", None) or positions.cache.get(game.pk, game.ply)
    if state is None:
        state = state_from_json(compiled(game.rules), game.state)
    return player_view(state)


def _seed_text(game: Game) -> str | None:
    """A practice game's seed text, unless the server chose it and the game is still on."""
    if game.mode != Game.Mode.PRACTICE:
        return None
    return game.seed_text if game.seed_chosen or game.is_over else None


def game_payload(game: Game) -> dict[str, Any]:
    """Return the game object of docs/api.md (hidden cards as None)."""
    return {
        "id": game.id,
        "variant": game.variant.slug,
        "mode": game.mode,
        "date": game.deal.date.isoformat() if game.deal_id else None,
        "player": game.player.nickname,
        "status": game.status,
        "stuck": game.stuck,
        "ply": game.ply,
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "duration_ms": game.duration_ms,
        "state": game_view(game),
        "verified": game.verified,
        "assisted": game.assisted,
        "can_undo": game.can_undo,
        "foundation_cards": game.foundation_cards,
        "seed_text": _seed_text(game),
        "voided": bool(game.void_reason),
        "void_reason": game.void_reason or None,
    }


def replay_payload(game: Game) -> dict[str, Any]:
    """Return the replay of docs/api.md: the seed and the whole move log (undo included).

    A daily game's seed is its deal's, and stays ``None`` until the deal's day has ended: the
    seed of one finished game would show every other player's face-down cards.
    """
    if game.mode == Game.Mode.DAILY:
        assert game.deal is not None
        seed = game.deal.seed if day_is_over(game.deal.date) else None
    else:
        seed = game.seed
    data: dict[str, Any] = {"seed": seed, "moves": game.moves, "status": game.status}
    if game.mode == Game.Mode.PRACTICE:
        data["seed_text"] = game.seed_text
    return data
