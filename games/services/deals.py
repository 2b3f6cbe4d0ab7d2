"""Writes of daily deals: made once per variant and day, from the secret and the date."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import IntegrityError, transaction

from games import clock, selectors
from games.engine import commitment, daily_seed
from games.errors import ErrorCode, ServiceError
from games.models import Deal, Variant


def _deal_secret() -> str:
    secret = getattr(settings, "DEAL_SECRET", "")
    if not secret:
        raise RuntimeError("DEAL_SECRET is not configured")
    return secret


def deal_get_or_create(*, variant: Variant, date: dt.date) -> Deal:
    """Return the variant's deal of ``date``, making it (seed, commitment, frozen rules) once."""
    existing = Deal.objects.filter(variant=variant, date=date).select_related("variant").first()
    if existing is not None:
        return existing
    seed = daily_seed(_deal_secret(), variant.slug, date.isoformat(), 0)
    try:
        with transaction.atomic():
            return Deal.objects.create(
                variant=variant,
                date=date,
                attempt=0,
                seed=seed.hex(),
                commitment=commitment(seed),
                rules=variant.rules,
            )
    except IntegrityError:  # made by a concurrent request
        return Deal.objects.select_related("variant").get(variant=variant, date=date)


def daily_deals(*, date: dt.date | None = None) -> list[tuple[Deal, Deal]]:
    """Return, per enabled daily variant, its deal of ``date`` (default today) and of the next
    day, making them on demand: the next day's commitment is published a day ahead."""
    day = date or clock.today()
    return [
        (
            deal_get_or_create(variant=variant, date=day),
            deal_get_or_create(variant=variant, date=day + dt.timedelta(days=1)),
        )
        for variant in Variant.objects.filter(enabled=True, daily=True)
    ]


def deal_of_day(*, slug: str, date_text: str) -> Deal:
    """Return a daily deal for reading: today's is made on demand, a past one gets its games
    left playing closed first. Raise ``not_found`` for an unknown variant, a bad or future date
    and a past day that was never dealt."""
    from games.services.games import games_close_expired

    date = selectors.check_date(date_text)
    found = selectors.access_past_or_present_deal(slug, date)
    if found is None:
        if date != clock.today():
            raise ServiceError(ErrorCode.NOT_FOUND, "No deal was made that day.")
        return deal_get_or_create(variant=selectors.access_variant(slug), date=date)
    if date < clock.today():
        games_close_expired(deal=found)
    return found


def deals_prepare(*, days: int, start: dt.date | None = None) -> list[Deal]:
    """Make the deals of every daily variant for ``days`` days from ``start`` (default today)."""
    first = start or clock.today()
    made = []
    for variant in Variant.objects.filter(enabled=True, daily=True):
        for offset in range(days):
            made.append(deal_get_or_create(variant=variant, date=first + dt.timedelta(days=offset)))
    return made
