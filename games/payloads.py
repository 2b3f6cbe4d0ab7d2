"""The JSON shapes of api.md, built from models. Nothing here reads what a player may not see."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games import clock
from games.engine import player_view, state_from_json
from games.models import Deal, Game, Player, Variant
from games.rulesets import compiled


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
        "name": variant.name,
        "description": variant.description,
        "decks": variant.decks,
        "daily": variant.daily,
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
        "seed": deal.seed if day_is_over(deal.date) else None,
        "players": players,
        "finished": finished,
    }


def game_view(game: Game) -> dict[str, Any]:
    """Return the player's view of the game's current position (hidden cards as None)."""
    variant = compiled(game.rules)
    return player_view(state_from_json(variant, game.state))


def game_payload(game: Game) -> dict[str, Any]:
    """Return the game object of api.md."""
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
        "state": game_view(game),
        "verified": game.verified,
        "foundation_cards": game.foundation_cards,
        "seed_text": game.seed_text if game.mode == Game.Mode.PRACTICE else None,
    }


def replay_payload(game: Game) -> dict[str, Any]:
    """Return the replay of api.md: the seed and the whole move log (undo included)."""
    data: dict[str, Any] = {"seed": game.seed, "moves": game.moves, "status": game.status}
    if game.mode == Game.Mode.PRACTICE:
        data["seed_text"] = game.seed_text
    return data
