"""Settings come from the environment: the embedded default and the service configuration."""

from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config import env as config_env

BASE = Path("/srv/daily-patience")
SERVICES = {
    "DATABASE_URL": "postgres://patience:pw@db.example:5433/daily",
    "REDIS_URL": "redis://cache.example:6380/2",
}


def test_embedded_default_uses_sqlite_memory_layer_and_locmem_cache() -> None:
    database = config_env.database_config({}, BASE)
    assert database["ENGINE"] == "django.db.backends.sqlite3"
    assert database["NAME"] == str(BASE / "db.sqlite3")
    assert database["OPTIONS"] == {"transaction_mode": "IMMEDIATE", "timeout": 20}
    assert database["TEST"]["NAME"].startswith(str(BASE / "var" / "test-"))
    assert config_env.channel_layers_config({}) == {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    }
    assert config_env.cache_config({})["default"]["BACKEND"] == (
        "django.core.cache.backends.locmem.LocMemCache"
    )


def test_database_url_selects_postgresql_with_a_bounded_connection_pool() -> None:
    config = config_env.database_config(SERVICES, BASE)

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "daily")
    assert (config["USER"], config["PASSWORD"]) == ("patience", "pw")
    assert config["CONN_MAX_AGE"] == 0  # the pool requires it
    assert config["OPTIONS"]["pool"] == {
        "min_size": 2,
        "max_size": 10,
        "timeout": 5.0,
        "max_idle": 300,
    }
    assert config["OPTIONS"]["connect_timeout"] == 5
    # the move's server-bound statement may be prepared (Django's default None forbids it)
    assert config["OPTIONS"]["prepare_threshold"] == config_env.PREPARE_THRESHOLD


def test_the_pool_is_sized_from_the_environment() -> None:
    env = {
        **SERVICES,
        "DATABASE_POOL_MIN": "1",
        "DATABASE_POOL_MAX": "4",
        "DATABASE_POOL_TIMEOUT": "0.5",
    }

    pool = config_env.database_config(env, BASE)["OPTIONS"]["pool"]

    assert (pool["min_size"], pool["max_size"], pool["timeout"]) == (1, 4, 0.5)


@pytest.mark.parametrize(
    "sizes", [{"DATABASE_POOL_MIN": "5", "DATABASE_POOL_MAX": "2"}, {"DATABASE_POOL_MAX": "0"}]
)
def test_a_pool_that_cannot_work_is_refused(sizes: dict) -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL_M"):
        config_env.database_config({**SERVICES, **sizes}, BASE)


@pytest.mark.parametrize("pool", ["true", "false"])
def test_the_urls_own_options_are_kept_beside_the_connections(pool: str) -> None:
    url = SERVICES["DATABASE_URL"] + "?sslmode=require"
    env = {**SERVICES, "DATABASE_URL": url, "DATABASE_POOL": pool}

    options = config_env.database_config(env, BASE)["OPTIONS"]

    assert options["sslmode"] == "require"
    assert options["prepare_threshold"] == config_env.PREPARE_THRESHOLD
    assert ("pool" in options) == (pool == "true")


def test_without_the_pool_connections_persist_for_conn_max_age() -> None:
    env = {**SERVICES, "DATABASE_POOL": "false", "CONN_MAX_AGE": "30"}

    config = config_env.database_config(env, BASE)

    assert "pool" not in config["OPTIONS"]
    assert (config["CONN_MAX_AGE"], config["CONN_HEALTH_CHECKS"]) == (30, True)


def test_redis_url_selects_redis_channel_layer_and_cache() -> None:
    layers = config_env.channel_layers_config(SERVICES)
    caches = config_env.cache_config(SERVICES)

    assert layers["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    host = layers["default"]["CONFIG"]["hosts"][0]
    assert host["address"] == "redis://cache.example:6380/2"
    assert host["socket_connect_timeout"] <= 1 and 5 < host["socket_timeout"] <= 10
    assert caches["default"]["BACKEND"] == "django_redis.cache.RedisCache"
    assert caches["default"]["LOCATION"] == "redis://cache.example:6380/2"
    options = caches["default"]["OPTIONS"]
    assert options["IGNORE_EXCEPTIONS"] is True
    assert options["SOCKET_CONNECT_TIMEOUT"] == options["SOCKET_TIMEOUT"] == 0.25


def test_a_number_that_is_not_one_is_refused() -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL_MAX must be a whole number"):
        config_env.database_config({**SERVICES, "DATABASE_POOL_MAX": "many"}, BASE)


@pytest.mark.parametrize("raw", ["0", "-1", "nan", "inf", "3601"])
def test_a_solver_budget_that_is_not_one_is_refused(raw: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="DEAL_CERTIFY_SECONDS must be more than 0"):
        config_env.env_seconds({"DEAL_CERTIFY_SECONDS": raw}, "DEAL_CERTIFY_SECONDS", 10, 3600)


def test_a_solver_budget_is_read_or_defaults() -> None:
    assert config_env.env_seconds({"HINT_SECONDS": "0.5"}, "HINT_SECONDS", 1, 60) == 0.5
    assert config_env.env_seconds({}, "HINT_SECONDS", 1, 60) == 1


def test_a_count_below_its_least_is_refused() -> None:
    with pytest.raises(ImproperlyConfigured, match="DEAL_ATTEMPTS must be at least 1, not 0"):
        config_env.env_count({"DEAL_ATTEMPTS": "0"}, "DEAL_ATTEMPTS", 5, 1)
    assert config_env.env_count({"HINT_PROCESSES": "0"}, "HINT_PROCESSES", 1, 0) == 0


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, True),
        (SERVICES, False),
        ({"REDIS_URL": SERVICES["REDIS_URL"]}, False),
        ({**SERVICES, "DEBUG": "true"}, True),
        ({"DEBUG": "0"}, False),
    ],
)
def test_debug_defaults_to_true_only_in_the_embedded_default(env: dict, expected: bool) -> None:
    assert config_env.debug_config(env) is expected


def test_debug_rejects_a_word_it_does_not_know() -> None:
    with pytest.raises(ImproperlyConfigured, match="DEBUG must be true or false"):
        config_env.debug_config({"DEBUG": "maybe"})


def test_allowed_hosts_default_and_override() -> None:
    default = config_env.env_list({}, "ALLOWED_HOSTS", config_env.DEFAULT_ALLOWED_HOSTS)
    given = config_env.env_list({"ALLOWED_HOSTS": "a.example, b.example,"}, "ALLOWED_HOSTS", ())

    assert default == ["127.0.0.1", "localhost", "testserver"]
    assert given == ["a.example", "b.example"]


def test_csrf_trusted_origins_follow_allowed_hosts_unless_given() -> None:
    derived = config_env.csrf_trusted_origins({}, ["play.example", ".example.org", "*"])
    given = config_env.csrf_trusted_origins(
        {"CSRF_TRUSTED_ORIGINS": "https://a.example"}, ["play.example"]
    )

    assert derived == [
        "https://play.example",
        "http://play.example",
        "http://play.example:8000",
        "https://*.example.org",
        "http://*.example.org",
        "http://*.example.org:8000",
    ]
    assert given == ["https://a.example"]
