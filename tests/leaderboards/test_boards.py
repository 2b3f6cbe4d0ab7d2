"""Deal boards at any size: order, pages, totals and ranks, from Redis or from PostgreSQL."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
import redis
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from games import clock
from games.models import Result
from leaderboards import ranking, services
from leaderboards.models import UnrankedResult

from .conftest import DEAD_REDIS, NOON, deal_of

URL = "/api/leaderboards/caprice/2026-12-01/"
LATER = NOON + dt.timedelta(hours=6)

pytestmark = pytest.mark.skipif(
    not django_settings.REDIS_URL, reason="boards in Redis need REDIS_URL"
)


def entry(rank: int, result: Result) -> dict:
    return {
        "rank": rank,
        "player": result.player.nickname,
        "status": result.status,
        "foundation_cards": result.foundation_cards,
        "moves": result.moves,
        "duration_ms": result.duration_ms,
        "game": result.game_id,
        "assisted": result.assisted,
        "finished_at": result.finished_at.isoformat().replace("+00:00", "Z"),
    }


def get(url: str = URL) -> dict:
    with clock.frozen(LATER):
        answer = APIClient().get(url)
    assert answer.status_code == 200, answer.json()
    return answer.json()


def flush_redis() -> None:
    """Empty this test run's Redis database (its own number: never another's)."""
    redis.Redis.from_url(django_settings.REDIS_URL).flushdb()


@pytest.fixture
def ties(variants, add_results) -> list[Result]:
    """Results in their expected order, tying at each level in turn, added shuffled."""
    minute = dt.timedelta(minutes=1)
    figures = [
        {"player": "Cards", "cards": 30, "moves": 500, "duration_ms": 900_000, "status": "won"},
        {"player": "Moves", "cards": 20, "moves": 50, "duration_ms": 900_000},
        {"player": "Short", "cards": 20, "moves": 60, "duration_ms": 1_000},
        {"player": "Early", "cards": 20, "moves": 60, "duration_ms": 2_000},
        {
            "player": "Late",
            "cards": 20,
            "moves": 60,
            "duration_ms": 2_000,
            "finished_at": NOON + minute,
        },
        {"player": "Helped", "cards": 52, "moves": 1, "duration_ms": 1, "assisted": True},
    ]
    deal = deal_of(variants)
    order = {f["player"]: i for i, f in enumerate(figures)}
    added = add_results(deal, [figures[i] for i in (3, 5, 0, 4, 2, 1)])
    return sorted(added, key=lambda r: order[r.player.nickname])


def test_the_board_ranks_by_assisted_cards_moves_duration_then_finish(ties) -> None:
    body = get()

    assert body == {
        "variant": "caprice",
        "date": "2026-12-01",
        "total": 6,
        "entries": [entry(rank, result) for rank, result in enumerate(ties, start=1)],
    }


def test_the_game_id_breaks_a_tie_of_every_figure(variants, add_results) -> None:
    results = add_results(deal_of(variants), [{}, {}, {}])

    ids = [e["game"] for e in get()["entries"]]

    assert ids == sorted(r.game_id for r in results)


def test_answers_are_the_same_from_redis_with_redis_stopped_and_after_a_flush(
    ties, settings
) -> None:
    # given the board answered from Redis
    from_redis = get(URL + "?player=late&limit=3&offset=1")
    assert from_redis["player_entry"]["rank"] == 5

    # when Redis is flushed, then stopped
    flush_redis()
    after_flush = get(URL + "?player=late&limit=3&offset=1")
    settings.REDIS_URL = DEAD_REDIS
    with_redis_down = get(URL + "?player=late&limit=3&offset=1")

    # then
    assert after_flush == from_redis
    assert with_redis_down == from_redis
    assert [e["rank"] for e in from_redis["entries"]] == [2, 3, 4, 5]  # the player appended


def test_results_verified_while_redis_was_down_rank_once_it_is_back(
    variants, add_results, settings
) -> None:
    # given a board in Redis, then results verified while Redis cannot be reached
    deal = deal_of(variants)
    add_results(deal, [{"cards": 5}])
    assert get()["total"] == 1
    live = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    add_results(deal, [{"cards": 9}, {"cards": 7}])
    assert [e["foundation_cards"] for e in get()["entries"]] == [9, 7, 5]  # from PostgreSQL

    # when Redis is back
    settings.REDIS_URL = live
    body = get()

    # then the board, stale by two lost additions, was rebuilt
    assert [e["foundation_cards"] for e in body["entries"]] == [9, 7, 5]
    assert ranking.board_page(deal_id=deal.pk, offset=0, limit=5, nickname=None).built_from == 3


def test_a_players_rank_at_the_end_of_a_large_board(variants, add_results, settings) -> None:
    # given 5,000 results stored at once (the board is not in Redis yet)
    deal = deal_of(variants)
    figures = [{"cards": 100 - i % 100, "moves": 1000 + i} for i in range(4999)]
    add_results(deal, figures, announce=False)
    (last,) = add_results(deal, [{"player": "Last", "cards": 0}], announce=False)

    # when the board is read with Redis up (rebuilt in batches) and with Redis down
    url = URL + "?player=LAST&limit=2&offset=4998"
    from_redis = get(url)
    settings.REDIS_URL = DEAD_REDIS
    from_database = get(url)

    # then
    assert from_redis["total"] == 5000
    assert from_redis["player_entry"] == entry(5000, last)
    assert [e["rank"] for e in from_redis["entries"]] == [4999, 5000]
    assert from_database == from_redis


def test_a_tampered_result_never_ranks_and_is_logged(ties, settings, caplog) -> None:
    # given a result edited in the database after it was sealed, and the board lost
    cheat = ties[-1]
    Result.objects.filter(pk=cheat.pk).update(foundation_cards=104, assisted=False)
    flush_redis()

    # when the board is rebuilt, and read from PostgreSQL
    with caplog.at_level(logging.ERROR, logger="leaderboards"):
        from_redis = get(URL + "?player=Helped")
    settings.REDIS_URL = DEAD_REDIS
    from_database = get(URL + "?player=Helped")

    # then
    for body in (from_redis, from_database):
        assert "Helped" not in [e["player"] for e in body["entries"]]
        assert (body["total"], body["player_entry"]) == (5, None)
    assert UnrankedResult.objects.filter(game_id=cheat.game_id).exists()
    assert any(cheat.game_id in record.getMessage() for record in caplog.records)


def test_a_tampered_result_is_caught_on_a_database_page_too(ties, settings, caplog) -> None:
    # given Redis down from the start and a result edited to the top
    settings.REDIS_URL = DEAD_REDIS
    Result.objects.filter(pk=ties[3].pk).update(foundation_cards=200)

    # when
    with caplog.at_level(logging.ERROR, logger="leaderboards"):
        body = get()

    # then
    assert [e["player"] for e in body["entries"]] == ["Cards", "Moves", "Short", "Late", "Helped"]
    assert [e["rank"] for e in body["entries"]] == [1, 2, 3, 4, 5]
    assert body["total"] == 5
    assert get()["total"] == 5  # remembered: counted out from now on


def test_a_board_being_rebuilt_elsewhere_is_answered_from_postgresql(ties) -> None:
    # given the board missing from Redis and another process holding the rebuild lock
    flush_redis()
    deal = ties[0].deal
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    client.set(ranking._lock_key(deal.pk), "elsewhere", px=10_000)

    # when
    body = get()

    # then
    assert [e["player"] for e in body["entries"]] == [r.player.nickname for r in ties]
    assert client.exists(ranking._keys(deal.pk)[0]) == 0  # nothing rebuilt here


# --- pages --------------------------------------------------------------------------------


def test_an_offset_past_the_end_is_an_empty_page_with_the_total(ties) -> None:
    body = get(URL + "?offset=6")

    assert (body["entries"], body["total"]) == ([], 6)
    assert get(URL + "?offset=5&limit=100")["entries"] == [entry(6, ties[5])]


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=101", "limit=-1", "limit=x", "limit=", "offset=-1", "offset=x", "limit=1.5"],
)
def test_bad_page_parameters_are_400_invalid(ties, query: str) -> None:
    with clock.frozen(LATER):
        answer = APIClient().get(f"{URL}?{query}")

    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid"
    assert answer.json()["field"] == query.split("=")[0]


def test_limit_100_is_allowed_and_is_the_default(ties) -> None:
    assert get(URL + "?limit=100") == get(URL)


def test_all_time_is_not_read_as_a_date(variants) -> None:
    body = get("/api/leaderboards/caprice/all-time/")

    assert body == {"variant": "caprice", "wins": [], "streaks": []}


# --- costs --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 30])
def test_a_board_read_costs_the_same_few_queries_whatever_its_size(
    variants, add_results, django_assert_num_queries, players: int
) -> None:
    # given a board already in Redis
    deal = deal_of(variants)
    add_results(deal, [{"moves": i} for i in range(players)])
    get()

    # when / then: the variant and the deal (today's: no games to close), nothing else
    with django_assert_num_queries(2):
        get(URL + "?player=nobody-here")


def test_a_fresh_board_is_read_from_redis_only(ties, django_assert_num_queries) -> None:
    deal = ties[0].deal
    services.board_page(deal=deal)  # rebuilt once if need be

    with django_assert_num_queries(0):
        page = services.board_page(deal=deal, limit=2)

    assert (page.entries, page.total) == ([entry(1, ties[0]), entry(2, ties[1])], 6)
    assert services.board_page(deal=deal).entries == [
        entry(i, r) for i, r in enumerate(ties, start=1)
    ]


def test_a_short_nickname_is_found_from_postgresql_as_from_redis(
    variants, add_results, settings
) -> None:
    # given a player named outside the guest rules (an admin-made account, say)
    (mine,) = add_results(deal_of(variants), [{"player": "Al"}])

    # when
    from_redis = get(URL + "?player=al")
    settings.REDIS_URL = DEAD_REDIS
    from_database = get(URL + "?player=al")

    # then
    assert from_redis["player_entry"] == from_database["player_entry"] == entry(1, mine)
    assert get("/api/players/al/")["nickname"] == "Al"
