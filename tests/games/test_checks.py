"""System checks report misconfiguration at ``manage.py check``, not at the first request."""

from __future__ import annotations

from django.core import checks

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
