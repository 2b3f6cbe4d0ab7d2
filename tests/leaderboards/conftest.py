"""Fixtures of the leaderboard tests: verified results made directly, many at once if need be."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest

from core import redis_client
from games import services
from games.models import Deal, Game, Player, Result
from games.signals import result_verified
from games.verification.seals import seal_of

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
DAY = NOON.date()
DEAD_REDIS = "redis://127.0.0.1:6392/0"  # nothing listens there


@pytest.fixture(autouse=True)
def _fresh_ranking():
    """Give every test a new Redis client with its circuit breaker closed."""
    redis_client.reset()
    yield
    redis_client.reset()


def deal_of(variants, slug: str = "caprice", day: dt.date = DAY) -> Deal:
    return services.deal_get_or_create(variant=variants[slug], date=day)


def _game(player: Player, deal: Deal, index: int) -> Game:
    return Game(
        id=f"g{deal.pk}x{index:06d}",
        player=player,
        variant=deal.variant,
        mode=Game.Mode.DAILY,
        deal=deal,
        seed=deal.seed,
        rules={},  # never replayed here: results are made directly
        state={},
        started_at=dt.datetime.combine(deal.date, dt.time(), tzinfo=dt.UTC),
    )


def _result(game: Game, figures: dict) -> Result:
    start = dt.datetime.combine(game.deal.date, dt.time(12), tzinfo=dt.UTC)
    result = Result(
        game=game,
        deal=game.deal,
        player=game.player,
        status=figures.get("status", "resigned"),
        foundation_cards=figures.get("cards", 10),
        moves=figures.get("moves", 100),
        duration_ms=figures.get("duration_ms", 60_000),
        finished_at=figures.get("finished_at", start),
        assisted=figures.get("assisted", False),
        verified_at=start,
    )
    result.seal = seal_of(result)
    return result


@pytest.fixture
def add_results(variants) -> Callable[..., list[Result]]:
    """Return ``add(deal, [figures, ...], announce=True)``: store verified results of new players
    (named in ``figures["player"]`` or ``P<n>``) as the games app does, in bulk; with ``announce``
    send ``result_verified`` for each, as the games app does after its commit."""
    counter = iter(range(10**6))

    def add(deal: Deal, many: list[dict], *, announce: bool = True) -> list[Result]:
        first = next(counter) * 100_000
        players = Player.objects.bulk_create(
            [
                Player(nickname=f.get("player", f"P{deal.pk}n{first + i}"), is_guest=True)
                for i, f in enumerate(many)
            ]
        )
        players = list(Player.objects.filter(nickname__in=[p.nickname for p in players]))
        by_name = {p.nickname: p for p in players}
        names = [f.get("player", f"P{deal.pk}n{first + i}") for i, f in enumerate(many)]
        games = Game.objects.bulk_create(
            [_game(by_name[name], deal, first + i) for i, name in enumerate(names)]
        )
        results = Result.objects.bulk_create(
            [_result(game, f) for game, f in zip(games, many, strict=True)]
        )
        Deal.objects.filter(pk=deal.pk).update(results_count=deal.results_count + len(results))
        deal.refresh_from_db()
        if announce:
            for result in results:
                result_verified.send(sender=Result, result=result)
        return results

    return add


@pytest.fixture
def add_result_of(variants) -> Callable[..., Result]:
    """Return ``add(player, deal, **figures)``: one verified result of an existing player."""
    counter = iter(range(10**6))

    def add(player: Player, deal: Deal, *, announce: bool = True, **figures) -> Result:
        game = _game(player, deal, 900_000 + next(counter))
        game.id = f"h{player.pk}d{deal.pk}"
        game.save()
        result = _result(game, figures)
        result.save()
        Deal.objects.filter(pk=deal.pk).update(results_count=deal.results_count + 1)
        deal.refresh_from_db()
        if announce:
            result_verified.send(sender=Result, result=result)
        return result

    return add
