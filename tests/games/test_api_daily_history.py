"""A daily variant's past deals (the calendar's source): listing, paging, secrecy."""

from __future__ import annotations

import datetime as dt

from rest_framework.test import APIClient

from games import clock, services
from games.models import Variant

DAY = dt.datetime(2026, 11, 27, 12, tzinfo=dt.UTC)


def days(n: int) -> dt.datetime:
    return DAY + dt.timedelta(days=n)


def test_history_lists_deals_up_to_today_newest_first_without_open_seeds(join) -> None:
    # given Castile dealt on four days, Alice's finished game on the second, Bob's game left
    # playing on the third, and tomorrow's deal already made ahead
    alice, bob = join("Alice"), join("Bob")
    for n in range(4):
        with clock.frozen(days(n)):
            assert APIClient().get("/api/daily/").status_code == 200
            if n == 1:
                game = alice.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json")
                alice.post(f"/api/games/{game.json()['id']}/resign/")
            if n == 2:
                bob.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json")
    with clock.frozen(days(3)):
        tomorrow = services.deal_get_or_create(
            variant=Variant.objects.get(slug="castile"), date=days(4).date()
        )

        # when anyone lists the history
        answer = APIClient().get("/api/daily/castile/")

    # then the four days come newest first, today's seed withheld, tomorrow's deal not listed
    assert answer.status_code == 200
    body = answer.json()
    assert body["variant"] == "castile"
    assert body["first"] == "2026-11-27"
    assert body["today"] == "2026-11-30"
    assert body["next_before"] is None
    assert [deal["date"] for deal in body["deals"]] == [
        "2026-11-30",
        "2026-11-29",
        "2026-11-28",
        "2026-11-27",
    ]
    assert body["deals"][0]["seed"] is None
    assert all(deal["seed"] for deal in body["deals"][1:])
    assert tomorrow.commitment not in answer.content.decode()
    assert tomorrow.seed not in answer.content.decode()
    counts = {deal["date"]: (deal["players"], deal["finished"]) for deal in body["deals"]}
    assert counts == {
        "2026-11-30": (0, 0),
        "2026-11-29": (1, 1),  # the day is over: Bob's game counts as finished
        "2026-11-28": (1, 1),
        "2026-11-27": (0, 0),
    }


def test_history_pages_by_date(variants) -> None:
    # given five days of Caprice deals
    for n in range(5):
        with clock.frozen(days(n)):
            APIClient().get("/api/daily/")

    # when the history is read two deals at a time
    with clock.frozen(days(4)):
        client = APIClient()
        first = client.get("/api/daily/caprice/", {"limit": 2}).json()
        second = client.get(
            "/api/daily/caprice/", {"limit": 2, "before": first["next_before"]}
        ).json()
        third = client.get(
            "/api/daily/caprice/", {"limit": 2, "before": second["next_before"]}
        ).json()

    # then the pages follow each other to the first deal
    dates = [[deal["date"] for deal in page["deals"]] for page in (first, second, third)]
    assert dates == [
        ["2026-12-01", "2026-11-30"],
        ["2026-11-29", "2026-11-28"],
        ["2026-11-27"],
    ]
    assert third["next_before"] is None


def test_history_refuses_bad_input_and_variants_without_deals(variants) -> None:
    # given a variant that is not daily
    variants["castile"].daily = False
    variants["castile"].save()
    client = APIClient()

    # when
    answers = {
        "bad date": client.get("/api/daily/caprice/", {"before": "2026-13-01"}),
        "not a date": client.get("/api/daily/caprice/", {"before": "yesterday\x00"}),
        "bad limit": client.get("/api/daily/caprice/", {"limit": 1000}),
        "unknown": client.get("/api/daily/no-such-game/"),
        "not daily": client.get("/api/daily/castile/"),
    }

    # then
    assert {name: a.status_code for name, a in answers.items()} == {
        "bad date": 400,
        "not a date": 400,
        "bad limit": 400,
        "unknown": 404,
        "not daily": 404,
    }
    assert answers["bad date"].json()["field"] == "before"
    assert answers["bad limit"].json()["field"] == "limit"
    assert answers["unknown"].json()["error"] == "not_found"


def test_a_history_page_costs_three_queries_however_many_deals(
    variants, django_assert_num_queries
) -> None:
    # given ten days of Box Kite deals
    for n in range(10):
        with clock.frozen(days(n)):
            APIClient().get("/api/daily/")

    # when / then: the variant, the first day, one page of deals with their counts
    with clock.frozen(days(9)), django_assert_num_queries(3):
        answer = APIClient().get("/api/daily/box-kite/", {"limit": 10})
    assert len(answer.json()["deals"]) == 10
