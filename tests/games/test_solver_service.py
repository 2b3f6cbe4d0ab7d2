"""The solver in the service: certified daily deals, difficulty, par, and hints."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games import clock, services
from games.documents import compiled
from games.engine import SolveResult, apply_move, daily_seed, deal, parse_move
from games.engine.difficulty import difficulty
from games.models import Deal, Game, Result, Variant
from games.services import deals as deal_services
from tests.conftest import TEST_DEAL_SECRET

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
TODAY = NOON.date()
EFFORT = 54_321  # the fake solver's positions for every deal it wins
RATED = difficulty("caprice", EFFORT)  # by caprice's calibration


def fake_solver(monkeypatch, outcomes: dict[int, str]) -> list[int]:
    """Make the solver answer ``outcomes[attempt]`` for each attempt's deal of caprice today
    (``unknown`` for any other position); return the attempts it was asked about."""
    seeds = {
        daily_seed(TEST_DEAL_SECRET, "caprice", TODAY.isoformat(), attempt): attempt
        for attempt in range(10)
    }
    variant = compiled(Variant.objects.get(slug="caprice").rules)
    dealt = {deal(variant, seed).piles: attempt for seed, attempt in seeds.items()}
    asked: list[int] = []

    def solve(state, **budget):
        attempt = dealt.get(state.piles)
        asked.append(attempt)
        outcome = outcomes.get(attempt, "unknown")
        line = [parse_move({"type": "deal"})] * 7 if outcome == "won" else None
        return SolveResult(outcome, line, EFFORT, 0.01)

    monkeypatch.setattr(deal_services, "solve", solve)
    return asked


def caprice() -> Variant:
    return Variant.objects.get(slug="caprice")


def test_a_day_is_dealt_from_the_first_attempt_the_solver_proves_winnable(
    variants, monkeypatch
) -> None:
    # given attempts 0 and 1 unproved, 2 proved winnable
    asked = fake_solver(monkeypatch, {0: "lost", 1: "unknown", 2: "won"})

    # when the day is prepared
    with clock.frozen(NOON):
        made = deal_services.deal_prepare(variant=caprice(), date=TODAY)

    # then it is attempt 2, certified, with its line kept and a difficulty from the effort
    assert asked == [0, 1, 2]
    seed = daily_seed(TEST_DEAL_SECRET, "caprice", TODAY.isoformat(), 2)
    assert (made.attempt, made.certified, made.seed) == (2, True, seed.hex())
    assert made.commitment == hashlib.sha256(seed).hexdigest()
    assert made.solution == [{"type": "deal"}] * 7
    assert (made.difficulty, made.effort) == (RATED, EFFORT)

    # and the API shows it, with par only once the day is over
    with clock.frozen(NOON):
        today = APIClient().get(f"/api/daily/caprice/{TODAY}/").json()
    with clock.frozen(NOON + dt.timedelta(days=1)):
        after = APIClient().get(f"/api/daily/caprice/{TODAY}/").json()
    assert (today["attempt"], today["certified"], today["difficulty"], today["par"]) == (
        2,
        True,
        RATED,
        None,
    )
    assert "solution" not in today
    assert (after["par"], after["seed"]) == (7, seed.hex())


def test_ratedeals_rates_the_coming_deals_by_the_calibration(variants, monkeypatch, capsys) -> None:
    # given today's deal certified before its effort was kept, and yesterday's
    fake_solver(monkeypatch, {0: "won"})
    with clock.frozen(NOON):
        made = deal_services.deal_prepare(variant=caprice(), date=TODAY)
    Deal.objects.filter(pk=made.pk).update(effort=None, difficulty=1)
    past = Deal.objects.create(
        variant=caprice(),
        date=TODAY - dt.timedelta(days=1),
        seed="00",
        commitment="00",
        rules={},
        certified=True,
        difficulty=1,
        effort=10**9,
    )

    # when the coming deals are rated again
    with clock.frozen(NOON):
        call_command("ratedeals")

    # then today's is solved again for its effort and rated; a past day's stays as published
    assert Deal.objects.filter(pk=made.pk).values_list("effort", "difficulty").get() == (
        EFFORT,
        RATED,
    )
    assert Deal.objects.get(pk=past.pk).difficulty == 1
    assert f"{TODAY} caprice" in capsys.readouterr().out


def test_a_day_with_no_proved_attempt_is_served_uncertified(variants, monkeypatch, settings):
    # given three attempts, the first proved lost and none won
    settings.DEAL_ATTEMPTS = 3
    fake_solver(monkeypatch, {0: "lost", 1: "unknown", 2: "lost"})

    with clock.frozen(NOON):
        made = deal_services.deal_prepare(variant=caprice(), date=TODAY)

    # then the first attempt not proved lost is served, marked uncertified
    assert (made.attempt, made.certified, made.difficulty, made.solution) == (1, False, None, None)


def test_a_request_never_waits_for_the_solver(variants, monkeypatch) -> None:
    asked = fake_solver(monkeypatch, {})
    alice = APIClient()

    with clock.frozen(NOON):
        daily = alice.get("/api/daily/").json()

    # today's deals are made at once, uncertified; tomorrow's is not made by a request
    assert asked == []
    assert all((d["attempt"], d["certified"], d["next"]) == (0, False, None) for d in daily)
    assert not Deal.objects.filter(date=TODAY + dt.timedelta(days=1)).exists()


def test_preparedeals_certifies_the_coming_days_and_publishes_tomorrows_commitment(
    variants, monkeypatch, capsys
) -> None:
    fake_solver(monkeypatch, {0: "won"})
    Variant.objects.exclude(slug="caprice").update(daily=False)

    with clock.frozen(NOON):
        call_command("preparedeals", "2")
        daily = APIClient().get("/api/daily/").json()

    out = capsys.readouterr().out
    assert f"{TODAY} caprice" in out and f"attempt 0 certified, difficulty {RATED}" in out
    tomorrow = Deal.objects.get(variant__slug="caprice", date=TODAY + dt.timedelta(days=1))
    assert daily[0]["next"] == {
        "date": tomorrow.date.isoformat(),
        "commitment": tomorrow.commitment,
    }
    assert daily[0]["certified"] is True


def test_a_deal_made_on_demand_is_checked_then_certified_where_it_stands(
    variants, monkeypatch
) -> None:
    # given today's caprice deal made on demand by a request, before the scheduler
    fake_solver(monkeypatch, {0: "won"})
    Variant.objects.exclude(slug="caprice").update(daily=False)
    with clock.frozen(NOON):
        before = APIClient().get("/api/daily/").json()[0]

    # when the scheduler checks the deals made on demand
    with clock.frozen(NOON):
        checked = services.deals_check()
        after = APIClient().get("/api/daily/").json()[0]
        again = services.deals_check()

    # then the deal was said to be checked meanwhile; it is now certified, the same deal
    assert (before["checking"], before["certified"], before["difficulty"]) == (True, False, None)
    assert [deal.pk for deal in checked] == [Deal.objects.get().pk]
    assert (after["checking"], after["certified"], after["difficulty"]) == (False, True, RATED)
    assert (after["attempt"], after["commitment"]) == (0, before["commitment"])
    assert Deal.objects.get().solution == [{"type": "deal"}] * 7
    assert again == []


def test_preparedeals_checks_a_deal_made_on_demand_without_changing_it(
    variants, monkeypatch
) -> None:
    # given a request made today's caprice deal (attempt 0) before preparedeals reached it;
    # the solver proves attempt 0 lost and would certify attempt 1
    asked = fake_solver(monkeypatch, {0: "lost", 1: "won"})
    Variant.objects.exclude(slug="caprice").update(daily=False)
    with clock.frozen(NOON):
        before = APIClient().get("/api/daily/").json()[0]

        # when preparedeals reaches today
        call_command("preparedeals", "1")
        after = APIClient().get("/api/daily/").json()[0]

    # then the deal whose commitment is out stays, decided: not proved winnable, no longer checked
    assert asked == [0]
    assert (after["attempt"], after["commitment"]) == (0, before["commitment"])
    assert (after["checking"], after["certified"]) == (False, False)


def test_preparedeals_refuses_a_bad_budget(variants) -> None:
    with pytest.raises(SystemExit) as stop:
        call_command("preparedeals", "2", "--seconds", "0")
    assert stop.value.code == 2


# --- hints ----------------------------------------------------------------------------------


def castile_daily(client) -> dict:
    with clock.frozen(NOON):
        return client.post("/api/games/", {"variant": "castile", "mode": "daily"}, "json").json()


def test_a_hint_is_a_legal_move_and_marks_the_game_assisted_for_good(join, settings) -> None:
    # given Alice's castile game of a deal the solver wins in well under a second
    settings.HINT_SECONDS = 5
    alice = join("Alice")
    practice = {"variant": "castile", "mode": "practice", "seed": "bench-1"}
    game = alice.post("/api/games/", practice, "json").json()

    # when she asks for a hint
    with clock.frozen(NOON):
        answer = alice.get(f"/api/games/{game['id']}/hint/")
        after = alice.get(f"/api/games/{game['id']}/").json()

    # then a move of a winning line comes back, the player can play it, and the game is assisted
    assert answer.status_code == 200
    hint = answer.json()
    assert hint["move"] is not None, hint
    state = services.engine_state(Game.objects.get(pk=game["id"]))
    apply_move(state, parse_move(hint["move"]))  # legal, or this raises
    assert set(hint) == {"move", "detail"}
    assert after["assisted"] is True
    assert game["assisted"] is False


def test_an_assisted_result_ranks_after_every_unassisted_one(join, monkeypatch, settings) -> None:
    # given Alice took a hint and Bob did not; both resign at once
    from games.services import hints

    settings.HINT_PROCESSES = 0  # searched in the thread, where the fake solver is
    monkeypatch.setattr(
        hints,
        "solve",
        lambda state, **budget: SolveResult("won", [parse_move({"type": "deal"})], 1, 0.0),
    )
    alice, bob = join("Alice"), join("Bob")
    games = {"Alice": castile_daily(alice), "Bob": castile_daily(bob)}
    with clock.frozen(NOON):
        alice.get(f"/api/games/{games['Alice']['id']}/hint/")
        for name, client in (("Alice", alice), ("Bob", bob)):
            client.post(f"/api/games/{games[name]['id']}/resign/")

        board = APIClient().get(f"/api/leaderboards/castile/{TODAY}/").json()

    # then
    assert Result.objects.get(pk=games["Alice"]["id"]).assisted is True
    assert [(e["player"], e["assisted"]) for e in board["entries"]] == [
        ("Bob", False),
        ("Alice", True),
    ]


def test_no_hint_for_another_players_game_a_finished_game_or_a_stranger(join) -> None:
    alice, bob = join("Alice"), join("Bob")
    game = castile_daily(alice)

    with clock.frozen(NOON):
        theirs = bob.get(f"/api/games/{game['id']}/hint/")
        anonymous = APIClient().get(f"/api/games/{game['id']}/hint/")
        alice.post(f"/api/games/{game['id']}/resign/")
        over = alice.get(f"/api/games/{game['id']}/hint/")
        missing = alice.get("/api/games/nosuchgame/hint/")

    assert (theirs.status_code, theirs.json()["error"]) == (403, "forbidden")
    assert (anonymous.status_code, anonymous.json()["error"]) == (401, "not_authenticated")
    assert (over.status_code, over.json()["error"]) == (409, "game_over")
    assert (missing.status_code, missing.json()["error"]) == (404, "not_found")
    assert Game.objects.get(pk=game["id"]).assisted is False


@pytest.mark.parametrize(
    ("outcome", "detail"),
    [("lost", "No winning line is left"), ("unknown", "No winning line was found")],
)
def test_a_hint_without_a_line_says_why_and_does_not_assist(
    join, monkeypatch, settings, outcome, detail
) -> None:
    from games.services import hints

    settings.HINT_PROCESSES = 0  # searched in the thread, where the fake solver is
    monkeypatch.setattr(hints, "solve", lambda state, **budget: SolveResult(outcome, None, 9, 0.0))
    alice = join("Alice")
    game = castile_daily(alice)

    with clock.frozen(NOON):
        answer = alice.get(f"/api/games/{game['id']}/hint/").json()

    assert answer["move"] is None
    assert answer["detail"].startswith(detail)
    assert Game.objects.get(pk=game["id"]).assisted is False
