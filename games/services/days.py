"""A day opened for reading: today's deal made on demand, a past day's games left playing closed.

A read of a day is not a pure read: the first to ask for today's deal makes it, and a day that
is over closes its games still in play first (so no board shows a game that can no longer be
played). This module holds that one write, so that the deals' and the games' services need not
know each other's.
"""

from __future__ import annotations

from django.utils.translation import gettext

from core.errors import ErrorCode, ServiceError
from games import clock, selectors
from games.models import Deal
from games.services.deals import deal_get_or_create
from games.services.games import games_close_expired


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
