"""``manage.py runscheduler``: the daily jobs at start and after 00:00 UTC, retried on failure;
between them, the regenerations admins asked for."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError

from games import clock
from games.engine import builtin_rules
from games.management.commands import preparedeals, regeneratedeals, runscheduler
from games.models import Deal, Variant
from games.services import deal_get_or_create, deal_request_regeneration

NOON = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
AT = dt.time(0, 5)
NEW_RULES = {**builtin_rules("caprice"), "foundation_return": "none"}


class Stop(Exception):
    """Raised by the patched sleep to end the loop."""


def said(caplog: pytest.LogCaptureFixture) -> str:
    """Return what the scheduler logged, a line a record."""
    return "\n".join(
        record.getMessage() for record in caplog.records if record.name == "games.scheduler"
    )


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (NOON, dt.datetime(2026, 12, 2, 0, 5, tzinfo=dt.UTC)),
        (
            dt.datetime(2026, 12, 1, 0, 4, 59, tzinfo=dt.UTC),
            dt.datetime(2026, 12, 1, 0, 5, tzinfo=dt.UTC),
        ),
        (
            dt.datetime(2026, 12, 1, 0, 5, tzinfo=dt.UTC),
            dt.datetime(2026, 12, 2, 0, 5, tzinfo=dt.UTC),
        ),
        (
            dt.datetime(2026, 12, 31, 23, 59, tzinfo=dt.UTC),
            dt.datetime(2027, 1, 1, 0, 5, tzinfo=dt.UTC),
        ),
        # another time zone is read as the same instant in UTC (23:00 on Nov 30)
        (
            dt.datetime(2026, 12, 1, 1, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            dt.datetime(2026, 12, 1, 0, 5, tzinfo=dt.UTC),
        ),
    ],
)
def test_the_next_run_is_the_next_time_of_day_in_utc(now, expected) -> None:
    assert runscheduler.next_run(after=now, at=AT) == expected


@pytest.mark.parametrize(
    "argument", ["--at=24:00", "--at=noon", "--days=0", "--retry=0", "--poll=0", "--poll=3601"]
)
def test_bad_arguments_are_refused_before_anything_runs(argument) -> None:
    with pytest.raises(CommandError):
        call_command("runscheduler", "--once", argument)


@pytest.fixture
def quick_deals(variants, settings):
    """One daily variant, one attempt with a tiny solver budget: preparedeals takes no time."""
    settings.DEAL_ATTEMPTS = 1
    settings.DEAL_CERTIFY_SECONDS = 0.01
    Variant.objects.exclude(slug="caprice").update(daily=False)


@pytest.mark.django_db(transaction=True)
def test_a_run_prepares_the_deals_closes_the_days_and_touches_the_heartbeat(
    quick_deals, tmp_path, capsys, caplog
) -> None:
    # given
    heartbeat = tmp_path / "heartbeat"
    caplog.set_level("INFO", logger="games.scheduler")

    # when
    with clock.frozen(NOON):
        call_command("runscheduler", "--once", "--days=2", f"--heartbeat={heartbeat}")

    # then
    dates = set(Deal.objects.filter(variant__slug="caprice").values_list("date", flat=True))
    assert dates == {NOON.date(), NOON.date() + dt.timedelta(days=1)}
    assert "preparedeals starts" in said(caplog)
    assert "2026-12-01 caprice" in said(caplog)  # what the jobs print is logged too
    assert "closed 0 game(s)" in said(caplog)
    assert capsys.readouterr().out == ""
    assert "closedays done" in said(caplog)
    assert heartbeat.exists()


@pytest.mark.django_db(transaction=True)
def test_a_failed_run_leaves_the_heartbeat_and_is_retried_after_the_delay(
    quick_deals, tmp_path, monkeypatch, caplog
) -> None:
    # given a database that fails preparedeals
    caplog.set_level("INFO", logger="games.scheduler")

    def unavailable(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(preparedeals, "deals_prepare", unavailable)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        raise Stop

    monkeypatch.setattr(runscheduler.time, "sleep", sleep)
    heartbeat = tmp_path / "heartbeat"

    # when the loop runs
    with clock.frozen(NOON), pytest.raises(Stop):
        call_command("runscheduler", "--retry=20", f"--heartbeat={heartbeat}")

    # then it said why, ran no closedays, and sleeps the retry delay (shorter than a poll)
    assert "preparedeals failed: OperationalError: connection refused" in said(caplog)
    assert "closedays starts" not in said(caplog)
    failure = next(record for record in caplog.records if record.levelname == "ERROR")
    assert failure.exc_info is not None  # the traceback
    assert "next run at 2026-12-01T12:00:20Z" in said(caplog)
    assert slept == [20.0]
    assert not heartbeat.exists()


@pytest.mark.django_db(transaction=True)
def test_after_a_successful_run_it_sleeps_until_the_next_morning(
    quick_deals, monkeypatch, caplog
) -> None:
    caplog.set_level("INFO", logger="games.scheduler")
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        raise Stop

    monkeypatch.setattr(runscheduler.time, "sleep", sleep)

    with clock.frozen(NOON), pytest.raises(Stop):
        call_command("runscheduler", "--days=1", "--poll=3600")

    assert "next run at 2026-12-02T00:05:00Z" in said(caplog)
    assert slept == [3600.0]  # a poll; the last one before the morning ends at the run


@pytest.mark.django_db(transaction=True)
def test_between_runs_it_regenerates_what_an_admin_asked_for_at_each_poll(
    quick_deals, monkeypatch, caplog
) -> None:
    # given the loop's first run done, and a deal of tomorrow asked for after it
    caplog.set_level("INFO", logger="games.scheduler")
    looks: list[float] = []
    caprice = Variant.objects.get(slug="caprice")
    tomorrow = NOON.date() + dt.timedelta(days=1)

    def sleep(seconds: float) -> None:
        looks.append(seconds)
        if len(looks) == 1:
            deal = Deal.objects.get(variant=caprice, date=tomorrow)
            assert deal.regeneration_requested_at is None  # nothing asked yet: nothing run
            deal_request_regeneration(deal_id=deal.pk)
            Variant.objects.filter(pk=caprice.pk).update(rules=NEW_RULES)
        else:
            raise Stop

    monkeypatch.setattr(runscheduler.time, "sleep", sleep)

    # when the loop polls again
    with clock.frozen(NOON), pytest.raises(Stop):
        call_command("runscheduler", "--days=2", "--poll=30")

    # then that poll regenerated it by the new rules, and the daily jobs did not run again
    deal = Deal.objects.get(variant=caprice, date=tomorrow)
    assert deal.rules == NEW_RULES and deal.regeneration_requested_at is None
    assert said(caplog).count("preparedeals starts") == 1
    assert "regeneratedeals starts" in said(caplog)
    assert f"{deal} regenerated: attempt 0" in said(caplog)
    assert looks == [30.0, 30.0]


@pytest.mark.django_db(transaction=True)
def test_a_failed_regeneration_keeps_its_request_and_the_loop_goes_on(
    quick_deals, monkeypatch, caplog
) -> None:
    # given a deal of tomorrow asked for, and a solver that fails
    caplog.set_level("INFO", logger="games.scheduler")
    with clock.frozen(NOON):
        call_command("runscheduler", "--once", "--days=2")
    deal = Deal.objects.get(variant__slug="caprice", date=NOON.date() + dt.timedelta(days=1))
    with clock.frozen(NOON):
        deal_request_regeneration(deal_id=deal.pk)

    def unavailable(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(regeneratedeals, "deals_regenerate_requested", unavailable)

    # when the scheduler runs once more
    with clock.frozen(NOON):
        call_command("runscheduler", "--once", "--days=2")

    # then it said why, and the request waits for the next look
    assert "regeneratedeals failed: OperationalError: connection refused" in said(caplog)
    deal.refresh_from_db()
    assert deal.regeneration_requested_at == NOON


@pytest.mark.django_db(transaction=True)
def test_once_exits_1_when_the_run_failed(quick_deals, monkeypatch) -> None:
    def unavailable(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(preparedeals, "deals_prepare", unavailable)

    with pytest.raises(SystemExit) as stop:
        call_command("runscheduler", "--once")

    assert stop.value.code == 1


@pytest.mark.django_db(transaction=True)
def test_between_runs_it_checks_the_deals_a_request_made_on_demand(
    quick_deals, monkeypatch, caplog
) -> None:
    # given today's deal made on demand after the run (as if the run had not reached it)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 1:
            Deal.objects.all().delete()
            with clock.frozen(NOON):
                deal_get_or_create(variant=Variant.objects.get(slug="caprice"), date=NOON.date())
            return
        raise Stop

    monkeypatch.setattr(runscheduler.time, "sleep", sleep)
    caplog.set_level("INFO", logger="games.scheduler")

    # when the loop looks again
    with clock.frozen(NOON), pytest.raises(Stop):
        call_command("runscheduler", "--days=1", "--poll=30")

    # then the deal was checked where it stands, however the solver ended
    made = Deal.objects.get(variant__slug="caprice", date=NOON.date())
    assert (made.checking, made.attempt) == (False, 0)
    verdict = "certified" if made.certified else "not proved winnable"
    assert f"caprice 2026-12-01 checked: {verdict}" in said(caplog)
