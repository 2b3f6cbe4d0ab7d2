"""``docker-compose.yml`` validates, and refuses to start without secrets."""

import os
import shutil
import subprocess

import pytest
from django.conf import settings

COMPOSE = shutil.which("docker-compose")
pytestmark = pytest.mark.skipif(COMPOSE is None, reason="docker-compose is not installed")


def compose_config(extra_env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"SECRET_KEY", "DEAL_SECRET"}
    }
    return subprocess.run(
        [str(COMPOSE), "-f", "docker-compose.yml", "config", "-q"],
        cwd=settings.BASE_DIR,
        env={**env, **extra_env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_compose_file_validates_with_secrets_given() -> None:
    result = compose_config({"SECRET_KEY": "test-key", "DEAL_SECRET": "test-deal"})

    assert result.returncode == 0, result.stderr


def test_compose_file_requires_the_secrets() -> None:
    result = compose_config({})

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr or "DEAL_SECRET" in result.stderr
