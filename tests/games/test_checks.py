"""System checks report misconfiguration at ``manage.py check``, not at the first request."""

from __future__ import annotations

import io

import pytest
from django.core import checks
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from games import checks as game_checks


def ids(messages: list[checks.CheckMessage]) -> list[str]:
    return [message.id for message in messages]


def test_the_configured_service_passes_its_checks() -> None:
    assert game_checks.check_deal_secret() == []
    assert game_checks.check_throttle_rates() == []
    assert game_checks.check_shipped_variants() == []


def test_a_missing_deal_secret_is_an_error(settings) -> None:
    settings.DEAL_SECRET = ""

    assert ids(game_checks.check_deal_secret()) == ["games.E001"]


def test_a_throttle_scope_without_a_rate_is_an_error(settings) -> None:
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    scope = sorted(game_checks._throttle_scopes())[0]
    rates.pop(scope)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    assert ids(game_checks.check_throttle_rates()) == ["games.E002"]


def test_a_malformed_rate_is_an_error(settings) -> None:
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    scope = sorted(game_checks._throttle_scopes())[0]
    rates[scope] = "lots"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    assert ids(game_checks.check_throttle_rates()) == ["games.E002"]


def test_a_shipped_variant_that_does_not_compile_is_an_error(monkeypatch) -> None:
    from games import engine

    broken = [{"slug": "broken", "rules": {"decks": 0}}]
    monkeypatch.setattr(engine, "catalogue", lambda: broken)

    assert ids(game_checks.check_shipped_variants()) == ["games.E003"]


def test_manage_py_check_runs_them(settings) -> None:
    settings.DEAL_SECRET = ""

    assert "games.E001" in ids(checks.run_checks(tags=[checks.Tags.security]))


# --- through manage.py check --------------------------------------------------------------


def check_output(**options) -> str:
    """Run ``manage.py check``; return what it reported (raising or not)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("check", stdout=out, stderr=err, **options)
    except SystemCheckError as error:
        return f"{out.getvalue()}{err.getvalue()}{error}"
    return out.getvalue() + err.getvalue()


def test_check_refuses_a_missing_deal_secret(settings) -> None:
    settings.DEAL_SECRET = ""

    with pytest.raises(SystemCheckError, match=r"games\.E001"):
        call_command("check")


@pytest.mark.parametrize("placeholder", ["collectstatic", "change-me", "CHANGEME"])
def test_check_refuses_a_placeholder_deal_secret(settings, placeholder) -> None:
    settings.DEAL_SECRET = placeholder

    with pytest.raises(SystemCheckError, match=r"games\.E001"):
        call_command("check")


def test_check_warns_of_a_short_deal_secret_in_production(settings) -> None:
    settings.DEBUG = False
    settings.DEAL_SECRET = "only-twenty-characte"

    assert ids(game_checks.check_deal_secret()) == ["games.W001"]
    assert "games.W001" in check_output()
    settings.DEBUG = True
    assert game_checks.check_deal_secret() == []  # development may use anything


def test_check_refuses_a_throttle_scope_without_a_rate(settings) -> None:
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    rates.pop("moves_player")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    with pytest.raises(SystemCheckError, match=r"games\.E002.*'moves_player'"):
        call_command("check")


def test_check_refuses_a_rate_for_a_scope_no_throttle_has(settings) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "moves_playr": "10/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    with pytest.raises(SystemCheckError, match=r"games\.E002.*'moves_playr'"):
        call_command("check")


def test_check_refuses_a_throttle_variable_that_would_be_ignored(monkeypatch) -> None:
    # given a typo in the environment: THROTTLE_MOVE_PLAYER for THROTTLE_MOVES_PLAYER
    monkeypatch.setenv("THROTTLE_MOVE_PLAYER", "10/min")

    with pytest.raises(SystemCheckError, match=r"games\.E002.*THROTTLE_MOVE_PLAYER"):
        call_command("check")


def test_check_refuses_a_shipped_variant_that_does_not_compile(monkeypatch) -> None:
    from games import engine

    shipped = engine.catalogue()
    broken = {**shipped[0], "rules": {**shipped[0]["rules"], "decks": 0}}
    monkeypatch.setattr(engine, "catalogue", lambda: [broken, *shipped[1:]])

    with pytest.raises(SystemCheckError, match=rf"games\.E003.*'{broken['slug']}'"):
        call_command("check")


def test_check_passes_in_the_configured_service() -> None:
    assert "no issues" in check_output()
