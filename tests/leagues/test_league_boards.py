"""A league's boards: its members' results ranked exactly as the global board, its standings
over a week and a month, and a player's rank in each of their leagues."""

from __future__ import annotations

import datetime as dt

import pytest

from games.models import Player
from tests.leagues.conftest import DAY, deal_of

pytestmark = pytest.mark.django_db

NOON = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)


def player(client) -> Player:
    return Player.objects.get(pk=client.player["id"])


@pytest.fixture
def family(guest, league_of):
    """ann owns Family with bob and cid; eve is in no league."""
    ann, bob, cid, eve = (guest(name) for name in ("ann", "bob", "cid", "eve"))
    league = league_of(ann, "Family", bob, cid)
    return league, {"ann": ann, "bob": bob, "cid": cid, "eve": eve}


def test_the_league_board_ranks_its_members_as_the_global_board_does(
    family, variants, add_result_of, django_assert_max_num_queries
):
    # given: results that differ on each figure of the order, and a stranger's best of all
    league, people = family
    deal = deal_of(variants)
    add_result_of(player(people["eve"]), deal, status="won", cards=52, moves=80)
    add_result_of(player(people["ann"]), deal, cards=30, moves=100, finished_at=NOON)
    add_result_of(player(people["bob"]), deal, cards=30, moves=100, duration_ms=50_000)
    add_result_of(player(people["cid"]), deal, status="won", cards=52, moves=90, assisted=True)
    # when
    with django_assert_max_num_queries(7):  # as many whatever the members and results
        board = people["bob"].get(f"/api/leagues/{league['id']}/boards/caprice/{DAY}/").json()
    everyone = people["bob"].get(f"/api/leaderboards/caprice/{DAY}/").json()
    # then: the same order as the global board, the stranger left out, ranks from 1
    assert [e["player"] for e in board["entries"]] == ["bob", "ann", "cid"]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
    assert board["total"] == 3
    members = [e["player"] for e in everyone["entries"] if e["player"] != "eve"]
    assert members == [e["player"] for e in board["entries"]]
    assert {k: v for k, v in board["entries"][0].items() if k != "rank"} == {
        k: v for k, v in everyone["entries"][1].items() if k != "rank"
    }


def test_a_board_of_a_day_not_dealt_is_empty_and_a_future_day_not_found(family, variants):
    league, people = family
    base = f"/api/leagues/{league['id']}/boards"
    empty = people["ann"].get(f"{base}/caprice/2026-11-02/").json()
    assert (empty["total"], empty["entries"]) == (0, [])
    assert people["ann"].get(f"{base}/caprice/2999-01-01/").json()["error"] == "not_found"
    assert people["ann"].get(f"{base}/caprice/yesterday/").json()["error"] == "not_found"
    assert people["ann"].get(f"{base}/nothing/2026-11-02/").json()["error"] == "not_found"


def test_standings_sum_the_points_of_each_days_rank(family, variants, add_result_of):
    league, people = family
    monday, tuesday = DAY - dt.timedelta(days=1), DAY  # 2026-11-30 is a Monday
    earlier = DAY - dt.timedelta(days=10)  # last month
    for day, order in (
        (monday, ("ann", "bob")),
        (tuesday, ("bob", "cid", "ann")),
        (earlier, ("cid",)),
    ):
        deal = deal_of(variants, day=day)
        for place, name in enumerate(order):
            add_result_of(player(people[name]), deal, cards=50 - place)
    week = people["cid"].get(f"/api/leagues/{league['id']}/standings/caprice/?date={DAY}").json()
    month = (
        people["cid"]
        .get(f"/api/leagues/{league['id']}/standings/caprice/?period=month&date={earlier}")
        .json()
    )
    assert (week["from"], week["to"], week["period"]) == ("2026-11-30", "2026-12-06", "week")
    assert week["points"] == [10, 8, 6, 5, 4, 3, 2, 1]
    assert week["standings"] == [
        {"rank": 1, "player": "bob", "points": 18, "days": 2, "wins": 1},
        {"rank": 2, "player": "ann", "points": 16, "days": 2, "wins": 1},
        {"rank": 3, "player": "cid", "points": 8, "days": 1, "wins": 0},
    ]
    assert (month["from"], month["to"]) == ("2026-11-01", "2026-11-30")
    assert [(row["rank"], row["player"], row["points"]) for row in month["standings"]] == [
        (1, "ann", 10),
        (1, "cid", 10),
        (3, "bob", 8),
    ]


def test_equal_points_share_a_rank_and_a_bad_period_is_refused(family, variants):
    league, people = family
    base = f"/api/leagues/{league['id']}/standings/caprice/"
    rows = people["ann"].get(base).json()["standings"]
    assert [(row["rank"], row["points"]) for row in rows] == [(1, 0), (1, 0), (1, 0)]
    answer = people["ann"].get(f"{base}?period=year")
    assert (answer.status_code, answer.json()["error"], answer.json()["field"]) == (
        400,
        "invalid",
        "period",
    )


def test_my_rank_in_each_of_my_leagues(family, league_of, variants, add_result_of):
    league, people = family
    other = league_of(people["eve"], "Club", people["bob"])
    deal = deal_of(variants)
    add_result_of(player(people["ann"]), deal, cards=40)
    add_result_of(player(people["eve"]), deal, cards=45)
    add_result_of(player(people["bob"]), deal, cards=30)
    ranks = people["bob"].get(f"/api/leagues/ranks/caprice/{DAY}/").json()
    assert sorted(ranks, key=lambda r: r["name"]) == [
        {"league": other["id"], "name": "Club", "rank": 2, "total": 2},
        {"league": league["id"], "name": "Family", "rank": 2, "total": 2},
    ]
    assert people["cid"].get(f"/api/leagues/ranks/caprice/{DAY}/").json() == [
        {"league": league["id"], "name": "Family", "rank": None, "total": 2}
    ]
