"""``manage.py check`` warns when the workers' pools can exceed PostgreSQL's connections."""

from __future__ import annotations

import pytest

from config.checks import check_connection_budget, connection_budget_warnings, pool_size

POSTGRES = {"ENGINE": "django.db.backends.postgresql", "NAME": "daily"}


def pooled(size: int) -> dict:
    return {**POSTGRES, "OPTIONS": {"pool": {"min_size": 1, "max_size": size}}}


@pytest.mark.parametrize(
    ("database", "expected"),
    [
        ({"OPTIONS": {"pool": {"max_size": 7}}}, 7),
        ({"OPTIONS": {"pool": True}}, 4),
        ({"OPTIONS": {}}, None),
        ({}, None),
    ],
)
def test_pool_size_reads_the_pools_maximum(database: dict, expected: int | None) -> None:
    assert pool_size(database) == expected


def test_a_budget_within_max_connections_raises_nothing() -> None:
    assert connection_budget_warnings(pooled(10), workers=4, budget=100, threads=10) == []


def test_workers_times_the_pool_beyond_max_connections_is_warned() -> None:
    warnings = connection_budget_warnings(pooled(25), workers=5, budget=100, threads=25)

    assert [w.id for w in warnings] == ["config.W001"]
    assert warnings[0].msg.startswith("5 workers × a pool of 25 connections = 125")


def test_more_request_threads_than_pooled_connections_is_warned() -> None:
    warnings = connection_budget_warnings(pooled(4), workers=1, budget=100, threads=16)

    assert [w.id for w in warnings] == ["config.W002"]


def test_without_a_pool_there_is_nothing_to_check() -> None:
    database = {**POSTGRES, "OPTIONS": {}}

    assert connection_budget_warnings(database, workers=1000, budget=100, threads=99) == []


def test_the_settings_of_this_run_pass_the_check() -> None:
    assert check_connection_budget() == []
