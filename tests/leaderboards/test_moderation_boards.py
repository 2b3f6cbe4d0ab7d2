"""Voids and bans as the boards see them: a withdrawn result leaves every board, total, rank,
stats, streak and all-time list, from Redis and from PostgreSQL; a forged void is noticed."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import pytest
import redis
from channels.db import database_sync_to_async
from channels.layers import channel_layers, get_channel_layer
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connections
from rest_framework.test import APIClient

from core import redis_client
from games import clock, services
from games.models import Deal, Game, Player, Result
from games.services import moderation
from games.ws.base import close_thread_connections
from leaderboards import changes, live, ranking
from leaderboards.models import PlayerVariantStats, UnrankedResult

from .conftest import DEAD_REDIS, NOON, deal_of

URL = "/api/leaderboards/caprice/2026-12-01/"
LATER = NOON + dt.timedelta(hours=6)
DEC_4 = dt.datetime(2026, 12, 4, 9, tzinfo=dt.UTC)

pytestmark = pytest.mark.skipif(
    not django_settings.REDIS_URL, reason="boards in Redis need REDIS_URL"
)


def get(url: str = URL, *, at: dt.datetime = LATER) -> dict:
    with clock.frozen(at):
        answer = APIClient().get(url)
    assert answer.status_code == 200, answer.json()
    return answer.json()


def players(body: dict) -> list[tuple[int, str]]:
    return [(e["rank"], e["player"]) for e in body["entries"]]


@pytest.fixture
def moderator(db) -> Player:
    return Player.objects.create_superuser("Moderator", "a-long-password-1")


@pytest.fixture
def board(variants, add_results) -> list[Result]:
    """Three results on Dec 1's Caprice board, best first, already read into Redis."""
    deal = deal_of(variants)
    results = add_results(
        deal,
        [
            {"player": "Ann", "cards": 40, "status": "won"},
            {"player": "Bob", "cards": 30},
            {"player": "Cy", "cards": 20},
        ],
    )
    assert players(get()) == [(1, "Ann"), (2, "Bob"), (3, "Cy")]
    return results


def void(result: Result, by: Player, capture: Any, reason: str = "Collusion") -> None:
    with capture(execute=True):
        moderation.result_void(result=result, reason=reason, by=by)


def test_a_voided_result_leaves_its_board_total_and_ranks_in_redis_and_postgresql(
    board, moderator, django_capture_on_commit_callbacks, settings
) -> None:
    # given Ann, Bob and Cy ranked in Redis
    ann = board[0]
    # when Ann's result is voided
    void(ann, moderator, django_capture_on_commit_callbacks)
    # then Redis was updated in place (its count is current: no rebuild needed) ...
    deal = Deal.objects.get(pk=ann.deal_id)
    page = ranking.board_page(deal_id=deal.pk, offset=0, limit=10, nickname="ann")
    assert page is not None and page.built_from == deal.board_count == 4
    assert page.player_entry is None
    # ... and every answer leaves her out: page, total, the others' ranks, ?player=
    for redis_url in (settings.REDIS_URL, DEAD_REDIS):
        settings.REDIS_URL = redis_url
        body = get(URL + "?player=ANN")
        assert players(body) == [(1, "Bob"), (2, "Cy")]
        assert body["total"] == 2
        assert body["player_entry"] is None
        assert get(URL + "?player=cy")["player_entry"]["rank"] == 2
    # and her result is gone from her results list
    assert get("/api/players/ann/results/", at=DEC_4) == {"total": 0, "results": []}


def test_the_deals_finished_count_leaves_out_a_voided_result_and_a_banned_players_game(
    board, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Ann, Bob and Cy, each with a finished game of the deal
    Game.objects.filter(deal_id=board[0].deal_id).update(status=Game.Status.RESIGNED)
    before = get("/api/daily/caprice/2026-12-01/")
    assert (before["players"], before["finished"]) == (3, 3)
    # when Ann's result is voided and Cy is banned
    void(board[0], moderator, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        moderation.player_ban(player=board[2].player, reason="Bot", by=moderator)
    # then the deal counts one finished game, as its board shows one result
    after = get("/api/daily/caprice/2026-12-01/")
    assert (after["players"], after["finished"]) == (3, 1)
    assert get()["total"] == 1


def test_a_rebuilt_board_leaves_voided_results_out_and_stays_current(
    board, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Bob's result voided, then the Redis database lost
    void(board[1], moderator, django_capture_on_commit_callbacks)
    redis.Redis.from_url(django_settings.REDIS_URL).flushdb()
    # when the board is read twice
    first, second = get(), get()
    # then the rebuild left Bob out, and its count matches the deal's (no second rebuild)
    assert players(first) == players(second) == [(1, "Ann"), (2, "Cy")]
    deal = Deal.objects.get(pk=board[1].deal_id)
    page = ranking.board_page(deal_id=deal.pk, offset=0, limit=1, nickname=None)
    assert page is not None and page.built_from == deal.board_count


def test_a_void_made_while_redis_is_down_is_applied_once_it_is_back(
    board, moderator, django_capture_on_commit_callbacks, settings
) -> None:
    # given Redis unreachable while Cy's result is voided
    live_url = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    void(board[2], moderator, django_capture_on_commit_callbacks)
    assert players(get()) == [(1, "Ann"), (2, "Bob")]  # from PostgreSQL
    # when Redis is back (its board still holds Cy, with the old count)
    settings.REDIS_URL = live_url
    redis_client.reset()
    # then the stale board is noticed and rebuilt without Cy
    assert players(get()) == [(1, "Ann"), (2, "Bob")]


def test_a_void_leaves_the_players_stats_streaks_and_all_time(
    variants, add_result_of, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Dee's wins on Dec 1, 2 and 3: a streak of three
    dee = Player.objects.create_user("Dee", None, is_guest=True)
    days = [dt.date(2026, 12, day) for day in (1, 2, 3)]
    results = [
        add_result_of(dee, deal_of(variants, "caprice", day), status="won", moves=50 + 10 * i)
        for i, day in enumerate(days)
    ]
    before = get("/api/players/dee/", at=DEC_4)["stats"]["caprice"]
    assert (before["won"], before["best_streak"], before["current_streak"]) == (3, 3, 3)
    # when the win of Dec 2 is voided
    void(results[1], moderator, django_capture_on_commit_callbacks)
    # then her stats count two wins, the streak is broken, all-time says so
    after = get("/api/players/dee/", at=DEC_4)["stats"]["caprice"]
    assert after == {
        "played": 2,
        "won": 2,
        "win_rate": 1.0,
        "current_streak": 1,
        "best_streak": 1,
        "played_streak": 1,
        "best_played_streak": 1,
        "average_moves": 60.0,
    }
    all_time = get("/api/leaderboards/caprice/all-time/", at=DEC_4)
    assert all_time["wins"] == [{"player": "Dee", "wins": 2}]
    assert all_time["streaks"] == [{"player": "Dee", "best_streak": 1}]
    results_list = get("/api/players/dee/results/", at=DEC_4)
    assert [r["date"] for r in results_list["results"]] == ["2026-12-03", "2026-12-01"]
    # and computing every player's stats again from the results agrees
    PlayerVariantStats.objects.all().delete()
    call_command("rebuildstats", stdout=io.StringIO())
    assert get("/api/players/dee/", at=DEC_4)["stats"]["caprice"] == after


def test_a_ban_takes_every_result_of_the_player_off_every_board_until_lifted(
    variants, add_results, add_result_of, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Eve first on two boards (two variants), and on the all-time list
    caprice, castile = deal_of(variants), deal_of(variants, "castile")
    add_results(caprice, [{"player": "Eve", "cards": 50, "status": "won"}, {"cards": 10}])
    eve = Player.objects.get(nickname="Eve")
    add_result_of(eve, castile, status="won")
    add_results(castile, [{"cards": 5}])
    castile_url = "/api/leaderboards/castile/2026-12-01/"
    assert get()["entries"][0]["player"] == get(castile_url)["entries"][0]["player"] == "Eve"
    # when Eve is banned
    with django_capture_on_commit_callbacks(execute=True):
        moderation.player_ban(player=eve, reason="Bot", by=moderator)
    # then she is on no board, no total, no all-time list, and her results list is empty
    for url in (URL, castile_url):
        body = get(url + "?player=eve")
        assert body["total"] == 1
        assert "Eve" not in [e["player"] for e in body["entries"]]
        assert body["player_entry"] is None
    assert get("/api/leaderboards/caprice/all-time/", at=DEC_4)["wins"] == []
    assert get("/api/players/eve/results/", at=DEC_4)["total"] == 0
    # when the ban is lifted, she ranks again everywhere
    with django_capture_on_commit_callbacks(execute=True):
        moderation.player_unban(player=eve)
    for url in (URL, castile_url):
        body = get(url)
        assert (body["total"], body["entries"][0]["player"]) == (2, "Eve")
    assert get("/api/leaderboards/caprice/all-time/", at=DEC_4)["wins"] == [
        {"player": "Eve", "wins": 1}
    ]


def test_a_banned_players_game_closed_at_the_days_end_ranks_nowhere(
    variants, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Fay's daily game in play when she is banned
    with clock.frozen(NOON):
        fay = services.player_create_guest(nickname="Fay")
        game, _ = services.game_start(player=fay, variant="caprice", mode="daily")
    with django_capture_on_commit_callbacks(execute=True):
        moderation.player_ban(player=fay, reason="Abuse", by=moderator)
    # when the day ends and the board is read (which closes the day's games)
    with django_capture_on_commit_callbacks(execute=True):
        body = get(at=dt.datetime(2026, 12, 2, 1, tzinfo=dt.UTC))
    # then her game is closed with a sealed result that ranks nowhere
    assert Result.objects.filter(pk=game.pk).exists()
    assert (body["total"], body["entries"]) == (0, [])


def test_a_void_forged_in_the_database_is_noticed_and_one_erased_does_not_restore_it(
    board, moderator, django_capture_on_commit_callbacks
) -> None:
    # given Cy's result voided by a moderator
    ann, _, cy = board
    void(cy, moderator, django_capture_on_commit_callbacks)
    # when someone with database access forges a void of Ann's and erases Cy's
    Result.objects.filter(pk=ann.pk).update(
        voided_at=NOON, void_reason="forged", voided_by=moderator
    )
    Result.objects.filter(pk=cy.pk).update(voided_at=None, void_reason="")
    redis.Redis.from_url(django_settings.REDIS_URL).flushdb()
    body = get()
    # then neither ranks, and both are recorded as edited rows (their seals do not hold)
    assert players(body) == [(1, "Bob")]
    assert set(UnrankedResult.objects.values_list("game_id", flat=True)) == {ann.pk, cy.pk}


# --- the daily socket -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_the_daily_sockets_next_push_leaves_a_voided_result_out(
    ws_variants: Any, monkeypatch: Any
) -> None:
    # given a watched deal of two ranked players, its snapshot already pushed
    monkeypatch.setattr(changes, "now", lambda: 2_000_000.0)

    def make() -> tuple[live.WatchedDeal, Result, Player]:
        deal = services.deal_get_or_create(variant=ws_variants["box-kite"], date=clock.today())
        deal = Deal.objects.select_related("variant").get(pk=deal.pk)
        results = []
        for nickname in ("Gil", "Hal"):
            player = services.player_create_guest(nickname=nickname)
            game, _ = services.game_start(player=player, variant="box-kite", mode="daily")
            services.game_resign(game_id=game.pk, player=player)
            results.append(Result.objects.get(pk=game.pk))
        moderator = Player.objects.create_superuser("Mod", "a-long-password-1")
        return live.WatchedDeal(deal, "daily.moderation-test"), results[0], moderator

    await database_sync_to_async(live.reset)()
    watched, gil, moderator = await database_sync_to_async(make)()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(watched.group, channel)
    try:
        await live.flush(watched=[watched])  # the finishes: pushed once
        await layer.receive(channel)
        # when Gil's result is voided
        await database_sync_to_async(moderation.result_void)(
            result=gil, reason="Shared the deal", by=moderator
        )
        monkeypatch.setattr(changes, "now", lambda: 2_000_002.0)
        assert await live.flush(watched=[watched]) == 1
        message = await layer.receive(channel)
    finally:
        await layer.group_discard(watched.group, channel)
        await database_sync_to_async(live.reset)()
        if hasattr(layer, "close_pools"):
            await layer.close_pools()
        channel_layers.backends.clear()
        await database_sync_to_async(connections.close_all)()
        await database_sync_to_async(close_thread_connections)()
    # then the push is the leaderboard without Gil
    boards = [m for m in message["messages"] if m["type"] == "leaderboard"]
    assert [(e["player"], e["rank"]) for e in boards[0]["entries"]] == [("Hal", 1)]
    assert boards[0]["total"] == 1
