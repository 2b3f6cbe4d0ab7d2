"""A day opened for reading: today's deal made on demand, a past day's games left playing closed.

A read of a day is not a pure read: the first to ask for today's deal makes it, and a day that
is over closes its games still in play first (so no board shows a game that can no longer be
played). This module holds that one write, so that the deals' and the games' services need not
know each other's.

``daily_list`` is what ``GET /api/daily/`` shows: every daily variant's deal of today with its
counts. Everyone asks for it, all at once at the rollover, and it is the same for everyone, so
each process builds it at most once per ``DAILY_LIST_SECONDS`` (default 2; 0 builds it on every
call): its counts of players may be that much behind.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock, payloads, selectors
from games.models import Deal
from games.services.deals import daily_deals, deal_get_or_create, deals_publish
from games.services.games import games_close_expired

_built: dict[str, Any] = {"day": None, "at": 0.0, "entries": None}
_building = threading.Lock()


def daily_list() -> list[dict[str, Any]]:
    """Return today's deal of every daily variant (made on demand) with its counts and
    tomorrow's commitment: the list of ``GET /api/daily/``, at most ``DAILY_LIST_SECONDS`` old."""
    seconds = settings.DAILY_LIST_SECONDS
    day = clock.today()
    if seconds > 0:
        built = dict(_built)
        if built["day"] == day and time.monotonic() - built["at"] < seconds:
            return built["entries"]
    with _building:  # one thread builds it; the others then take what it built
        if seconds > 0 and _built["day"] == day and time.monotonic() - _built["at"] < seconds:
            return _built["entries"]
        deals = daily_deals(date=day)
        # Tomorrow's commitment is about to be shown: from now on that deal never changes.
        published = deals_publish(deal_ids=[next_.pk for _, next_ in deals if next_ is not None])
        for _, next_ in deals:
            if next_ is not None:
                next_.commitment = published[next_.pk]
        entries = [
            {**selectors.daily_entry(today), "next": payloads.next_deal_payload(tomorrow)}
            for today, tomorrow in deals
        ]
        _built.update(day=day, at=time.monotonic(), entries=entries)
        return entries


def deal_of_day(*, slug: str, date_text: str) -> Deal:
    """Return a daily deal for reading: today's is made on demand, a past one gets its games
    left playing closed first. Raise ``not_found`` for an unknown variant, a bad or future date
    and a past day that was never dealt."""
    date = selectors.check_date(date_text)
    found = selectors.access_past_or_present_deal(slug, date)
    if found is None:
        if date != clock.today():
            raise ServiceError(ErrorCode.NOT_FOUND, gettext("No deal was made that day."))
        return deal_get_or_create(variant=selectors.access_variant(slug), date=date)
    if date < clock.today():
        games_close_expired(deal=found)
    return found
