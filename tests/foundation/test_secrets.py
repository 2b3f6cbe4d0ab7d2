"""Secrets come from the environment, or from a file generated once and reused."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env as config_env


def test_environment_values_win_and_no_file_is_written(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secrets.env"

    values = config_env.secrets_config(
        {"SECRET_KEY": "key-from-env", "DEAL_SECRET": "deal-from-env"}, path, debug=False
    )

    assert values == {"SECRET_KEY": "key-from-env", "DEAL_SECRET": "deal-from-env"}
    assert not path.exists()


def test_missing_secrets_are_generated_once_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secrets.env"

    first = config_env.secrets_config({}, path, debug=True)
    second = config_env.secrets_config({}, path, debug=False)

    assert first == second
    assert len(first["SECRET_KEY"]) >= 50
    assert first["SECRET_KEY"] != first["DEAL_SECRET"]
    assert path.stat().st_mode & 0o077 == 0


def test_environment_value_overrides_only_its_own_secret(tmp_path: Path) -> None:
    path = tmp_path / "secrets.env"
    stored = config_env.secrets_config({}, path, debug=True)

    values = config_env.secrets_config({"DEAL_SECRET": "deal-from-env"}, path, debug=False)

    assert values == {"SECRET_KEY": stored["SECRET_KEY"], "DEAL_SECRET": "deal-from-env"}


def test_production_without_secrets_or_writable_file_refuses_to_start(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    path = blocker / "secrets.env"

    with pytest.raises(ImproperlyConfigured, match="Set SECRET_KEY, DEAL_SECRET"):
        config_env.secrets_config({}, path, debug=False)


def test_development_without_writable_file_still_starts(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")

    values = config_env.secrets_config({}, blocker / "secrets.env", debug=True)

    assert set(values) == {"SECRET_KEY", "DEAL_SECRET"}
