"""Secrets come from the environment, or from a file generated once and reused."""

import json
import os
import subprocess
import sys
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


# --- rotating SECRET_KEY (docs/operations.md, Rotating secrets) -----------------------------


def test_secret_key_fallbacks_are_read_from_the_environment() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SECRET_KEY")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY_FALLBACKS": " old-key-one , old-key-two ,",
    }
    code = "import django, json; django.setup(); from django.conf import settings; "
    code += "print(json.dumps(settings.SECRET_KEY_FALLBACKS))"

    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["old-key-one", "old-key-two"]


@pytest.mark.parametrize("fallback", [True, False])
def test_a_session_survives_a_key_rotation_only_with_the_old_key_as_fallback(
    settings, db, fallback
) -> None:
    # given a player signed in under the old key
    from django.contrib.auth import get_user_model
    from django.test import Client

    settings.SECRET_KEY = "the-old-signing-key-" + "o" * 40
    player = get_user_model().objects.create_user(nickname="Alice", password="a long password")
    client = Client()
    client.force_login(player)

    # when the key is rotated
    old = settings.SECRET_KEY
    settings.SECRET_KEY = "the-new-signing-key-" + "n" * 40
    settings.SECRET_KEY_FALLBACKS = [old] if fallback else []
    answer = client.get("/api/me/")

    # then the session holds with the fallback, and is signed out without it
    assert answer.status_code == (200 if fallback else 401)
