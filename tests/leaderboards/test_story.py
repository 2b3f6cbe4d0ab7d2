"""The day's story through the REST API: who may read it when, its counts, bars and par."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from games import clock
from games.models import Deal, Game, Player, Result
from leaderboards.story import day_figures, top_percent
from tests.leaderboards.conftest import DAY, NOON, deal_of

URL = f"/api/leaderboards/caprice/{DAY}/story/"
YESTERDAY = DAY - dt.timedelta(days=1)


def client_of(player: Player | None) -> APIClient:
    client = APIClient()
    if player is not None:
        client.force_authenticate(user=player)
    return client


@pytest.fixture
def day(variants, add_results):
    """Ten results on today's caprice deal of 104 cards (Alice won, 3rd), two won yesterday."""
    with clock.frozen(NOON):
        today = deal_of(variants)
        yesterday = deal_of(variants, day=YESTERDAY)
    Deal.objects.filter(pk=yesterday.pk).update(certified=True, solution=[{"type": "deal"}] * 97)
    add_results(
        yesterday,
        [{"status": "won", "cards": 104, "moves": m} for m in (120, 140)] + [{"cards": 30}],
    )
    figures = [
        {"status": "won", "cards": 104, "moves": 101},
        {"status": "won", "cards": 104, "moves": 110},
        {"player": "Alice", "status": "won", "cards": 104, "moves": 130},
        *({"cards": cards, "moves": 60 + cards} for cards in (0, 3, 10, 10, 25, 40, 51)),
    ]
    results = add_results(today, figures)
    Game.objects.filter(deal=today).update(status="resigned")
    Game.objects.filter(deal=today, player__nickname="Alice").update(status="won")
    return today, {r.player.nickname: r.player for r in results}


def test_today_s_story_is_refused_to_anyone_who_has_not_finished(day) -> None:
    _, players = day
    still_playing = next(player for name, player in players.items() if name != "Alice")
    Game.objects.filter(player=still_playing).update(status="playing")
    stranger = Player.objects.create_user("Stranger", None, is_guest=True)

    with clock.frozen(NOON):
        anonymous = client_of(None).get(URL)
        playing = client_of(still_playing).get(URL)
        no_game = client_of(stranger).get(URL)

    assert anonymous.status_code == 401 and anonymous.json()["error"] == "not_authenticated"
    assert (playing.status_code, playing.json()["error"]) == (403, "forbidden")
    assert (no_game.status_code, no_game.json()["error"]) == (403, "forbidden")
    # nothing of the day in a refusal
    assert set(no_game.json()) == {"error", "detail"}


def test_a_finished_player_reads_the_day_so_far_and_their_place(day) -> None:
    _, players = day

    with clock.frozen(NOON):
        answer = client_of(players["Alice"]).get(URL)

    assert answer.status_code == 200
    story = answer.json()
    assert (story["over"], story["total"], story["won"], story["total_cards"]) == (
        False,
        10,
        3,
        104,
    )
    assert story["player"] == {
        "rank": 3,
        "top_percent": 30,
        "status": "won",
        "foundation_cards": 104,
        "moves": 130,
    }
    # Caprice's 104 cards in bars of 8 (0–7 … 96–103) and one for all home
    cards = {(bar["from"], bar["to"]): bar["count"] for bar in story["cards"]}
    assert len(cards) == 14 and sum(cards.values()) == 10
    assert (cards[(0, 7)], cards[(8, 15)], cards[(48, 55)], cards[(104, 104)]) == (2, 2, 1, 3)
    # moves from 60 to 130 in bars of 10: the winners are in the last bars
    moves = story["moves"]
    assert (moves[0]["from"], moves[-1]["to"], sum(bar["count"] for bar in moves)) == (60, 139, 10)
    assert sum(bar["won"] for bar in moves) == 3
    # today's par stays hidden while the day is on; yesterday's is out
    assert story["day"] is None
    assert story["yesterday"] == {
        "date": YESTERDAY.isoformat(),
        "winners": 2,
        "winners_median_moves": 130.0,
        "best_line": 97,
    }


def test_once_the_day_is_over_anyone_reads_it_with_its_par(day) -> None:
    today, _ = day
    Deal.objects.filter(pk=today.pk).update(certified=True, solution=[{"type": "deal"}] * 88)

    with clock.frozen(NOON + dt.timedelta(days=1)):
        story = client_of(None).get(URL).json()

    assert (story["over"], story["total"], story["player"]) == (True, 10, None)
    assert story["day"] == {
        "date": DAY.isoformat(),
        "winners": 3,
        "winners_median_moves": 110.0,
        "best_line": 88,
    }


@pytest.mark.parametrize(
    "url",
    [
        f"/api/leaderboards/caprice/{DAY + dt.timedelta(days=1)}/story/",  # the future
        "/api/leaderboards/caprice/2026-13-45/story/",
        "/api/leaderboards/no-such/2026-12-01/story/",
    ],
)
def test_a_day_that_cannot_have_a_story_is_not_found(variants, url) -> None:
    with clock.frozen(NOON):
        answer = client_of(None).get(url)
    assert (answer.status_code, answer.json()["error"]) == (404, "not_found")


def test_the_share_of_players_at_or_above_a_rank() -> None:
    assert [top_percent(r, t) for r, t in ((1, 200), (3, 25), (25, 25), (1, 1))] == [
        1,
        12,
        100,
        100,
    ]


def test_a_day_over_blends_the_solver_s_difficulty_with_the_players(day) -> None:
    # given today's deal rated 1 by the solver, and its ten games over: 3 won, 451 cards home
    today, _ = day
    Deal.objects.filter(pk=today.pk).update(certified=True, difficulty=1)
    for game in Game.objects.filter(deal=today).select_related("result"):
        Game.objects.filter(pk=game.pk).update(foundation_cards=game.result.foundation_cards)
    url = f"/api/daily/caprice/{DAY}/"

    with clock.frozen(NOON):
        during = client_of(None).get(url).json()
    with clock.frozen(NOON + dt.timedelta(days=1)):
        after = client_of(None).get(url).json()
        listed = client_of(None).get("/api/daily/caprice/").json()["deals"]

    # then the solver's step alone while the day is on; once over, the players' hardness
    # 1 - (3/10 + 451/1040) / 2 = 0.63 is step 4, weighing 10 / (10 + 20): 1 × 2/3 + 4 × 1/3 = 2
    assert (during["difficulty"], during["difficulty_players"]) == (1, None)
    assert (after["difficulty_solver"], after["difficulty_players"], after["difficulty"]) == (
        1,
        4,
        2,
    )
    # and the variant's past days list it the same
    day_listed = next(deal for deal in listed if deal["date"] == DAY.isoformat())
    assert (day_listed["difficulty"], day_listed["difficulty_players"]) == (2, 4)


def test_a_day_s_figures_are_kept_while_its_board_count_stands(day) -> None:
    # given the figures of a day that is over, read once
    today, _ = day
    with clock.frozen(NOON + dt.timedelta(days=1)):
        first = day_figures(today)
        # when a result goes without the board's count moving, the kept figures stand
        Result.objects.filter(deal=today, status="won").first().delete()
        assert day_figures(today) == first
        # and once the count moves, the figures are read again
        Deal.objects.filter(pk=today.pk).update(withdrawals=1)
        today.refresh_from_db()
        assert (first.total, day_figures(today).total) == (10, 9)
