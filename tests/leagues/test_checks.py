"""The system check of the league limits (``leagues.E001``)."""

from __future__ import annotations

import pytest

from leagues.checks import check_league_limits


@pytest.mark.parametrize("value", [0, -3, "10", None, True])
def test_a_league_limit_below_one_or_not_a_number_is_an_error(settings, value):
    settings.LEAGUE_MEMBERS = value
    assert [error.id for error in check_league_limits()] == ["leagues.E001"]


def test_the_default_limits_pass():
    assert check_league_limits() == []
