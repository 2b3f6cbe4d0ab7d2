"""``docker-compose.yml`` validates, refuses to start without its secrets, and is wired for
production: nginx alone publishes a port, a one-shot migrate job runs before the workers and
the scheduler, every long-running service has a health check and a restart policy.

There is no container engine in the test environment: the file is checked by
``docker-compose config`` (skipped when docker-compose is missing; ``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

COMPOSE = shutil.which("docker-compose")
pytestmark = pytest.mark.skipif(COMPOSE is None, reason="docker-compose is not installed")

REQUIRED = {
    "SECRET_KEY": "test-key",
    "DEAL_SECRET": "test-deal",
    "POSTGRES_PASSWORD": "a0b1c2d3e4f5",
    "ALLOWED_HOSTS": "play.example",
}
LONG_RUNNING = ("db", "redis", "web", "scheduler", "nginx")


def compose_config(extra_env: dict[str, str], *, quiet: bool) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name not in REQUIRED}
    command = [str(COMPOSE), "-f", "docker-compose.yml", "config"]
    return subprocess.run(
        [*command, "-q"] if quiet else command,
        cwd=settings.BASE_DIR,
        env={**env, **extra_env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """Return the compose file as docker-compose resolves it, with the required values set."""
    result = compose_config(REQUIRED, quiet=False)
    assert result.returncode == 0, result.stderr
    return yaml.safe_load(result.stdout)


def test_compose_file_validates_with_secrets_given() -> None:
    result = compose_config(REQUIRED, quiet=True)

    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("missing", sorted(REQUIRED))
def test_compose_file_requires_each_secret(missing: str) -> None:
    # given every required value but one
    given = {name: value for name, value in REQUIRED.items() if name != missing}

    # when
    result = compose_config(given, quiet=True)

    # then it refuses, naming the missing one
    assert result.returncode != 0
    assert f"set {missing}" in result.stderr


def test_only_nginx_publishes_a_port(config) -> None:
    services = config["services"]

    assert [name for name, service in services.items() if service.get("ports")] == ["nginx"]
    assert "80" in str(services["nginx"]["ports"][0])
    assert services["web"]["expose"] == ["8000"]
    assert services["web"]["command"][:4] == [
        "python",
        "-m",
        "config.serve",
        "config.asgi:application",
    ]


def test_postgresql_and_redis_are_only_on_the_internal_network(config) -> None:
    services = config["services"]

    assert config["networks"]["backend"]["internal"] is True
    assert set(services["db"]["networks"]) == {"backend"}
    assert set(services["redis"]["networks"]) == {"backend"}
    assert "backend" not in services["nginx"]["networks"]  # nginx reaches the workers only


def test_postgresql_uses_a_password_that_the_database_url_carries(config) -> None:
    db = config["services"]["db"]["environment"]
    password = REQUIRED["POSTGRES_PASSWORD"]

    assert db["POSTGRES_PASSWORD"] == password
    assert "POSTGRES_HOST_AUTH_METHOD" not in db  # no trust authentication
    for name in ("migrate", "web", "scheduler"):
        url = config["services"][name]["environment"]["DATABASE_URL"]
        assert url == f"postgres://daily_patience:{password}@db:5432/daily_patience"


def test_the_secrets_reach_every_service_of_the_app(config) -> None:
    for name in ("migrate", "web", "scheduler"):
        environment = config["services"][name]["environment"]
        assert environment["SECRET_KEY"] == REQUIRED["SECRET_KEY"]
        assert environment["DEAL_SECRET"] == REQUIRED["DEAL_SECRET"]
        assert environment["ALLOWED_HOSTS"] == REQUIRED["ALLOWED_HOSTS"]
        assert environment["DEBUG"] == "false"
        assert environment["REDIS_URL"] == "redis://redis:6379/0"


@pytest.mark.parametrize("name", LONG_RUNNING)
def test_every_long_running_service_has_a_health_check_and_restarts(config, name: str) -> None:
    service = config["services"][name]

    assert service["restart"] == "unless-stopped"
    assert service["healthcheck"]["test"]
    assert service["healthcheck"].get("disable") is not True


def test_the_web_health_check_asks_the_apps_health_url(config) -> None:
    test = config["services"]["web"]["healthcheck"]["test"]

    assert test[:3] == ["CMD", "python", "deploy/healthcheck.py"]
    assert test[3] == "http://127.0.0.1:8000/readyz"
    assert (Path(settings.BASE_DIR) / "deploy" / "healthcheck.py").is_file()


def test_migrations_run_once_before_the_workers_and_the_scheduler(config) -> None:
    services = config["services"]
    script = " ".join(services["migrate"]["command"])

    assert services["migrate"]["restart"] == "no"
    assert script.index("migrate --noinput") < script.index("loadvariants")
    assert "collectstatic --noinput" in script
    for name in ("web", "scheduler"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }
        assert "migrate" not in " ".join(services[name]["command"])
    assert services["nginx"]["depends_on"]["web"] == {"condition": "service_healthy"}


def test_the_scheduler_runs_the_daily_jobs_shortly_after_midnight(config) -> None:
    command = config["services"]["scheduler"]["command"]

    assert command[:3] == ["python", "manage.py", "runscheduler"]
    assert "--at=00:05" in command
    assert "--heartbeat=/tmp/scheduler-heartbeat" in command
    assert "/tmp/scheduler-heartbeat" in config["services"]["scheduler"]["healthcheck"]["test"][1]


def test_nginx_serves_the_static_files_that_collectstatic_writes(config) -> None:
    services = config["services"]

    assert "static:/app/staticfiles:rw" in services["migrate"]["volumes"]
    nginx_volumes = services["nginx"]["volumes"]
    assert "static:/srv/static:ro" in nginx_volumes
    assert any(
        volume.endswith("/deploy/nginx.conf:/etc/nginx/nginx.conf:ro") for volume in nginx_volumes
    )
    assert Path(settings.STATIC_ROOT) == Path(settings.BASE_DIR) / "staticfiles"  # /app/...


def test_the_workers_are_configured_for_https_behind_the_proxies(config) -> None:
    environment = config["services"]["web"]["environment"]

    assert environment["TRUST_X_FORWARDED_PROTO"] == "true"
    assert environment["SECURE_SSL_REDIRECT"] == "true"
    assert environment["SESSION_COOKIE_SECURE"] == "true"
    assert environment["CSRF_COOKIE_SECURE"] == "true"
    assert environment["NUM_PROXIES"] == "2"  # the TLS proxy and nginx
    workers, pool = int(environment["WEB_CONCURRENCY"]), int(environment["DATABASE_POOL_MAX"])
    assert workers * pool <= int(environment["DATABASE_MAX_CONNECTIONS"])


def test_the_image_runs_as_a_user_collects_static_files_and_serves_with_config_serve() -> None:
    dockerfile = (Path(settings.BASE_DIR) / "Dockerfile").read_text()

    assert re.search(r"^USER patience$", dockerfile, re.MULTILINE)
    assert "collectstatic --noinput" in dockerfile
    # uvicorn with a listening socket per worker (config/serve.py), in the image and in compose
    serve = r'^CMD \["python", "-m", "config.serve", "config.asgi:application"'
    assert re.search(serve, dockerfile, re.MULTILINE)
    assert "migrate" not in dockerfile.split("CMD", 1)[1]
    ignored = (Path(settings.BASE_DIR) / ".dockerignore").read_text().split()
    assert {".env", "backups", "var", ".git"} <= set(ignored)


def example_values() -> dict[str, str]:
    path = Path(settings.BASE_DIR) / "deploy" / "production.env.example"
    lines = [line.strip() for line in path.read_text().splitlines()]
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_the_environment_template_lists_every_variable_with_the_compose_defaults() -> None:
    # given the variables docker-compose.yml interpolates, with their defaults
    text = (Path(settings.BASE_DIR) / "docker-compose.yml").read_text()
    used = dict(re.findall(r"\$\{([A-Z_]+)(?::-([^}]*)|:\?[^}]*)?\}", text))

    # when
    example = example_values()

    # then the template has them all, the required ones empty, the others at the default
    assert set(example) == set(used)
    for name in REQUIRED:
        assert example[name] == ""
    for name, default in used.items():
        if name not in REQUIRED:
            assert example[name] == default, name


def test_the_template_filled_in_validates() -> None:
    filled = {**example_values(), **REQUIRED}

    assert compose_config(filled, quiet=True).returncode == 0
