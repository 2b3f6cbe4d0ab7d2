"""Variants and daily deals through the REST API, across the UTC day boundary."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from rest_framework.test import APIClient

from games import clock, services
from games.engine import builtin_rules, catalogue
from games.engine.families import family
from games.models import Variant

LAUNCH = ["caprice", "castile", "quadruple-canfield", "box-kite", "capricieuse"]
# The launch variants and the classics shipped as dailies.
DAILIES = [*LAUNCH, "klondike-draw-3", "freecell", "spider-2-suits"]
NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
NEXT_DAY = dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC)

pytestmark = pytest.mark.usefixtures("variants")


def test_the_variants_are_listed_in_display_order() -> None:
    answer = APIClient().get("/api/variants/")

    assert answer.status_code == 200
    expected = [e for e in catalogue() if e["launch"] or e.get("daily")]
    assert answer.json() == [
        {
            "slug": e["slug"],
            "name": e["name"],
            "description": e["description"],
            "decks": e["rules"].get("decks", 1),
            "daily": True,
            "family": family(e["rules"]),
        }
        for e in expected
    ]
    assert sorted(v["slug"] for v in answer.json()) == sorted(DAILIES)


def test_a_variant_comes_with_its_rules() -> None:
    answer = APIClient().get("/api/variants/box-kite/")

    assert answer.status_code == 200
    assert answer.json()["slug"] == "box-kite"
    assert answer.json()["rules"] == builtin_rules("box-kite")


def test_an_unknown_or_disabled_variant_is_404() -> None:
    Variant.objects.filter(slug="castile").update(enabled=False)

    for url in ("/api/variants/nope/", "/api/variants/castile/", "/api/daily/castile/2026-12-01/"):
        answer = APIClient().get(url)
        assert answer.status_code == 404
        assert answer.json()["error"] == "not_found"
    assert "castile" not in [v["slug"] for v in APIClient().get("/api/variants/").json()]


def test_today_lists_one_deal_per_daily_variant_with_tomorrows_commitment(join) -> None:
    # given one player on today's caprice, and tomorrow's deals made ahead (as preparedeals does)
    alice = join("Alice")
    with clock.frozen(NOON):
        alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json")
        for variant in Variant.objects.filter(daily=True):
            services.deal_get_or_create(variant=variant, date=NOON.date() + dt.timedelta(days=1))

        # when
        answer = APIClient().get("/api/daily/")
        tomorrow = APIClient().get("/api/daily/caprice/2026-12-02/")

    # then
    assert answer.status_code == 200
    items = {item["variant"]: item for item in answer.json()}
    assert sorted(items) == sorted(DAILIES)
    caprice = items["caprice"]
    assert caprice == {
        "variant": "caprice",
        "date": "2026-12-01",
        "commitment": caprice["commitment"],
        "seed": None,
        "players": 1,
        "finished": 0,
        "attempt": 0,
        "certified": False,
        "checking": True,
        "difficulty": None,
        "difficulty_solver": None,
        "difficulty_players": None,
        "par": None,
        "next": {"date": "2026-12-02", "commitment": caprice["next"]["commitment"]},
    }
    assert len({item["commitment"] for item in items.values()}) == len(DAILIES)
    assert caprice["next"]["commitment"] != caprice["commitment"]
    assert tomorrow.status_code == 404


def test_the_seed_is_revealed_once_the_day_is_over() -> None:
    # given yesterday's deal, seen while it was today
    with clock.frozen(NOON):
        then = APIClient().get("/api/daily/caprice/2026-12-01/").json()

    # when
    with clock.frozen(NEXT_DAY):
        yesterday = APIClient().get("/api/daily/caprice/2026-12-01/")
        today = APIClient().get("/api/daily/caprice/2026-12-02/")
        tomorrow = APIClient().get("/api/daily/caprice/2026-12-03/")
        never_dealt = APIClient().get("/api/daily/caprice/2026-11-20/")

    # then
    assert then["seed"] is None
    assert yesterday.status_code == 200
    seed = yesterday.json()["seed"]
    assert yesterday.json() == {**then, "seed": seed}
    assert then["rules"] == builtin_rules("caprice")  # the deal's frozen rules, to replay it
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == then["commitment"]
    assert today.status_code == 200
    assert today.json()["seed"] is None
    assert today.json()["date"] == "2026-12-02"
    assert tomorrow.status_code == 404
    assert tomorrow.json() == {
        "error": "not_found",
        "detail": "That day has not begun: its deal is secret.",
    }
    assert never_dealt.status_code == 404


@pytest.mark.parametrize("date", ["2026-13-01", "20261201", "2026-W48-1", "yesterday", "2026-12-1"])
def test_a_bad_date_is_404(date: str) -> None:
    answer = APIClient().get(f"/api/daily/caprice/{date}/")

    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"


def test_the_daily_list_is_built_once_per_interval_and_again_on_a_new_day(
    join, settings, django_assert_num_queries
) -> None:
    # given the list kept for 2 s, built once at noon
    settings.DAILY_LIST_SECONDS = 2
    services.days._built.update(day=None, at=0.0, entries=None)
    alice = join("Alice")
    with clock.frozen(NOON):
        first = APIClient().get("/api/daily/").json()
        alice.post("/api/games/", {"variant": "caprice", "mode": "daily"}, "json")

        # when it is asked again at once: no query builds it, and the new player is not in it yet
        with django_assert_num_queries(0):
            again = services.daily_list()

    # then it is the same list; a new day, or the interval over, builds it afresh
    assert again == first
    assert {item["variant"]: item["players"] for item in again}["caprice"] == 0
    with clock.frozen(NEXT_DAY):
        assert {item["date"] for item in services.daily_list()} == {"2026-12-02"}
    settings.DAILY_LIST_SECONDS = 0
    with clock.frozen(NOON):
        fresh = {item["variant"]: item["players"] for item in services.daily_list()}
    assert fresh["caprice"] == 1
