"""Players through the REST API: profile and stats, streaks, results history, all-time."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games import clock
from games.models import Player, Result
from leaderboards.models import PlayerVariantStats

from .conftest import deal_of

TODAY = dt.date(2026, 12, 3)
NOW = dt.datetime.combine(TODAY, dt.time(9), tzinfo=dt.UTC)


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def get(url: str, client: APIClient | None = None, status: int = 200) -> dict:
    with clock.frozen(NOW):
        answer = (client or APIClient()).get(url)
    assert answer.status_code == status, answer.json()
    return answer.json()


@pytest.fixture
def alice(variants) -> Player:
    return Player.objects.create_user("Alice", None, is_guest=True)


@pytest.fixture
def play(variants, alice, add_result_of):
    """Return ``play(date, won, moves=100, slug="caprice", player=alice)``: a verified result."""

    def play(date: str, won: bool, moves: int = 100, slug: str = "caprice", player=None) -> Result:
        deal = deal_of(variants, slug, d(date))
        status = "won" if won else "resigned"
        return add_result_of(player or alice, deal, status=status, moves=moves)

    return play


def caprice_stats(nickname: str = "alice") -> dict:
    return get(f"/api/players/{nickname}/")["stats"]["caprice"]


def test_a_profile_counts_finished_daily_games_and_their_streaks(alice, play) -> None:
    # given wins on Nov 29-30 across the month's end, a loss on Dec 1, a win on Dec 2
    for date, won, moves in [
        ("2026-11-28", True, 90),
        ("2026-11-29", True, 110),
        ("2026-11-30", True, 100),
        ("2026-12-01", False, 60),
        ("2026-12-02", True, 40),
    ]:
        play(date, won, moves)

    # when (Dec 3, not yet played)
    body = get("/api/players/ALICE/")

    # then
    assert body["nickname"] == "Alice"
    assert body["joined"] == alice.date_joined.isoformat().replace("+00:00", "Z")
    assert body["stats"]["caprice"] == {
        "played": 5,
        "won": 4,
        "win_rate": 0.8,
        "current_streak": 1,
        "best_streak": 3,
        "played_streak": 5,
        "best_played_streak": 5,
        "average_moves": 80.0,
    }
    assert body["stats"]["castile"]["played"] == 0


def test_a_missed_day_ends_the_current_streaks(play) -> None:
    play("2026-11-30", True)
    play("2026-12-01", True)

    stats = caprice_stats()  # Dec 2 missed, Dec 3 not yet played

    assert (stats["current_streak"], stats["played_streak"], stats["best_streak"]) == (0, 0, 2)


def test_a_result_arriving_out_of_date_order_counts_as_if_in_order(play) -> None:
    # given Dec 2 won, then Dec 1's game closed when its day ended (won before midnight)
    play("2026-11-30", True, 10)
    play("2026-12-02", True, 30)
    play("2026-12-01", True, 20)

    stats = caprice_stats()

    assert (stats["played"], stats["current_streak"], stats["best_streak"]) == (3, 3, 3)
    assert stats["average_moves"] == 20.0


def test_rebuildstats_computes_the_same_stats_from_the_results(play) -> None:
    # given stats kept as results arrived, then lost or damaged
    for date, won in [("2026-11-30", True), ("2026-12-01", False), ("2026-12-02", True)]:
        play(date, won)
    before = caprice_stats()
    PlayerVariantStats.objects.update(played=0, won=99, best_win_run=0, last_date=None)

    # when
    call_command("rebuildstats", stdout=io.StringIO())

    # then
    assert caprice_stats() == before


def test_an_unknown_nickname_is_404(variants) -> None:
    for name in ("nobody", "no", "x" * 30, "bad%00name"):
        assert get(f"/api/players/{name}/", status=404)["error"] == "not_found"
        assert get(f"/api/players/{name}/results/", status=404)["error"] == "not_found"


def test_a_profile_read_costs_three_queries(play, django_assert_num_queries) -> None:
    play("2026-12-01", True)
    play("2026-12-02", True, slug="castile")

    with django_assert_num_queries(3):  # the player, their stats, the variants
        get("/api/players/Alice/")


# --- results ------------------------------------------------------------------------------


def test_results_are_newest_first_with_ranks_and_today_only_for_the_player(
    variants, alice, play, join
) -> None:
    # given Alice's results on three days (today's included), Bob better on Dec 2
    bob = Player.objects.create_user("Bob", None, is_guest=True)
    play("2026-12-02", True, 50, player=bob)
    older = play("2026-12-01", False, 70)
    newer = play("2026-12-02", True, 60)
    today = play("2026-12-03", True, 80)

    # when others read them, then Alice herself
    seen = get("/api/players/alice/results/")
    with clock.frozen(NOW):
        me = APIClient()
        me.force_authenticate(alice)
    own = get("/api/players/alice/results/", client=me)

    # then
    def result(r: Result, rank: int) -> dict:
        return {
            "variant": "caprice",
            "date": r.deal.date.isoformat(),
            "status": r.status,
            "foundation_cards": r.foundation_cards,
            "moves": r.moves,
            "duration_ms": r.duration_ms,
            "assisted": r.assisted,
            "rank": rank,
            "game": r.game_id,
        }

    assert seen == {"total": 2, "results": [result(newer, 2), result(older, 1)]}
    assert own == {"total": 3, "results": [result(today, 1), result(newer, 2), result(older, 1)]}


def test_results_page_and_filter_by_variant(play) -> None:
    for day in ("2026-11-28", "2026-11-29", "2026-11-30"):
        play(day, True)
    play("2026-11-30", True, slug="castile")

    page = get("/api/players/alice/results/?variant=caprice&offset=1&limit=1")
    castile = get("/api/players/alice/results/?variant=castile")

    assert page["total"] == 3
    assert [r["date"] for r in page["results"]] == ["2026-11-29"]
    assert [(r["variant"], r["rank"]) for r in castile["results"]] == [("castile", 1)]
    assert get("/api/players/alice/results/?variant=nope", status=400)["field"] == "variant"
    assert get("/api/players/alice/results/?limit=0", status=400)["field"] == "limit"
    assert get("/api/players/alice/results/?offset=9")["results"] == []


def test_history_ranks_agree_with_redis_down(play, settings) -> None:
    play("2026-12-01", True, 10)
    play("2026-12-02", True, 20)
    with_redis = get("/api/players/alice/results/")

    settings.REDIS_URL = "redis://127.0.0.1:6392/0"
    without = get("/api/players/alice/results/")

    assert without == with_redis
    assert [r["rank"] for r in with_redis["results"]] == [1, 1]


# --- all-time -----------------------------------------------------------------------------


def test_all_time_lists_the_most_wins_and_the_best_streaks(variants, play) -> None:
    # given Bob with 3 wins in a row, Carol with 4 wins but never two days running
    bob = Player.objects.create_user("Bob", None, is_guest=True)
    carol = Player.objects.create_user("Carol", None, is_guest=True)
    for day in ("2026-11-20", "2026-11-21", "2026-11-22"):
        play(day, True, player=bob)
    for day in ("2026-11-20", "2026-11-22", "2026-11-24", "2026-11-26"):
        play(day, True, player=carol)
    play("2026-11-20", False)

    body = get("/api/leaderboards/caprice/all-time/")

    assert body == {
        "variant": "caprice",
        "wins": [{"player": "Carol", "wins": 4}, {"player": "Bob", "wins": 3}],
        "streaks": [{"player": "Bob", "best_streak": 3}, {"player": "Carol", "best_streak": 1}],
    }
    assert get("/api/leaderboards/nope/all-time/", status=404)["error"] == "not_found"


def test_a_game_resigned_through_the_api_reaches_the_stats_and_the_board(
    join, django_capture_on_commit_callbacks
) -> None:
    # given Alice resigns today's caprice (the result is announced once committed)
    alice = join("Alice")
    with clock.frozen(NOW), django_capture_on_commit_callbacks(execute=True):
        game = alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json").json()
        assert alice.post(f"/api/games/{game['id']}/resign/").status_code == 200

    # when
    stats = caprice_stats()
    board = get("/api/leaderboards/caprice/2026-12-03/?player=alice")

    # then
    assert (stats["played"], stats["won"], stats["played_streak"]) == (1, 0, 1)
    assert (board["total"], board["player_entry"]["game"]) == (1, game["id"])
